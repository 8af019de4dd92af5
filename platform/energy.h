// Energy accounting: events counted by the statistics x per-event energies from a
// technology table (configs/energy/*.yaml). Plain C++, no SystemC: it reads the statistics
// JSON (dump_stats_json()), so it also runs on a stats.json written by an earlier run.
// Model, formulas and sources: docs/energy.md.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/config.h"
#include "platform/params.h"

namespace gpurf {

// What the statistics do not say about the platform.
struct EnergyPlatform {
  double clock_ghz = 0;     // sm.clock_ghz: converts cycles to time for leakage
  unsigned bank_slices = 0; // bank.slices: a 128 B logical bank is slices x (128 / slices) B
  unsigned bank_rows = 0;   // bank.entries: 128 B rows per logical bank (capacity, leakage)
};

// An added structure (RFC, compressor, reuse buffer, ...): every statistics group of kind
// `name`, i.e. whose last path component is `name`, optionally followed by an instance index
// ("sm.sub0.rfc" and "sm.sub1.rfc2" are of kind "rfc").
struct EnergyStructure {
  std::string name;
  bool part_of_rf = false;                            // counted in rf_*_energy_pj
  double leakage_mw = 0;                              // per statistics group (instance)
  std::vector<std::pair<std::string, double>> events; // statistic name -> pJ per count
  std::vector<std::string> event_where;               // file:line of each event entry
  std::string where;                                  // file:line of the structure
};

// A technology table, validated: every required entry present, in range, no unknown key.
struct EnergyTable {
  std::string path, name;
  // rf
  double bank_read_pj_per_16B = 0, bank_write_pj_per_16B = 0, bank_leakage_mw = 0, bank_bytes = 0;
  // wire between the banks and the collectors (crossbar), per byte per mm
  double wire_pj_per_mm_per_byte = 0, wire_mm = 0;
  // collector operand buffer; absent from the table -> not counted
  bool has_collector = false;
  double collector_write_pj = 0;
  // functional units, per lane operation, indexed like the exec `instructions` labels
  std::vector<std::pair<std::string, double>> fu_pj_per_lane_op;
  // L1 data cache, shared memory, off-chip memory
  double l1_access_pj = 0, l1_fill_pj_per_byte = 0, shared_access_pj = 0, memory_pj_per_byte = 0;
  std::vector<EnergyStructure> structures;
};

// Loads and validates a table. Throws ConfigError naming file:line, the key and the valid
// range for a missing, negative, malformed or unknown entry.
EnergyTable load_energy_table(const std::string& path);
// The same from an already loaded tree (tests).
EnergyTable parse_energy_table(ConfigNode& root, const std::string& path);

// The platform's `energy:` section: declares `energy.table` on `top` (the platform's
// top-level parameters) and loads the table it names, resolved relative to the platform
// file that sets it (as `include:`). Returns null when the platform names no table.
std::shared_ptr<const EnergyTable> platform_energy_table(Params& top);

// Energy of one run, in pJ:
// {"table", "rf_dynamic_energy_pj", "rf_leakage_energy_pj", "sm_energy_pj",
//  "memory_energy_pj", "total_energy_pj", "breakdown": {component: pj}}.
// `stats` is dump_stats_json()'s object. Throws ConfigError when the table names a
// statistic the run's groups do not have, std::runtime_error when the statistics lack
// what every run has (sm.cycles) or `platform` is incomplete.
nlohmann::ordered_json energy_report(const EnergyTable& table, const nlohmann::ordered_json& stats,
                                     const EnergyPlatform& platform);
nlohmann::ordered_json energy_report(const std::string& table_path,
                                     const nlohmann::ordered_json& stats,
                                     const EnergyPlatform& platform);

} // namespace gpurf
