// nw: full Needleman-Wunsch score matrices ((L+1)^2 ints, L = 64) of `pairs` independent sequence
// pairs (workloads/cuda/nw.cu); symbols are taken mod 4, sub is a 4x4 row-major table, gap the
// linear gap penalty. Integers: exact.
#include "gpurf/workloads/reference/check_util.h"

#include <algorithm>

namespace gpurf::workload {
namespace {

constexpr int64_t kL = 64;

std::string check_nw(const LaunchData& d) {
  using namespace detail;
  const int64_t pairs = d.var("pairs"), gap = d.var("gap");
  const int64_t cells = (kL + 1) * (kL + 1);
  const uint8_t* a = in<uint8_t>(d, "seq_a", uint64_t(pairs * kL));
  const uint8_t* b = in<uint8_t>(d, "seq_b", uint64_t(pairs * kL));
  const int32_t* sub = in<int32_t>(d, "sub", 16);
  const int32_t* score = out<int32_t>(d, "score", uint64_t(pairs * cells));
  std::vector<int32_t> h(static_cast<size_t>(pairs * cells));
  for (int64_t p = 0; p < pairs; ++p) {
    int32_t* H = h.data() + p * cells;
    for (int64_t k = 0; k <= kL; ++k) H[k] = H[k * (kL + 1)] = int32_t(-k * gap);
    for (int64_t i = 1; i <= kL; ++i)
      for (int64_t j = 1; j <= kL; ++j) {
        const int32_t m = H[(i - 1) * (kL + 1) + j - 1] +
                          sub[(a[p * kL + i - 1] & 3) * 4 + (b[p * kL + j - 1] & 3)];
        H[i * (kL + 1) + j] = std::max(
            {m, int32_t(H[(i - 1) * (kL + 1) + j] - gap), int32_t(H[i * (kL + 1) + j - 1] - gap)});
      }
  }
  return compare_exact("score", h.data(), score, uint64_t(pairs * cells));
}

} // namespace
} // namespace gpurf::workload

GPURF_REFERENCE(nw, check_nw)
