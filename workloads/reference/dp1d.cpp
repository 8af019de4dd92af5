// dp1d: `height` rows of cost[r][x] = wall[r][x] + min(cost[r-1][x-1..x+1]) (edges clamped),
// starting from src as the row before start_row (workloads/cuda/dp1d.cu). Integers: exact.
#include "gpurf/workloads/reference/check_util.h"

#include <algorithm>
#include <vector>

namespace gpurf::workload {
namespace {

// Rows [first, first + count) of the DP from `cur` (the row before `first`), in place.
void dp_rows(const int32_t* wall, int64_t cols, int64_t first, int64_t count,
             std::vector<int32_t>& cur) {
  std::vector<int32_t> next(static_cast<size_t>(cols));
  for (int64_t r = first; r < first + count; ++r) {
    for (int64_t x = 0; x < cols; ++x) {
      const int32_t w = cur[size_t(std::max<int64_t>(x - 1, 0))];
      const int32_t e = cur[size_t(std::min<int64_t>(x + 1, cols - 1))];
      next[size_t(x)] = std::min({w, cur[size_t(x)], e}) + wall[r * cols + x];
    }
    cur.swap(next);
  }
}

std::string check_dp1d(const LaunchData& d) {
  using namespace detail;
  const int64_t cols = d.var("cols"), start_row = d.var("start_row"), height = d.var("height");
  const int32_t* wall = in<int32_t>(d, "wall", uint64_t((start_row + height) * cols));
  const int32_t* src = in<int32_t>(d, "src", uint64_t(cols));
  std::vector<int32_t> cur(src, src + cols);
  dp_rows(wall, cols, start_row, height, cur);
  return compare_exact("dst", cur.data(), out<int32_t>(d, "dst", uint64_t(cols)), uint64_t(cols));
}

// dp1d_app (workloads/apps/dp1d.yaml): every row from 1 to rows - 1 (`height` per launch, the
// rows swapped after each), so the last row's costs end in `src`.
std::string check_dp1d_app(const LaunchData& d) {
  using namespace detail;
  const int64_t cols = d.var("cols"), rows = d.var("rows"), height = d.var("height");
  if ((rows - 1) % height) return "dp1d_app: rows - 1 must be a multiple of height";
  const int32_t* src = in<int32_t>(d, "src", uint64_t(cols));
  std::vector<int32_t> cur(src, src + cols);
  dp_rows(in<int32_t>(d, "wall", uint64_t(rows * cols)), cols, 1, rows - 1, cur);
  return compare_exact("src", cur.data(), out<int32_t>(d, "src", uint64_t(cols)), uint64_t(cols));
}

} // namespace
} // namespace gpurf::workload

GPURF_REFERENCE(dp1d, check_dp1d)
GPURF_REFERENCE(dp1d_app, check_dp1d_app)
