// How the command line names things: a file by its path, or by its name in a folder of the
// source tree (`--platform fermi`, `--workload sgemm`).
#pragma once

#include <string>
#include <vector>

namespace gpurf {

// `value` when it is a file or looks like a path (a missing one is reported where it is
// opened), else <dir>/<value>.yaml when that exists; otherwise throws ConfigError
// "<option>: no <what> '<value>'; did you mean ...? (<names>: ...)", the names being the
// folder's and `also`.
std::string named_yaml(const std::string& option, const std::string& value, const std::string& dir,
                       const std::string& what, const std::string& names,
                       const std::vector<std::string>& also = {});

// A platform: a file, or configs/<p>.yaml of the source tree `source`.
std::string platform_path(const std::string& source, const std::string& p);
// The folder the tool's platforms (configs/) and kernels (workloads/) are in: $GPURF_DATA if
// set, else the source tree it was built from (gpurf::data_roots, docs/vp.md).
const std::string& data_root();

} // namespace gpurf
