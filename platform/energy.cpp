#include "gpurf/platform/energy.h"

#include "gpurf/platform/stats.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <stdexcept>

namespace gpurf {

namespace fs = std::filesystem;

namespace {

constexpr double kRegBytes = 128; // a warp register: 32 lanes x 4 B
constexpr double kLanes = 32;     // lanes of a warp instruction
constexpr double kMaxPj = 1e6;    // ranges: generous, only to catch unit mistakes
constexpr double kMaxMw = 1e6;

// Pipe labels of the exec `instructions` vector, each with its table entry.
const char* const kPipes[] = {"sp", "int", "dp", "sfu", "mem", "tensor"};

// The components of the SM scope's `pipeline:` (breakdown keys), in GPUWattch's terms; the
// interconnect between the SMs and the L2 is outside the SM (uncore).
struct PipelineComponent {
  const char* name;
  bool uncore;
  const char* what;
};
const PipelineComponent kPipelineComponents[] = {
    {"fetch", false, "instruction cache and instruction buffer"},
    {"decode", false, "instruction decode"},
    {"issue", false, "warp scheduler and scoreboard"},
    {"operand_collection", false, "collector allocation, arbitration and dispatch"},
    {"writeback", false, "result writeback and scoreboard release"},
    {"memory_pipeline", false,
     "LSU: address generation, coalescing, constant cache, shared replays"},
    {"interconnect", true, "SM-to-L2 interconnect"},
};

// Which statistics are energy events: each unit declares it with the statistic
// (StatGroup::scalar/vector's energy argument, platform/stats.h), and the dump carries it as
// "energy" (docs/energy.md, "Unpriced events and the energy identity"). Rules:
// - Formulas (floating-point values computed from other statistics at dump time: ipc,
//   hit_rate, ...) are never events.
// - A fixed kind (kFixedKinds) declares a role for every counter: one that declares none stops
//   every run (whoever adds a counter to one of these units says there whether it is priced
//   by a table entry, a leakage time base, no event, or an event the model leaves out).
// - Any other kind is an added structure (RFC, compressor, ...). Each of its counters that
//   does not declare itself no event (or not modelled) is an energy event: the table's
//   structures.<kind>.events must price it, or the run fails.
// - An energy event counted non-zero without a price is an error (check_energy_priced);
//   at load time, every energy event a unit declares needs a price (check_energy_declared).
using R = EnergyRole;

// Kinds whose every counter must declare its energy role: the units the fixed entries model
// and the units that have no energy events of their own. An added structure may not use them.
const char* const kFixedKinds[] = {
    "sm",        "bank",   "crossbar", "collector",    "exec",       "l1",
    "l2",        "memory", "lsu",      "arbiter",      "allocator",  "writeback",
    "scheduler", "host",   "gpu",      "interconnect", "memory_port"};

std::string fmt(double d) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", d);
  return buf;
}

// Reads a required number in [0, max]: absent -> ConfigError naming the file:line of the map
// that should hold it, the key, the valid range and what it is.
double required(Params& p, const ConfigNode& root, const std::string& name, const std::string& desc,
                double max) {
  if (!p.node() || !p.node()->find(name)) {
    const ConfigNode* at = p.node() ? p.node() : &root;
    const std::string key = p.path().empty() ? name : p.path() + "." + name;
    throw ConfigError(at->where() + ": " + key + ": missing required entry (" + desc +
                      "); expected a number in [0, " + fmt(max) + "]");
  }
  return p.get_double(name, 0, desc, 0, max);
}

bool required_bool(Params& p, const std::string& name, const std::string& desc) {
  if (!p.node() || !p.node()->find(name))
    p.fail(name, "missing required entry (" + desc + "); expected true or false");
  return p.get_bool(name, false, desc);
}

using Json = nlohmann::ordered_json;

// The groups of one kind, in dump order.
std::vector<std::pair<std::string, const Json*>> groups(const Json& stats,
                                                        const std::string& kind) {
  std::vector<std::pair<std::string, const Json*>> out;
  for (auto it = stats.begin(); it != stats.end(); ++it)
    if (it.value().is_object() && group_of_kind(it.key(), kind)) out.emplace_back(it.key(), &*it);
  return out;
}

double stat_or(const Json& group, const std::string& name, double def) {
  double v = def;
  return stat_value(group, name, v) ? v : def;
}

double stat_required(const std::pair<std::string, const Json*>& g, const std::string& name) {
  double v = 0;
  if (!stat_value(*g.second, name, v))
    throw std::runtime_error("energy: statistics group '" + g.first + "' has no statistic '" +
                             name + "'");
  return v;
}

// An element of a labelled vector statistic; false if the statistic or label is absent.
bool stat_label(const Json& group, const std::string& name, const std::string& label, double& out) {
  auto it = group.find(name);
  if (it == group.end() || !it->contains("labels") || !it->contains("values")) return false;
  const Json& labels = (*it)["labels"];
  const Json& values = (*it)["values"];
  for (size_t i = 0; i < labels.size() && i < values.size(); ++i)
    if (labels[i] == label) {
      out = values[i].get<double>();
      return true;
    }
  return false;
}

// A statistic in the dump: an object with "value" (scalar, formula) or "values" (vector).
bool is_stat(const Json& st) {
  return st.is_object() && (st.contains("value") || st.contains("values"));
}

// A formula: a floating-point value computed from other statistics, never an event.
bool is_formula(const Json& st) {
  if (auto k = st.find("kind"); k != st.end()) return *k == "formula";
  auto v = st.find("value"); // a dump without kinds (an older gpurf's)
  return v != st.end() && v->is_number_float();
}

// The counts of one statistic: one per element of a labelled vector, otherwise one with an
// empty label (a scalar's value, a vector's total).
std::vector<std::pair<std::string, double>> counts(const Json& st) {
  std::vector<std::pair<std::string, double>> out;
  if (st.contains("values") && st.contains("labels")) {
    const Json& labels = st["labels"];
    const Json& values = st["values"];
    for (size_t i = 0; i < labels.size() && i < values.size(); ++i)
      out.emplace_back(labels[i].get<std::string>(), values[i].get<double>());
    return out;
  }
  double n = 0;
  if (auto t = st.find("total"); t != st.end() && t->is_number())
    n = t->get<double>();
  else if (auto v = st.find("value"); v != st.end() && v->is_number())
    n = v->get<double>();
  else if (auto vs = st.find("values"); vs != st.end())
    for (const Json& x : *vs) n += x.get<double>();
  out.emplace_back("", n);
  return out;
}

// The count of element `label` of a statistic ("" = all of it); 0 when absent.
double count_of(const Json& st, const std::string& label) {
  double all = 0;
  for (auto& [l, n] : counts(st)) {
    if (!label.empty() && l == label) return n;
    all += n;
  }
  return label.empty() ? all : 0;
}

// The role statistic `st` declares for element `label` ("" = the whole statistic): its
// "energy" entry, a role or {label: role}.
R role_of(const Json& st, const std::string& label) {
  auto e = st.find("energy");
  if (e == st.end()) return R::Undeclared;
  if (e->is_string()) return energy_role_of(e->get<std::string>());
  if (e->is_object())
    if (auto l = e->find(label); l != e->end() && l->is_string())
      return energy_role_of(l->get<std::string>());
  return R::Undeclared;
}

// The events that a table of scope `scope` prices: everything but bookkeeping, and Scope
// events only in the SM scope. An undeclared counter is an event (a fixed kind's is then
// reported as undeclared).
bool is_event(R role, EnergyScope scope) {
  return role == R::Undeclared || role == R::Priced || role == R::Structure ||
         (role == R::Scope && scope == EnergyScope::Sm);
}

// One unpriced event: a statistic (element) of one kind, over every unit that counts it.
struct Unpriced {
  std::string kind, stat, event; // event: "reads", or "instructions[x]" for a vector element
  std::vector<std::string> units;
  double count = 0;
  bool classified = true; // false: a fixed kind's statistic that declares no role
  R role = R::Undeclared;
};

// Every energy event in `stats` without a price: counted non-zero, or, if `declared`, any.
std::vector<Unpriced> find_unpriced(const EnergyTable& t, const Json& stats, bool declared) {
  // Only which events have a price matters here, not how much.
  const std::vector<EnergyPrice> prices = energy_prices(t, EnergyPlatform{1, 1, 1});
  auto priced = [&](const std::string& kind, const std::string& stat, const std::string& label) {
    return std::any_of(prices.begin(), prices.end(), [&](const EnergyPrice& p) {
      return p.kind == kind && p.stat == stat && (p.label.empty() || p.label == label);
    });
  };
  std::vector<Unpriced> out;
  for (auto g = stats.begin(); g != stats.end(); ++g) {
    if (!g->is_object()) continue;
    const std::string kind = energy_group_kind(g.key(), &t);
    const bool fixed = energy_fixed_kind(kind);
    for (auto st = g->begin(); st != g->end(); ++st) {
      if (!is_stat(*st) || is_formula(*st)) continue;
      // Only fixed kinds classify or price the elements of a vector; a structure prices a
      // vector by its total.
      const std::vector<std::pair<std::string, double>> items =
          fixed ? counts(*st)
                : std::vector<std::pair<std::string, double>>{{"", count_of(*st, "")}};
      for (auto& [label, n] : items) {
        if (!declared && n == 0) continue;
        const R role = role_of(*st, label);
        if (!is_event(role, t.scope)) continue;
        if (priced(kind, st.key(), label)) continue;
        const bool classified = role != R::Undeclared || !fixed;
        const std::string event =
            classified && !label.empty() ? st.key() + "[" + label + "]" : st.key();
        auto u = std::find_if(out.begin(), out.end(), [&](const Unpriced& x) {
          return x.kind == kind && x.event == event;
        });
        if (u == out.end()) {
          out.push_back({kind, st.key(), event, {}, 0, classified, role});
          u = out.end() - 1;
        }
        if (std::find(u->units.begin(), u->units.end(), g.key()) == u->units.end())
          u->units.push_back(g.key());
        u->count += n;
      }
    }
  }
  return out;
}

// "sm.sub0.rfc", or "sm.sub0.rfc (and 3 more)" for several units.
std::string units_text(const std::vector<std::string>& units) {
  std::string s = units.empty() ? "" : units[0];
  if (units.size() > 1) s += " (and " + std::to_string(units.size() - 1) + " more)";
  return s;
}

// A counter of a fixed kind that declares no energy role: a gpurf bug, not bad input.
void throw_unclassified(const std::vector<Unpriced>& u) {
  std::string m;
  for (const Unpriced& x : u)
    if (!x.classified)
      m += (m.empty() ? "" : "; ") + std::string("statistic '") + x.stat + "' of unit " +
           units_text(x.units) + " (kind '" + x.kind + "')";
  if (m.empty()) return;
  throw std::logic_error(
      "energy events that declare no energy role: " + m +
      ". Every counter of this kind declares one where it is declared (the energy argument of "
      "StatGroup::scalar/vector, e.g. energy::no_event(\"stalls\")): priced by a table entry, "
      "a leakage time base, no energy event or not modelled (docs/statistics.md; docs/energy.md, "
      "\"Unpriced events and the energy identity\")");
}

std::string pipeline_components_text() {
  std::string s;
  for (const PipelineComponent& c : kPipelineComponents)
    s += (s.empty() ? "" : ", ") + std::string(c.name);
  return s;
}

// Every Scope event the groups of `stats` declare, as `kind.stat` or `kind.stat[label]`
// (error messages).
std::string scope_events_text(const Json& stats) {
  std::vector<std::string> seen;
  for (auto g = stats.begin(); g != stats.end(); ++g) {
    if (!g->is_object()) continue;
    const std::string kind = energy_group_kind(g.key());
    for (auto st = g->begin(); st != g->end(); ++st) {
      if (!is_stat(*st)) continue;
      // A role for the whole statistic, or one per label.
      std::vector<std::string> labels{""};
      if (auto e = st->find("energy"); e != st->end() && e->is_object()) labels = {};
      if (labels.empty())
        for (auto& [label, n] : counts(*st)) labels.push_back(label);
      for (const std::string& label : labels) {
        if (role_of(*st, label) != R::Scope) continue;
        const std::string e = kind + "." + st.key() + (label.empty() ? "" : "[" + label + "]");
        if (std::find(seen.begin(), seen.end(), e) == seen.end()) seen.push_back(e);
      }
    }
  }
  std::string s;
  for (const std::string& e : seen) s += (s.empty() ? "" : ", ") + e;
  return s.empty() ? "(none in this run)" : s;
}

// The number of SMs in the statistics: groups of kind sm (at least one).
double sm_groups(const Json& stats) {
  double n = 0;
  for (auto g = stats.begin(); g != stats.end(); ++g)
    if (g->is_object() && energy_group_kind(g.key()) == "sm") ++n;
  return std::max(n, 1.0);
}

// What to add to the table so that `events` of `kind` have a price.
std::string what_to_add(const EnergyTable& t, const std::string& kind,
                        const std::vector<std::string>& events, bool all_scope) {
  if (energy_fixed_kind(kind)) {
    const bool scope = t.scope == EnergyScope::Sm && all_scope;
    if (scope) {
      std::string list;
      for (const std::string& e : events) list += (list.empty() ? "" : ", ") + e + ": <pJ>";
      return "an SM-scope table prices them under pipeline.<component>." + kind + " ({" + list +
             "}, a vector by label: {stat: {label: <pJ>}}; components: " +
             pipeline_components_text() + ") in " + t.path +
             ", each number with its source in a comment (docs/energy.md, \"Scopes\")";
    }
    return "the table format has no entry for them: give the fixed entry in platform/energy.cpp "
           "(energy_prices) or declare them no event where the unit declares them";
  }
  std::string list;
  for (const std::string& e : events) list += (list.empty() ? "" : ", ") + e + ": <pJ>";
  auto s = std::find_if(t.structures.begin(), t.structures.end(),
                        [&](const EnergyStructure& x) { return x.name == kind; });
  std::string add = s != t.structures.end()
                        ? "add {" + list + "} to structures." + kind + ".events (" + s->where + ")"
                        : "add structures: {" + kind +
                              ": {part_of_rf: <true|false>, leakage_mw: <mW>, events: {" + list +
                              "}}} to " + t.path;
  return add + ", each number with its source in a comment (docs/energy.md); a statistic that is "
               "no energy event declares energy::no_event(...) where the unit declares it instead";
}

// The SM scope's `pipeline:` prices only Scope events: a statistic of the run's groups that
// its unit declares otherwise (a fixed entry or a structure prices every other event).
void check_pipeline_stats(const EnergyTable& t, const Json& stats) {
  for (const EnergyPipelineComponent& c : t.pipeline)
    for (const EnergyPipelineEvent& e : c.events)
      for (auto& g : groups(stats, e.kind)) {
        auto st = g.second->find(e.stat);
        if (st == g.second->end() || !is_stat(*st)) continue;
        R role = role_of(*st, e.label);
        if (role == R::Undeclared && !e.label.empty()) role = role_of(*st, "");
        if (role == R::Scope) continue;
        const std::string key =
            e.kind + "." + e.stat + (e.label.empty() ? "" : "[" + e.label + "]");
        throw ConfigError(
            e.where + ": pipeline." + c.name + ": '" + key + "' is not an event of the SM scope (" +
            g.first + " declares it " +
            (role == R::Undeclared ? std::string("no role") : energy_role_name(role)) +
            "; a fixed entry or a structure prices every other event); expected "
            "one of " +
            scope_events_text(stats));
      }
}

// The table names a statistic that the groups of its kind do not have.
void check_structure_stats(const EnergyTable& t, const Json& stats) {
  check_pipeline_stats(t, stats);
  for (const EnergyStructure& s : t.structures) {
    const auto gs = groups(stats, s.name);
    if (gs.empty()) continue;
    for (size_t e = 0; e < s.events.size(); ++e) {
      const std::string& stat = s.events[e].first;
      if (std::any_of(gs.begin(), gs.end(), [&](auto& g) {
            auto it = g.second->find(stat);
            return it != g.second->end() && is_stat(*it);
          }))
        continue;
      std::string have;
      for (auto it = gs[0].second->begin(); it != gs[0].second->end(); ++it)
        have += (have.empty() ? "" : ", ") + it.key();
      throw ConfigError(s.event_where[e] + ": structures." + s.name + ".events." + stat +
                        ": no statistic '" + stat + "' in the run's '" + s.name + "' groups (" +
                        gs[0].first + " has: " + have + ")");
    }
  }
}

// Equal up to floating-point rounding: relative difference at most 1e-9.
bool same_energy(double a, double b) {
  return std::fabs(a - b) <= 1e-9 * std::max(std::fabs(a), std::fabs(b));
}

std::string fmt17(double d) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", d);
  return buf;
}

