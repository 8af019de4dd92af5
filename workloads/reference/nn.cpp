// nn: nearest of nr reference points for each of nq 2D queries (workloads/cuda/nn.cu).
// The kernel compares float squared distances; near-ties may resolve either way, so index[q] is
// accepted when its exact (double) squared distance is within 1e-5 (relative) of the exact
// minimum (at most 1% of the queries may take the other neighbour of a near-tie). dist[q] must be
// within 1e-5 (relative) of the exact nearest distance. *max_dist_bits must hold exactly the
// bits of max(initial, max_q dist[q]) over the distances the kernel wrote (atomicMax over
// non-negative float bit patterns is order independent).
#include "gpurf/workloads/reference/check_util.h"

#include <algorithm>
#include <cmath>

namespace gpurf::workload {
namespace {

std::string check_nn(const LaunchData& d) {
  using namespace detail;
  const int64_t nq = d.var("nq"), nr = d.var("nr");
  const float* qx = in<float>(d, "qx", uint64_t(nq));
  const float* qy = in<float>(d, "qy", uint64_t(nq));
  const float* rx = in<float>(d, "rx", uint64_t(nr));
  const float* ry = in<float>(d, "ry", uint64_t(nr));
  const float* dist = out<float>(d, "dist", uint64_t(nq));
  const int32_t* index = out<int32_t>(d, "index", uint64_t(nq));
  const uint32_t* max_bits = out<uint32_t>(d, "max_dist_bits", 1);
  uint32_t expected_max = d.buf("max_dist_bits").in<uint32_t>()[0];
  int64_t ties = 0;
  auto d2 = [&](int64_t q, int64_t r) {
    const double dx = double(rx[r]) - double(qx[q]), dy = double(ry[r]) - double(qy[q]);
    return dx * dx + dy * dy;
  };
  for (int64_t q = 0; q < nq; ++q) {
    int64_t best = 0;
    double best_d2 = d2(q, 0);
    for (int64_t r = 1; r < nr; ++r)
      if (const double v = d2(q, r); v < best_d2) best = r, best_d2 = v;
    const int32_t g = index[q];
    if (g < 0 || g >= nr) return mismatch("index", uint64_t(q), best, g, "not a point index");
    if (g != best) {
      if (d2(q, g) > best_d2 * (1.0 + 1e-5) + 1e-12)
        return mismatch("index", uint64_t(q), best, g,
                        "distance^2 " + fmt(d2(q, g)) + " vs nearest " + fmt(best_d2));
      ++ties;
    }
    const double e = std::sqrt(best_d2);
    if (!close(e, dist[q], 1e-5 * e + 1e-7))
      return mismatch("dist", uint64_t(q), e, dist[q], "tolerance " + fmt(1e-5 * e + 1e-7));
    uint32_t bits;
    std::memcpy(&bits, &dist[q], 4);
    expected_max = std::max(expected_max, bits);
  }
  if (ties * 100 > nq)
    return "nn: " + std::to_string(ties) + " near-tie neighbours differ from the reference";
  return compare_exact("max_dist_bits", &expected_max, max_bits, 1);
}

} // namespace
} // namespace gpurf::workload

GPURF_REFERENCE(nn, check_nn)
