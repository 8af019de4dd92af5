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

std::string check_mma_gemm(const LaunchData& d) { return detail::check_gemm(d, detail::round_f16); }

} // namespace
} // namespace gpurf::workload

GPURF_REFERENCE(mma_gemm, check_mma_gemm)
