// stencil3d: one step of an 8th-order 3D star stencil (radius 4: the centre and 8 neighbours along
// each axis, 25 points), the kind of kernel seismic and wave-propagation codes run:
//   out[z][y][x] = c0 * in(x, y, z) + sum_{r=1..4} c_r * (in(x+-r, y, z) + in(x, y+-r, z)
//                                                         + in(x, y, z+-r))
// `in` is the padded grid (nx + 8) x (ny + 8) x (nz + 8) (a halo of 4 on every side, x fastest),
// `out` the nx x ny x nz interior. Register blocking along z: each thread owns one (x, y) column
// and ZB = 32 consecutive outputs; the column's ZB + 8 values are loaded once into registers and
// slide past the z taps, the x/y taps are loaded per output. Everything is `#pragma unroll`ed,
// so nvcc names well over a thousand PTX values and ptxas keeps the column in registers.
// Exercises: high register pressure, long straight-line fma chains, many independent loads.
// Launch: grid (ceil(nx/32), ceil(ny/4), nz/32), block (32, 4); nz a multiple of 32.
#define R 4
#define ZB 32

__constant__ float c_coef[R + 1] = {-2.8472222f, 1.6f, -0.2f, 0.025396825f, -0.0017857143f};

extern "C" __global__ void stencil3d(const float* __restrict__ in, float* __restrict__ out, int nx,
                                     int ny, int nz) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const int z0 = blockIdx.z * ZB;
  if (x >= nx || y >= ny) return;
  const int px = nx + 2 * R, py = ny + 2 * R;
  const long plane = (long)px * py;
  // Padded coordinates of (x, y, z0).
  const float* base = in + (long)(z0 + R) * plane + (long)(y + R) * px + (x + R);

  float col[ZB + 2 * R];
#pragma unroll
  for (int k = 0; k < ZB + 2 * R; ++k) col[k] = base[(long)(k - R) * plane];

  float res[ZB];
#pragma unroll
  for (int k = 0; k < ZB; ++k) {
    const float* p = base + (long)k * plane;
    float s = c_coef[0] * col[k + R];
#pragma unroll
    for (int r = 1; r <= R; ++r)
      s += c_coef[r] *
           ((p[-r] + p[r]) + (p[-r * px] + p[r * px]) + (col[k + R - r] + col[k + R + r]));
    res[k] = s;
  }
  float* o = out + (long)z0 * nx * ny + (long)y * nx + x;
#pragma unroll
  for (int k = 0; k < ZB; ++k) o[(long)k * nx * ny] = res[k];
}
