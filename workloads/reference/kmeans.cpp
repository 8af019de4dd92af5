// kmeans: nearest-centroid assignment (8 features, feature-major points) and cluster counts
// (workloads/cuda/kmeans.cu).
// The kernel compares float distances computed with fma; when two centroids are within rounding
// of each other the kernel may legitimately pick either. So `member[p]` is accepted when its exact
// (double) squared distance is within 1e-5 (relative, of the sum of the squared differences) of
// the exact minimum; anything farther fails. `counts` must equal the initial counts plus the
// histogram of the members the kernel actually wrote (exact). The number of accepted near-ties
// is also bounded (at most 1% of the points) so a checker bug cannot hide a systematic error.
#include "gpurf/workloads/reference/check_util.h"

#include <cmath>

namespace gpurf::workload {
namespace {

constexpr int kDim = 8;

std::string check_kmeans(const LaunchData& d) {
  using namespace detail;
  const int64_t n = d.var("n"), k = d.var("k");
  const float* feat = in<float>(d, "feat", uint64_t(n * kDim));
  const float* cent = in<float>(d, "cent", uint64_t(k * kDim));
  const int32_t* member = out<int32_t>(d, "member", uint64_t(n));
  const uint32_t* counts = out<uint32_t>(d, "counts", uint64_t(k));
  const uint32_t* counts0 = d.buf("counts").in<uint32_t>();
  std::vector<uint32_t> expected_counts(counts0, counts0 + k);
  int64_t ties = 0;
  for (int64_t p = 0; p < n; ++p) {
    std::vector<double> dist(static_cast<size_t>(k));
    int64_t best = 0;
    for (int64_t c = 0; c < k; ++c) {
      double s = 0.0;
      for (int f = 0; f < kDim; ++f) {
        const double diff = double(feat[f * n + p]) - double(cent[c * kDim + f]);
        s += diff * diff;
      }
      dist[size_t(c)] = s;
      if (s < dist[size_t(best)]) best = c;
    }
    const int32_t g = member[p];
    if (g < 0 || g >= k) return mismatch("member", uint64_t(p), best, g, "not a cluster index");
    if (g != best) {
      const double tol = 1e-5 * dist[size_t(best)] + 1e-7;
      if (dist[size_t(g)] > dist[size_t(best)] + tol)
        return mismatch("member", uint64_t(p), best, g,
                        "distance " + fmt(dist[size_t(g)]) + " vs nearest " +
                            fmt(dist[size_t(best)]));
      ++ties;
    }
    ++expected_counts[size_t(g)];
  }
  if (ties * 100 > n)
    return "kmeans: " + std::to_string(ties) + " near-tie assignments differ from the reference";
  return compare_exact("counts", expected_counts.data(), counts, uint64_t(k));
}

} // namespace
} // namespace gpurf::workload

GPURF_REFERENCE(kmeans, check_kmeans)