// The leakage time base: the GPU's cycles (every SM leaks until the last one ends), or the
// SM's in statistics from before the GPU level.
double sm_cycles(const Json& stats) {
  double cycles = 0;
  for (const char* g : {"gpu", "sm"})
    if (auto it = stats.find(g); it != stats.end() && stat_value(*it, "cycles", cycles))
      return cycles;
  throw std::runtime_error("energy: statistics have no gpu.cycles or sm.cycles");
}

void check_inputs(const Json& stats, const EnergyPlatform& pf) {
  if (!(pf.clock_ghz > 0) || !pf.bank_slices || !pf.bank_rows)
    throw std::runtime_error("energy: platform clock_ghz, bank_slices and bank_rows must be > 0");
  if (!stats.is_object()) throw std::runtime_error("energy: statistics are not a JSON object");
}

// The SM scope's static power outside the register banks: sm_static_mw and uncore_static_mw
// per SM for the whole run (0 for a register-file-scope table).
double static_outside_rf(const EnergyTable& t, const Json& stats, const EnergyPlatform& pf) {
  return (t.sm_static_mw + t.uncore_static_mw) * sm_groups(stats) * sm_cycles(stats) / pf.clock_ghz;
}

double count_of_or0(const Json& group, const std::string& stat) {
  auto st = group.find(stat);
  return st != group.end() && is_stat(*st) ? count_of(*st, "") : 0;
}

} // namespace

