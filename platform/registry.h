// Registration of implementations under a name (the YAML `impl:` value) and a description,
// one registry per slot (the interface they implement).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gpurf/platform/params.h"
#include "gpurf/platform/stats.h"

namespace gpurf {

struct SlotInfo {
  std::string slot, description;
  // name -> description
  std::function<std::vector<std::pair<std::string, std::string>>()> impls;
  // Instantiates an implementation on default parameters and returns its declarations.
  std::function<std::vector<ParamDecl>(const std::string& impl)> describe;
  // Instantiates it on default parameters and calls `inspect` while it lives (its statistics
  // groups and sc_objects exist then: --describe, tests/statistics).
  std::function<void(const std::string& impl, const std::function<void()>& inspect)> build;
};
std::vector<SlotInfo>& all_slots();

// Registry of factories producing `Base` from `Args...`. Declared per interface with
// GPURF_SLOT(Base, "slot name", "description").
template <class Base, class... Args> class Registry {
public:
  using Factory = std::function<std::unique_ptr<Base>(Params&, Args...)>;
  struct Entry {
    std::string description;
    Factory make;
  };
  static std::map<std::string, Entry>& entries() {
    static std::map<std::string, Entry> e;
    return e;
  }
  static bool add(const std::string& name, const std::string& desc, Factory f) {
    entries()[name] = {desc, std::move(f)};
    return true;
  }
  // Registers `name` as another name of the existing implementation `of`.
  static bool alias(const std::string& name, const std::string& of, const std::string& desc) {
    return add(name, desc, entries().at(of).make);
  }
  static std::vector<std::string> names() {
    std::vector<std::string> n;
    for (auto& [k, v] : entries()) n.push_back(k);
    return n;
  }
  // Creates the implementation named by `impl`; unknown names list the registered ones.
  static std::unique_ptr<Base> create(const std::string& impl, Params& p, Args... args);
};

// Throws ConfigError: unknown implementation `impl` at params' `impl` key, listing `names`.
[[noreturn]] void unknown_impl(const Params& p, const std::string& impl,
                               const std::vector<std::string>& names);

template <class Base, class... Args>
std::unique_ptr<Base> Registry<Base, Args...>::create(const std::string& impl, Params& p,
                                                      Args... args) {
  auto it = entries().find(impl);
  if (it == entries().end()) unknown_impl(p, impl, names());
  return it->second.make(p, args...);
}

} // namespace gpurf

// Registers `Class`, constructible from (Params&, Args...), as implementation `name` of the
// slot whose interface is `Base` (which declares `using Registry = gpurf::Registry<...>`).
#define GPURF_REGISTER(Base, Class, name, desc)                                                    \
  static const bool gpurf_registered_##Class =                                                     \
      Base::Registry::add(name, desc, [](gpurf::Params& p, auto&&... a) -> std::unique_ptr<Base> { \
        return std::make_unique<Class>(p, a...);                                                   \
      })

// The same for an sc_module unit constructible from (sc_module_name, Params&, const
// UnitContext&): the module name is pushed for the whole construction, so the unit's
// sockets and children are named under it; every statistics group it makes records its
// platform key and `impl:` (stats.json's "_unit").
#define GPURF_REGISTER_UNIT(Base, Class, impl_name, desc)                                          \
  static const bool gpurf_registered_##Class = Base::Registry::add(                                \
      impl_name, desc,                                                                             \
      [](gpurf::Params& p, const gpurf::UnitContext& c) -> std::unique_ptr<Base> {                 \
        const size_t first = gpurf::all_stat_groups().size();                                      \
        auto u = std::make_unique<Class>(sc_core::sc_module_name(c.name.c_str()), p, c);           \
        gpurf::set_stat_origin(first, p.path(), impl_name);                                        \
        return u;                                                                                  \
      })

// Declares the slot of interface `Base` for --list/--describe; `make_default` is a callable
// (const std::string& impl, Params&) -> std::unique_ptr<Base> used by --describe.
#define GPURF_SLOT(Base, slot, desc, make_default)                                                 \
  static const bool gpurf_slot_##Base = gpurf::add_slot<Base>(slot, desc, make_default)

namespace gpurf {
template <class Base, class Make>
bool add_slot(const std::string& slot, const std::string& desc, Make make_default) {
  SlotInfo s;
  s.slot = slot;
  s.description = desc;
  s.impls = [] {
    std::vector<std::pair<std::string, std::string>> v;
    for (auto& [k, e] : Base::Registry::entries()) v.emplace_back(k, e.description);
    return v;
  };
  s.describe = [make_default](const std::string& impl) {
    Params p(nullptr, impl);
    auto obj = make_default(impl, p);
    return p.decls();
  };
  s.build = [make_default](const std::string& impl, const std::function<void()>& inspect) {
    Params p(nullptr, impl);
    auto obj = make_default(impl, p);
    inspect();
  };
  all_slots().push_back(std::move(s));
  return true;
}
} // namespace gpurf
