// The result files' layout (result.json, summary.json): platform/results_schema.json, embedded
// at build time (gpurf/platform/results_schema.h, generated) and read by the scripts too.
#pragma once

#include <nlohmann/json.hpp>

#include "gpurf/platform/results_schema.h"

namespace gpurf {

// The schema as parsed (version, files, result_keys with what each means, host_keys).
const nlohmann::json& results_schema();
// Throws std::logic_error naming the first key of a run's summary that the schema does not
// list: a new or renamed key fails the run that writes it until the schema says what it is.
void check_result_keys(const nlohmann::ordered_json& summary);

} // namespace gpurf