bool energy_fixed_kind(const std::string& kind) {
  return std::find(std::begin(kFixedKinds), std::end(kFixedKinds), kind) != std::end(kFixedKinds);
}

std::string energy_group_kind(const std::string& path, const EnergyTable* table) {
  const size_t dot = path.rfind('.');
  std::string last = dot == std::string::npos ? path : path.substr(dot + 1);
  auto known = [&](const std::string& k) {
    if (energy_fixed_kind(k)) return true;
    if (table)
      for (const EnergyStructure& s : table->structures)
        if (k == s.name) return true;
    return false;
  };
  if (known(last)) return last;
  std::string stripped = last;
  while (!stripped.empty() && std::isdigit(static_cast<unsigned char>(stripped.back())))
    stripped.pop_back();
  return stripped.empty() ? last : stripped;
}

std::vector<EnergyPrice> energy_prices(const EnergyTable& t, const EnergyPlatform& pf) {
  const double slice_bytes = kRegBytes / pf.bank_slices;
  std::vector<EnergyPrice> p = {
      {"bank", "slice_reads", "", t.bank_read_pj_per_16B * slice_bytes / 16},
      {"bank", "slice_writes", "", t.bank_write_pj_per_16B * slice_bytes / 16},
      {"crossbar", "bytes", "", t.wire_pj_per_mm_per_byte * t.wire_mm},
      {"collector", "oc_writes", "", t.collector_write_pj},
      {"collector", "ccu_writes", "",
       t.collector_write_pj + kRegBytes * t.wire_pj_per_mm_per_byte * t.wire_mm},
      {"l1", "reads", "", t.l1_access_pj},
      {"l1", "writes", "", t.l1_access_pj},
      {"l1", "atomics", "", t.l1_access_pj},
      {"l1", "bytes_from_memory", "", t.l1_fill_pj_per_byte},
      {"l2", "reads", "", t.l2_access_pj},
      {"l2", "writes", "", t.l2_access_pj},
      {"l2", "atomics", "", t.l2_access_pj},
      {"l2", "writebacks", "", t.l2_access_pj},
      {"l2", "bytes_from_memory", "", t.l2_fill_pj_per_byte},
      {"lsu", "instructions", "shared", t.shared_access_pj},
      {"memory", "bytes_read", "", t.memory_pj_per_byte},
      {"memory", "bytes_written", "", t.memory_pj_per_byte},
  };
  for (auto& [pipe, pj] : t.fu_pj_per_lane_op) {
    p.push_back({"exec", "instructions", pipe, kLanes * pj});
    p.push_back({"exec", "affine_instructions", pipe, (1 - kLanes) * pj}); // 31 lanes saved
  }
  for (const EnergyStructure& s : t.structures)
    for (auto& [stat, pj] : s.events) p.push_back({s.name, stat, "", pj});
  for (const EnergyPipelineComponent& c : t.pipeline)
    for (const EnergyPipelineEvent& e : c.events) p.push_back({e.kind, e.stat, e.label, e.pj});
  return p;
}

