// stencil2d_unrolled: a 5x5 weighted box filter (25 taps, an image-processing / finite-difference
// kernel), each thread computing a 2 x 8 block of outputs:
//   out[y][x] = sum_{dy,dx = -2..2} w[dy+2][dx+2] * in(x + dx, y + dy)
// `in` is the padded image (nx + 4) x (ny + 4) (a halo of 2 on every side, x fastest), `out` the
// nx x ny interior. The thread's (2 + 4) x (8 + 4) = 72 input values are loaded into registers
// first, then every output is a 25-term fma chain over them; all loops are `#pragma unroll`ed
// with compile-time weights (fma immediates), so the inputs and 16 sums live in registers at once.
// Exercises: high register pressure (ptxas > 60 registers per thread), register reuse across
// outputs, long unrolled fma chains.
// Launch: grid (ceil(nx/64), ceil(ny/64)), block (32, 8); nx even, ny a multiple of 8.
#define OX 2
#define OY 8

extern "C" __global__ void stencil2d_unrolled(const float* __restrict__ in, float* __restrict__ out,
                                              int nx, int ny) {
  // Weights: a separable binomial smoothing (1 4 6 4 1)^2 / 256 plus an antisymmetric shear term,
  // so every tap has its own coefficient.
  constexpr float b[5] = {1.0f, 4.0f, 6.0f, 4.0f, 1.0f};
  const int x0 = (blockIdx.x * blockDim.x + threadIdx.x) * OX;
  const int y0 = (blockIdx.y * blockDim.y + threadIdx.y) * OY;
  if (x0 >= nx || y0 >= ny) return;
  const int px = nx + 4;
  const float* base = in + (long)y0 * px + x0; // padded (x0 - 2, y0 - 2)

  float v[OY + 4][OX + 4];
#pragma unroll
  for (int j = 0; j < OY + 4; ++j)
#pragma unroll
    for (int i = 0; i < OX + 4; ++i) v[j][i] = base[(long)j * px + i];

#pragma unroll
  for (int oy = 0; oy < OY; ++oy)
#pragma unroll
    for (int ox = 0; ox < OX; ++ox) {
      float s = 0.0f;
#pragma unroll
      for (int dy = 0; dy < 5; ++dy)
#pragma unroll
        for (int dx = 0; dx < 5; ++dx)
          s +=
              (b[dy] * b[dx] * (1.0f / 256.0f) + 0.01f * (dx - 2) * (dy - 2)) * v[oy + dy][ox + dx];
      out[(long)(y0 + oy) * nx + x0 + ox] = s;
    }
}
