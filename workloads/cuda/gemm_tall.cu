// gemm_tall: a Deepbench gemm_bench inference shape (tall and skinny: many output rows, a
// batch of a few columns) on the tensor cores with f16 accumulation, as inference GEMMs run:
// C (m x n, f16) = A (m x k, f16, row-major) * B, B given transposed (Bt: n x k, f16,
// row-major, Deepbench's "b_t" layouts), by mma.sync.m16n8k8.f16.f16.f16.f16 (Turing's
// HMMA.1688.F16: A 2 + B 1 + C 2 source registers, 2 destinations). The fragments are loaded
// straight from global memory as half2 (A rows g and g + 8, Bt row g, halves 2t and 2t + 1 of
// each k-step), the k loop unrolled by four so the loads of four steps precede their mmas.
// Launch: grid (m / 64), block 128 (4 warps, each 16 rows x all n columns); n = 16, k a
// multiple of 32.
#include <cuda_fp16.h>

#define NT 2 // n8 tiles per warp: n = 16

extern "C" __global__ void gemm_tall(const __half* __restrict__ A, const __half* __restrict__ Bt,
                                     __half* __restrict__ C, int k) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int m0 = (blockIdx.x * 4 + warp) * 16;
  const unsigned* a0p = reinterpret_cast<const unsigned*>(A + (m0 + g) * k + 2 * t);
  const unsigned* a1p = reinterpret_cast<const unsigned*>(A + (m0 + g + 8) * k + 2 * t);
  const unsigned* bp[NT];
#pragma unroll
  for (int j = 0; j < NT; ++j)
    bp[j] = reinterpret_cast<const unsigned*>(Bt + (j * 8 + g) * k + 2 * t);
  unsigned acc[NT][2] = {};
#pragma unroll 4
  for (int k0 = 0; k0 < k; k0 += 8) {
    const unsigned a0 = a0p[k0 / 2], a1 = a1p[k0 / 2];
#pragma unroll
    for (int j = 0; j < NT; ++j) {
      const unsigned b = bp[j][k0 / 2];
      asm volatile("mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%0, %1}, {%2, %3}, {%4}, "
                   "{%0, %1};"
                   : "+r"(acc[j][0]), "+r"(acc[j][1])
                   : "r"(a0), "r"(a1), "r"(b));
    }
  }
  // D fragment: lane (g, t) holds rows g and g + 8, columns 2t and 2t + 1 of each n8 tile.
  const int n = NT * 8;
#pragma unroll
  for (int j = 0; j < NT; ++j) {
    *reinterpret_cast<unsigned*>(C + (m0 + g) * n + j * 8 + 2 * t) = acc[j][0];
    *reinterpret_cast<unsigned*>(C + (m0 + g + 8) * n + j * 8 + 2 * t) = acc[j][1];
  }
}
