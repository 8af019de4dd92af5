// heat2d: one step of out = c + alpha * (N + S + W + E - 4c) with clamped borders
// (workloads/cuda/heat2d.cu). alpha is the kernel's f32 parameter and must match heat2d.yaml.
// Tolerance: a handful of float operations on the 5 inputs (nvcc contracts -4c and alpha*lap
// into fma): 1e-5 of |c| + |alpha| * (|N| + |S| + |W| + |E| + 4|c|).
#include "gpurf/workloads/reference/check_util.h"

#include <algorithm>
#include <cmath>

namespace gpurf::workload {
namespace {

constexpr float kAlpha = 0.2f; // heat2d.yaml: params {f32: 0.2}

std::string check_heat2d(const LaunchData& d) {
  using namespace detail;
  const int64_t nx = d.var("nx"), ny = d.var("ny");
  const uint64_t cells = uint64_t(nx * ny);
  const float* tin = in<float>(d, "tin", cells);
  const float* tout = out<float>(d, "tout", cells);
  auto at = [&](int64_t x, int64_t y) {
    x = std::clamp<int64_t>(x, 0, nx - 1);
    y = std::clamp<int64_t>(y, 0, ny - 1);
    return double(tin[y * nx + x]);
  };
  std::vector<double> expected(cells), scale(cells);
  for (int64_t y = 0; y < ny; ++y)
    for (int64_t x = 0; x < nx; ++x) {
      const double c = at(x, y), n = at(x, y - 1), s = at(x, y + 1), w = at(x - 1, y),
                   e = at(x + 1, y);
      expected[size_t(y * nx + x)] = c + double(kAlpha) * (n + s + w + e - 4.0 * c);
      scale[size_t(y * nx + x)] =
          std::fabs(c) + double(kAlpha) * (std::fabs(n) + std::fabs(s) + std::fabs(w) +
                                           std::fabs(e) + 4.0 * std::fabs(c));
    }
  return compare_close("tout", expected.data(), tout, cells, 1e-5, 1e-7, scale.data());
}

} // namespace
} // namespace gpurf::workload

GPURF_REFERENCE(heat2d, check_heat2d)
