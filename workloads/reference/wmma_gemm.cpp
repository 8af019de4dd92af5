// wmma_gemm: C = A * B, n x n row-major, A and B rounded to f16 (workloads/cuda/wmma_gemm.cu).
// The kernel scales each A fragment by 2 and the accumulators by 0.5, both exact, so the
// reference is mma_gemm's: the products of two f16 values exact in f32, summed in double,
// within 1e-5 of sum_k |A[i][k] * B[k][j]| (check_util.h check_gemm).
#include "gpurf/workloads/reference/check_util.h"

namespace gpurf::workload {
namespace {

std::string check_wmma_gemm(const LaunchData& d) {
  return detail::check_gemm(d, detail::round_f16);
}

} // namespace
} // namespace gpurf::workload

GPURF_REFERENCE(wmma_gemm, check_wmma_gemm)
