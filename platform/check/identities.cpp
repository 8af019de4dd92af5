// The registry of identity blocks and their lookups. The identities themselves live with the
// units whose design makes each rule (GPURF_IDENTITIES in <name>_identities.cpp files).
#include "gpurf/platform/check/identities.h"

#include "gpurf/platform/stats.h"

#include <algorithm>
#include <mutex>
#include <sstream>
#include <tuple>

namespace gpurf {

bool has_kind(const nlohmann::ordered_json& stats, const std::string& kind) {
  for (auto it = stats.begin(); it != stats.end(); ++it)
    if (it.value().is_object() && group_of_kind(it.key(), kind)) return true;
  return false;
}

const std::string& group_impl(const nlohmann::ordered_json& group) {
  static const std::string none;
  auto u = group.find("_unit");
  if (u == group.end() || !u->is_object()) return none;
  auto i = u->find("impl");
  return i != u->end() && i->is_string() ? i->get_ref<const std::string&>() : none;
}

bool has_impl(const nlohmann::ordered_json& stats, const std::string& kind,
              const std::string& impl) {
  for (auto it = stats.begin(); it != stats.end(); ++it)
    if (it.value().is_object() && group_of_kind(it.key(), kind) && group_impl(it.value()) == impl)
      return true;
  return false;
}

namespace {
std::mutex g_reads_mutex;
std::set<std::pair<std::string, std::string>> g_reads;
void record_identity_reads(const std::set<std::pair<std::string, std::string>>& r) {
  std::lock_guard<std::mutex> lock(g_reads_mutex);
  g_reads.insert(r.begin(), r.end());
}

struct Registered {
  std::string name, file;
  IdentityGate gate;
  IdentityBlock block;
  // Ungated first, then gated on a kind, then on an implementation.
  int tier() const {
    if (gate.any.empty()) return 0;
    for (auto& [k, i] : gate.any)
      if (!i.empty()) return 2;
    return 1;
  }
};
// Sorted on first use: static registration order depends on the link order.
std::vector<Registered>& registered() {
  static std::vector<Registered> r;
  return r;
}
// Never destroyed: made at a program's first launch, after its global objects, it would be
// destroyed at exit before their destructors, which may launch (libgpurf-cudart).
const std::vector<Registered>& blocks() {
  static const std::vector<Registered>& sorted = *new std::vector<Registered>([] {
    std::vector<Registered> r = registered();
    std::sort(r.begin(), r.end(), [](const Registered& a, const Registered& b) {
      return std::make_tuple(a.tier(), a.name) < std::make_tuple(b.tier(), b.name);
    });
    return r;
  }());
  return sorted;
}
// The file relative to the source tree ("modules/rfc/rfc_identities.cpp").
std::string source_file(const char* file) {
  const std::string f = file;
  for (const char* root : {"/modules/", "/platform/"})
    if (size_t at = f.rfind(root); at != std::string::npos) return f.substr(at + 1);
  return f;
}
} // namespace

std::set<std::pair<std::string, std::string>> identity_reads() {
  std::lock_guard<std::mutex> lock(g_reads_mutex);
  return g_reads;
}

bool register_identities(const char* name, const char* file, IdentityGate gate,
                         IdentityBlock block) {
  for (const Registered& r : registered())
    if (r.name == name)
      throw std::logic_error(std::string("identity block '") + name + "' registered twice (" +
                             r.file + ", " + source_file(file) + ")");
  registered().push_back({name, source_file(file), std::move(gate), block});
  return true;
}

std::vector<std::string> identity_block_names() {
  std::vector<std::string> n;
  for (const Registered& r : blocks()) n.push_back(r.name);
  return n;
}

bool IdentityGate::holds(const nlohmann::ordered_json& stats) const {
  if (any.empty()) return true;
  for (auto& [k, i] : any)
    if (i.empty() ? has_kind(stats, k) : has_impl(stats, k, i)) return true;
  return false;
}

void IdentityCheck::equal(const std::string& what, std::vector<Term> terms) {
  for (const Term& t : terms)
    if (t.second != terms[0].second) {
      std::ostringstream m;
      m << what << ":";
      for (const Term& x : terms) m << " " << x.first << " = " << uint64_t(x.second) << ";";
      std::string s = m.str();
      s.pop_back();
      bad.push_back(s);
      return;
    }
}

std::vector<std::pair<std::string, const nlohmann::ordered_json*>>
IdentityCheck::groups(const char* kind, const std::string& impl) const {
  std::vector<std::pair<std::string, const nlohmann::ordered_json*>> out;
  for (auto it = stats.begin(); it != stats.end(); ++it)
    if (it.value().is_object() && group_of_kind(it.key(), kind) &&
        (impl.empty() || group_impl(it.value()) == impl))
      out.emplace_back(it.key(), &it.value());
  return out;
}

const nlohmann::ordered_json& IdentityCheck::stat_of(const std::string& path,
                                                     const nlohmann::ordered_json& group,
                                                     const char* stat) {
  auto s = group.find(stat);
  if (s == group.end() || !s->is_object()) {
    std::string have, where = block;
    for (auto it = group.begin(); it != group.end(); ++it)
      if (it.key()[0] != '_') have += (have.empty() ? "" : ", ") + it.key();
    for (const Registered& r : blocks())
      if (r.name == block) where += " (" + r.file + ")";
    const std::string& impl = group_impl(group);
    throw UnknownStatistic("identities " + where + " read statistic '" + std::string(stat) +
                           "' of " + path + (impl.empty() ? "" : " (impl " + impl + ")") +
                           ", which declares no such statistic (it has: " + have +
                           "); rename a counter's readers with it");
  }
  return *s;
}

double IdentityCheck::read_at(const char* kind, const std::string& path,
                              const nlohmann::ordered_json& group, const char* stat) {
  reads.emplace(kind, stat);
  stat_of(path, group, stat);
  double v = 0;
  stat_value(group, stat, v);
  return v;
}

double IdentityCheck::sum_of(const char* kind, const std::string& impl, const char* stat) {
  reads.emplace(kind, stat);
  double s = 0;
  for (auto& [path, g] : groups(kind, impl)) s += read_at(kind, path, *g, stat);
  return s;
}

double IdentityCheck::element(const char* kind, const char* stat, size_t i) {
  reads.emplace(kind, stat);
  double s = 0;
  for (auto& [path, g] : groups(kind)) {
    const auto& v = stat_of(path, *g, stat);
    if (v.contains("values") && i < v["values"].size()) s += v["values"][i].get<double>();
  }
  return s;
}

std::vector<std::string> check_identities(const nlohmann::ordered_json& st, const EventCounts& e,
                                          unsigned slices) {
  IdentityCheck c(st, e, slices);
  for (const Registered& r : blocks())
    if (r.gate.holds(st)) {
      c.block = r.name.c_str();
      r.block(c);
    }
  record_identity_reads(c.reads);
  return c.bad;
}

} // namespace gpurf
