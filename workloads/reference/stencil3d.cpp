// stencil3d (workloads/stress/cuda/stencil3d.cu): one step of the 8th-order 3D star stencil,
//   out(x, y, z) = c0 * in(x, y, z) + sum_{r=1..4} c_r * (six taps at distance r)
// on the padded grid (halo 4). c_r mirror the kernel's __constant__ c_coef (f32).
// Tolerance: per output the kernel forms 4 pairwise tap sums of depth 3 and a 5-step fma chain,
// at most ~9 f32 roundings on partial sums no larger than S = sum |c_r * tap|, so the error is
// below 9 * 2^-24 * S ~ 5.4e-7 S; the check allows 2e-6 S (the reference sums in double).
#include "gpurf/workloads/reference/check_util.h"

#include <cmath>
#include <vector>

namespace gpurf::workload {
namespace {

constexpr int64_t kR = 4;
constexpr float kCoef[kR + 1] = {-2.8472222f, 1.6f, -0.2f, 0.025396825f, -0.0017857143f};

std::string check_stencil3d(const LaunchData& d) {
  using namespace detail;
  const int64_t nx = d.var("nx"), ny = d.var("ny"), nz = d.var("nz");
  const int64_t px = nx + 2 * kR, py = ny + 2 * kR, pz = nz + 2 * kR;
  const float* in_ = in<float>(d, "in", uint64_t(px * py * pz));
  const uint64_t cells = uint64_t(nx * ny * nz);
  const float* out_ = out<float>(d, "out", cells);
  auto at = [&](int64_t x, int64_t y, int64_t z) {
    return double(in_[((z + kR) * py + (y + kR)) * px + (x + kR)]);
  };
  std::vector<double> expected(cells), scale(cells);
  for (int64_t z = 0; z < nz; ++z)
    for (int64_t y = 0; y < ny; ++y)
      for (int64_t x = 0; x < nx; ++x) {
        double s = double(kCoef[0]) * at(x, y, z), mag = std::fabs(s);
        for (int64_t r = 1; r <= kR; ++r) {
          const double taps[6] = {at(x - r, y, z), at(x + r, y, z), at(x, y - r, z),
                                  at(x, y + r, z), at(x, y, z - r), at(x, y, z + r)};
          for (double t : taps) {
            s += double(kCoef[r]) * t;
            mag += std::fabs(double(kCoef[r]) * t);
          }
        }
        const size_t i = size_t((z * ny + y) * nx + x);
        expected[i] = s;
        scale[i] = mag;
      }
  return compare_close("out", expected.data(), out_, cells, 2e-6, 1e-9, scale.data());
}

} // namespace
} // namespace gpurf::workload

GPURF_REFERENCE(stencil3d, check_stencil3d)
