// stencil2d_unrolled (workloads/stress/cuda/stencil2d_unrolled.cu): a 5x5 weighted box filter on
// the padded image (halo 2), w[dy][dx] = b[dy] * b[dx] / 256 + 0.01f * (dx - 2) * (dy - 2) with
// b = (1 4 6 4 1); the kernel's weights are f32 constants folded by nvcc.
// Tolerance: the kernel's 25-step fma chain rounds at most 25 times on partial sums no larger than
// S = sum |w * in|, and nvcc folds each weight to the f32 nearest the double value (the PTX's 400
// fma immediates are within 0.6 * 2^-24 of it, relative): the error is below 26 * 2^-24 * S
// ~ 1.55e-6 S; the check allows 2e-6 S (the reference sums in double).
#include "gpurf/workloads/reference/check_util.h"

#include <cmath>
#include <vector>

namespace gpurf::workload {
namespace {

std::string check_stencil2d_unrolled(const LaunchData& d) {
  using namespace detail;
  const int64_t nx = d.var("nx"), ny = d.var("ny"), px = nx + 4;
  const float* in_ = in<float>(d, "in", uint64_t(px * (ny + 4)));
  const uint64_t cells = uint64_t(nx * ny);
  const float* out_ = out<float>(d, "out", cells);
  const double b[5] = {1, 4, 6, 4, 1};
  double w[5][5];
  for (int dy = 0; dy < 5; ++dy)
    for (int dx = 0; dx < 5; ++dx)
      w[dy][dx] = b[dy] * b[dx] / 256.0 + double(0.01f) * (dx - 2) * (dy - 2);
  std::vector<double> expected(cells), scale(cells);
  for (int64_t y = 0; y < ny; ++y)
    for (int64_t x = 0; x < nx; ++x) {
      double s = 0.0, mag = 0.0;
      for (int64_t dy = 0; dy < 5; ++dy)
        for (int64_t dx = 0; dx < 5; ++dx) {
          const double t = w[dy][dx] * double(in_[(y + dy) * px + x + dx]);
          s += t;
          mag += std::fabs(t);
        }
      expected[size_t(y * nx + x)] = s;
      scale[size_t(y * nx + x)] = mag;
    }
  return compare_close("out", expected.data(), out_, cells, 2e-6, 1e-9, scale.data());
}

} // namespace
} // namespace gpurf::workload

GPURF_REFERENCE(stencil2d_unrolled, check_stencil2d_unrolled)
