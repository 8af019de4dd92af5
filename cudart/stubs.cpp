// Every function of CUDA 13's libcudart (api_names.txt: the names libcudart.so.13 exports)
// that api.cpp does not implement: a weak stub that names itself on stderr once and returns
// cudaErrorNotSupported. api.cpp's definitions are strong and replace these at link time.
#include <cstdio>
#include <mutex>
#include <set>
#include <string>

namespace {
int unsupported(const char* name) {
  static std::mutex m; // several host threads
  const std::lock_guard<std::mutex> lock(m);
  static std::set<std::string> said;
  if (said.insert(name).second)
    std::fprintf(stderr,
                 "gpurf: %s is not supported by libgpurf-cudart "
                 "(cudaErrorNotSupported; docs/programs.md lists the API)\n",
                 name);
  return 801; // cudaErrorNotSupported
}
} // namespace

#define GPURF_STUB(name)                                                                           \
  extern "C" __attribute__((weak)) int name() { return unsupported(#name); }
#include "stubs.inc"