void check_energy_priced(const EnergyTable& t, const Json& stats) {
  const std::vector<Unpriced> u = find_unpriced(t, stats, false);
  if (u.empty()) return;
  throw_unclassified(u);
  std::string m = t.path + ": energy events counted but not priced by this table (their energy "
                           "would silently be 0):";
  std::vector<std::string> kinds;
  for (const Unpriced& x : u) {
    m += " event '" + x.event + "' of unit " + units_text(x.units) + " (" + fmt(x.count) +
         " counted);";
    if (std::find(kinds.begin(), kinds.end(), x.kind) == kinds.end()) kinds.push_back(x.kind);
  }
  for (const std::string& k : kinds) {
    std::vector<std::string> events;
    bool all_scope = true;
    for (const Unpriced& x : u)
      if (x.kind == k) {
        all_scope = all_scope && x.role == R::Scope;
        if (std::find(events.begin(), events.end(), x.stat) == events.end())
          events.push_back(x.stat);
      }
    m += " " + what_to_add(t, k, events, all_scope) + ".";
  }
  throw ConfigError(m);
}

void check_energy_declared(const EnergyTable& t, const Json& declared, const ConfigNode* platform) {
  check_structure_stats(t, declared);
  const std::vector<Unpriced> u = find_unpriced(t, declared, true);
  if (u.empty()) return;
  throw_unclassified(u);
  std::string table_at = t.path;
  if (const ConfigNode* e = platform ? platform->find("energy") : nullptr)
    if (const ConfigNode* n = e->find("table")) table_at += " (energy.table, " + n->where() + ")";
  std::vector<std::string> kinds;
  for (const Unpriced& x : u)
    if (std::find(kinds.begin(), kinds.end(), x.kind) == kinds.end()) kinds.push_back(x.kind);
  std::string m;
  for (const std::string& k : kinds) {
    std::vector<std::string> events, units;
    std::string quoted;
    bool all_scope = true;
    for (const Unpriced& x : u)
      if (x.kind == k) {
        all_scope = all_scope && x.role == R::Scope;
        if (std::find(events.begin(), events.end(), x.stat) == events.end())
          events.push_back(x.stat);
        quoted += (quoted.empty() ? "'" : ", '") + x.event + "'";
        for (const std::string& g : x.units)
          if (std::find(units.begin(), units.end(), g) == units.end()) units.push_back(g);
      }
    const ConfigNode* key = platform ? platform->find(k) : nullptr;
    m += (m.empty() ? "" : "; ") + (key ? key->where() + ": " + k + ": " : std::string()) +
         "the platform's unit " + units_text(units) + " counts energy event" +
         (events.size() > 1 ? "s " : " ") + quoted + " that its energy table " + table_at +
         " does not price; " + what_to_add(t, k, events, all_scope);
  }
  throw ConfigError(m);
}

