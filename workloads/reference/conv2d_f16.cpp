// conv2d_f16: 3x3 convolution in f16 arithmetic with clamped borders
// (workloads/cuda/conv2d_f16.cu). Exact: the kernel rounds the accumulator to f16 after each of
// the 9 taps, in row-major filter order, with fma.rn.f16x2 (one rounding per tap); the reference
// does the same. Each fma is exact in a double before its rounding here: the product of two
// f16 values has 22 significant bits at a multiple of 2^-48, the accumulator is a multiple of
// 2^-24, and with |pixels| <= 1, |taps| <= 0.5 every sum stays below 2^4, so the exact sum needs
// at most 52 bits. Outputs are compared bit for bit.
#include "gpurf/workloads/reference/check_util.h"

#include <vector>

namespace gpurf::workload {
namespace {

// The f16 bits of a value already rounded to f16 (finite, in range).
uint16_t f16_bits(double v) {
  const double a = std::fabs(v);
  const uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  if (a < 0x1p-14) return uint16_t(sign | uint16_t(a * 0x1p24)); // subnormal or zero
  const int e = std::ilogb(a);
  return uint16_t(sign | (e + 15) << 10 | (uint16_t(std::ldexp(a, 10 - e)) - 1024));
}

std::string check_conv2d_f16(const LaunchData& d) {
  using namespace detail;
  const int64_t w = d.var("w"), h = d.var("h");
  const uint64_t n = uint64_t(w * h);
  const uint16_t* img = in<uint16_t>(d, "img", n);
  const uint16_t* filt = in<uint16_t>(d, "filt", 9);
  const uint16_t* out_bits = out<uint16_t>(d, "out", n);
  std::vector<uint16_t> expected(n);
  for (int64_t y = 0; y < h; ++y)
    for (int64_t x = 0; x < w; ++x) {
      double acc = 0;
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          const int64_t yy = std::clamp<int64_t>(y + dy, 0, h - 1);
          const int64_t xx = std::clamp<int64_t>(x + dx, 0, w - 1);
          acc =
              round_f16(f16_value(img[yy * w + xx]) * f16_value(filt[(dy + 1) * 3 + dx + 1]) + acc);
        }
      expected[size_t(y * w + x)] = f16_bits(acc);
    }
  for (uint64_t i = 0; i < n; ++i)
    if (expected[i] != out_bits[i])
      return mismatch("out", i, f16_value(expected[i]), f16_value(out_bits[i]),
                      "f16 bits " + std::to_string(expected[i]) + " vs " +
                          std::to_string(out_bits[i]));
  return "";
}

} // namespace
} // namespace gpurf::workload

GPURF_REFERENCE(conv2d_f16, check_conv2d_f16)
