#include "sc_main/provenance.h"

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <systemc>
#include <unistd.h>

#include "gpurf/modules/frontend/launch.h"

const char* gpurf_git_describe(); // git_version.cpp, generated at build time

namespace gpurf {

std::string gpurf_version() {
  return std::string(GPURF_VERSION) + " (" + gpurf_git_describe() + ")";
}

std::string content_hash(const void* data, size_t bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < bytes; ++i)
    h = (h ^ static_cast<const uint8_t*>(data)[i]) * 0x100000001b3ull;
  char s[32];
  std::snprintf(s, sizeof s, "fnv1a64:%016llx", static_cast<unsigned long long>(h));
  return s;
}

std::string file_hash(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f || std::filesystem::is_directory(path)) return "";
  const std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  return content_hash(bytes.data(), bytes.size());
}

nlohmann::ordered_json file_facts(const std::string& path) {
  return {{"file", std::filesystem::absolute(path).lexically_normal().string()},
          {"file_hash", file_hash(path)}};
}

nlohmann::ordered_json provenance(const std::vector<std::string>& argv, int schema) {
  nlohmann::ordered_json j;
  j["schema"] = schema;
  j["gpurf"] = gpurf_version();
  j["systemc"] = sc_core::sc_release();
  j["command"] = argv;
  std::error_code ec;
  j["cwd"] = std::filesystem::current_path(ec).string();
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  j["host"] = host;
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char when[32];
  std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  j["started"] = when;
  return j;
}

nlohmann::ordered_json workload_provenance(const LaunchSpec& spec,
                                           const std::vector<std::string>& vars) {
  nlohmann::ordered_json w;
  w["name"] = spec.name;
  w.update(file_facts(spec.file));
  w["ptx"] = std::filesystem::absolute(spec.ptx_path).lexically_normal().string();
  w["ptx_hash"] = file_hash(spec.ptx_path);
  if (spec.ptx_paths.size() > 1) { // an application's other modules
    nlohmann::ordered_json more = nlohmann::ordered_json::array();
    for (size_t i = 1; i < spec.ptx_paths.size(); ++i)
      more.push_back(
          {{"ptx", std::filesystem::absolute(spec.ptx_paths[i]).lexically_normal().string()},
           {"ptx_hash", file_hash(spec.ptx_paths[i])}});
    w["more_ptx"] = more;
  }
  w["kernel"] = spec.kernel;
  w["scale"] = spec.scale;
  w["var_overrides"] = vars;
  nlohmann::ordered_json b;
  for (const LaunchBuffer& x : spec.buffers)
    b[x.name] = content_hash(x.initial.data(), x.initial.size());
  w["buffers"] = b;
  return w;
}

} // namespace gpurf
