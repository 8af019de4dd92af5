// Fuzzes the platform YAML loader (platform/config.h: includes, anchors and aliases, merge
// keys, limits): an input loads, or raises ConfigError naming the file.
#include <unistd.h>

#include "common.h"
#include "gpurf/platform/config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpurf_fuzz;
  // An include of the fuzzed file itself and of a real platform are both reachable.
  const std::string path = write("platform.yaml", data, size);
  try {
    gpurf::load_config(path);
  } catch (const gpurf::ConfigError& e) {
    require_location("ConfigError", e.what(), "platform.yaml");
  } catch (const std::exception& e) {
    unexpected(e.what());
  }
  return 0;
}
