// attention: one head of scaled dot-product attention, O = softmax(Q K^T * scale) V, with f16
// Q, K, V (head dimension 32, 64 keys) and f32 scores, softmax and accumulation. One warp per
// query row, 4 per CTA. K and V are staged in shared memory as half2; lane j scores keys j and
// j + 32 (ld.shared.b32 of half2, cvt.f32.f16, fma.rn.f32), the row's max and sum go through
// butterfly shuffles (shfl.sync.bfly), ex2.approx gives the exponentials, and lane j then
// accumulates output column j with each key's probability broadcast by shfl.sync.idx.
// Launch: grid (nq / 4), block (128); nq a multiple of 4.
#include <cuda_fp16.h>

#define D 32     // head dimension: one output column per lane
#define S 64     // keys: two per lane
#define WARPS 4  // query rows per CTA

extern "C" __global__ void attention(const __half* __restrict__ Q, const __half* __restrict__ K,
                                     const __half* __restrict__ V, float* __restrict__ O, int nq,
                                     float scale) {
  __shared__ __half2 ks[S][D / 2], vs[S][D / 2];
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const __half2* K2 = reinterpret_cast<const __half2*>(K);
  const __half2* V2 = reinterpret_cast<const __half2*>(V);
  for (int i = tid; i < S * D / 2; i += blockDim.x) {
    ks[i / (D / 2)][i % (D / 2)] = K2[i];
    vs[i / (D / 2)][i % (D / 2)] = V2[i];
  }
  __syncthreads();
  const int q = blockIdx.x * WARPS + warp;
  if (q >= nq) return;

  // The query row, every lane a copy, in f32.
  float qv[D];
  const __half2* Q2 = reinterpret_cast<const __half2*>(Q + q * D);
#pragma unroll
  for (int j = 0; j < D / 2; ++j) {
    const float2 f = __half22float2(Q2[j]);
    qv[2 * j] = f.x;
    qv[2 * j + 1] = f.y;
  }
  float s[2];
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int k = lane + 32 * h;
    float acc = 0.0f;
#pragma unroll
    for (int j = 0; j < D / 2; ++j) {
      const float2 kf = __half22float2(ks[k][j]);
      acc = fmaf(qv[2 * j], kf.x, acc);
      acc = fmaf(qv[2 * j + 1], kf.y, acc);
    }
    s[h] = acc * scale;
  }
  float m = fmaxf(s[0], s[1]);
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
  const float p0 = __expf(s[0] - m), p1 = __expf(s[1] - m);
  float sum = p0 + p1;
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);

  float out = 0.0f;
#pragma unroll 8
  for (int k = 0; k < S; ++k) {
    const float p = __shfl_sync(0xffffffffu, k < 32 ? p0 : p1, k & 31);
    out = fmaf(p, __half2float(reinterpret_cast<const __half*>(vs[k])[lane]), out);
  }
  O[q * D + lane] = out / sum;
}
