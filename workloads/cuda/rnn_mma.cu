// rnn_mma: a Deepbench rnn_bench inference step loop (a persistent RNN kernel: the weights
// stay in registers across the time steps, the loop over time is inside the kernel) with a
// gated cell on the tensor cores. Per step t, for each batch column b and hidden unit j:
//   pre = [W U] * [h_{t-1}; x_t] + bias          (2H x (H + X) times (H + X) x batch)
//   c = tanh(pre[j]), z = sigmoid(pre[H + j]), h_t[j] = z * h_{t-1}[j] + (1 - z) * c
// h is kept in f16 (rounded after every step), the GEMM accumulates in f32 with
// mma.sync.m16n8k8.f32.f16.f16.f32; each warp owns 16 of the 2H = 128 rows and holds their
// A fragments (16 k-steps x 2 registers) for the whole kernel; the B fragments (h and x of
// the CTA's 8 batch columns) come from shared memory. tanh and sigmoid use __expf and
// __fdividef (ex2.approx, div.approx). Output: every h_t, as f32.
// Launch: grid (batch / 8), block 256 (8 warps); H = X = 64; x is [steps][batch][X] f16,
// wu [128][128] f16 row-major, bias [128] f32, hs [steps][batch][H] f32.
#include <cuda_fp16.h>

#define H 64
#define X 64
#define K (H + X)
#define BB 8 // batch columns per CTA

__device__ __forceinline__ float sigmoid(float v) { return __fdividef(1.0f, 1.0f + __expf(-v)); }

extern "C" __global__ void rnn_mma(const __half* __restrict__ wu, const float* __restrict__ bias,
                                   const __half* __restrict__ x, float* __restrict__ hs, int steps,
                                   int batch) {
  __shared__ __align__(16) __half hx[BB][K + 8]; // [h; x] per batch column, padded rows
  __shared__ float pre[2 * H][BB];
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int b0 = blockIdx.x * BB;
  // The warp's A fragments: rows warp*16 + g and + 8, halves 2t, 2t + 1 of each k-step.
  unsigned a[K / 8][2];
#pragma unroll
  for (int s = 0; s < K / 8; ++s) {
    a[s][0] = *reinterpret_cast<const unsigned*>(wu + (warp * 16 + g) * K + s * 8 + 2 * t);
    a[s][1] = *reinterpret_cast<const unsigned*>(wu + (warp * 16 + g + 8) * K + s * 8 + 2 * t);
  }
  const float bias0 = bias[warp * 16 + g], bias1 = bias[warp * 16 + g + 8];
  // h_0 = 0; thread tid stages x_t's element (b, c) = (tid / 32, 2 * (tid % 32)) as a half2.
  const int sb = tid >> 5, sc = 2 * (tid & 31);
  *reinterpret_cast<unsigned*>(&hx[sb][sc]) = 0u;
  for (int step = 0; step < steps; ++step) {
    *reinterpret_cast<unsigned*>(&hx[sb][H + sc]) =
        *reinterpret_cast<const unsigned*>(x + (step * batch + b0 + sb) * X + sc);
    __syncthreads();
    float d[4] = {bias0, bias0, bias1, bias1};
#pragma unroll
    for (int s = 0; s < K / 8; ++s) {
      const unsigned b = *reinterpret_cast<const unsigned*>(&hx[g][s * 8 + 2 * t]);
      asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, "
                   "{%6}, {%0, %1, %2, %3};"
                   : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                   : "r"(a[s][0]), "r"(a[s][1]), "r"(b));
    }
    // D: rows g, g + 8 of the warp's 16, batch columns 2t, 2t + 1.
    pre[warp * 16 + g][2 * t] = d[0];
    pre[warp * 16 + g][2 * t + 1] = d[1];
    pre[warp * 16 + g + 8][2 * t] = d[2];
    pre[warp * 16 + g + 8][2 * t + 1] = d[3];
    __syncthreads();
    // The gates: thread tid updates (b, j) = (tid / 32, 2 * (tid % 32)) and (b, j + 1).
#pragma unroll
    for (int e = 0; e < 2; ++e) {
      const int j = sc + e;
      const float c = 2.0f * sigmoid(2.0f * pre[j][sb]) - 1.0f; // tanh
      const float z = sigmoid(pre[H + j][sb]);
      const float hn = z * __half2float(hx[sb][j]) + (1.0f - z) * c;
      const __half hh = __float2half_rn(hn);
      hx[sb][j] = hh;
      hs[(step * batch + b0 + sb) * H + j] = __half2float(hh);
    }
  }
}
