// gpurf compare: per-kernel tables of summary statistics across result directories.
// Plain C++17 (nlohmann::json); no SystemC.
#pragma once

#include <string>
#include <vector>

#include "gpurf/platform/results_schema.h"

namespace gpurf {

// `args` are the arguments after "compare". Prints the tables on stdout, warnings on
// stderr. Returns 0, or 2 for bad input (a missing summary, another schema version, an
// unknown statistic, a bad option), with the message on stderr.
int compare_main(const std::vector<std::string>& args);

// Version of the summary layout that compare (and scripts/plot, scripts/sweep) read: the one
// gpurf writes (platform/results_schema.json).
constexpr int kCompareSchema = kResultSchema;

} // namespace gpurf
