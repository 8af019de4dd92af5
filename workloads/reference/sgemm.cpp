// sgemm: C = A * B, n x n row-major (workloads/cuda/sgemm.cu).
// Tolerance: the kernel accumulates in k order with fma.rn.f32; the reference accumulates in double
// and allows 1e-5 of sum_k |A[i][k] * B[k][j]| (n = 64: the float rounding error is bounded by
// about n * 2^-24 ~ 4e-6 of that sum, and is typically far smaller).
#include "gpurf/workloads/reference/check_util.h"

#include <cmath>

namespace gpurf::workload {
namespace {

std::string check_sgemm(const LaunchData& d) { return detail::check_gemm(d); }

} // namespace
} // namespace gpurf::workload

GPURF_REFERENCE(sgemm, check_sgemm)
