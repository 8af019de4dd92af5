// reduce: per-CTA float sums plus an atomic float total (workloads/cuda/reduce.cu).
// The reference replays the kernel's exact summation order per CTA (grid-stride per-thread sums,
// shared-memory tree 128/64, s[l] + s[l+32], shuffle tree 16..1), so `partial` should match
// bit for bit; it is still compared with a 1e-6 tolerance of sum |x| to allow a front-end that
// evaluates an add differently. `total` is the initial value plus the partials added in CTA
// completion order, which is unspecified: tolerance 1e-5 of sum |x| + |initial total|.
#include "gpurf/workloads/reference/check_util.h"

#include <cmath>

namespace gpurf::workload {
namespace {

constexpr unsigned kBlock = 256;

std::string check_reduce(const LaunchData& d) {
  using namespace detail;
  if (d.block[0] != kBlock || d.block[1] != 1 || d.block[2] != 1)
    return "reduce: the kernel requires block (256, 1, 1)";
  const int64_t n = d.var("n");
  const unsigned ctas = d.grid[0] * d.grid[1] * d.grid[2];
  const float* x = in<float>(d, "in", uint64_t(n));
  const float* partial = out<float>(d, "partial", ctas);
  const float* total = out<float>(d, "total", 1);
  const float total0 = d.buf("total").in<float>()[0];
  std::vector<float> expected(ctas);
  std::vector<double> scale(ctas, 0.0);
  double abs_sum = 0.0, exact_total = double(total0);
  for (unsigned b = 0; b < ctas; ++b) {
    std::array<float, kBlock> s{};
    for (unsigned t = 0; t < kBlock; ++t) {
      float v = 0.0f;
      for (int64_t i = int64_t(b) * kBlock + t; i < n; i += int64_t(ctas) * kBlock) {
        v += x[i];
        scale[b] += std::fabs(double(x[i]));
      }
      s[t] = v;
    }
    for (unsigned stride = kBlock / 2; stride > 32; stride >>= 1)
      for (unsigned t = 0; t < stride; ++t) s[t] += s[t + stride];
    std::array<float, 32> lanes;
    for (unsigned l = 0; l < 32; ++l) lanes[l] = s[l] + s[l + 32];
    expected[b] = warp_reduce_down(lanes, 16);
    abs_sum += scale[b];
    exact_total += double(expected[b]);
  }
  std::string r =
      compare_close("partial", expected.data(), partial, ctas, 1e-6, 1e-7, scale.data());
  if (!r.empty()) return r;
  const double total_scale = abs_sum + std::fabs(double(total0));
  return compare_close("total", &exact_total, total, 1, 1e-5, 1e-7, &total_scale);
}

} // namespace
} // namespace gpurf::workload

GPURF_REFERENCE(reduce, check_reduce)
