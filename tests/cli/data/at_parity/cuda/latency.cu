// Latency-bound, low-occupancy kernels: the AT memory port must give the direct port's cycles
// on them (tests/cli/at_parity.sh, docs/vp.md "AT"). Each leaves the SM idle while one or two
// requests are out, the case the suite's busy kernels hide.
// PTX: nvcc -arch=sm_75 -ptx -O3 latency.cu -o ../ptx/latency.ptx

// One warp chasing a chain of dependent global loads: buf holds iota (buf[i] = i), so each
// load's value plus `stride` is the next index; stride >= 32 ints puts every load in a new
// line (a miss to the memory), a small stride keeps it in the L1. out[lane] = lane + steps *
// stride.
extern "C" __global__ void chase(const int* buf, int* out, int steps, int stride) {
  int p = threadIdx.x;
  for (int i = 0; i < steps; ++i) p = buf[p] + stride;
  out[threadIdx.x] = p;
}

// A Needleman-Wunsch-like wavefront over a row of tiles, one CTA per row (few CTAs), 16
// threads: each tile's 16 x 16 scores are computed anti-diagonal by anti-diagonal in shared
// memory, a bar.sync after each of the 31 diagonals; the tile's left column comes from the
// previous tile through global memory (stored, bar.sync, loaded back), its top row and the
// reference values from global memory with a row stride of `dim` ints.
#define T 16
extern "C" __global__ void wavefront(const int* ref, int* score, int dim, int tiles, int gap) {
  __shared__ int s[T + 1][T + 1];
  __shared__ int r[T][T];
  const int tx = threadIdx.x;
  const int row0 = blockIdx.x * T; // this CTA's rows of the matrix (dim + 1 columns wide)
  for (int t = 0; t < tiles; ++t) {
    const int col0 = t * T;
    for (int i = 0; i < T; ++i) r[i][tx] = ref[(row0 + i) * dim + col0 + tx];
    s[0][tx + 1] = score[row0 * (dim + 1) + col0 + tx + 1];           // top row
    s[tx + 1][0] = score[(row0 + tx + 1) * (dim + 1) + col0];         // left column
    if (tx == 0) s[0][0] = score[row0 * (dim + 1) + col0];
    __syncthreads();
    for (int d = 0; d < 2 * T - 1; ++d) {
      const int i = tx + 1, j = d - tx + 1;
      if (j >= 1 && j <= T) {
        const int m = s[i - 1][j - 1] + r[i - 1][j - 1];
        const int a = max(s[i - 1][j] - gap, s[i][j - 1] - gap);
        s[i][j] = max(m, a);
      }
      __syncthreads();
    }
    for (int i = 0; i < T; ++i) score[(row0 + i + 1) * (dim + 1) + col0 + tx + 1] = s[i + 1][tx + 1];
    __syncthreads();
  }
}

// An LU-decomposition diagonal block (the first kernel of a blocked LU): one CTA of 16
// threads loads a 16 x 16 block of a row-major matrix with row stride `dim`, eliminates it in
// shared memory (two bar.syncs per step) and stores it back.
extern "C" __global__ void lu_diag(float* m, int dim, int offset) {
  __shared__ float a[T][T];
  const int tx = threadIdx.x;
  float* blk = m + offset * dim + offset;
  for (int i = 0; i < T; ++i) a[i][tx] = blk[i * dim + tx];
  __syncthreads();
  for (int i = 0; i < T - 1; ++i) {
    if (tx > i) {
      for (int j = 0; j < i; ++j) a[tx][i] -= a[tx][j] * a[j][i];
      a[tx][i] /= a[i][i];
    }
    __syncthreads();
    if (tx > i) {
      for (int j = 0; j < i + 1; ++j) a[i + 1][tx] -= a[i + 1][j] * a[j][tx];
    }
    __syncthreads();
  }
  for (int i = 1; i < T; ++i) blk[i * dim + tx] = a[i][tx];
}