double energy_identity_total(const EnergyTable& t, const Json& stats, const EnergyPlatform& pf) {
  check_inputs(stats, pf);
  const std::vector<EnergyPrice> prices = energy_prices(t, pf);
  double total = 0;
  // Dynamic: count x price, for every priced statistic of every group.
  for (auto g = stats.begin(); g != stats.end(); ++g) {
    if (!g->is_object()) continue;
    const std::string kind = energy_group_kind(g.key(), &t);
    for (const EnergyPrice& p : prices)
      if (p.kind == kind)
        if (auto st = g->find(p.stat); st != g->end() && is_stat(*st))
          total += count_of(*st, p.label) * p.pj;
  }
  return total + energy_identity_static(t, stats, pf);
}

double energy_identity_static(const EnergyTable& t, const Json& stats, const EnergyPlatform& pf) {
  check_inputs(stats, pf);
  const double cycles = sm_cycles(stats);
  const double slice_mw =
      t.bank_leakage_mw * pf.bank_rows * (kRegBytes / pf.bank_slices) / t.bank_bytes;
  double total = 0;
  // Every slice of a bank leaks for every cycle it is not gated; a structure leaks per group
  // for the whole run; the SM scope adds its static power per SM.
  for (auto g = stats.begin(); g != stats.end(); ++g) {
    if (!g->is_object()) continue;
    const std::string kind = energy_group_kind(g.key(), &t);
    if (kind == "bank")
      total +=
          (pf.bank_slices * cycles - count_of_or0(*g, "gated_cycles")) / pf.clock_ghz * slice_mw;
    for (const EnergyStructure& s : t.structures)
      if (s.name == kind) total += s.leakage_mw * cycles / pf.clock_ghz;
  }
  return total + static_outside_rf(t, stats, pf);
}

void check_energy_identity(const EnergyTable& t, const Json& stats, const EnergyPlatform& pf,
                           const Json& report) {
  const double want = energy_identity_total(t, stats, pf);
  const double total = report.at("total_energy_pj").get<double>();
  double sum = 0;
  for (auto& [k, v] : report.at("breakdown").items()) sum += v.get<double>();
  const double parts = report.at("sm_energy_pj").get<double>() +
                       report.at("uncore_energy_pj").get<double>() +
                       report.at("memory_energy_pj").get<double>();
  const double stat = report.at("static_energy_pj").get<double>();
  const double dyn_stat = report.at("dynamic_energy_pj").get<double>() + stat;
  auto broken = [&](const std::string& what, double a, double b) {
    throw std::runtime_error(
        "energy identity broken (" + t.path + "): " + what + ": " + fmt17(a) + " pJ vs " +
        fmt17(b) + " pJ, relative difference " +
        fmt(std::fabs(a - b) / std::max(std::fabs(a), std::fabs(b))) +
        " > 1e-9; the report's breakdown does not follow the table (platform/energy.cpp)");
  };
  if (!same_energy(total, want))
    broken("total_energy_pj vs the sum over events of count x price plus leakage", total, want);
  if (!same_energy(total, sum)) broken("total_energy_pj vs the sum of the breakdown", total, sum);
  if (!same_energy(total, parts))
    broken("total_energy_pj vs sm_energy_pj + uncore_energy_pj + memory_energy_pj", total, parts);
  const double want_static = energy_identity_static(t, stats, pf);
  if (!same_energy(stat, want_static))
    broken("static_energy_pj vs the sum of the leakage and static terms", stat, want_static);
  if (!same_energy(total, dyn_stat))
    broken("total_energy_pj vs dynamic_energy_pj + static_energy_pj", total, dyn_stat);
}

