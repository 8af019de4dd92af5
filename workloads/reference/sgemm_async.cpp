// sgemm_async: C = A * B, n x n row-major (workloads/cuda/sgemm_async.cu: cp.async double
// buffering; the tiles past the edge are zero-filled, adding exact zeros).
// Tolerance: the kernel accumulates in k order with fma.rn.f32; the reference accumulates in double
// and allows 1e-5 of sum_k |A[i][k] * B[k][j]| (n = 60: the float rounding error is bounded by
// about n * 2^-24 ~ 4e-6 of that sum, and is typically far smaller).
#include "gpurf/workloads/reference/check_util.h"

#include <cmath>

namespace gpurf::workload {
namespace {

std::string check_sgemm_async(const LaunchData& d) {
  using namespace detail;
  const int64_t n = d.var("n");
  const uint64_t nn = uint64_t(n * n);
  const float* A = in<float>(d, "A", nn);
  const float* B = in<float>(d, "B", nn);
  const float* C = out<float>(d, "C", nn);
  std::vector<double> expected(nn), scale(nn);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double acc = 0.0, s = 0.0;
      for (int64_t k = 0; k < n; ++k) {
        const double p = double(A[i * n + k]) * double(B[k * n + j]);
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

GPURF_REFERENCE(sgemm_async, check_sgemm_async)
