// daxpy_dot: y = a * x + y in place and per-CTA partial sums of x[i] * y_new[i] in double
// (workloads/cuda/daxpy_dot.cu); a is the kernel's f64 parameter and must match daxpy_dot.yaml.
// The reference replays the kernel's operations and order (fma.rn.f64 for both, as nvcc contracts
// them; per-thread grid-stride chains, the 32-lane shuffle tree, then the 8 warp sums), so the
// results should be bit exact; the tolerances (1e-14 of |a*x| + |y|, 1e-12 of sum |x*y| per CTA)
// only allow a different but valid contraction.
#include "gpurf/workloads/reference/check_util.h"

#include <cmath>

namespace gpurf::workload {
namespace {

constexpr double kA = 1.5; // daxpy_dot.yaml: params {f64: 1.5}
constexpr unsigned kBlock = 256;

std::string check_daxpy_dot(const LaunchData& d) {
  using namespace detail;
  if (d.block[0] != kBlock || d.block[1] != 1 || d.block[2] != 1)
    return "daxpy_dot: the kernel requires block (256, 1, 1)";
  const int64_t n = d.var("n");
  const unsigned ctas = d.grid[0] * d.grid[1] * d.grid[2];
  const double* x = in<double>(d, "x", uint64_t(n));
  const double* y0 = in<double>(d, "y", uint64_t(n));
  const double* y = out<double>(d, "y", uint64_t(n));
  const double* partial = out<double>(d, "partial", ctas);
  std::vector<double> ey(static_cast<size_t>(n)), sy(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    ey[size_t(i)] = std::fma(kA, x[i], y0[i]);
    sy[size_t(i)] = std::fabs(kA * x[i]) + std::fabs(y0[i]);
  }
  std::string r = compare_close("y", ey.data(), y, uint64_t(n), 1e-14, 0.0, sy.data());
  if (!r.empty()) return r;
  std::vector<double> ep(ctas), sp(ctas, 0.0);
  for (unsigned b = 0; b < ctas; ++b) {
    std::array<double, kBlock> acc{};
    for (unsigned t = 0; t < kBlock; ++t)
      for (int64_t i = int64_t(b) * kBlock + t; i < n; i += int64_t(ctas) * kBlock) {
        acc[t] = std::fma(x[i], ey[size_t(i)], acc[t]);
        sp[b] += std::fabs(x[i] * ey[size_t(i)]);
      }
    std::array<double, 32> warp_sums{};
    for (unsigned w = 0; w < kBlock / 32; ++w) {
      std::array<double, 32> lanes;
      for (unsigned l = 0; l < 32; ++l) lanes[l] = acc[w * 32 + l];
      warp_sums[w] = warp_reduce_down(lanes, 16);
    }
    ep[b] = warp_reduce_down(warp_sums, kBlock / 32 / 2);
  }
  return compare_close("partial", ep.data(), partial, ctas, 1e-12, 0.0, sp.data());
}

} // namespace
} // namespace gpurf::workload

GPURF_REFERENCE(daxpy_dot, check_daxpy_dot)