namespace {

// The SM scope's entries: static power and `pipeline:` (component -> unit kind -> statistic ->
// pJ per count, or -> label -> pJ for a labelled vector). Only Scope events may be priced
// there (every other event has its fixed entry or structure). One event may be priced by
// several components (an issued instruction is fetched, decoded and issued), each its share.
// A register-file-scope table has none of these keys.
void parse_sm_scope(EnergyTable& t, Params& top, ConfigNode& root) {
  const bool sm = t.scope == EnergyScope::Sm;
  if (!sm) {
    for (const char* k : {"pipeline", "sm_static_mw", "uncore_static_mw"})
      if (root.find(k))
        top.fail(k, "belongs to a table of scope sm; this table's scope is register-file "
                    "(add scope: sm, docs/energy.md \"Scopes\")");
    return;
  }
  t.sm_static_mw = required(top, root, "sm_static_mw",
                            "static power of one SM outside its register banks, mW", kMaxMw);
  t.uncore_static_mw = required(top, root, "uncore_static_mw",
                                "one SM's share of the static power outside the SMs, mW", kMaxMw);
  if (!root.find("pipeline"))
    top.fail("pipeline", "missing required entry for scope sm; expected a map of component (" +
                             pipeline_components_text() + ") -> unit kind -> statistic -> pJ");
  Params& pl = top.sub("pipeline", "SM scope: component -> unit kind -> statistic -> pJ");
  for (const std::string& name : pl.node()->keys()) {
    const PipelineComponent* pc = nullptr;
    for (const PipelineComponent& c : kPipelineComponents)
      if (name == c.name) pc = &c;
    if (!pc)
      pl.fail(name,
              "unknown component '" + name + "'; expected one of " + pipeline_components_text());
    EnergyPipelineComponent comp{name, pc->uncore, {}};
    Params& cp = pl.sub(name, pc->what);
    if (!cp.node() || cp.node()->kind != ConfigNode::Kind::Map)
      pl.fail(name, "expected a map of unit kind -> statistic -> pJ per count");
    for (const std::string& kind : cp.node()->keys()) {
      Params& kp = cp.sub(kind, "statistics of unit kind '" + kind + "'");
      if (!kp.node() || kp.node()->kind != ConfigNode::Kind::Map)
        cp.fail(kind, "expected a map of statistic -> pJ per count");
      for (const std::string& stat : kp.node()->keys()) {
        ConfigNode* v = kp.node()->find(stat);
        std::vector<std::string> labels{""}; // "" = the whole statistic
        Params* lp = nullptr;
        if (v->kind == ConfigNode::Kind::Map) {
          lp = &kp.sub(stat, "labels of vector statistic '" + stat + "'");
          labels = v->keys();
        }
        for (const std::string& label : labels) {
          const std::string key = kind + "." + stat + (label.empty() ? "" : "[" + label + "]");
          Params& owner = lp ? *lp : kp;
          const std::string at = label.empty() ? stat : label;
          // Whether it is a Scope event is known from the units' declarations: checked
          // against the run's statistics (check_pipeline_stats).
          const double pj = owner.get_double(at, 0, "pJ per count of " + key, 0, kMaxPj);
          const ConfigNode* n = owner.node() ? owner.node()->find(at) : nullptr;
          comp.events.push_back({kind, stat, label, pj, n ? n->where() : t.path});
        }
      }
    }
    t.pipeline.push_back(std::move(comp));
  }
}

} // namespace

EnergyTable parse_energy_table(ConfigNode& root, const std::string& path) {
  Params top(&root, "");
  EnergyTable t;
  t.path = path;
  t.name = top.get_string("name", fs::path(path).stem().string(), "table name");
  top.get_string("source", "", "where the numbers come from");
  top.get_string("technology", "", "process node and voltage the numbers are for");
  const std::string scope =
      top.get_choice("scope", "register-file",
                     "what the table prices: register-file (the register file, functional units "
                     "and memory hierarchy) or sm (the SM as GPUWattch scopes it; docs/energy.md)",
                     {"register-file", "sm"});
  t.scope = scope == "sm" ? EnergyScope::Sm : EnergyScope::RegisterFile;

  t.bank_read_pj_per_16B = required(top, root, "bank_read_pj_per_16B",
                                    "pJ per 16 B (128-bit) slice read of a register bank", kMaxPj);
  t.bank_write_pj_per_16B =
      required(top, root, "bank_write_pj_per_16B",
               "pJ per 16 B (128-bit) slice write of a register bank", kMaxPj);
  t.bank_leakage_mw =
      required(top, root, "bank_leakage_mw", "leakage of one bank of bank_bytes, mW", kMaxMw);
  t.bank_bytes = required(top, root, "bank_bytes",
                          "capacity of the bank the access and leakage figures are for", 1e9);
  if (t.bank_bytes <= 0) top.fail("bank_bytes", "must be > 0 (bank capacity in bytes)");

  // The wire energy in the unit its source quotes: per 128 or per 32 bits.
  const bool w128 = root.find("wire_pj_per_mm_per_128b") != nullptr;
  const bool w32 = root.find("wire_pj_per_mm_per_32b") != nullptr;
  if (w128 && w32)
    top.fail("wire_pj_per_mm_per_32b", "give one of wire_pj_per_mm_per_128b and "
                                       "wire_pj_per_mm_per_32b, not both");
  if (w32)
    t.wire_pj_per_mm_per_byte =
        top.get_double("wire_pj_per_mm_per_32b", 0, "wire pJ per mm per 32-bit word", 0, kMaxPj) /
        4;
  else
    t.wire_pj_per_mm_per_byte =
        required(top, root, "wire_pj_per_mm_per_128b",
                 "wire pJ per mm per 128 bits (or give wire_pj_per_mm_per_32b)", kMaxPj) /
        16;
  t.wire_mm = required(top, root, "wire_mm", "distance from the banks to the collectors, mm", 100);

  t.collector_write_pj = required(top, root, "collector_write_pj_per_operand",
                                  "pJ per operand write into a collector", kMaxPj);

  for (const char* pipe : kPipes) {
    const std::string key = std::string("fu_") + pipe + "_pj_per_lane_op";
    t.fu_pj_per_lane_op.emplace_back(
        pipe, required(top, root, key,
                       std::string("pJ per lane operation of the ") + pipe + " pipe", kMaxPj));
  }
  t.l1_access_pj = required(top, root, "l1_access_pj_per_request",
                            "pJ per L1 request (one line access: read, write or atomic)", kMaxPj);
  t.l1_fill_pj_per_byte =
      required(top, root, "l1_fill_pj_per_byte", "pJ per byte filled into the L1", kMaxPj);
  t.l2_access_pj =
      required(top, root, "l2_access_pj_per_request",
               "pJ per L2 request (one line access: read, write, atomic or write-back)", kMaxPj);
  t.l2_fill_pj_per_byte =
      required(top, root, "l2_fill_pj_per_byte", "pJ per byte filled into the L2", kMaxPj);
  t.shared_access_pj = required(top, root, "shared_access_pj_per_warp_access",
                                "pJ per warp shared-memory access (32 x 4 B)", kMaxPj);
  t.memory_pj_per_byte =
      required(top, root, "memory_pj_per_byte", "pJ per byte read or written off-chip", kMaxPj);

  // Added structures: any statistics group kind, with per-event energies.
  if (root.find("structures")) {
    Params& ss = top.sub("structures", "added structures: group kind -> per-event energies");
    if (ss.node())
      for (const std::string& name : ss.node()->keys()) {
        Params& sp = ss.sub(name, "an added structure");
        if (energy_fixed_kind(name))
          ss.fail(name, "'" + name +
                            "' is a unit the fixed entries already model; name an "
                            "added structure by its own statistics group kind");
        EnergyStructure s;
        s.name = name;
        s.where = sp.node() ? sp.node()->where() : root.where();
        s.part_of_rf = required_bool(sp, "part_of_rf", "counted in the register-file energy");
        s.leakage_mw = required(sp, root, "leakage_mw",
                                "leakage of one instance (statistics group), mW", kMaxMw);
        if (!sp.node() || !sp.node()->find("events"))
          sp.fail("events", "missing required entry; expected a map of statistic name -> pJ "
                            "per counted event");
        Params& ev = sp.sub("events", "statistic name -> pJ per counted event");
        if (!ev.node() || ev.node()->keys().empty())
          sp.fail("events", "expected a map of statistic name -> pJ per counted event");
        for (const std::string& stat : ev.node()->keys()) {
          s.events.emplace_back(
              stat, ev.get_double(stat, 0, "pJ per count of statistic '" + stat + "'", 0, kMaxPj));
          s.event_where.push_back(ev.node()->find(stat)->where());
        }
        t.structures.push_back(std::move(s));
      }
  }
  parse_sm_scope(t, top, root);
  top.check_unused();
  return t;
}

