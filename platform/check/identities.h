// Conservation identities, checked at the end of every run with the timing checker: every
// counter that describes the same events from two units (or from a unit and the checker's
// own event counts) must agree, so a counter never incremented or counted twice is caught.
// Plain C++ over the statistics JSON (dump_stats_json()). docs/checks.md lists them.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpurf/platform/check/timing_checker.h"

namespace gpurf {

// The broken identities, one line each (empty when all hold). `slices`: slices per
// bank (crossbar bytes = slices moved x 128 / slices).
std::vector<std::string> check_identities(const nlohmann::ordered_json& stats,
                                          const EventCounts& events, unsigned slices);

// Whether any group of kind `kind` (platform/stats.h: group_of_kind) exists; and one that
// declares statistic `stat` (an identity of a counter that exists runs even when it is 0).
bool has_kind(const nlohmann::ordered_json& stats, const std::string& kind);
bool has_stat(const nlohmann::ordered_json& stats, const std::string& kind,
              const std::string& stat);

} // namespace gpurf
