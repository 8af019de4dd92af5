// calls (workloads/stress/cuda/calls.cu): per element a loop of (key & 15) + 1 iterations calling
// blend() (struct return) or weigh() (double return) on the bits of key, plus double pow() every
// iteration. `count` is integer: exact. The f32 state (a, b) is replayed bit for bit (the f32
// operations as nvcc emits them: w = fma(j, -1/32, 0.75), a' = fma(a, w, (1 - w) * b),
// b' = fma(a, b, 0.5)), and the f64 accumulation in the kernel's order with fma where it uses one;
// only pow differs (CUDA's is within 2 ulp, the host's within 1). Tolerance: 1e-13 of the sum of
// the accumulated terms' magnitudes (17 terms of at most 3 ulp each are below 1e-14 of it); a
// wrong argument, return value or call is far outside it.
#include "gpurf/workloads/reference/check_util.h"

#include <cmath>
#include <vector>

namespace gpurf::workload {
namespace {

std::string check_calls(const LaunchData& d) {
  using namespace detail;
  const int64_t n = d.var("n");
  const float* x = in<float>(d, "x", uint64_t(n));
  const int32_t* key = in<int32_t>(d, "key", uint64_t(n));
  const double* out_ = out<double>(d, "out", uint64_t(n));
  const int32_t* count = out<int32_t>(d, "count", uint64_t(n));
  std::vector<double> expected(static_cast<size_t>(n)), scale(static_cast<size_t>(n));
  std::vector<int32_t> cnt(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const float xi = x[i];
    const int32_t k = key[i];
    float a = xi, b = 1.0f - xi;
    int32_t c = 0;
    double acc = 0.0, mag = 0.0;
    const double s = std::fma(double(xi), 0.5, 1.0);
    for (int32_t j = 0; j < (k & 15) + 1; ++j) {
      if ((k >> j) & 1) {
        const float w = std::fma(float(j), -0.03125f, 0.75f);
        const float wb = (1.0f - w) * b;
        const float na = std::fma(a, w, wb), nb = std::fma(a, b, 0.5f);
        a = na;
        b = nb;
        c += (k >> (j + 4)) & 3;
      } else {
        const double t = std::fma(double(a), s, double(b)) / double(j + 1);
        acc += t;
        mag += std::fabs(t);
      }
      const double p = std::pow(1.0 + 0.125 * double(a) * double(a), 0.25 * (j + 1));
      acc += p;
      mag += std::fabs(p);
    }
    expected[size_t(i)] = acc + double(a) + double(b);
    scale[size_t(i)] = mag + std::fabs(double(a)) + std::fabs(double(b));
    cnt[size_t(i)] = c;
  }
  const std::string e = compare_exact("count", cnt.data(), count, uint64_t(n));
  if (!e.empty()) return e;
  return compare_close("out", expected.data(), out_, uint64_t(n), 1e-13, 0.0, scale.data());
}

} // namespace
} // namespace gpurf::workload

GPURF_REFERENCE(calls, check_calls)
