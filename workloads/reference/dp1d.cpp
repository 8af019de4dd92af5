// dp1d: `height` rows of cost[r][x] = wall[r][x] + min(cost[r-1][x-1..x+1]) (edges clamped),
// starting from src as the row before start_row (workloads/cuda/dp1d.cu). Integers: exact.
#include "gpurf/workloads/reference/check_util.h"

#include <algorithm>

namespace gpurf::workload {
namespace {

std::string check_dp1d(const LaunchData& d) {
  using namespace detail;
  const int64_t cols = d.var("cols"), start_row = d.var("start_row"), height = d.var("height");
  const int32_t* wall = in<int32_t>(d, "wall", uint64_t((start_row + height) * cols));
  const int32_t* src = in<int32_t>(d, "src", uint64_t(cols));
  const int32_t* dst = out<int32_t>(d, "dst", uint64_t(cols));
  std::vector<int32_t> cur(src, src + cols), next(static_cast<size_t>(cols));
  for (int64_t r = 0; r < height; ++r) {
    for (int64_t x = 0; x < cols; ++x) {
      const int32_t w = cur[size_t(std::max<int64_t>(x - 1, 0))];
      const int32_t e = cur[size_t(std::min<int64_t>(x + 1, cols - 1))];
      next[size_t(x)] = std::min({w, cur[size_t(x)], e}) + wall[(start_row + r) * cols + x];
    }
    cur.swap(next);
  }
  return compare_exact("dst", cur.data(), dst, uint64_t(cols));
}

} // namespace
} // namespace gpurf::workload

GPURF_REFERENCE(dp1d, check_dp1d)
