// Conservation identities, checked at the end of every run with the timing checker: every
// counter that describes the same events from two units (or from a unit and the checker's
// own event counts) must agree, so a counter never incremented or counted twice is caught.
// Plain C++ over the statistics JSON (dump_stats_json()). docs/checks.md lists them.
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
// bank (crossbar bytes = slices moved x 128 / slices). Throws UnknownStatistic when an
// identity reads a statistic that a group of its kind (and implementation) does not declare.
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
// being read here or listed in unwatched_statistics().
std::set<std::pair<std::string, std::string>> identity_reads();

// The statistics no identity reads, each with the reason (docs/checks.md, "Every counter
// watched"): the one list of them.
struct UnwatchedStat {
  const char* kind;
  const char* stat;
  const char* why;
  bool gap = false; // feeds the energy or a paper's headline: an identity is still owed
};
const std::vector<UnwatchedStat>& unwatched_statistics();

} // namespace gpurf
