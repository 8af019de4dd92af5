// Provenance of results (docs/tools.md, "Provenance"): what produced a result folder, so that a
// number can be traced back to gpurf's version, the command, the platform as resolved and the
// workload's contents.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpurf {

struct LaunchSpec;

// gpurf's version and `git describe` at build time, e.g. "0.1.0 (a1b2c3d-dirty)".
std::string gpurf_version();
// FNV-1a, 64 bits, as "fnv1a64:<16 hex digits>": identifies contents, not a cryptographic hash.
std::string content_hash(const void* data, size_t bytes);
std::string file_hash(const std::string& path); // "" when the file cannot be read
// {"file": absolute path, "file_hash": file_hash(path)}.
nlohmann::ordered_json file_facts(const std::string& path);

// The common part: schema, gpurf's version, SystemC's, the command line, the working
// folder, the host and the time (UTC).
nlohmann::ordered_json provenance(const std::vector<std::string>& argv, int schema);
// The workload's part: launch file, PTX and every buffer's initial contents hashed, scale and
// the --var replacements.
nlohmann::ordered_json workload_provenance(const LaunchSpec& spec,
                                           const std::vector<std::string>& vars);

} // namespace gpurf
