// scan: per-512-element-segment exclusive prefix sums and segment totals of u32 values
// (workloads/cuda/scan.cu). Integers (mod 2^32): exact.
#include "gpurf/workloads/reference/check_util.h"

#include <algorithm>

namespace gpurf::workload {
namespace {

constexpr int64_t kSegment = 512;

std::string check_scan(const LaunchData& d) {
  using namespace detail;
  const int64_t n = d.var("n");
  const uint64_t segments = uint64_t((n + kSegment - 1) / kSegment);
  if (d.grid[0] < segments) return "scan: grid.x must be at least ceil(n / 512)";
  const uint32_t* x = in<uint32_t>(d, "in", uint64_t(n));
  const uint32_t* got = out<uint32_t>(d, "out", uint64_t(n));
  const uint32_t* sums = out<uint32_t>(d, "block_sums", d.buf("block_sums").count);
  if (d.buf("block_sums").count < segments)
    return "scan: block_sums has fewer than grid.x elements";
  std::vector<uint32_t> expected(static_cast<size_t>(n)), expected_sums(segments);
  for (uint64_t s = 0; s < segments; ++s) {
    uint32_t acc = 0;
    for (int64_t i = int64_t(s) * kSegment; i < std::min(n, int64_t(s + 1) * kSegment); ++i) {
      expected[size_t(i)] = acc;
      acc += x[i];
    }
    expected_sums[s] = acc;
  }
  std::string r = compare_exact("out", expected.data(), got, uint64_t(n));
  if (!r.empty()) return r;
  return compare_exact("block_sums", expected_sums.data(), sums, segments);
}

} // namespace
} // namespace gpurf::workload

GPURF_REFERENCE(scan, check_scan)
