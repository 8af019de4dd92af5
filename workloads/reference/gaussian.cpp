// gaussian: one elimination step with pivot row t (workloads/cuda/gaussian.cu).
// Expected, computed in double from the inputs: mult[i] = A[i][t] / A[t][t] for i > t, else 0;
// a_out[i][j] = A[i][j] - mult[i] * A[t][j] for i > t and j >= t, else A[i][j];
// b_out[i] = b[i] - mult[i] * b[t] for i > t, else b[i].
// Tolerance: the kernel rounds the division, the product and the difference in float: 1e-5 of
// |A[i][j]| + |mult[i] * A[t][j]| (resp. of |mult[i]|). Copied entries must match exactly.
#include "gpurf/workloads/reference/check_util.h"

#include <cmath>
#include <vector>

namespace gpurf::workload {
namespace {

std::string check_gaussian(const LaunchData& d) {
  using namespace detail;
  const int64_t n = d.var("n"), t = d.var("t");
  if (t < 0 || t >= n) return "gaussian: the pivot t must lie in [0, n)";
  const uint64_t nn = uint64_t(n * n);
  const float* a = in<float>(d, "a", nn);
  const float* b = in<float>(d, "b", uint64_t(n));
  const float* a_out = out<float>(d, "a_out", nn);
  const float* b_out = out<float>(d, "b_out", uint64_t(n));
  const float* mult = out<float>(d, "mult", uint64_t(n));
  const double pivot = a[t * n + t];
  std::vector<double> m(size_t(n), 0.0), m_scale(static_cast<size_t>(n));
  std::vector<double> ea(nn), sa(nn), eb(static_cast<size_t>(n)), sb(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    if (i > t) m[size_t(i)] = double(a[i * n + t]) / pivot;
    m_scale[size_t(i)] = std::fabs(m[size_t(i)]);
    eb[size_t(i)] = double(b[i]) - m[size_t(i)] * double(b[t]);
    sb[size_t(i)] = std::fabs(double(b[i])) + std::fabs(m[size_t(i)] * double(b[t]));
    for (int64_t j = 0; j < n; ++j) {
      const bool update = i > t && j >= t;
      const double mp = update ? m[size_t(i)] * double(a[t * n + j]) : 0.0;
      ea[size_t(i * n + j)] = double(a[i * n + j]) - mp;
      sa[size_t(i * n + j)] = std::fabs(double(a[i * n + j])) + std::fabs(mp);
    }
  }
  std::string r = compare_close("mult", m.data(), mult, uint64_t(n), 1e-5, 0.0, m_scale.data());
  if (r.empty()) r = compare_close("b_out", eb.data(), b_out, uint64_t(n), 1e-5, 0.0, sb.data());
  if (r.empty()) r = compare_close("a_out", ea.data(), a_out, nn, 1e-5, 0.0, sa.data());
  return r;
}

} // namespace
} // namespace gpurf::workload

namespace gpurf::workload {
namespace {

// gaussian_app (workloads/apps/gaussian.yaml): the diagonal set to n (the file's first step),
// then every step t = 0 .. n-2 with the matrices swapped after each, so the results end in `a`
// and `b`. The reference eliminates in double; each element's scale is the sum of the
// magnitudes of every term it received, and the tolerance 1e-5 of it per step it took part in.
std::string check_gaussian_app(const LaunchData& d) {
  using namespace detail;
  const int64_t n = d.var("n");
  const uint64_t nn = uint64_t(n * n);
  const float* a0 = in<float>(d, "a", nn);
  const float* b0 = in<float>(d, "b", uint64_t(n));
  std::vector<double> a(a0, a0 + nn), b(b0, b0 + n), sa(nn), sb(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) a[size_t(i * n + i)] = double(n);
  for (uint64_t k = 0; k < nn; ++k) sa[k] = std::fabs(a[k]);
  for (int64_t i = 0; i < n; ++i) sb[size_t(i)] = std::fabs(b[size_t(i)]);
  for (int64_t t = 0; t + 1 < n; ++t)
    for (int64_t i = t + 1; i < n; ++i) {
      const double m = a[size_t(i * n + t)] / a[size_t(t * n + t)];
      for (int64_t j = t; j < n; ++j) {
        a[size_t(i * n + j)] -= m * a[size_t(t * n + j)];
        sa[size_t(i * n + j)] += std::fabs(m * a[size_t(t * n + j)]);
      }
      b[size_t(i)] -= m * b[size_t(t)];
      sb[size_t(i)] += std::fabs(m * b[size_t(t)]);
    }
  const double rtol = 1e-5 * double(n);
  std::string r = compare_close("a", a.data(), out<float>(d, "a", nn), nn, rtol, 0.0, sa.data());
  if (r.empty())
    r = compare_close("b", b.data(), out<float>(d, "b", uint64_t(n)), uint64_t(n), rtol, 0.0,
                      sb.data());
  return r;
}

} // namespace
} // namespace gpurf::workload

GPURF_REFERENCE(gaussian, check_gaussian)
GPURF_REFERENCE(gaussian_app, check_gaussian_app)
