// scan: block-level exclusive prefix sum (Blelloch work-efficient up-sweep / down-sweep) of
// unsigned integers. Each CTA of 256 threads scans its own segment of 512 elements in shared
// memory, writes the exclusive scan of the segment to `out` and the segment total to
// block_sums[blockIdx.x] (the input of a second-level scan).
// Exercises: shared memory with strided (bank-conflicting) accesses, 18 bar.sync, a halving /
// doubling active-thread set (divergence).
// Launch: grid (ceil(n/512)), block (256).
#define BS 256
#define ELEMS (2 * BS)

extern "C" __global__ void scan(const unsigned* __restrict__ in, unsigned* __restrict__ out,
                                unsigned* __restrict__ block_sums, int n) {
  __shared__ unsigned s[ELEMS];
  const int tid = threadIdx.x;
  const int base = blockIdx.x * ELEMS;
  const int a = base + tid, b = base + tid + BS;
  s[tid] = a < n ? in[a] : 0u;
  s[tid + BS] = b < n ? in[b] : 0u;
  int offset = 1;
  for (int d = ELEMS >> 1; d > 0; d >>= 1) { // up-sweep
    __syncthreads();
    if (tid < d) {
      const int ai = offset * (2 * tid + 1) - 1;
      const int bi = offset * (2 * tid + 2) - 1;
      s[bi] += s[ai];
    }
    offset <<= 1;
  }
  __syncthreads();
  if (tid == 0) {
    block_sums[blockIdx.x] = s[ELEMS - 1];
    s[ELEMS - 1] = 0u;
  }
  for (int d = 1; d < ELEMS; d <<= 1) { // down-sweep
    offset >>= 1;
    __syncthreads();
    if (tid < d) {
      const int ai = offset * (2 * tid + 1) - 1;
      const int bi = offset * (2 * tid + 2) - 1;
      const unsigned t = s[ai];
      s[ai] = s[bi];
      s[bi] += t;
    }
  }
  __syncthreads();
  if (a < n) out[a] = s[tid];
  if (b < n) out[b] = s[tid + BS];
}
