// rnn_mma: a gated RNN over `steps` time steps (workloads/cuda/rnn_mma.cu):
//   pre = [W U] [h_{t-1}; x_t] + bias, h_t = z h_{t-1} + (1 - z) tanh(pre_c), z = sigmoid(pre_z)
// with h rounded to f16 after every step. Each step is checked from the kernel's own h_{t-1}
// (hs holds the f16 values exactly, as f32; h_0 = 0), so a rounding that went the other way near
// a tie does not carry into later steps: the reference computes h_t in double from it and
// allows 1e-3, two f16 ulps of |h| < 1 (2^-11 each in [0.5, 1)) for the final rounding, the f32
// sum of 128 products (about 128 * 2^-24 of sum |W h| < 16, 1e-4) and ex2.approx / div.approx
// (2 ulps of f32 each). A wrong gate, weight row or time step is off by tenths.
#include "gpurf/workloads/reference/check_util.h"

#include <cmath>
#include <vector>

namespace gpurf::workload {
namespace {

std::string check_rnn_mma(const LaunchData& d) {
  using namespace detail;
  constexpr int64_t H = 64, X = 64, K = H + X;
  const int64_t steps = d.var("steps"), batch = d.var("batch");
  const uint16_t* wu = in<uint16_t>(d, "wu", uint64_t(2 * H * K));
  const float* bias = in<float>(d, "bias", uint64_t(2 * H));
  const uint16_t* x = in<uint16_t>(d, "x", uint64_t(steps * batch * X));
  const float* hs = out<float>(d, "hs", uint64_t(steps * batch * H));
  std::vector<double> expected(size_t(steps * batch * H));
  std::vector<double> v(K), pre(2 * H);
  for (int64_t t = 0; t < steps; ++t)
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t j = 0; j < H; ++j) v[size_t(j)] = t ? hs[((t - 1) * batch + b) * H + j] : 0.0;
      for (int64_t c = 0; c < X; ++c) v[size_t(H + c)] = f16_value(x[(t * batch + b) * X + c]);
      for (int64_t r = 0; r < 2 * H; ++r) {
        double acc = bias[r];
        for (int64_t c = 0; c < K; ++c) acc += f16_value(wu[r * K + c]) * v[size_t(c)];
        pre[size_t(r)] = acc;
      }
      for (int64_t j = 0; j < H; ++j) {
        const double z = 1.0 / (1.0 + std::exp(-pre[size_t(H + j)]));
        expected[size_t((t * batch + b) * H + j)] =
            z * v[size_t(j)] + (1.0 - z) * std::tanh(pre[size_t(j)]);
      }
    }
  return compare_close("hs", expected.data(), hs, expected.size(), 0.0, 1e-3);
}

} // namespace
} // namespace gpurf::workload

GPURF_REFERENCE(rnn_mma, check_rnn_mma)