EnergyTable load_energy_table(const std::string& path) {
  if (!fs::is_regular_file(path)) throw ConfigError(path + ": cannot open energy table");
  ConfigPtr root = load_config(path);
  return parse_energy_table(*root, path);
}

std::shared_ptr<const EnergyTable> platform_energy_table(Params& top) {
  Params& e = top.sub("energy", "energy accounting (docs/energy.md)");
  const std::string name = e.get_string(
      "table", "",
      "technology table (configs/energy/*.yaml), relative to the platform file; empty: none");
  if (name.empty()) return nullptr;
  fs::path p(name);
  const ConfigNode* n = e.node() ? e.node()->find("table") : nullptr;
  if (p.is_relative() && n && n->line > 0) p = fs::path(n->file).parent_path() / p;
  if (!fs::is_regular_file(p)) {
    std::string avail;
    std::error_code ec;
    for (auto& f : fs::directory_iterator(p.parent_path().empty() ? "." : p.parent_path(), ec))
      if (f.path().extension() == ".yaml")
        avail += (avail.empty() ? "" : ", ") + f.path().filename().string();
    e.fail("table", "cannot open energy table '" + p.string() + "'" +
                        (avail.empty() ? "" : "; tables there: " + avail));
  }
  // The resolved platform (--dump-config) names the table so that it loads from anywhere.
  if (Params::fill_defaults && n) const_cast<ConfigNode*>(n)->scalar = fs::absolute(p).string();
  return std::make_shared<const EnergyTable>(load_energy_table(p.string()));
}

