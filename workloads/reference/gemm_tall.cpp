// gemm_tall: C = A * B with f16 accumulation, m x 16, B given as Bt (16 x k), all f16
// (workloads/cuda/gemm_tall.cu). The kernel's accumulator is an f16 register: every
// mma.m16n8k8 adds 8 products to it and rounds the sum to f16 once. The reference does the same
// per k-step of 8, summing in double where the tensor core sums in f32 (an order the PTX ISA
// leaves open): the two sums differ by about 8 * 2^-24 of the step's magnitudes, which moves a
// rounding to f16 only near a tie, by one f16 ulp that later steps carry along. Allowed: 2^-9 of
// the largest |partial sum| on the way (at least two f16 ulps of every partial sum) plus 1e-6 of
// sum_k |A B|. A wrong fragment layout or an accumulator rounded per product or not at all is
// far outside (the sums are about 5, their ulps 2^-8).
#include "gpurf/workloads/reference/check_util.h"

#include <cmath>
#include <vector>

namespace gpurf::workload {
namespace {

std::string check_gemm_tall(const LaunchData& d) {
  using namespace detail;
  const int64_t m = d.var("m"), k = d.var("k"), n = 16;
  const uint16_t* A = in<uint16_t>(d, "A", uint64_t(m * k));
  const uint16_t* Bt = in<uint16_t>(d, "Bt", uint64_t(n * k));
  const uint16_t* C = out<uint16_t>(d, "C", uint64_t(m * n));
  std::vector<double> expected(size_t(m * n)), got(size_t(m * n)), scale(size_t(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double acc = 0, peak = 0, s = 0;
      for (int64_t k0 = 0; k0 < k; k0 += 8) {
        double step = 0;
        for (int64_t kk = k0; kk < k0 + 8; ++kk) {
          const double p = f16_value(A[i * k + kk]) * f16_value(Bt[j * k + kk]);
          step += p;
          s += std::fabs(p);
        }
        acc = round_f16(acc + step);
        peak = std::max(peak, std::fabs(acc));
      }
      const size_t e = size_t(i * n + j);
      expected[e] = acc;
      got[e] = f16_value(C[e]);
      scale[e] = 0x1p-9 * peak + 1e-6 * s;
    }
  return compare_close("C", expected.data(), got.data(), uint64_t(m * n), 1.0, 0.0, scale.data());
}

} // namespace
} // namespace gpurf::workload

GPURF_REFERENCE(gemm_tall, check_gemm_tall)
