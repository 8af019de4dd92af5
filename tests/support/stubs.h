// Test support for the module tests: stub initiators and targets around one unit, the
// unit's configuration and context, and stat look-ups.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpurf/modules/common/txn.h"
#include "gpurf/modules/common/unit.h"
#include "gpurf/platform/config.h"
#include "gpurf/platform/params.h"
#include "gpurf/policies/reg_mapping.h"

namespace gpurf::test {

// An initiator the test drives by hand: sock->b_transport(...).
struct StubInit : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<StubInit> sock;
  explicit StubInit(sc_core::sc_module_name nm) : sc_module(nm), sock("sock") {}
};

// Records every transfer with the cycle it arrived in. The next `busy_for` transfers, and
// every transfer while `full`, are refused (Txn::busy) and only counted in `refused`.
struct StubTarget : sc_core::sc_module {
  tlm_utils::simple_target_socket<StubTarget> sock;
  SimClock* clock;
  struct Seen {
    Txn txn;
    Cycle at;
    sc_core::sc_time delay; // the annotated delay it arrived with
    tlm::tlm_command cmd;
    uint64_t addr;
    std::vector<unsigned char> be;   // byte enables, empty without
    std::vector<unsigned char> data; // the data, only with keep_data
    const InstInfo* info;            // txn.inst->info on arrival (nullptr without inst)
  };
  std::vector<Seen> seen;
  unsigned busy_for = 0;
  bool full = false;
  unsigned refused = 0;
  Cycle retry_at = 0;        // told with each refusal (Txn::retry_at)
  bool refuses_pipe = false; // told with each refusal (Txn::refuses_pipe)
  uint64_t skipped = 0;      // the initiators' skipped attempts told (Txn::skipped), summed
  uint64_t told_refused = 0; // issues a scheduler said were refused unsent (Kind::Refused)
  bool keep_data = false;

  StubTarget(sc_core::sc_module_name nm, SimClock* c) : sc_module(nm), sock("sock"), clock(c) {
    sock.register_b_transport(this, &StubTarget::b_transport);
  }
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& d) {
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    Txn& t = txn_of(gp);
    if (t.kind == Txn::Kind::Refused) return void(told_refused += t.skipped);
    skipped += t.skipped;
    if (full || busy_for) {
      if (!full) --busy_for;
      ++refused;
      t.busy = true;
      t.retry_at = retry_at;
      t.refuses_pipe = refuses_pipe;
      return;
    }
    Seen s{t,
           clock->now,
           d,
           gp.get_command(),
           gp.get_address(),
           {},
           {},
           t.inst ? t.inst->info : nullptr};
    if (const unsigned char* be = gp.get_byte_enable_ptr())
      s.be.assign(be, be + gp.get_byte_enable_length());
    if (keep_data && gp.get_data_ptr())
      s.data.assign(gp.get_data_ptr(), gp.get_data_ptr() + gp.get_data_length());
    seen.push_back(std::move(s));
  }
  size_t count(tlm::tlm_command c) const {
    size_t n = 0;
    for (const Seen& s : seen) n += s.cmd == c;
    return n;
  }
};

// The stat `n` of unit `u`: its total, or its value at index `i`.
inline uint64_t stat(Unit& u, const std::string& n, int i = -1) {
  for (const Stat& s : u.stats().stats())
    if (s.name == n) return i < 0 ? s.total() : s.values.at(i);
  ADD_FAILURE() << "no stat " << n;
  return 0;
}

// A distribution the unit declares (its samples so far).
inline const Distribution& dist(Unit& u, const std::string& n) {
  for (const Distribution& d : u.stats().distributions())
    if (d.name == n) return d;
  throw std::runtime_error("no distribution " + n);
}

// The configuration of the unit under test, kept alive as long as the unit.
struct UnitConfig {
  ConfigPtr cfg;
  std::unique_ptr<Params> params;
};

// Parses `yaml` ("" as "{}") as file `file`, section `section`, into `conf`, and creates
// implementation `impl` of interface I in the context `name` on `clock` (and `shape`);
// `adjust` sets the rest of the context. Every parameter must be used.
template <class I>
std::unique_ptr<I> make_unit(UnitConfig& conf, const std::string& yaml, const std::string& file,
                             const std::string& section, const std::string& impl,
                             const std::string& name, SimClock& clock, SmShape* shape = nullptr,
                             const std::function<void(UnitContext&)>& adjust = {}) {
  conf.cfg = parse_config_string(yaml.empty() ? "{}" : yaml, file);
  conf.params = std::make_unique<Params>(conf.cfg.get(), section);
  UnitContext c = default_context(name);
  c.clock = &clock;
  if (shape) c.shape = shape;
  if (adjust) adjust(c);
  std::unique_ptr<I> u = I::Registry::create(impl, *conf.params, c);
  conf.params->check_unused();
  return u;
}

// The "gpgpusim" register mapping for 4 banks, installed in `shape`.
inline std::unique_ptr<RegMapping> install_mapping(SmShape& shape) {
  Params none(nullptr, "register_mapping");
  std::unique_ptr<RegMapping> m = RegMapping::Registry::create("gpgpusim", none, 4, 64);
  shape.mapping = m.get();
  return m;
}

} // namespace gpurf::test
