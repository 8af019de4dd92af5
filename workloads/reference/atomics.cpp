// atomics (workloads/stress/cuda/atomics.cu): every result is independent of the order the
// atomics land in, so each is recomputed exactly: the lines' sums and plain stores, the ticket
// (n), the slots (a permutation of 1..n: each thread's ticket is unique), max, min and the bits.
#include "gpurf/workloads/reference/check_util.h"

#include <algorithm>
#include <climits>
#include <vector>

namespace gpurf::workload {
namespace {

std::string check_atomics(const LaunchData& d) {
  using namespace detail;
  const int64_t n = d.var("n"), nlines = d.var("nlines");
  const int32_t* lines = out<int32_t>(d, "lines", uint64_t(32 * nlines));
  const uint32_t* ticket = out<uint32_t>(d, "ticket", 1);
  const int32_t* slots = out<int32_t>(d, "slots", uint64_t(n));
  const int32_t* vmax = out<int32_t>(d, "vmax", 1);
  const int32_t* vmin = out<int32_t>(d, "vmin", 1);
  const uint32_t* bits = out<uint32_t>(d, "bits", 64);
  std::vector<int32_t> l(size_t(32 * nlines), 0);
  std::vector<uint32_t> b(64, 0);
  int32_t mx = 0, mn = INT_MAX;
  for (int64_t i = 0; i < n; ++i) {
    const uint32_t h = uint32_t(i) * 2654435761u;
    l[size_t(32 * ((h >> 8) % nlines) + (h & 15))] += int32_t(i & 7) + 1;
    if (i < 16 * nlines) l[size_t(32 * (i / 16) + 16 + i % 16)] = int32_t(3 * i + 1);
    mx = std::max(mx, int32_t(h >> 1));
    mn = std::min(mn, int32_t(h >> 1));
    b[size_t(i % 64)] |= 1u << (i / 64 % 32);
    l[size_t(32 * ((h >> 4) % nlines) + 15)] += 2;
  }
  std::string e = compare_exact("lines", l.data(), lines, uint64_t(32 * nlines));
  if (e.empty()) e = compare_exact("bits", b.data(), bits, 64);
  const uint32_t nt = uint32_t(n);
  if (e.empty()) e = compare_exact("ticket", &nt, ticket, 1);
  if (e.empty()) e = compare_exact("vmax", &mx, vmax, 1);
  if (e.empty()) e = compare_exact("vmin", &mn, vmin, 1);
  if (!e.empty()) return e;
  std::vector<int32_t> got(slots, slots + n);
  std::vector<int32_t> perm(static_cast<size_t>(n));
  std::sort(got.begin(), got.end());
  for (int64_t i = 0; i < n; ++i) perm[size_t(i)] = int32_t(i + 1);
  e = compare_exact("slots (sorted)", perm.data(), got.data(), uint64_t(n));
  return e;
}

} // namespace
} // namespace gpurf::workload

GPURF_REFERENCE(atomics, check_atomics)
