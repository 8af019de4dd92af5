#include "sc_main/names.h"
#include "gpurf/platform/text.h"

#include <algorithm>
#include <filesystem>

#include "gpurf/platform/config.h"
#include "gpurf/platform/data_path.h"

namespace fs = std::filesystem;

namespace gpurf {

std::string named_yaml(const std::string& option, const std::string& value, const std::string& dir,
                       const std::string& what, const std::string& names,
                       const std::vector<std::string>& also) {
  if (fs::exists(value)) return value;
  const std::string named = dir + "/" + value + ".yaml"; // also "apps/bfs"
  if (fs::exists(named)) return named;
  if (value.find('/') != std::string::npos ||
      (value.size() > 5 && value.substr(value.size() - 5) == ".yaml"))
    return value; // a path: the loader says it cannot open it
  std::vector<std::string> all = also;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".yaml") all.push_back(e.path().stem());
  std::sort(all.begin(), all.end());
  const std::string list = join(all);
  const std::string hint = closest(value, all);
  throw ConfigError(option + ": no " + what + " '" + value + "'" +
                    (hint.empty() ? "" : "; did you mean '" + hint + "'?") + " (" + names + ": " +
                    list + ")");
}

std::string platform_path(const std::string& source, const std::string& p) {
  return named_yaml("--platform", p, source + "/configs", "platform file or platform named",
                    "platforms in configs/");
}

const std::string& data_root() {
  static const std::string root = [] {
    const std::vector<std::string> roots = data_roots(GPURF_SOURCE_DIR);
    if (roots.empty())
      throw ConfigError("no gpurf data: set GPURF_DATA to an installed share/gpurf");
    return roots.front();
  }();
  return root;
}

} // namespace gpurf
