// Conservation identities, checked at the end of every run with the timing checker: every
// counter that describes the same events from two units (or from a unit and the checker's
// own event counts) must agree, so a counter never incremented or counted twice is caught.
// Plain C++ over the statistics JSON (dump_stats_json()). docs/checks.md lists them.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/check/timing_checker.h"

namespace gpurf {

// The broken identities, one line each ("" -free list when all hold). `slices`: slices per
// bank (crossbar bytes = slices moved x 128 / slices).
std::vector<std::string> check_identities(const nlohmann::ordered_json& stats,
                                          const EventCounts& events, unsigned slices);

// Sum of statistic `stat` (its value, or a vector's total) over every group of kind `kind`:
// groups whose last path component is `kind` optionally followed by an index (sm.sub0.bank3
// is of kind "bank"). Absent statistics count 0.
double sum_stat(const nlohmann::ordered_json& stats, const std::string& kind,
                const std::string& stat);
// Whether any group of kind `kind` exists.
bool has_kind(const nlohmann::ordered_json& stats, const std::string& kind);

} // namespace gpurf
