// Statistics, declared with name, description, unit and (for a counter) what the energy model
// does with it, grouped by the module hierarchy (the group name is the sc_object name), dumped
// as JSON. A unit declares everything about its counters here, where it counts them: no
// central table names them (docs/statistics.md).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpurf {

class StatGroup;

// What the energy model (platform/energy.h) does with a counter, declared with it.
enum class EnergyRole {
  Undeclared,  // not said: a fixed unit kind's counter stops an energy run (energy_fixed_kind);
               // an added structure's counter is one of its events
  Priced,      // an energy event priced by a fixed table entry (`why` names it)
  Structure,   // an energy event of an added structure: structures.<kind>.events prices it
  Leakage,     // a time base of a leakage term (sm.cycles, bank gated_cycles)
  NotEvent,    // bookkeeping: stalls, waits, occupancy, outcomes, or a count of events that
               // another statistic already prices (`why` names it)
  NotModelled, // a real energy event the model deliberately leaves out (docs/energy.md,
               // "What is not modelled")
  Scope,       // an event of the SM scope (fetch, decode, issue, operand-collection
               // bookkeeping, memory pipeline, interconnect): a table of scope `sm` prices it
               // under `pipeline:`; a register-file-scope table leaves it out
};
// Its name in stats.json ("priced", "not_event", ...); Undeclared: "".
const char* energy_role_name(EnergyRole r);
// The role named `name`; Undeclared for a name that is none.
EnergyRole energy_role_of(const std::string& name);

// A counter's energy role and why; a labelled vector may give one per label instead.
struct LabelEnergy {
  std::string label;
  EnergyRole role;
  std::string why;
};
struct StatEnergy {
  EnergyRole role = EnergyRole::Undeclared;
  std::string why;
  std::vector<LabelEnergy> labels; // per label (role Undeclared then)
};
// The energy argument of StatGroup::scalar/vector: energy::priced("l1_access_pj_per_request").
namespace energy {
inline StatEnergy priced(std::string why) { return {EnergyRole::Priced, std::move(why), {}}; }
inline StatEnergy structure(std::string why) { return {EnergyRole::Structure, std::move(why), {}}; }
inline StatEnergy leakage(std::string why) { return {EnergyRole::Leakage, std::move(why), {}}; }
inline StatEnergy no_event(std::string why) { return {EnergyRole::NotEvent, std::move(why), {}}; }
inline StatEnergy not_modelled(std::string why) {
  return {EnergyRole::NotModelled, std::move(why), {}};
}
inline StatEnergy scope(std::string why) { return {EnergyRole::Scope, std::move(why), {}}; }
inline StatEnergy by_label(std::vector<LabelEnergy> l) {
  return {EnergyRole::Undeclared, "", std::move(l)};
}
} // namespace energy

// A statistic no conservation identity reads, with the reason (docs/checks.md, "Every counter
// watched"), declared with it as the energy role is: the argument after the energy role,
// check::unwatched("stalls"). `gap`: it feeds the energy or a paper's headline, and an
// identity is still owed (check::open_gap). tests/e2e/watched_stats_test.cpp holds every
// statistic a run emits to being read by an identity or declared so.
struct Unwatched {
  std::string why; // empty: an identity reads it
  bool gap = false;
};
namespace check {
inline Unwatched unwatched(std::string why) { return {std::move(why), false}; }
inline Unwatched open_gap(std::string why) { return {std::move(why), true}; }
} // namespace check

// A counter, or a vector of counters (one per bank, per kind...).
struct Stat {
  std::string name, description, unit;
  std::vector<uint64_t> values;    // size 1 for scalars
  std::vector<std::string> labels; // optional names of the vector elements
  bool is_vector = false;          // declared with vector() (dumped as "values" even if size 1)
  StatEnergy energy;               // dumped as "energy": role, or {label: role}
  Unwatched unwatched;             // why no identity reads it (not dumped)
  uint64_t& operator[](size_t i) { return values[i]; }
  uint64_t total() const;
};

// A value computed at dump time from other statistics (IPC, utilisation...); NaN (a ratio of
// nothing: ratio(0, 0)) is dumped as null, "n/a".
struct Formula {
  std::string name, description, unit;
  std::function<double()> eval;
  // A ratio of the group's counters (StatGroup::ratio): sum of `numerator` over sum of
  // `denominator`, so that a reader can aggregate it over instances (summary.json).
  std::vector<std::string> numerator, denominator;
};
// num / den, NaN when den is 0 (dumped as null: neither 0 nor 1 means "nothing counted").
inline double ratio(double num, double den) { return den != 0 ? num / den : std::nan(""); }

// How a distribution groups its samples: `linear(width, n)`: n buckets [0, w), [w, 2w), ...
// (w a power of two; w = 1 keeps every value below n exactly); `log2(n)`: n buckets {0}, {1},
// [2, 3], [4, 7], ..., [2^(n-2), 2^(n-1) - 1]. Either way one more bucket takes every larger
// value.
struct Buckets {
  enum class Scale : uint8_t { Linear, Log2 };
  Scale scale = Scale::Linear;
  unsigned shift = 0; // linear: log2 of the width
  unsigned n = 1;     // buckets before the one of larger values
  static Buckets linear(uint64_t width, unsigned n);
  static Buckets log2(unsigned n);
  uint64_t width() const { return uint64_t(1) << shift; }
};

// A histogram of a value sampled per event (a latency per instruction, a queue depth per
// request), with the exact count, sum, min and max. sample() is O(1) and never allocates.
// Never an energy event: it measures events that counters price, if anything does.
struct Distribution {
  std::string name, description, unit;
  Buckets buckets;
  std::vector<uint64_t> counts; // buckets.n + 1; the last: values beyond the last bucket
  uint64_t count = 0, sum = 0, min = UINT64_MAX, max = 0;

