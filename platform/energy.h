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

#include "gpurf/platform/config.h"
#include "gpurf/platform/params.h"
#include "gpurf/platform/stats.h"

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

// What a table prices (docs/energy.md, "Scopes"):
// - RegisterFile: the register file, its wires and added structures, the functional units and
//   the memory hierarchy; the SM's front end, operand-collection bookkeeping, memory pipeline
//   and static power outside the banks are left out (EnergyRole::Scope events cost nothing).
// - Sm: the SM as GPUWattch/AccelWattch scope it: every Scope event must be priced under
//   `pipeline:`, and `sm_static_mw` / `uncore_static_mw` give the static power.
enum class EnergyScope { RegisterFile, Sm };

// One priced Scope event of a pipeline component: pJ per count of `kind`.`stat`[`label`].
struct EnergyPipelineEvent {
  std::string kind, stat, label; // label: "" = the whole statistic
  double pj = 0;
  std::string where; // file:line of the entry
};
// A component of the SM scope (fetch, decode, ...): its breakdown key and its events.
struct EnergyPipelineComponent {
  std::string name;
  bool uncore = false; // outside the SM (the SM-to-L2 interconnect): counted in uncore_energy_pj
  std::vector<EnergyPipelineEvent> events;
};

// A technology table, validated: every required entry present, in range, no unknown key.
struct EnergyTable {
  std::string path, name;
  EnergyScope scope = EnergyScope::RegisterFile;
  std::vector<EnergyPipelineComponent> pipeline; // Sm scope only
  double sm_static_mw = 0;     // Sm scope: static power of one SM outside its register banks
  double uncore_static_mw = 0; // Sm scope: one SM's share of the static power outside the SMs
  // rf
  double bank_read_pj_per_16B = 0, bank_write_pj_per_16B = 0, bank_leakage_mw = 0, bank_bytes = 0;
  // wire between the banks and the collectors (crossbar), per byte per mm
  double wire_pj_per_mm_per_byte = 0, wire_mm = 0;
  // collector operand buffer, per operand written into it
  double collector_write_pj = 0;
  // functional units, per lane operation, indexed like the exec `instructions` labels
  std::vector<std::pair<std::string, double>> fu_pj_per_lane_op;
  // L1 data cache, L2, shared memory, off-chip memory
  double l1_access_pj = 0, l1_fill_pj_per_byte = 0, l2_access_pj = 0, l2_fill_pj_per_byte = 0,
         shared_access_pj = 0, memory_pj_per_byte = 0;
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

// Which statistics are energy events: each unit declares it where it declares the statistic
// (EnergyRole, platform/stats.h), and the statistics JSON carries it ("energy").
// Kinds whose every counter must declare its energy role (the units the fixed entries model
// and the units with no energy events of their own); an added structure may not use them.
// Any other kind is an added structure: each of its counters that does not declare itself no
// event (or not modelled) is an energy event the table's `structures:` must price.
bool energy_fixed_kind(const std::string& kind);
// The kind of the statistics group at `path`: its last component when that is a kind gpurf
// or `table` knows ("sm.l1" -> "l1"), else without its instance index ("sm.sub0.bank3" ->
// "bank", "sm.sub1.rfc2" -> "rfc").
std::string energy_group_kind(const std::string& path, const EnergyTable* table = nullptr);

// pJ per count of statistic `stat` (element `label` of a labelled vector; the whole
// statistic, a vector by its total, when `label` is empty) in every group of kind `kind`.
struct EnergyPrice {
  std::string kind, stat, label;
  double pj = 0;
};
// Every price the table gives, as a flat list (the energy identity's input).
std::vector<EnergyPrice> energy_prices(const EnergyTable& table, const EnergyPlatform& platform);

// Every energy event counted non-zero in `stats` must have a price. Throws ConfigError
// naming the table file and, for each unpriced event, the unit (statistics group path), the
// event (statistic name) and its count; std::logic_error for a counter of a fixed kind that
// declares no energy role.
void check_energy_priced(const EnergyTable& table, const nlohmann::ordered_json& stats);
// Load time: the same for every energy event the platform's units declare, whatever its
// count (`declared` is dump_stats_json() right after elaboration), and every structure event
// the table names exists in the groups of its kind. Throws ConfigError naming the platform
// key of the unit (`platform` is the platform's root node; may be null), the table file and
// what to add to it.
void check_energy_declared(const EnergyTable& table, const nlohmann::ordered_json& declared,
                           const ConfigNode* platform);

// The energy identity: total = sum over every group and priced statistic of count x price,
// plus the leakage terms, recomputed by a separate walk over `stats` and energy_prices(),
// not by the code that builds the report's breakdown.
double energy_identity_total(const EnergyTable& table, const nlohmann::ordered_json& stats,
                             const EnergyPlatform& platform);
// The static part of energy_identity_total: the leakage and static terms alone.
double energy_identity_static(const EnergyTable& table, const nlohmann::ordered_json& stats,
                              const EnergyPlatform& platform);
// Throws std::runtime_error when the report's total_energy_pj differs from
// energy_identity_total, or from the sum of its breakdown, or from sm + uncore + memory
// energy, or its static_energy_pj from energy_identity_static, or dynamic + static from the
// total, by more than 1e-9 relative.
void check_energy_identity(const EnergyTable& table, const nlohmann::ordered_json& stats,
                           const EnergyPlatform& platform, const nlohmann::ordered_json& report);

// Energy of one run, in pJ:
// {"table", "scope", "rf_dynamic_energy_pj", "rf_leakage_energy_pj", "sm_energy_pj",
//  "uncore_energy_pj", "memory_energy_pj", "dynamic_energy_pj", "static_energy_pj",
//  "total_energy_pj", "breakdown": {component: pj}} (docs/energy.md).
// `stats` is dump_stats_json()'s object. Checks every counted energy event has a price
// (check_energy_priced) and the result against the energy identity (check_energy_identity).
// Throws ConfigError for an unpriced event or when the table names a statistic the run's
// groups do not have, std::runtime_error when the statistics lack what every run has
// (sm.cycles), `platform` is incomplete or the identity does not hold.
nlohmann::ordered_json energy_report(const EnergyTable& table, const nlohmann::ordered_json& stats,
                                     const EnergyPlatform& platform);
nlohmann::ordered_json energy_report(const std::string& table_path,
                                     const nlohmann::ordered_json& stats,
                                     const EnergyPlatform& platform);

} // namespace gpurf
