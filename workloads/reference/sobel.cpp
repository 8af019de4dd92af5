// sobel: sqrt(gx^2 + gy^2) with the 3x3 Sobel operators and clamped borders
// (workloads/cuda/sobel.cu). Tolerance: gx and gy are sums of 6 weighted pixels in float (with
// fma contraction), so their error is a few ulp of S = sum of |weighted pixels| (|gx| + |gy|
// terms); the magnitude's error is at most that of (gx, gy): 1e-5 * S.
#include "gpurf/workloads/reference/check_util.h"

#include <algorithm>
#include <cmath>

namespace gpurf::workload {
namespace {

std::string check_sobel(const LaunchData& d) {
  using namespace detail;
  const int64_t w = d.var("w"), h = d.var("h");
  const uint64_t pixels = uint64_t(w * h);
  const float* img = in<float>(d, "img", pixels);
  const float* got = out<float>(d, "out", pixels);
  auto p = [&](int64_t x, int64_t y) {
    x = std::clamp<int64_t>(x, 0, w - 1);
    y = std::clamp<int64_t>(y, 0, h - 1);
    return double(img[y * w + x]);
  };
  std::vector<double> expected(pixels), scale(pixels);
  for (int64_t y = 0; y < h; ++y)
    for (int64_t x = 0; x < w; ++x) {
      const double p00 = p(x - 1, y - 1), p01 = p(x, y - 1), p02 = p(x + 1, y - 1);
      const double p10 = p(x - 1, y), p12 = p(x + 1, y);
      const double p20 = p(x - 1, y + 1), p21 = p(x, y + 1), p22 = p(x + 1, y + 1);
      const double gx = (p02 + 2 * p12 + p22) - (p00 + 2 * p10 + p20);
      const double gy = (p20 + 2 * p21 + p22) - (p00 + 2 * p01 + p02);
      expected[size_t(y * w + x)] = std::sqrt(gx * gx + gy * gy);
      scale[size_t(y * w + x)] = std::fabs(p02) + 2 * std::fabs(p12) + std::fabs(p22) +
                                 std::fabs(p00) + 2 * std::fabs(p10) + std::fabs(p20) +
                                 2 * std::fabs(p21) + 2 * std::fabs(p01) + std::fabs(p02) +
                                 std::fabs(p20) + std::fabs(p22) + std::fabs(p00);
    }
  return compare_close("out", expected.data(), got, pixels, 1e-5, 1e-7, scale.data());
}

} // namespace
} // namespace gpurf::workload

GPURF_REFERENCE(sobel, check_sobel)
