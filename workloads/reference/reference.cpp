#include "gpurf/workloads/reference/reference.h"

#include <algorithm>

namespace gpurf::workload {

namespace {
std::map<std::string, Checker>& registry() {
  static std::map<std::string, Checker> r; // constructed on first use (static-init order safe)
  return r;
}
} // namespace

const Buffer& LaunchData::buf(const std::string& name) const {
  auto it = buffers.find(name);
  if (it == buffers.end()) throw std::runtime_error("launch has no buffer '" + name + "'");
  return it->second;
}

int64_t LaunchData::var(const std::string& name) const {
  auto it = vars.find(name);
  if (it == vars.end()) throw std::runtime_error("launch has no var '" + name + "'");
  return it->second;
}

void register_checker(const char* name, Checker fn) { registry()[name] = fn; }

const Checker* find_checker(const std::string& name) {
  auto it = registry().find(name);
  return it == registry().end() ? nullptr : &it->second;
}

std::vector<std::string> checker_names() {
  std::vector<std::string> names;
  for (const auto& [name, fn] : registry()) names.push_back(name);
  return names; // std::map: already sorted
}

// One line per checker of the suite (workloads/reference/<name>.cpp), the stress kernels'
// (workloads/stress/) included.
#define GPURF_WORKLOADS(X)                                                                         \
  X(atomics)                                                                                       \
  X(attention)                                                                                     \
  X(backprop)                                                                                      \
  X(bfs)                                                                                           \
  X(bfs_app)                                                                                       \
  X(bitonic)                                                                                       \
  X(calls)                                                                                         \
  X(conv2d_f16)                                                                                    \
  X(conv_mma)                                                                                      \
  X(daxpy_dot)                                                                                     \
  X(dp1d)                                                                                          \
  X(dp1d_app)                                                                                      \
  X(gaussian)                                                                                      \
  X(gaussian_app)                                                                                  \
  X(gemm_rt)                                                                                       \
  X(gemm_tall)                                                                                     \
  X(heat2d)                                                                                        \
  X(heat2d_app)                                                                                    \
  X(histogram)                                                                                     \
  X(igemm_dp4a)                                                                                    \
  X(jacobi_app)                                                                                    \
  X(kmeans)                                                                                        \
  X(mma_gemm)                                                                                      \
  X(multi_launch_app)                                                                              \
  X(nbody)                                                                                         \
  X(nn)                                                                                            \
  X(nw)                                                                                            \
  X(reduce)                                                                                        \
  X(resize_bilinear)                                                                               \
  X(rnn_mma)                                                                                       \
  X(scan)                                                                                          \
  X(sgemm)                                                                                         \
  X(sgemm_async)                                                                                   \
  X(sgemm_tiled)                                                                                   \
  X(sobel)                                                                                         \
  X(stencil2d_unrolled)                                                                            \
  X(stencil3d)                                                                                     \
  X(wmma_gemm)

#define GPURF_DECLARE(name) void link_checker_##name();
GPURF_WORKLOADS(GPURF_DECLARE)
#undef GPURF_DECLARE

void link_all_checkers() {
#define GPURF_CALL(name) link_checker_##name();
  GPURF_WORKLOADS(GPURF_CALL)
#undef GPURF_CALL
}

} // namespace gpurf::workload
