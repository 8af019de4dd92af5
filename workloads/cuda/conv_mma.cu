// conv_mma: a Deepbench conv_bench layer as an implicit GEMM on the tensor cores (training
// precision: f16 data, f32 accumulation), 3x3 filter, stride 1, zero padding 1, NHWC:
// out[y][x][co] = sum over (dy, dx, ci) of in[y+dy-1][x+dx-1][ci] * filt[co][dy][dx][ci].
// GEMM view: rows = output pixels, columns = output channels, k = (tap, input channel); a warp
// owns one image row of 16 pixels and all 32 output channels (4 n8 tiles) and walks the 9
// taps x cin/8 k-steps with mma.sync.m16n8k8.f32.f16.f16.f32 (Turing's HMMA.1688.F32: A 2 + B 1
// + C 4 source registers). The A fragment is gathered on the fly (im2col in registers: half2
// of input channels 2t, 2t + 1 of pixels g and g + 8 shifted by the tap, 0 outside the image)
// and reused by the 4 tiles; each tile's B fragment is a half2 of the filter.
// Launch: grid (h / 4), block 128 (4 warps = 4 image rows); w = 16, cin = 16, cout = 32.
#include <cuda_fp16.h>

#define W 16
#define CIN 16
#define COUT 32

extern "C" __global__ void conv_mma(const __half* __restrict__ in, const __half* __restrict__ filt,
                                    float* __restrict__ out, int h) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int y = blockIdx.x * 4 + warp;
  float acc[4][4] = {};
#pragma unroll
  for (int tap = 0; tap < 9; ++tap) {
    const int yy = y + tap / 3 - 1, x0 = g + tap % 3 - 1, x1 = x0 + 8;
    const bool row = yy >= 0 && yy < h;
    const bool in0 = row && x0 >= 0, in1 = row && x1 < W;
#pragma unroll
    for (int c0 = 0; c0 < CIN; c0 += 8) {
      const unsigned a0 =
          in0 ? *reinterpret_cast<const unsigned*>(in + (yy * W + x0) * CIN + c0 + 2 * t) : 0u;
      const unsigned a1 =
          in1 ? *reinterpret_cast<const unsigned*>(in + (yy * W + x1) * CIN + c0 + 2 * t) : 0u;
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const unsigned b =
            *reinterpret_cast<const unsigned*>(filt + ((j * 8 + g) * 9 + tap) * CIN + c0 + 2 * t);
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, "
                     "{%6}, {%0, %1, %2, %3};"
                     : "+f"(acc[j][0]), "+f"(acc[j][1]), "+f"(acc[j][2]), "+f"(acc[j][3])
                     : "r"(a0), "r"(a1), "r"(b));
      }
    }
  }
  // D fragment: pixels g and g + 8, output channels 2t and 2t + 1 of each tile.
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    float* o = out + (y * W + g) * COUT + j * 8 + 2 * t;
    *reinterpret_cast<float2*>(o) = make_float2(acc[j][0], acc[j][1]);
    *reinterpret_cast<float2*>(o + 8 * COUT) = make_float2(acc[j][2], acc[j][3]);
  }
}
