// sgemm_tiled: C = A * B for n x n row-major single-precision matrices, register-blocked the way
// Cutlass's SIMT sgemm is (its 128 x 128 x 8 threadblock tile, 8 x 8 outputs per thread): a CTA
// of 16 x 16 threads computes a 128 x 128 tile of C. Per step of BK = 8 along k the CTA stages a
// 128 x 8 slice of A (transposed: As[k][m]) and an 8 x 128 slice of B in shared memory, double-
// buffered: the next slices are loaded from global memory into registers (ld.global.v4) before
// the current ones are multiplied and stored into the other buffer after, one bar.sync per step.
// Per k each thread reads its 8 values of A and 8 of B as two float4 each (ld.shared.v4) and
// does the 64-fma outer product, so every operand is read by 8 consecutive fmas: the pattern the
// register-file cache's reuse bits serve (Huerta et al. MICRO'25, Table 6, Cutlass sgemm).
// Thread (tx, ty) owns rows ty*4 + {0..3} + {0, 64} and columns tx*4 + {0..3} + {0, 64}.
// The same kernel with 4 x 4 outputs per thread (64 x 64 tile) is sgemm_tiled_r4, for the
// register-blocking experiment of docs/modern-core.md.
// Launch: grid (n/128, n/128) (r4: n/64), block (16, 16); n a multiple of 128 (r4: 64).
// gen-ptx: -arch=sm_86
#define BK 8

template <int R>
__device__ __forceinline__ void sgemm_tiled_body(const float* __restrict__ A,
                                                 const float* __restrict__ B,
                                                 float* __restrict__ C, int n) {
  constexpr int TILE = 16 * R;                     // CTA tile edge
  constexpr int G = R / 4;                         // float4 groups per thread and dimension
  constexpr int V = TILE * BK / 4;                 // float4s per slice of A (and of B)
  constexpr int PER = (V + 255) / 256;             // float4s of each slice per thread
  __shared__ __align__(16) float As[2][BK][TILE]; // As[buf][k][m]
  __shared__ __align__(16) float Bs[2][BK][TILE]; // Bs[buf][k][n]
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * 16 + tx;
  const int row0 = blockIdx.y * TILE, col0 = blockIdx.x * TILE;
  float4 ra[PER], rb[PER];

  // Global -> registers: float4 idx of A's slice is row idx/2, k (idx%2)*4; of B's, k
  // idx/(TILE/4), column (idx%(TILE/4))*4. Threads past V (r4) stage nothing.
  auto load = [&](int k0) {
#pragma unroll
    for (int e = 0; e < PER; ++e) {
      const int idx = tid + e * 256;
      if (idx < V) {
        ra[e] = *reinterpret_cast<const float4*>(&A[(row0 + idx / 2) * n + k0 + (idx % 2) * 4]);
        rb[e] = *reinterpret_cast<const float4*>(
            &B[(k0 + idx / (TILE / 4)) * n + col0 + (idx % (TILE / 4)) * 4]);
      }
    }
  };
  auto store = [&](int buf) {
#pragma unroll
    for (int e = 0; e < PER; ++e) {
      const int idx = tid + e * 256;
      if (idx < V) {
        const int m = idx / 2, k = (idx % 2) * 4;
        As[buf][k + 0][m] = ra[e].x;
        As[buf][k + 1][m] = ra[e].y;
        As[buf][k + 2][m] = ra[e].z;
        As[buf][k + 3][m] = ra[e].w;
        *reinterpret_cast<float4*>(&Bs[buf][idx / (TILE / 4)][(idx % (TILE / 4)) * 4]) = rb[e];
      }
    }
  };

  float acc[R][R];
#pragma unroll
  for (int i = 0; i < R; ++i)
#pragma unroll
    for (int j = 0; j < R; ++j) acc[i][j] = 0.0f;

  load(0);
  store(0);
  __syncthreads();
  const int steps = n / BK;
  for (int t = 0; t < steps; ++t) {
    const int cur = t & 1;
    if (t + 1 < steps) load((t + 1) * BK);
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float a[R], b[R];
#pragma unroll
      for (int g = 0; g < G; ++g) {
        const float4 av = *reinterpret_cast<const float4*>(&As[cur][k][ty * 4 + g * 64]);
        const float4 bv = *reinterpret_cast<const float4*>(&Bs[cur][k][tx * 4 + g * 64]);
        a[g * 4 + 0] = av.x, a[g * 4 + 1] = av.y, a[g * 4 + 2] = av.z, a[g * 4 + 3] = av.w;
        b[g * 4 + 0] = bv.x, b[g * 4 + 1] = bv.y, b[g * 4 + 2] = bv.z, b[g * 4 + 3] = bv.w;
      }
#pragma unroll
      for (int i = 0; i < R; ++i)
#pragma unroll
        for (int j = 0; j < R; ++j) acc[i][j] += a[i] * b[j];
    }
    if (t + 1 < steps) store(cur ^ 1);
    __syncthreads();
  }

#pragma unroll
  for (int i = 0; i < R; ++i)
#pragma unroll
    for (int g = 0; g < G; ++g) {
      const int row = row0 + ty * 4 + (i % 4) + (i / 4) * 64, col = col0 + tx * 4 + g * 64;
      *reinterpret_cast<float4*>(&C[row * n + col]) =
          make_float4(acc[i][g * 4], acc[i][g * 4 + 1], acc[i][g * 4 + 2], acc[i][g * 4 + 3]);
    }
}

// At most 124 registers (ptxas then takes 119, no spill): with 4 predicate registers in the
// banks (tests/platforms/pred-banks.yaml) a CTA still fits fermi's register file, and two
// CTAs fit an Ampere SM, as Cutlass's 128 x 128 tile does.
extern "C" __global__ void __maxnreg__(124) sgemm_tiled(const float* __restrict__ A,
                                                              const float* __restrict__ B,
                                                              float* __restrict__ C, int n) {
  sgemm_tiled_body<8>(A, B, C, n);
}

extern "C" __global__ void __launch_bounds__(256) sgemm_tiled_r4(const float* __restrict__ A,
                                                                 const float* __restrict__ B,
                                                                 float* __restrict__ C, int n) {
  sgemm_tiled_body<4>(A, B, C, n);
}
