// sgemm_tiled: C = A * B, n x n row-major (workloads/cuda/sgemm_tiled.cu; also its 4 x 4
// variant sgemm_tiled_r4, launched under the same name).
// Tolerance (check_gemm): each thread accumulates in k order with fma.rn.f32; the reference sums
// in double and allows 1e-5 of sum_k |A[i][k] * B[k][j]|: at n = 128 (scale 1) above the
// worst-case bound n * 2^-24 ~ 7.6e-6 of that sum. At --scale 2 (n = 256) that bound is
// 1.5e-5, but the rounding errors of these random signed terms add like a random walk, about
// sqrt(n) * 2^-24 ~ 1e-6 of it; a wrong tile or a lost k step is off by a whole product.
#include "gpurf/workloads/reference/check_util.h"

#include <cmath>

namespace gpurf::workload {
namespace {

std::string check_sgemm_tiled(const LaunchData& d) { return detail::check_gemm(d); }

} // namespace
} // namespace gpurf::workload

GPURF_REFERENCE(sgemm_tiled, check_sgemm_tiled)
