// gpurf exec: runs an unmodified CUDA program on a platform (docs/programs.md).
#pragma once

#include <string>
#include <vector>

namespace gpurf {
// `args`: what follows `gpurf exec`; `argv`: the whole command line (provenance).
int exec_main(const std::vector<std::string>& args, const std::vector<std::string>& argv);
} // namespace gpurf
