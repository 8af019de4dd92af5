// bitonic: sorts each segment of 512 unsigned keys in place (ascending) with a bitonic sorting
// network in shared memory. Each of the 256 threads owns one compare-exchange pair per stage
// (45 stages, each followed by bar.sync). A partial last segment is padded with 0xffffffff.
// Exercises: shared memory, data-dependent divergent swaps, many barriers.
// Launch: grid (ceil(n/512)), block (256).
#define BS 256
#define SEG (2 * BS)

extern "C" __global__ void bitonic(unsigned* keys, int n) {
  __shared__ unsigned s[SEG];
  const unsigned tid = threadIdx.x;
  const int base = blockIdx.x * SEG;
  s[tid] = base + (int)tid < n ? keys[base + tid] : 0xffffffffu;
  s[tid + BS] = base + (int)tid + BS < n ? keys[base + tid + BS] : 0xffffffffu;
  __syncthreads();
  for (unsigned k = 2; k <= SEG; k <<= 1) {
    for (unsigned j = k >> 1; j > 0; j >>= 1) {
      const unsigned i = ((tid & ~(j - 1)) << 1) | (tid & (j - 1)); // i has bit j clear
      const unsigned p = i + j;
      const bool up = (i & k) == 0;
      const unsigned a = s[i], b = s[p];
      if ((a > b) == up) {
        s[i] = b;
        s[p] = a;
      }
      __syncthreads();
    }
  }
  if (base + (int)tid < n) keys[base + tid] = s[tid];
  if (base + (int)tid + BS < n) keys[base + tid + BS] = s[tid + BS];
}
