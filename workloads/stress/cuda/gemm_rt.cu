// gemm_rt: C = alpha * A * B + beta * C (row-major f32, M x K times K x N) with register tiling:
// a CTA of 16 x 16 threads computes a 128 x 128 tile of C, each thread an 8 x 8 block of it held
// in 64 accumulator registers. Per step of BK = 8 along k the CTA stages a 128 x 8 slice of A
// (transposed, so a thread's 8 rows are contiguous) and an 8 x 128 slice of B in shared memory;
// each thread then reads 8 values of A and 8 of B per k into registers and does the 64-fma outer
// product, so every loaded value is reused 8 times from a register. Thread (tx, ty) owns rows
// ty + 16 * i and columns tx + 16 * j (i, j = 0..7): the shared reads of a warp hit distinct banks
// or broadcast.
// Exercises: register reuse (outer products), ~100 live registers per thread, shared-memory
// staging with bar.sync, long unrolled fma blocks.
// Launch: grid (N/128, M/128), block (16, 16); M, N multiples of 128, K a multiple of 8.
#define TM 8
#define TN 8
#define BK 8
#define TILE 128

extern "C" __global__ void gemm_rt(const float* __restrict__ A, const float* __restrict__ B,
                                   float* __restrict__ C, int M, int N, int K, float alpha,
                                   float beta) {
  __shared__ float As[BK][TILE]; // As[k][m]: A's slice, transposed
  __shared__ float Bs[BK][TILE]; // Bs[k][n]
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * 16 + tx;
  const int row0 = blockIdx.y * TILE, col0 = blockIdx.x * TILE;
  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

  for (int k0 = 0; k0 < K; k0 += BK) {
    // 256 threads stage 128 x 8 of A and 8 x 128 of B: 4 elements of each per thread.
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int idx = tid + e * 256;
      const int am = idx / BK, ak = idx % BK; // A: consecutive threads read along k
      As[ak][am] = A[(long)(row0 + am) * K + k0 + ak];
      const int bk = idx / TILE, bn = idx % TILE; // B: consecutive threads read along n
      Bs[bk][bn] = B[(long)(k0 + bk) * N + col0 + bn];
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float a[TM], b[TN];
#pragma unroll
      for (int i = 0; i < TM; ++i) a[i] = As[k][ty + 16 * i];
#pragma unroll
      for (int j = 0; j < TN; ++j) b[j] = Bs[k][tx + 16 * j];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      float* c = C + (long)(row0 + ty + 16 * i) * N + col0 + tx + 16 * j;
      *c = alpha * acc[i][j] + beta * *c;
    }
}
