// histogram: 256-bin byte histogram added to the initial contents of `hist`
// (workloads/cuda/histogram.cu). Integer atomics: exact.
#include "gpurf/workloads/reference/check_util.h"

namespace gpurf::workload {
namespace {

std::string check_histogram(const LaunchData& d) {
  using namespace detail;
  const int64_t n = d.var("n");
  const uint8_t* data = in<uint8_t>(d, "data", uint64_t(n));
  const uint32_t* hist0 = in<uint32_t>(d, "hist", 256);
  const uint32_t* hist = out<uint32_t>(d, "hist", 256);
  std::vector<uint32_t> expected(hist0, hist0 + 256);
  for (int64_t i = 0; i < n; ++i) ++expected[data[i]];
  return compare_exact("hist", expected.data(), hist, 256);
}

} // namespace
} // namespace gpurf::workload

GPURF_REFERENCE(histogram, check_histogram)
