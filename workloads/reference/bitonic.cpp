// bitonic: every 512-key segment sorted ascending in place (workloads/cuda/bitonic.cu). Exact.
#include "gpurf/workloads/reference/check_util.h"

#include <algorithm>

namespace gpurf::workload {
namespace {

constexpr int64_t kSegment = 512;

std::string check_bitonic(const LaunchData& d) {
  using namespace detail;
  const int64_t n = d.var("n");
  if (int64_t(d.grid[0]) * kSegment < n) return "bitonic: grid.x must be at least ceil(n / 512)";
  const uint32_t* keys0 = in<uint32_t>(d, "keys", uint64_t(n));
  const uint32_t* keys = out<uint32_t>(d, "keys", uint64_t(n));
  std::vector<uint32_t> expected(keys0, keys0 + n);
  for (int64_t s = 0; s < n; s += kSegment)
    std::sort(expected.begin() + s, expected.begin() + std::min(n, s + kSegment));
  return compare_exact("keys", expected.data(), keys, uint64_t(n));
}

} // namespace
} // namespace gpurf::workload

GPURF_REFERENCE(bitonic, check_bitonic)
