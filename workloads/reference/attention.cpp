// attention: O = softmax(Q K^T * scale) V for one head, Q/K/V f16 (workloads/cuda/attention.cu).
// The reference computes in double from the f16 inputs. Tolerance: the kernel sums 32 products
// in f32 (relative error about 32 * 2^-24 of sum |q k|, scaled by 1/sqrt(32)), takes the
// exponentials with ex2.approx (relative error about 2^-22, plus the rounding of (s - m) *
// log2(e)), and sums 64 weighted values in f32: every output is a convex combination of values
// in [-1, 1], so 2e-5 absolute is several times the f32 error and far below what a lost f16
// rounding of an input (2^-11 relative), a wrong key or a dropped shuffle lane does.
#include "gpurf/workloads/reference/check_util.h"

#include <vector>

namespace gpurf::workload {
namespace {

constexpr int kD = 32, kS = 64;

std::string check_attention(const LaunchData& d) {
  using namespace detail;
  const int64_t nq = d.var("nq");
  const uint16_t* Q = in<uint16_t>(d, "Q", uint64_t(nq * kD));
  const uint16_t* K = in<uint16_t>(d, "K", kS * kD);
  const uint16_t* V = in<uint16_t>(d, "V", kS * kD);
  const float* O = out<float>(d, "O", uint64_t(nq * kD));
  const double scale = double(float(0.17677669529663687)); // the f32 parameter
  std::vector<double> expected(size_t(nq * kD));
  for (int64_t q = 0; q < nq; ++q) {
    double s[kS], m = -INFINITY, sum = 0;
    for (int k = 0; k < kS; ++k) {
      double acc = 0;
      for (int j = 0; j < kD; ++j) acc += f16_value(Q[q * kD + j]) * f16_value(K[k * kD + j]);
      s[k] = acc * scale;
      m = std::max(m, s[k]);
    }
    for (double& v : s) sum += (v = std::exp(v - m));
    for (int j = 0; j < kD; ++j) {
      double o = 0;
      for (int k = 0; k < kS; ++k) o += s[k] * f16_value(V[k * kD + j]);
      expected[size_t(q * kD + j)] = o / sum;
    }
  }
  return compare_close("O", expected.data(), O, uint64_t(nq * kD), 0.0, 2e-5);
}

} // namespace
} // namespace gpurf::workload

GPURF_REFERENCE(attention, check_attention)
