// gpurf profile: the characterisation of one kernel's dynamic register traffic on a platform
// (platform/profile.h; docs/tools.md, docs/workloads.md).
#pragma once

#include <string>

#include "gpurf/modules/frontend/launch.h"
#include "gpurf/platform/config.h"

namespace gpurf {

// Runs `spec` on `platform` (named `platform_name`) and prints the report in `format` (text,
// markdown or json). Returns 0, or 1 when the simulation failed.
int profile_kernel(ConfigNode& platform, const std::string& platform_name, const LaunchSpec& spec,
                   const std::string& format);

} // namespace gpurf
