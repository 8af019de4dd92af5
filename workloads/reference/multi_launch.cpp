// multi_launch_app (workloads/stress/apps/multi_launch.yaml, kernel
// workloads/stress/cuda/multi_launch.cu): `gens` generations of the 1D integer automaton, the
// state arrays swapped after each, so the last generation ends in `a`; counts[gen * 3 + path] is
// the number of cells that took each path in each generation. u32 arithmetic: exact.
#include "gpurf/workloads/reference/check_util.h"

#include <vector>

namespace gpurf::workload {
namespace {

std::string check_multi_launch_app(const LaunchData& d) {
  using namespace detail;
  const int64_t n = d.var("n"), gens = d.var("gens");
  const uint32_t* a0 = in<uint32_t>(d, "a", uint64_t(n));
  std::vector<uint32_t> cur(a0, a0 + n), next(static_cast<size_t>(n)),
      counts(static_cast<size_t>(3 * gens), 0);
  for (int64_t g = 0; g < gens; ++g) {
    for (int64_t i = 0; i < n; ++i) {
      const uint32_t v = cur[size_t(i)], l = cur[size_t(i == 0 ? n - 1 : i - 1)],
                     r = cur[size_t(i == n - 1 ? 0 : i + 1)];
      uint32_t t;
      int path;
      if (v & 1u) {
        t = v;
        for (uint32_t s = 0; s < (l & 7u) + 1; ++s) t = (t & 1u) ? 3u * t + 1u : t >> 1;
        path = 0;
      } else if (l > r) {
        t = v ^ (l >> 3) ^ (r << 5);
        path = 1;
      } else {
        t = v + r * 2654435761u + uint32_t(g);
        path = 2;
      }
      next[size_t(i)] = t ^ (t >> 15);
      ++counts[size_t(g * 3 + path)];
    }
    cur.swap(next);
  }
  const std::string e = compare_exact(
      "counts", counts.data(), out<uint32_t>(d, "counts", uint64_t(3 * gens)), uint64_t(3 * gens));
  if (!e.empty()) return e;
  return compare_exact("a", cur.data(), out<uint32_t>(d, "a", uint64_t(n)), uint64_t(n));
}

} // namespace
} // namespace gpurf::workload

GPURF_REFERENCE(multi_launch_app, check_multi_launch_app)
