// nbody: softened all-pairs accelerations (workloads/cuda/nbody.cu); eps2 is the kernel's f32
// parameter and must match nbody.yaml.
// Tolerance: the kernel uses rsqrt.approx.f32 (relative error < 2^-22) cubed, plus float fma
// accumulation over n terms: 1e-4 of sum_j |term_j| per component (the rounding of each term is
// ~1e-6 relative; accumulated over n = 512 terms it stays far below 1e-4 of the absolute sum).
#include "gpurf/workloads/reference/check_util.h"

#include <cmath>

namespace gpurf::workload {
namespace {

constexpr float kEps2 = 0.01f; // nbody.yaml: params {f32: 0.01}

std::string check_nbody(const LaunchData& d) {
  using namespace detail;
  const int64_t n = d.var("n");
  const float* pos = in<float>(d, "pos", uint64_t(4 * n));
  const char* names[3] = {"ax", "ay", "az"};
  const float* acc[3];
  for (int c = 0; c < 3; ++c) acc[c] = out<float>(d, names[c], uint64_t(n));
  std::vector<double> expected[3], scale[3];
  for (int c = 0; c < 3; ++c) expected[c].assign(size_t(n), 0.0), scale[c].assign(size_t(n), 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double dv[3];
      for (int c = 0; c < 3; ++c) dv[c] = double(pos[4 * j + c]) - double(pos[4 * i + c]);
      const double r2 = dv[0] * dv[0] + dv[1] * dv[1] + dv[2] * dv[2] + double(kEps2);
      const double inv = 1.0 / std::sqrt(r2);
      const double s = double(pos[4 * j + 3]) * inv * inv * inv;
      for (int c = 0; c < 3; ++c) {
        expected[c][size_t(i)] += dv[c] * s;
        scale[c][size_t(i)] += std::fabs(dv[c] * s);
      }
    }
  for (int c = 0; c < 3; ++c) {
    std::string r = compare_close(names[c], expected[c].data(), acc[c], uint64_t(n), 1e-4, 1e-6,
                                  scale[c].data());
    if (!r.empty()) return r;
  }
  return "";
}

} // namespace
} // namespace gpurf::workload

GPURF_REFERENCE(nbody, check_nbody)
