#include "sc_main/names.h"

#include <algorithm>
#include <filesystem>
#include <vector>

#include "gpurf/platform/config.h"

namespace fs = std::filesystem;

namespace gpurf {

std::string platform_path(const std::string& source, const std::string& p) {
  if (fs::exists(p) || p.find('/') != std::string::npos ||
      (p.size() > 5 && p.substr(p.size() - 5) == ".yaml"))
    return p; // a path (a missing one is reported where it is opened, with its name)
  const std::string named = source + "/configs/" + p + ".yaml";
  if (fs::exists(named)) return named;
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(source + "/configs"))
    if (e.path().extension() == ".yaml") names.push_back(e.path().stem());
  std::sort(names.begin(), names.end());
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  const std::string hint = closest(p, names);
  throw ConfigError("--platform: no platform file or platform named '" + p + "'" +
                    (hint.empty() ? "" : "; did you mean '" + hint + "'?") +
                    " (platforms in configs/: " + list + ")");
}

} // namespace gpurf
