// conv_mma: 3x3 convolution, stride 1, zero padding 1, NHWC, h x 16 pixels, 16 -> 32 channels,
// f16 data, f32 result (workloads/cuda/conv_mma.cu). Every product of two f16 values is exact in
// f32; the tensor core sums them in f32 in an order the PTX ISA leaves open, so the reference
// sums in double and allows 1e-5 of sum |in * filt| over the 144 terms (any f32 order errs by
// at most about 144 * 2^-24 ~ 9e-6 of it). A wrong im2col index, tap or padding moves a
// result by whole products (|in * filt| up to 0.5).
#include "gpurf/workloads/reference/check_util.h"

#include <cmath>
#include <vector>

namespace gpurf::workload {
namespace {

std::string check_conv_mma(const LaunchData& d) {
  using namespace detail;
  constexpr int64_t W = 16, CIN = 16, COUT = 32;
  const int64_t h = d.var("h");
  const uint16_t* img = in<uint16_t>(d, "in", uint64_t(h * W * CIN));
  const uint16_t* filt = in<uint16_t>(d, "filt", uint64_t(COUT * 9 * CIN));
  const float* got = out<float>(d, "out", uint64_t(h * W * COUT));
  std::vector<double> expected(size_t(h * W * COUT)), scale(expected.size());
  for (int64_t y = 0; y < h; ++y)
    for (int64_t x = 0; x < W; ++x)
      for (int64_t co = 0; co < COUT; ++co) {
        double acc = 0, s = 0;
        for (int64_t tap = 0; tap < 9; ++tap) {
          const int64_t yy = y + tap / 3 - 1, xx = x + tap % 3 - 1;
          if (yy < 0 || yy >= h || xx < 0 || xx >= W) continue;
          for (int64_t ci = 0; ci < CIN; ++ci) {
            const double p = f16_value(img[(yy * W + xx) * CIN + ci]) *
                             f16_value(filt[(co * 9 + tap) * CIN + ci]);
            acc += p;
            s += std::fabs(p);
          }
        }
        const size_t e = size_t((y * W + x) * COUT + co);
        expected[e] = acc;
        scale[e] = s;
      }
  return compare_close("out", expected.data(), got, expected.size(), 1e-5, 1e-7, scale.data());
}

} // namespace
} // namespace gpurf::workload

GPURF_REFERENCE(conv_mma, check_conv_mma)
