// nw: Needleman-Wunsch global alignment scores of independent sequence pairs (length L = 64,
// alphabet of 4 symbols). CTA p aligns seq_a[p*L ..] with seq_b[p*L ..]: the (L+1) x (L+1) score
// matrix lives in shared memory and is filled one anti-diagonal at a time (127 wavefront steps,
// bar.sync after each); thread i owns row i+1, so the active-thread set grows and then shrinks.
//   H[i][j] = max(H[i-1][j-1] + sub[a_i][b_j], H[i-1][j] - gap, H[i][j-1] - gap)
//   H[0][j] = -j*gap, H[i][0] = -i*gap
// The whole matrix is copied to score[p * (L+1)^2 ..]. max3 is a non-inlined device function
// called under divergence.
// Exercises: wavefront parallelism, divergence, shared memory, calls, byte loads.
// Launch: grid (pairs), block (64).
#define L 64

__device__ __noinline__ int max3(int a, int b, int c) { return max(a, max(b, c)); }

extern "C" __global__ void nw(const unsigned char* __restrict__ seq_a,
                              const unsigned char* __restrict__ seq_b, const int* __restrict__ sub,
                              int* __restrict__ score, int gap) {
  __shared__ int h[L + 1][L + 1];
  __shared__ int ssub[16];
  __shared__ unsigned char sa[L], sb[L];
  const int tid = threadIdx.x;
  sa[tid] = seq_a[blockIdx.x * L + tid] & 3;
  sb[tid] = seq_b[blockIdx.x * L + tid] & 3;
  if (tid < 16) ssub[tid] = sub[tid];
  h[0][tid + 1] = -(tid + 1) * gap;
  h[tid + 1][0] = -(tid + 1) * gap;
  if (tid == 0) h[0][0] = 0;
  __syncthreads();
  const int i = tid + 1;
  for (int diag = 2; diag <= 2 * L; ++diag) {
    const int j = diag - i;
    if (j >= 1 && j <= L) {
      const int m = h[i - 1][j - 1] + ssub[sa[i - 1] * 4 + sb[j - 1]];
      h[i][j] = max3(m, h[i - 1][j] - gap, h[i][j - 1] - gap);
    }
    __syncthreads();
  }
  int* out = score + blockIdx.x * (L + 1) * (L + 1);
  for (int k = tid; k < (L + 1) * (L + 1); k += blockDim.x) out[k] = h[k / (L + 1)][k % (L + 1)];
}
