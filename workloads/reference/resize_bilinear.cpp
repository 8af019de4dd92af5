// resize_bilinear: bilinear resize through a 2D texture object (workloads/cuda/resize_bilinear.cu)
// computed from the CUDA Programming Guide's texture-fetching formula: the sample point
// x = u * wi - 0.5 (u = (x_out + 0.5) / wo in f32, as the kernel divides), i = floor(x),
// weight a = frac(x) in 9-bit fixed point with 8 fraction bits (rounded to the nearest 1/256),
// indices clamped to the image, texels c / 255 (read mode normalised float), the four weighted
// texels summed in a double. Tolerance: 1e-6 absolute (the texture unit sums in f32: under
// 4 ulp of values in [0, 1]); weights of full precision instead of 8 bits would differ by up to
// 1/512 of a texel difference, far outside it.
#include "gpurf/workloads/reference/check_util.h"

#include <vector>

namespace gpurf::workload {
namespace {

std::string check_resize_bilinear(const LaunchData& d) {
  using namespace detail;
  const int64_t wi = d.var("wi"), hi = d.var("hi"), wo = d.var("wo"), ho = d.var("ho");
  const uint8_t* img = in<uint8_t>(d, "img", uint64_t(4 * wi * hi));
  const uint64_t n = uint64_t(4 * wo * ho);
  const float* out_v = out<float>(d, "out", n);
  // the sample's lower texel index and its 8-fraction-bit weight along one axis
  auto axis = [](int64_t o, int64_t out_size, int64_t in_size, int64_t& i, double& a) {
    const float u = (float(o) + 0.5f) / float(out_size);
    const float x = u * float(in_size) - 0.5f;
    const float f = std::floor(x);
    i = int64_t(f);
    a = std::nearbyint(double(x - f) * 256.0) / 256.0;
  };
  std::vector<double> expected(n);
  for (int64_t y = 0; y < ho; ++y)
    for (int64_t x = 0; x < wo; ++x) {
      int64_t i, j;
      double a, b;
      axis(x, wo, wi, i, a);
      axis(y, ho, hi, j, b);
      for (int c = 0; c < 4; ++c) {
        auto t = [&](int64_t xx, int64_t yy) {
          xx = std::clamp<int64_t>(xx, 0, wi - 1);
          yy = std::clamp<int64_t>(yy, 0, hi - 1);
          return double(img[(yy * wi + xx) * 4 + c]) / 255.0;
        };
        expected[size_t((y * wo + x) * 4 + c)] =
            (1 - a) * (1 - b) * t(i, j) + a * (1 - b) * t(i + 1, j) + (1 - a) * b * t(i, j + 1) +
            a * b * t(i + 1, j + 1);
      }
    }
  return compare_close("out", expected.data(), out_v, n, 0.0, 1e-6);
}

} // namespace
} // namespace gpurf::workload

GPURF_REFERENCE(resize_bilinear, check_resize_bilinear)
