// heat2d: one step of out = c + alpha * (N + S + W + E - 4c) with clamped borders
// (workloads/cuda/heat2d.cu). alpha is the kernel's f32 parameter and must match heat2d.yaml.
// Tolerance: a handful of float operations on the 5 inputs (nvcc contracts -4c and alpha*lap
// into fma): 1e-5 of |c| + |alpha| * (|N| + |S| + |W| + |E| + 4|c|).
#include "gpurf/workloads/reference/check_util.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace gpurf::workload {
namespace {

constexpr float kAlpha = 0.2f; // heat2d.yaml: params {f32: 0.2}

// One step from `in` (nx x ny): the expected values and each one's magnitude of terms.
template <class T>
void heat_step(int64_t nx, int64_t ny, const T* in, std::vector<double>& expected,
               std::vector<double>& scale) {
  auto at = [&](int64_t x, int64_t y) {
    x = std::clamp<int64_t>(x, 0, nx - 1);
    y = std::clamp<int64_t>(y, 0, ny - 1);
    return double(in[y * nx + x]);
  };
  expected.assign(size_t(nx * ny), 0.0);
  scale.assign(size_t(nx * ny), 0.0);
  for (int64_t y = 0; y < ny; ++y)
    for (int64_t x = 0; x < nx; ++x) {
      const double c = at(x, y), n = at(x, y - 1), s = at(x, y + 1), w = at(x - 1, y),
                   e = at(x + 1, y);
      expected[size_t(y * nx + x)] = c + double(kAlpha) * (n + s + w + e - 4.0 * c);
      scale[size_t(y * nx + x)] =
          std::fabs(c) + double(kAlpha) * (std::fabs(n) + std::fabs(s) + std::fabs(w) +
                                           std::fabs(e) + 4.0 * std::fabs(c));
    }
}

std::string check_heat2d(const LaunchData& d) {
  using namespace detail;
  const int64_t nx = d.var("nx"), ny = d.var("ny");
  const uint64_t cells = uint64_t(nx * ny);
  std::vector<double> expected, scale;
  heat_step(nx, ny, in<float>(d, "tin", cells), expected, scale);
  return compare_close("tout", expected.data(), out<float>(d, "tout", cells), cells, 1e-5, 1e-7,
                       scale.data());
}

// heat2d_app (workloads/apps/heat2d.yaml): `steps` steps, the grids swapped after each, so the
// last step ends in `tin`. The reference carries doubles from step to step; the kernel rounds
// each step to float: 1e-5 of the last step's terms plus 1e-6 per step.
std::string check_heat2d_app(const LaunchData& d) {
  using namespace detail;
  const int64_t nx = d.var("nx"), ny = d.var("ny"), steps = d.var("steps");
  const uint64_t cells = uint64_t(nx * ny);
  const float* tin = in<float>(d, "tin", cells);
  std::vector<double> cur(tin, tin + cells), expected, scale;
  for (int64_t s = 0; s < steps; ++s) {
    heat_step(nx, ny, cur.data(), expected, scale);
    cur = expected;
  }
  return compare_close("tin", cur.data(), out<float>(d, "tin", cells), cells, 1e-5,
                       1e-6 * double(steps), scale.data());
}

} // namespace
} // namespace gpurf::workload

GPURF_REFERENCE(heat2d, check_heat2d)
GPURF_REFERENCE(heat2d_app, check_heat2d_app)
