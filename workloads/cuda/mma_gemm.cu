// mma_gemm: C = A * B for n x n row-major matrices on the tensor cores: A and B are f32 in
// global memory, rounded to f16 (cvt.rn) as they are staged in shared memory, multiplied by
// mma.sync.m16n8k8 (f16 x f16 + f32, Turing's native shape) with f32 accumulators; the
// fragments come from shared memory through ldmatrix (A: .x2; B: .x2.trans, B being
// row-major). Shared rows are padded to 40 halves (80 B), so the 8 rows one ldmatrix matrix
// reads fall in distinct banks.
// Launch: grid (n/32, n/32), block 128 (4 warps, each a 16 x 16 tile of the CTA's 32 x 32);
// n a multiple of 32.
#include <cuda_fp16.h>

#define BT 32  // CTA tile (rows, columns and k per stage)
#define PAD 40 // shared row length in halves

__device__ __forceinline__ unsigned smem_addr(const void* p) {
  return unsigned(__cvta_generic_to_shared(p));
}

extern "C" __global__ void mma_gemm(const float* __restrict__ A, const float* __restrict__ B,
                                    float* __restrict__ C, int n) {
  __shared__ __align__(16) __half As[BT][PAD];
  __shared__ __align__(16) __half Bs[BT][PAD];
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int m0 = blockIdx.y * BT, n0 = blockIdx.x * BT;
  const int wm = (warp >> 1) * 16, wn = (warp & 1) * 16; // the warp's tile in the CTA's
  float acc[2][4] = {};
  // Staging: thread t copies 8 elements of row t / 4 of each tile.
  const int sr = tid >> 2, sc = (tid & 3) * 8;
  for (int k0 = 0; k0 < n; k0 += BT) {
    const float4* a = reinterpret_cast<const float4*>(A + (m0 + sr) * n + k0 + sc);
    const float4* b = reinterpret_cast<const float4*>(B + (k0 + sr) * n + n0 + sc);
    const float4 a0 = a[0], a1 = a[1], b0 = b[0], b1 = b[1];
    __half2 ha[4] = {__floats2half2_rn(a0.x, a0.y), __floats2half2_rn(a0.z, a0.w),
                     __floats2half2_rn(a1.x, a1.y), __floats2half2_rn(a1.z, a1.w)};
    __half2 hb[4] = {__floats2half2_rn(b0.x, b0.y), __floats2half2_rn(b0.z, b0.w),
                     __floats2half2_rn(b1.x, b1.y), __floats2half2_rn(b1.z, b1.w)};
    *reinterpret_cast<uint4*>(&As[sr][sc]) = *reinterpret_cast<uint4*>(ha);
    *reinterpret_cast<uint4*>(&Bs[sr][sc]) = *reinterpret_cast<uint4*>(hb);
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < BT; kk += 8) {
      // A (16 x 8 at rows wm, column kk): lanes 0-15 give the 16 rows' addresses.
      unsigned fa0, fa1, fb0, fb1;
      asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];"
                   : "=r"(fa0), "=r"(fa1)
                   : "r"(smem_addr(&As[wm + (lane & 15)][kk])));
      // B (8 x 16 at row kk, column wn), transposed into the k-major fragment: lanes 0-7 give
      // the rows of the first n8 tile, lanes 8-15 those of the second.
      asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
                   : "=r"(fb0), "=r"(fb1)
                   : "r"(smem_addr(&Bs[kk + (lane & 7)][wn + ((lane >> 3) & 1) * 8])));
      asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, "
                   "{%6}, {%0, %1, %2, %3};"
                   : "+f"(acc[0][0]), "+f"(acc[0][1]), "+f"(acc[0][2]), "+f"(acc[0][3])
                   : "r"(fa0), "r"(fa1), "r"(fb0));
      asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, "
                   "{%6}, {%0, %1, %2, %3};"
                   : "+f"(acc[1][0]), "+f"(acc[1][1]), "+f"(acc[1][2]), "+f"(acc[1][3])
                   : "r"(fa0), "r"(fa1), "r"(fb1));
    }
    __syncthreads();
  }
  // D fragment: lane (g, t) = (lane / 4, lane % 4) holds rows g and g + 8, columns 2t, 2t + 1.
  const int g = lane >> 2, t = lane & 3;
#pragma unroll
  for (int j = 0; j < 2; ++j) {
    float* c = C + (m0 + wm + g) * n + n0 + wn + j * 8 + 2 * t;
    *reinterpret_cast<float2*>(c) = make_float2(acc[j][0], acc[j][1]);
    *reinterpret_cast<float2*>(c + 8 * n) = make_float2(acc[j][2], acc[j][3]);
  }
}
