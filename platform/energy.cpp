#include "platform/energy.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
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

// Group kinds the fixed entries model; an added structure may not reuse them.
const char* const kReserved[] = {"sm",   "bank",      "crossbar", "collector", "exec",
                                 "l1",   "memory",    "lsu",      "arbiter",   "allocator",
                                 "host", "writeback", "scheduler"};

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

// Whether the group at `path` is of `kind`: its last component is the kind, or the kind
// followed by an instance index ("sm.sub0.bank3" and "sm.l1" are of kinds "bank" and "l1").
bool is_kind(const std::string& path, const std::string& kind) {
  size_t dot = path.rfind('.');
  std::string last = dot == std::string::npos ? path : path.substr(dot + 1);
  if (last == kind) return true;
  while (!last.empty() && std::isdigit(static_cast<unsigned char>(last.back()))) last.pop_back();
  return last == kind;
}

using Json = nlohmann::ordered_json;

// The groups of one kind, in dump order.
std::vector<std::pair<std::string, const Json*>> groups(const Json& stats,
                                                        const std::string& kind) {
  std::vector<std::pair<std::string, const Json*>> out;
  for (auto it = stats.begin(); it != stats.end(); ++it)
    if (it.value().is_object() && is_kind(it.key(), kind)) out.emplace_back(it.key(), &*it);
  return out;
}

// A statistic's count: "value" for scalars (and formulas), "total" for vectors.
bool stat_value(const Json& group, const std::string& name, double& out) {
  auto it = group.find(name);
  if (it == group.end() || !it->is_object()) return false;
  if (auto t = it->find("total"); t != it->end() && t->is_number()) {
    out = t->get<double>();
    return true;
  }
  if (auto v = it->find("value"); v != it->end() && v->is_number()) {
    out = v->get<double>();
    return true;
  }
  return false;
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

} // namespace

EnergyTable parse_energy_table(ConfigNode& root, const std::string& path) {
  Params top(&root, "");
  EnergyTable t;
  t.path = path;
  t.name = top.get_string("name", fs::path(path).stem().string(), "table name");
  top.get_string("source", "", "where the numbers come from");
  top.get_string("technology", "", "process node and voltage the numbers are for");

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

  if (root.find("collector_write_pj_per_operand")) {
    t.has_collector = true;
    t.collector_write_pj = top.get_double("collector_write_pj_per_operand", 0,
                                          "pJ per operand write into a collector", 0, kMaxPj);
  }

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
        if (std::find(std::begin(kReserved), std::end(kReserved), name) != std::end(kReserved))
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
  if (!(pf.clock_ghz > 0) || !pf.bank_slices || !pf.bank_rows)
    throw std::runtime_error("energy: platform clock_ghz, bank_slices and bank_rows must be > 0");
  if (!stats.is_object()) throw std::runtime_error("energy: statistics are not a JSON object");
  double cycles = 0;
  {
    auto sm = stats.find("sm");
    if (sm == stats.end() || !stat_value(*sm, "cycles", cycles))
      throw std::runtime_error("energy: statistics have no sm.cycles");
  }
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

  double bytes = 0;
  for (auto& g : groups(stats, "crossbar")) bytes += stat_required(g, "bytes");
  b["rf_wire"] = bytes * t.wire_pj_per_mm_per_byte * t.wire_mm;

  double oc = 0;
  if (t.has_collector)
    for (auto& g : groups(stats, "collector")) oc += stat_required(g, "oc_writes");
  b["collector"] = oc * t.collector_write_pj;

  // Functional units: every lane of a warp instruction counted (active masks not counted).
  std::vector<double> fu(t.fu_pj_per_lane_op.size(), 0);
  for (auto& g : groups(stats, "exec")) {
    auto it = g.second->find("instructions");
    if (it == g.second->end() || !it->contains("values"))
      throw std::runtime_error("energy: statistics group '" + g.first +
                               "' has no vector 'instructions'");
    const Json& values = (*it)["values"];
    const Json labels = it->contains("labels") ? (*it)["labels"] : Json::array();
    for (size_t i = 0; i < values.size(); ++i) {
      const std::string label = i < labels.size() ? labels[i].get<std::string>() : "";
      size_t k = 0;
      while (k < fu.size() && t.fu_pj_per_lane_op[k].first != label) ++k;
      if (k == fu.size())
        throw ConfigError(t.path + ": no fu_" + label + "_pj_per_lane_op entry for pipe '" + label +
                          "' of " + g.first + ".instructions");
      fu[k] += values[i].get<double>() * kLanes * t.fu_pj_per_lane_op[k].second;
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
    for (size_t e = 0; e < s.events.size() && !gs.empty(); ++e) {
      const auto& [stat, pj] = s.events[e];
      bool found = false;
      for (auto& g : gs) {
        double v = 0;
        if (stat_value(*g.second, stat, v)) {
          dyn += v * pj;
          found = true;
        }
      }
      if (!found) {
        std::string have;
        for (auto it = gs[0].second->begin(); it != gs[0].second->end(); ++it)
          have += (have.empty() ? "" : ", ") + it.key();
        throw ConfigError(s.event_where[e] + ": structures." + s.name + ".events." + stat +
                          ": no statistic '" + stat + "' in the run's '" + s.name + "' groups (" +
                          gs[0].first + " has: " + have + ")");
      }
    }
    const double sleak = gs.size() * s.leakage_mw * ns;
    b[s.name] = dyn;
    b[s.name + "_leakage"] = sleak;
    if (s.part_of_rf) {
      rf_dyn += dyn;
      rf_leak += sleak;
    }
  }

  double total = 0;
  for (auto& [k, v] : b.items()) total += v.get<double>();
  const double memory = b["memory"].get<double>();
  Json out;
  out["table"] = t.name;
  out["rf_dynamic_energy_pj"] = rf_dyn;
  out["rf_leakage_energy_pj"] = rf_leak;
  out["sm_energy_pj"] = total - memory;
  out["memory_energy_pj"] = memory;
  out["total_energy_pj"] = total;
  out["breakdown"] = std::move(b);
  return out;
}

Json energy_report(const std::string& table_path, const Json& stats, const EnergyPlatform& pf) {
  return energy_report(load_energy_table(table_path), stats, pf);
}

} // namespace gpurf
