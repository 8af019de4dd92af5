// gaussian: one elimination step of Gaussian elimination on an n x n system A x = b with pivot row
// t (no pivoting). For every row i > t:
//   m_i = A[i][t] / A[t][t];  A'[i][j] = A[i][j] - m_i * A[t][j] (j >= t);  b'[i] = b[i] - m_i *
//   b[t]
// Other entries are copied. Results go to separate output arrays, so the step is race-free in one
// launch. Each CTA handles a 32 x 32 tile: the pivot-row segment and the 32 multipliers are
// computed once into shared memory by two different warps (divergent roles), then every thread
// updates 4 rows. CTAs in tile column 0 also write the multipliers and b'. Exercises: div.rn.f32,
// shared memory, warp-role divergence, bar.sync. Launch: grid (ceil(n/32), ceil(n/32)), block (32,
// 8).
#define BX 32
#define BY 8
#define ROWS (BX / BY)

extern "C" __global__ void gaussian(const float* __restrict__ a, const float* __restrict__ b,
                                    float* __restrict__ a_out, float* __restrict__ b_out,
                                    float* __restrict__ mult, int n, int t) {
  __shared__ float pivot_row[BX];
  __shared__ float m[BX];
  const int x0 = blockIdx.x * BX, y0 = blockIdx.y * BX;
  const int tid = threadIdx.y * BX + threadIdx.x;
  if (tid < BX) { // warp 0: the pivot row segment of this tile's columns
    const int col = x0 + tid;
    pivot_row[tid] = col < n ? a[t * n + col] : 0.0f;
  } else if (tid < 2 * BX) { // warp 1: the multipliers of this tile's rows
    const int r = tid - BX;
    const int row = y0 + r;
    float mi = 0.0f;
    if (row > t && row < n) mi = a[row * n + t] / a[t * n + t];
    m[r] = mi;
    if (blockIdx.x == 0 && row < n) {
      mult[row] = mi;
      b_out[row] = row > t ? b[row] - mi * b[t] : b[row];
    }
  }
  __syncthreads();
  const int col = x0 + threadIdx.x;
  if (col >= n) return;
  for (int r = threadIdx.y; r < BX; r += BY) {
    const int row = y0 + r;
    if (row >= n) break;
    float v = a[row * n + col];
    if (row > t && col >= t) v = v - m[r] * pivot_row[threadIdx.x];
    a_out[row * n + col] = v;
  }
}
