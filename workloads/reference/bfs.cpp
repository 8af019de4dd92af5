// bfs: one BFS level over a CSR graph (workloads/cuda/bfs.cu). Every vertex with initial level -1
// that has an in-edge from a vertex with initial level `cur` must end at level cur + 1; all other
// levels are unchanged; *discovered grows by the number of such vertices. Deterministic: exact.
#include "gpurf/workloads/reference/check_util.h"

#include <vector>

namespace gpurf::workload {
namespace {

std::string check_bfs(const LaunchData& d) {
  using namespace detail;
  const int64_t n = d.var("n"), m = d.var("m"), cur = d.var("cur");
  const uint32_t* row_ptr = in<uint32_t>(d, "row_ptr", uint64_t(n + 1));
  const uint32_t* cols = in<uint32_t>(d, "cols", uint64_t(m));
  const int32_t* level0 = in<int32_t>(d, "level", uint64_t(n));
  const int32_t* level = out<int32_t>(d, "level", uint64_t(n));
  const uint32_t* discovered = out<uint32_t>(d, "discovered", 1);
  std::vector<int32_t> expected(level0, level0 + n);
  uint32_t found = d.buf("discovered").in<uint32_t>()[0];
  for (int64_t v = 0; v < n; ++v) {
    if (level0[v] != cur) continue;
    if (row_ptr[v] > row_ptr[v + 1] || row_ptr[v + 1] > uint64_t(m))
      return "bfs: malformed row_ptr at vertex " + std::to_string(v);
    for (uint32_t e = row_ptr[v]; e < row_ptr[v + 1]; ++e) {
      const uint32_t u = cols[e];
      if (u >= uint64_t(n)) return "bfs: edge " + std::to_string(e) + " leaves the graph";
      if (expected[u] == -1) {
        expected[u] = int32_t(cur + 1);
        ++found;
      }
    }
  }
  std::string r = compare_exact("level", expected.data(), level, uint64_t(n));
  if (!r.empty()) return r;
  return compare_exact("discovered", &found, discovered, 1);
}

} // namespace
} // namespace gpurf::workload

namespace gpurf::workload {
namespace {

// bfs_app (workloads/apps/bfs.yaml): levels launched until one discovers nothing, from vertex
// `src` (set to level 0 by the first step): every vertex's BFS distance, -1 where unreachable;
// the last launch discovered nothing. Exact.
std::string check_bfs_app(const LaunchData& d) {
  using namespace detail;
  const int64_t n = d.var("n"), degree = d.var("degree"), src = d.var("src");
  const uint64_t m = uint64_t(n * degree);
  const uint32_t* row_ptr = in<uint32_t>(d, "row_ptr", uint64_t(n + 1));
  const uint32_t* cols = in<uint32_t>(d, "cols", m);
  if (src < 0 || src >= n) return "bfs_app: src outside the graph";
  std::vector<int32_t> expected(size_t(n), -1);
  std::vector<uint32_t> frontier = {uint32_t(src)}, next;
  expected[size_t(src)] = 0;
  for (int32_t lvl = 0; !frontier.empty(); ++lvl, frontier.swap(next)) {
    next.clear();
    for (uint32_t v : frontier)
      for (uint32_t e = row_ptr[v]; e < row_ptr[v + 1] && e < m; ++e)
        if (cols[e] < uint64_t(n) && expected[cols[e]] == -1) {
          expected[cols[e]] = lvl + 1;
          next.push_back(cols[e]);
        }
  }
  std::string r =
      compare_exact("level", expected.data(), out<int32_t>(d, "level", uint64_t(n)), uint64_t(n));
  const uint32_t none = 0;
  return r.empty() ? compare_exact("discovered", &none, out<uint32_t>(d, "discovered", 1), 1) : r;
}

} // namespace
} // namespace gpurf::workload

GPURF_REFERENCE(bfs, check_bfs)
GPURF_REFERENCE(bfs_app, check_bfs_app)
