// Conservation identities, checked at the end of every run with the timing checker: every
// counter that describes the same events from two units (or from a unit and the checker's
// own event counts) must agree, so a counter never incremented or counted twice is caught.
// Plain C++ over the statistics JSON (dump_stats_json()). Each unit kind and implementation
// registers its own identities beside its code (GPURF_IDENTITIES, below; the SM's and the
// GPU's cross-unit ones in platform/sm_identities.cpp and platform/gpu_identities.cpp);
// docs/checks.md lists them.
#pragma once

#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpurf/platform/check/timing_checker.h"

namespace gpurf {

// The broken identities, one line each (empty when all hold). `slices`: slices per
// bank (crossbar bytes = slices moved x 128 / slices). Runs every registered block whose gate
// holds. Throws UnknownStatistic when an identity reads a statistic that a group of its kind
// (and implementation) does not declare.
std::vector<std::string> check_identities(const nlohmann::ordered_json& stats,
                                          const EventCounts& events, unsigned slices);

// An identity read a statistic that a group it reads does not declare (a counter renamed
// without its reader): a gpurf bug, not bad input.
struct UnknownStatistic : std::logic_error {
  using std::logic_error::logic_error;
};

// Whether any group of kind `kind` (platform/stats.h: group_of_kind) exists; one made by
// implementation `impl` (its "_unit" entry). The identities of a unit that only some designs
// have are gated on these, never on a statistic being there.
bool has_kind(const nlohmann::ordered_json& stats, const std::string& kind);
bool has_impl(const nlohmann::ordered_json& stats, const std::string& kind,
              const std::string& impl);
// The `impl:` that made a group ("" when the dump does not say).
const std::string& group_impl(const nlohmann::ordered_json& group);

// The statistics (kind, name) whose counts an identity has read in this process so far,
// recorded by the identities' own lookups (not a hand-kept list): which counters the
// identities watch. tests/e2e/watched_stats_test.cpp holds every statistic a run emits to
// being read here or declared unwatched (check::unwatched, platform/stats.h).
std::set<std::pair<std::string, std::string>> identity_reads();

// What one block of identities sees: the run's statistics, the checker's event counts, and
// the lookups. Every count goes through sum, sum_of, read_at or element: each records what it
// read (identity_reads()) and throws UnknownStatistic when a group it reads does not declare
// the statistic, so a renamed counter stops the run instead of summing to 0.
class IdentityCheck {
public:
  IdentityCheck(const nlohmann::ordered_json& stats, const EventCounts& events, unsigned slices)
      : stats(stats), events(events), slices(slices) {}
  const nlohmann::ordered_json& stats;
  const EventCounts& events;
  const unsigned slices; // per bank

  // Named terms that must all be equal; a broken identity adds "what: a = 1; b = 2".
  using Term = std::pair<std::string, double>;
  void equal(const std::string& what, std::vector<Term> terms);
  // Sum over every group of kind `kind`; sum_of: of those made by implementation `impl`.
  double sum(const char* kind, const char* stat) { return sum_of(kind, "", stat); }
  double sum_of(const char* kind, const std::string& impl, const char* stat);
  // One group's count.
  double read_at(const char* kind, const std::string& path, const nlohmann::ordered_json& group,
                 const char* stat);
  // Element `i` of a vector statistic, summed over the groups of its kind.
  double element(const char* kind, const char* stat, size_t i);
  // The groups of kind `kind` (of implementation `impl`, "" = any): (name, group).
  std::vector<std::pair<std::string, const nlohmann::ordered_json*>>
  groups(const char* kind, const std::string& impl = "") const;
  bool has(const char* kind, const char* impl) const { return has_impl(stats, kind, impl); }
  bool has_kind(const char* kind) const { return gpurf::has_kind(stats, kind); }

  const char* block = "";                              // the block running (for errors)
  std::vector<std::string> bad;                        // the broken identities
  std::set<std::pair<std::string, std::string>> reads; // what was read

private:
  const nlohmann::ordered_json& stat_of(const std::string& path,
                                        const nlohmann::ordered_json& group, const char* stat);
};

// When a block runs: always (the SM's and every run's identities), or when the run has a
// group of any of the (kind, impl) pairs ("" impl: any implementation of the kind). A block
// is gated on its unit being there, never on a statistic being there, so a counter left at 0
// is still checked.
struct IdentityGate {
  std::vector<std::pair<std::string, std::string>> any;
  bool holds(const nlohmann::ordered_json& stats) const;
};
namespace identities {
inline IdentityGate always() { return {}; }
inline IdentityGate kind(std::string k) { return {{{std::move(k), ""}}}; }
inline IdentityGate impl(std::string k, std::string i) { return {{{std::move(k), std::move(i)}}}; }
inline IdentityGate any_impl(std::vector<std::pair<std::string, std::string>> ki) {
  return {std::move(ki)};
}
} // namespace identities

// Registers a block of identities (GPURF_IDENTITIES does it). Blocks run in a fixed order:
// the ungated ones, then those gated on a kind, then those gated on an implementation, each
// by name.
using IdentityBlock = void (*)(IdentityCheck&);
bool register_identities(const char* name, const char* file, IdentityGate gate,
                         IdentityBlock block);
// The registered blocks' names, in the order they run.
std::vector<std::string> identity_block_names();

} // namespace gpurf

// A block of identities, registered from the file of the unit (kind or implementation) whose
// design makes the rule; its body sees `c` (an IdentityCheck):
//   GPURF_IDENTITIES(rfc, identities::kind("rfc")) {
//     c.equal("RFC hits = RFC read events", {{"rfc.reads", c.sum("rfc", "reads")}, ...});
//   }
// The file is plain C++ (no SystemC) named <name>_identities.cpp: CMakeLists.txt builds
// every such file into gpurf_identities, which unit tests link without the units.
#define GPURF_IDENTITIES(name, gate)                                                               \
  static void gpurf_identities_##name(gpurf::IdentityCheck& c);                                    \
  static const bool gpurf_identities_registered_##name =                                           \
      gpurf::register_identities(#name, __FILE__, gate, gpurf_identities_##name);                  \
  static void gpurf_identities_##name(gpurf::IdentityCheck& c)
