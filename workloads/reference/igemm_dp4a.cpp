// igemm_dp4a: C = A * B over int8 with int32 accumulation (workloads/cuda/igemm_dp4a.cu); Bt
// holds B transposed. Integer arithmetic: the result is exact (|sum| <= 64 n 2^14 < 2^31 for
// n <= 2^11), compared exactly.
#include "gpurf/workloads/reference/check_util.h"

namespace gpurf::workload {
namespace {

std::string check_igemm_dp4a(const LaunchData& d) {
  using namespace detail;
  const int64_t n = d.var("n");
  const uint64_t nn = uint64_t(n * n);
  const int8_t* A = in<int8_t>(d, "A", nn);
  const int8_t* Bt = in<int8_t>(d, "Bt", nn);
  const int32_t* C = out<int32_t>(d, "C", nn);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      int64_t acc = 0;
      for (int64_t k = 0; k < n; ++k) acc += int64_t(A[i * n + k]) * Bt[j * n + k];
      if (C[i * n + j] != int32_t(acc))
        return "C[" + std::to_string(i * n + j) + "] (row " + std::to_string(i) + ", column " +
               std::to_string(j) + "): expected " + std::to_string(acc) + ", got " +
               std::to_string(C[i * n + j]);
    }
  return "";
}

} // namespace
} // namespace gpurf::workload

GPURF_REFERENCE(igemm_dp4a, check_igemm_dp4a)
