// conv2d_f16: 3x3 convolution of a w x h f16 image with an f16 filter, in f16 arithmetic: each
// thread computes two horizontally adjacent output pixels as one half2 (fma.rn.f16x2, 9 taps in
// row-major filter order, the accumulator rounded to f16 after every tap), borders clamped.
// Packing (mov.b32 {h, h}) and unpacking of half2, 16-bit global loads and stores.
// Launch: grid (ceil(w / 64), ceil(h / 8)), block (32, 8); w even.
#include <cuda_fp16.h>

extern "C" __global__ void conv2d_f16(const __half* __restrict__ in,
                                      const __half* __restrict__ filt, __half* __restrict__ out,
                                      int w, int h) {
  const int x = (blockIdx.x * blockDim.x + threadIdx.x) * 2;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  __half2 acc = __float2half2_rn(0.0f);
  for (int dy = -1; dy <= 1; ++dy) {
    const int yy = min(max(y + dy, 0), h - 1);
    for (int dx = -1; dx <= 1; ++dx) {
      const int xa = min(max(x + dx, 0), w - 1), xb = min(max(x + 1 + dx, 0), w - 1);
      const __half2 v = __halves2half2(in[yy * w + xa], in[yy * w + xb]);
      acc = __hfma2(v, __half2half2(filt[(dy + 1) * 3 + dx + 1]), acc);
    }
  }
  out[y * w + x] = __low2half(acc);
  out[y * w + x + 1] = __high2half(acc);
}
