// gpurf exec: runs an unmodified CUDA program on a platform (docs/programs.md).
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace gpurf {
struct ConfigNode;
// `args`: what follows `gpurf exec`; `argv`: the whole command line (provenance); `validate`
// builds the platform (a bad key or value throws ConfigError) before the program runs.
int exec_main(const std::vector<std::string>& args, const std::vector<std::string>& argv,
              const std::function<void(ConfigNode&)>& validate);
} // namespace gpurf
