// gemm_rt (workloads/stress/cuda/gemm_rt.cu): C = alpha * A * B + beta * C0, M x K times K x N,
// row-major f32; alpha = 1.5 and beta = 0.5 are the kernel's f32 parameters in
// workloads/stress/gemm_rt.yaml (change both together).
// Tolerance: each thread accumulates its dot product in k order with fma.rn.f32 (K roundings on
// partial sums bounded by S = sum_k |A[i][k] B[k][j]|), then alpha * acc + beta * c0 adds up to
// 3 more: the error is at most (K + 3) * 2^-24 * (|alpha| S + |beta c0|) (the standard bound for
// recursive summation), which the check allows; the reference computes in double.
#include "gpurf/workloads/reference/check_util.h"

#include <cmath>
#include <vector>

namespace gpurf::workload {
namespace {

constexpr double kAlpha = 1.5, kBeta = 0.5; // gemm_rt.yaml: params {f32: 1.5}, {f32: 0.5}

std::string check_gemm_rt(const LaunchData& d) {
  using namespace detail;
  const int64_t m = d.var("m"), n = d.var("n"), k = d.var("k");
  const float* A = in<float>(d, "A", uint64_t(m * k));
  const float* B = in<float>(d, "B", uint64_t(k * n));
  const float* C0 = in<float>(d, "C", uint64_t(m * n));
  const float* C = out<float>(d, "C", uint64_t(m * n));
  std::vector<double> expected(size_t(m * n)), scale(size_t(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double acc = 0.0, s = 0.0;
      for (int64_t kk = 0; kk < k; ++kk) {
        const double p = double(A[i * k + kk]) * double(B[kk * n + j]);
        acc += p;
        s += std::fabs(p);
      }
      const double c0 = double(C0[i * n + j]);
      expected[size_t(i * n + j)] = kAlpha * acc + kBeta * c0;
      scale[size_t(i * n + j)] = std::fabs(kAlpha) * s + std::fabs(kBeta * c0);
    }
  return compare_close("C", expected.data(), C, uint64_t(m * n), double(k + 3) * 0x1p-24, 1e-9,
                       scale.data());
}

} // namespace
} // namespace gpurf::workload

GPURF_REFERENCE(gemm_rt, check_gemm_rt)
