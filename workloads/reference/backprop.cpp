// backprop: out[j] = sigmoid(bias[j] + sum_i w[j][i] * in[i]) (workloads/cuda/backprop.cu).
// Tolerance: the float dot product (32 lane-strided fma chains + a butterfly) errs by a few ulp of
// S = |bias| + sum |w * in|; sigmoid' <= 1/4, and __expf (ex2.approx) adds ~1e-6 relative:
// |got - expected| <= 2e-6 + 0.25 * 2e-6 * S.
#include "gpurf/workloads/reference/check_util.h"

#include <cmath>

namespace gpurf::workload {
namespace {

std::string check_backprop(const LaunchData& d) {
  using namespace detail;
  const int64_t n_in = d.var("n_in"), n_out = d.var("n_out");
  const float* x = in<float>(d, "input", uint64_t(n_in));
  const float* w = in<float>(d, "w", uint64_t(n_in * n_out));
  const float* bias = in<float>(d, "bias", uint64_t(n_out));
  const float* got = out<float>(d, "out", uint64_t(n_out));
  std::vector<double> expected(static_cast<size_t>(n_out)), scale(static_cast<size_t>(n_out));
  for (int64_t j = 0; j < n_out; ++j) {
    double s = bias[j], abs_s = std::fabs(double(bias[j]));
    for (int64_t i = 0; i < n_in; ++i) {
      const double p = double(w[j * n_in + i]) * double(x[i]);
      s += p;
      abs_s += std::fabs(p);
    }
    expected[size_t(j)] = 1.0 / (1.0 + std::exp(-s));
    scale[size_t(j)] = 0.25 * abs_s;
  }
  return compare_close("out", expected.data(), got, uint64_t(n_out), 2e-6, 2e-6, scale.data());
}

} // namespace
} // namespace gpurf::workload

GPURF_REFERENCE(backprop, check_backprop)
