#include "gpurf/platform/data_path.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "gpurf/platform/config.h"

namespace fs = std::filesystem;

namespace gpurf {

std::vector<std::string> data_roots(const std::string& package) {
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("GPURF_DATA"); env && *env) candidates.push_back(env);
  candidates.push_back(package);
  candidates.push_back(GPURF_INSTALL_DATA_DIR);
  candidates.push_back(GPURF_SOURCE_DIR);
  std::vector<std::string> roots;
  std::error_code ec;
  for (const std::string& c : candidates)
    if (!c.empty() && fs::is_directory(c, ec)) roots.push_back(c);
  return roots;
}

std::string data_path(const std::string& rel, const std::string& package) {
  std::error_code ec;
  if (rel.empty() || fs::exists(rel, ec) || fs::path(rel).is_absolute()) return rel;
  for (const std::string& root : data_roots(package)) {
    const std::string p = root + "/" + rel;
    if (fs::exists(p, ec)) return p;
  }
  return rel;
}

std::string data_dir(const std::string& sub, const std::string& package) {
  std::error_code ec;
  for (const std::string& root : data_roots(package))
    if (fs::is_directory(root + "/" + sub, ec)) return root + "/" + sub;
  throw ConfigError("no gpurf data folder '" + sub + "' in $GPURF_DATA, " +
                    (package.empty() ? "" : package + ", ") + GPURF_INSTALL_DATA_DIR + " or " +
                    GPURF_SOURCE_DIR + " (set GPURF_DATA to an installed share/gpurf)");
}

std::vector<std::string> baseline_platforms(const std::string& root) {
  const std::string file = root + "/configs/baselines.txt";
  std::ifstream in(file);
  if (!in) throw ConfigError(file + ": cannot open the list of baseline platforms");
  std::vector<std::string> names;
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] != '#') names.push_back(line);
  return names;
}

} // namespace gpurf
