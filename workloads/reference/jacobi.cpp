// jacobi_app (workloads/apps/jacobi.yaml, kernels in workloads/cuda/jacobi.cu and reduce.cu):
// the whole program replayed in float with the kernels' exact operation order: the border
// fills, `every` sweeps of 0.25f * ((W + E) + (N + S)) between swapped grids, then the change
// of the last sweep summed per CTA (grid-stride per thread, shared-memory tree, times 0.002f)
// and over the CTAs by reduce's order (one CTA: per-thread sums, tree 128/64, s[l] + s[l+32],
// shuffle tree), until the total truncates to 0. Every float operation is IEEE single
// precision in both, so the outputs match bit for bit; they are compared within 1e-6 of their
// magnitude only to allow a front-end that evaluates an add differently. A different number of
// checks would leave `u` several sweeps apart (changes of order 1e-3) and is caught.
#include "gpurf/workloads/reference/check_util.h"

#include <cmath>
#include <vector>

namespace gpurf::workload {
namespace {

constexpr unsigned kBlock = 256;
constexpr float kScale = 0.002f;    // jacobi.yaml: the residual's {f32: 0.002}
constexpr int64_t kMaxChecks = 200; // jacobi.yaml: max

std::string check_jacobi_app(const LaunchData& d) {
  using namespace detail;
  const int64_t nx = d.var("nx"), ny = d.var("ny"), every = d.var("every"), ctas = d.var("ctas");
  const uint64_t cells = uint64_t(nx * ny);
  const float* u0 = in<float>(d, "u", cells);
  std::vector<float> u(u0, u0 + cells), v(cells, 0.0f);
  for (int64_t x = 0; x < nx; ++x) u[size_t(x)] = 1.0f, u[size_t(nx * (ny - 1) + x)] = 0.0f;
  for (int64_t y = 1; y < ny - 1; ++y) u[size_t(y * nx)] = 0.0f, u[size_t(y * nx + nx - 1)] = 0.0f;
  std::vector<float> part(size_t(ctas), 0.0f);
  float total = 0.0f;
  int64_t checks = 0;
  do {
    if (++checks > kMaxChecks) return "jacobi_app: no convergence within 200 checks";
    for (int64_t t = 0; t < every; ++t) {
      for (int64_t y = 0; y < ny; ++y)
        for (int64_t x = 0; x < nx; ++x) {
          const size_t i = size_t(y * nx + x);
          if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
            v[i] = u[i];
            continue;
          }
          v[i] = 0.25f * ((u[i - 1] + u[i + 1]) + (u[i - size_t(nx)] + u[i + size_t(nx)]));
        }
      std::swap(u, v);
    }
    for (int64_t b = 0; b < ctas; ++b) { // jacobi_residual
      std::array<float, kBlock> s{};
      for (unsigned t = 0; t < kBlock; ++t) {
        float acc = 0.0f;
        for (int64_t i = b * kBlock + t; i < int64_t(cells); i += ctas * kBlock)
          acc += std::fabs(u[size_t(i)] - v[size_t(i)]);
        s[t] = acc;
      }
      for (unsigned stride = kBlock / 2; stride > 0; stride >>= 1)
        for (unsigned t = 0; t < stride; ++t) s[t] += s[t + stride];
      part[size_t(b)] = s[0] * kScale;
    }
    std::array<float, kBlock> s{}; // reduce, one CTA
    for (unsigned t = 0; t < kBlock; ++t) {
      float acc = 0.0f;
      for (int64_t i = t; i < ctas; i += kBlock) acc += part[size_t(i)];
      s[t] = acc;
    }
    for (unsigned stride = kBlock / 2; stride > 32; stride >>= 1)
      for (unsigned t = 0; t < stride; ++t) s[t] += s[t + stride];
    std::array<float, 32> lanes;
    for (unsigned l = 0; l < 32; ++l) lanes[l] = s[l] + s[l + 32];
    total = 0.0f + warp_reduce_down(lanes, 16); // atomicAdd onto the zeroed total
  } while (int64_t(total) != 0);
  std::string r = compare_close("u", u.data(), out<float>(d, "u", cells), cells, 1e-6, 1e-7);
  if (r.empty())
    r = compare_close("part", part.data(), out<float>(d, "part", uint64_t(ctas)), uint64_t(ctas),
                      1e-6, 1e-7);
  if (r.empty()) r = compare_close("total", &total, out<float>(d, "total", 1), 1, 1e-6, 1e-7);
  return r;
}

} // namespace
} // namespace gpurf::workload

GPURF_REFERENCE(jacobi_app, check_jacobi_app)