  void sample(uint64_t v) {
    ++count;
    sum += v;
    min = std::min(min, v);
    max = std::max(max, v);
    ++counts[bucket(v)];
  }
  size_t bucket(uint64_t v) const {
    const uint64_t i = buckets.scale == Buckets::Scale::Linear ? v >> buckets.shift
                       : v == 0                                ? 0
                                                               : uint64_t(64 - __builtin_clzll(v));
    return size_t(std::min<uint64_t>(i, buckets.n));
  }
  // Smallest and largest value bucket i holds (the last one's largest: UINT64_MAX).
  uint64_t bucket_low(size_t i) const;
  uint64_t bucket_high(size_t i) const;
  // The pct-th percentile (0 < pct <= 100) as the largest value of the bucket that holds the
  // ceil(pct% x count)-th smallest sample, at most max: an upper bound of the true
  // percentile, exact where buckets are 1 wide (linear(1, n) below n). count must be > 0.
  uint64_t percentile(unsigned pct) const;
};

class StatGroup {
public:
  explicit StatGroup(std::string path);
  StatGroup(const StatGroup&) = delete;
  ~StatGroup();
  uint64_t& scalar(const std::string& name, const std::string& desc, const std::string& unit,
                   StatEnergy energy = {}, Unwatched unwatched = {});
  Stat& vector(const std::string& name, size_t n, const std::string& desc, const std::string& unit,
               std::vector<std::string> labels = {}, StatEnergy energy = {},
               Unwatched unwatched = {});
  Stat& vector(const std::string& name, size_t n, const std::string& desc, const std::string& unit,
               StatEnergy energy, Unwatched unwatched = {}) {
    return vector(name, n, desc, unit, {}, std::move(energy), std::move(unwatched));
  }
  void formula(const std::string& name, const std::string& desc, const std::string& unit,
               std::function<double()> f);
  // A formula sum(numerator) / sum(denominator) of this group's counters, null when the
  // denominator is 0 (hit ratios); declared after the counters it names.
  void ratio(const std::string& name, const std::string& desc, const std::string& unit,
             std::vector<std::string> numerator, std::vector<std::string> denominator);
  // A histogram the unit samples per event (Distribution, Buckets); never an energy event.
  Distribution& distribution(const std::string& name, const std::string& desc,
                             const std::string& unit, Buckets buckets);
  const std::string& path() const { return path_; }
  // The platform key (slot) and `impl:` of the registered implementation that made the group
  // (its own group and any it declares beside it); empty for the SM's and the GPU's own.
  const std::string& slot() const { return slot_; }
  const std::string& impl() const { return impl_; }
  void set_origin(std::string slot, std::string impl) {
    slot_ = std::move(slot);
    impl_ = std::move(impl);
  }
  const std::deque<Stat>& stats() const { return stats_; }
  const std::vector<Formula>& formulas() const { return formulas_; }
  const std::deque<Distribution>& distributions() const { return distributions_; }
  // The counter `name` of this group (a vector: its total); throws if it declares none.
  uint64_t counter(const std::string& name) const;

private:
  std::string path_, slot_, impl_;
  std::deque<Stat> stats_; // deque: references stay valid
  std::vector<Formula> formulas_;
  std::deque<Distribution> distributions_;
};

// Every live group, in creation order.
std::vector<StatGroup*>& all_stat_groups();
// Marks every group created since all_stat_groups() had `first` entries as made by
// implementation `impl` at platform key `slot` (the registry, platform/registry.h).
void set_stat_origin(size_t first, const std::string& slot, const std::string& impl);
// {"sm.subcore0.bank0": {"reads": {"kind": "counter", "value": 12, "energy": "not_event",
//  "unit": "...", "desc": "..."}, ...}, ...}: "kind" (counter, vector, formula, distribution)
//  and "energy" (the declared role) always, unit and desc `with_descriptions`; a formula's
//  "value" is null where it is a ratio of nothing; a distribution has count, sum, mean, min,
//  max, p50, p90, p99 (null when empty) and its buckets (docs/statistics.md); a group a registered
//  implementation made starts with
//  "_unit": {"slot": "bank", "impl": "sliced"}.
// Keys keep creation/declaration order (ordered_json converts to nlohmann::json if needed).
nlohmann::ordered_json dump_stats_json(bool with_descriptions = true);
// The groups `select` takes (it returns true and sets `key`, the name the group has in the
// dump), in creation order: a GPU's own groups, named relative to it (Gpu::stats_json).
using StatSelect = std::function<bool(const std::string& path, std::string& key)>;
nlohmann::ordered_json dump_stats_json_of(const StatSelect& select, bool with_descriptions = true);
// Whether the group at `path` is of kind `kind`: its last path component is `kind`, optionally
// followed by an index ("sm.sub0.bank3" is of kind "bank"; "sm.l1" of kind "l1").
bool group_of_kind(const std::string& path, const std::string& kind);
// A distribution's dump (the object dump_stats_json writes for it, without unit and desc).
nlohmann::ordered_json distribution_json(const Distribution& d);
// Sum of a statistic over every group of kind `group_kind`
// (e.g. sum_stat("bank", "reads") sums reads of every ...bankN group).
uint64_t sum_stat(const std::string& group_kind, const std::string& name);
// A statistic's count in one group of a statistics JSON: "total" for vectors, "value" for
// scalars (and formulas); false if the group has no such statistic.
bool stat_value(const nlohmann::ordered_json& group, const std::string& name, double& out);
// sum_stat over a statistics JSON (dump_stats_json()); absent statistics count 0.
double sum_stat(const nlohmann::ordered_json& stats, const std::string& group_kind,
                const std::string& name);

} // namespace gpurf
