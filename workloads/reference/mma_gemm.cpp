// mma_gemm: C = A * B, n x n row-major, A and B rounded to f16 (workloads/cuda/mma_gemm.cu).
// Tolerance: every product of two f16 values is exact in f32; the tensor core sums them in f32
// in an order the PTX ISA leaves open, so the reference sums the same products in double and
// allows 1e-5 of sum_k |A[i][k] * B[k][j]| (n = 64: any f32 summation order errs by at most
// about n * 2^-24 ~ 4e-6 of that sum). A wrong fragment layout or a lost f16 rounding is far
// outside it: the f16 rounding alone moves a product by up to 2^-11 of its size.
#include "gpurf/workloads/reference/check_util.h"

#include <algorithm>
#include <cmath>

namespace gpurf::workload {
namespace {

std::string check_mma_gemm(const LaunchData& d) {
  using namespace detail;
  const int64_t n = d.var("n");
  const uint64_t nn = uint64_t(n * n);
  const float* A = in<float>(d, "A", nn);
  const float* B = in<float>(d, "B", nn);
  const float* C = out<float>(d, "C", nn);
  std::vector<double> a(nn), b(nn), expected(nn), scale(nn);
  for (uint64_t i = 0; i < nn; ++i) a[i] = round_f16(A[i]), b[i] = round_f16(B[i]);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double acc = 0.0, s = 0.0;
      for (int64_t k = 0; k < n; ++k) {
        const double p = a[size_t(i * n + k)] * b[size_t(k * n + j)];
        acc += p;
        s += std::fabs(p);
      }
      expected[size_t(i * n + j)] = acc;
      scale[size_t(i * n + j)] = s;
    }
  return compare_close("C", expected.data(), C, nn, 1e-5, 1e-7, scale.data());
}

} // namespace
} // namespace gpurf::workload

GPURF_REFERENCE(mma_gemm, check_mma_gemm)
