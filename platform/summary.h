// The summary of a run as `gpurf run` writes it (result.json, a suite's summary.json) and
// libgpurf-cudart writes it for a program (docs/programs.md): the counters taken from the
// statistics as they are now, what one launch added, and one kernel's summary object.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "gpurf/platform/results.h"
#include "gpurf/platform/simulation.h"

namespace gpurf {

// The summary's counters, from the statistics as they are now (`j` holds cycles and
// warp_instructions already).
void add_counters(nlohmann::ordered_json& j);
// The hit ratios of the cache-like units (l1_hit_ratio, rfc.hit_ratio, ccu.hit_ratio, ...),
// from the counters `j` holds: add_counters and launch_delta call it, and whoever sums
// summaries calls it again on the sum.
void add_hit_ratios(nlohmann::ordered_json& j);
// What one launch added: `now` minus `before`, counter by counter (the occupancy fields are
// the launch's own; ipc recomputed).
nlohmann::ordered_json launch_delta(const nlohmann::ordered_json& before,
                                    const nlohmann::ordered_json& now);
// One kernel's summary object (the suite's summary.json holds a list of them).
nlohmann::ordered_json summarize(const std::string& kernel, const std::string& platform,
                                 const RunResult& r, bool verified, const std::string& error);

} // namespace gpurf