Json energy_report(const EnergyTable& t, const Json& stats, const EnergyPlatform& pf) {
  check_inputs(stats, pf);
  const double cycles = sm_cycles(stats);
  check_structure_stats(t, stats);
  check_energy_priced(t, stats);
  const double ns = cycles / pf.clock_ghz; // mW x ns = pJ

  Json b = Json::object();
  // Register banks: each activated slice is one access of slice_bytes.
  const double slice_bytes = kRegBytes / pf.bank_slices;
  const double slice_leak_mw = t.bank_leakage_mw * (pf.bank_rows * slice_bytes) / t.bank_bytes;
  double rd = 0, wr = 0, leak = 0;
  for (auto& g : groups(stats, "bank")) {
    rd += stat_required(g, "slice_reads") * t.bank_read_pj_per_16B * slice_bytes / 16;
    wr += stat_required(g, "slice_writes") * t.bank_write_pj_per_16B * slice_bytes / 16;
    const double slice_cycles = pf.bank_slices * cycles;
    const double gated = stat_or(*g.second, "gated_cycles", 0);
    if (gated > slice_cycles)
      throw std::runtime_error("energy: " + g.first + ".gated_cycles (" + fmt(gated) +
                               ") exceeds slices x cycles (" + fmt(slice_cycles) + ")");
    leak += (slice_cycles - gated) / pf.clock_ghz * slice_leak_mw;
  }
  b["rf_bank_read"] = rd;
  b["rf_bank_write"] = wr;
  b["rf_bank_leakage"] = leak;

  // Malekeh: results written into the CCUs cross the wire and are collector writes.
  double ccu = 0;
  for (auto& g : groups(stats, "collector")) ccu += stat_or(*g.second, "ccu_writes", 0);
  double bytes = ccu * kRegBytes;
  for (auto& g : groups(stats, "crossbar")) bytes += stat_required(g, "bytes");
  b["rf_wire"] = bytes * t.wire_pj_per_mm_per_byte * t.wire_mm;

  double oc = ccu;
  for (auto& g : groups(stats, "collector")) oc += stat_required(g, "oc_writes");
  b["collector"] = oc * t.collector_write_pj;

  // Functional units: every lane of a warp instruction counted (active masks not counted);
  // the Affine GPU's one-lane instructions save the other 31.
  std::vector<double> fu(t.fu_pj_per_lane_op.size(), 0);
  for (auto& g : groups(stats, "exec"))
    for (auto [stat, lanes] :
         {std::pair{"instructions", kLanes}, {"affine_instructions", 1 - kLanes}}) {
      auto it = g.second->find(stat);
      if (it == g.second->end() && lanes < 0) continue; // optional
      if (it == g.second->end() || !it->contains("values"))
        throw std::runtime_error("energy: statistics group '" + g.first + "' has no vector '" +
                                 stat + "'");
      const Json& values = (*it)["values"];
      const Json labels = it->contains("labels") ? (*it)["labels"] : Json::array();
      for (size_t i = 0; i < values.size(); ++i) {
        const std::string label = i < labels.size() ? labels[i].get<std::string>() : "";
        size_t k = 0;
        while (k < fu.size() && t.fu_pj_per_lane_op[k].first != label) ++k;
        if (k == fu.size())
          throw ConfigError(t.path + ": no fu_" + label + "_pj_per_lane_op entry for pipe '" +
                            label + "' of " + g.first + "." + stat);
        fu[k] += values[i].get<double>() * lanes * t.fu_pj_per_lane_op[k].second;
      }
    }
  for (size_t k = 0; k < fu.size(); ++k) b["fu_" + t.fu_pj_per_lane_op[k].first] = fu[k];

  double l1 = 0;
  for (auto& g : groups(stats, "l1"))
    l1 += (stat_required(g, "reads") + stat_required(g, "writes") +
           stat_or(*g.second, "atomics", 0)) *
              t.l1_access_pj +
          stat_or(*g.second, "bytes_from_memory", 0) * t.l1_fill_pj_per_byte;
  b["l1"] = l1;

  double l2 = 0;
  for (auto& g : groups(stats, "l2"))
    l2 += (stat_required(g, "reads") + stat_required(g, "writes") + stat_required(g, "atomics") +
           stat_required(g, "writebacks")) *
              t.l2_access_pj +
          stat_required(g, "bytes_from_memory") * t.l2_fill_pj_per_byte;
  b["l2"] = l2;

  double shared = 0;
  for (auto& g : groups(stats, "lsu")) {
    double n = 0;
    if (stat_label(*g.second, "instructions", "shared", n)) shared += n;
  }
  b["shared_memory"] = shared * t.shared_access_pj;

  double mem = 0;
  for (auto& g : groups(stats, "memory"))
    mem += stat_required(g, "bytes_read") + stat_required(g, "bytes_written");
  b["memory"] = mem * t.memory_pj_per_byte;

  double rf_dyn = rd + wr + b["rf_wire"].get<double>() + b["collector"].get<double>();
  double rf_leak = leak;
  for (const EnergyStructure& s : t.structures) {
    const auto gs = groups(stats, s.name);
    double dyn = 0;
    for (const auto& [stat, pj] : s.events)
      for (auto& g : gs) {
        double v = 0;
        if (stat_value(*g.second, stat, v)) dyn += v * pj;
      }
    const double sleak = gs.size() * s.leakage_mw * ns;
    b[s.name] = dyn;
    b[s.name + "_leakage"] = sleak;
    if (s.part_of_rf) {
      rf_dyn += dyn;
      rf_leak += sleak;
    }
  }

  // Static: every leakage term so far, and the SM scope's static power below.
  double stat = leak;
  for (const EnergyStructure& s : t.structures) stat += b[s.name + "_leakage"].get<double>();

  // The SM scope: its pipeline components, and the static power outside the banks. The L2,
  // the interconnect and their static power are outside the SM (uncore).
  double uncore = 0;
  if (t.scope == EnergyScope::Sm) {
    for (const EnergyPipelineComponent& c : t.pipeline) {
      double e = 0;
      for (const EnergyPipelineEvent& ev : c.events)
        for (auto& g : groups(stats, ev.kind)) {
          double n = 0;
          if (ev.label.empty() ? stat_value(*g.second, ev.stat, n)
                               : stat_label(*g.second, ev.stat, ev.label, n))
            e += n * ev.pj;
        }
      b[c.name] = e;
      if (c.uncore) uncore += e;
    }
    const double sms = sm_groups(stats);
    b["sm_static"] = t.sm_static_mw * sms * ns;
    b["uncore_static"] = t.uncore_static_mw * sms * ns;
    stat += b["sm_static"].get<double>() + b["uncore_static"].get<double>();
    uncore += b["l2"].get<double>() + b["uncore_static"].get<double>();
  }

  double total = 0;
  for (auto& [k, v] : b.items()) total += v.get<double>();
  const double memory = b["memory"].get<double>();
  Json out;
  out["table"] = t.name;
  out["scope"] = t.scope == EnergyScope::Sm ? "sm" : "register-file";
  out["rf_dynamic_energy_pj"] = rf_dyn;
  out["rf_leakage_energy_pj"] = rf_leak;
  out["sm_energy_pj"] = total - memory - uncore;
  out["uncore_energy_pj"] = uncore;
  out["memory_energy_pj"] = memory;
  out["dynamic_energy_pj"] = total - stat;
  out["static_energy_pj"] = stat;
  out["total_energy_pj"] = total;
  out["breakdown"] = std::move(b);
  check_energy_identity(t, stats, pf, out);
  return out;
}

Json energy_report(const std::string& table_path, const Json& stats, const EnergyPlatform& pf) {
  return energy_report(load_energy_table(table_path), stats, pf);
}

} // namespace gpurf
