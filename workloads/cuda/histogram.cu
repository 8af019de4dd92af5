// histogram: 256-bin histogram of n bytes. Each CTA builds a private histogram in shared memory
// with shared atomicAdd (grid-stride loop over the input), then adds its non-zero bins to the
// global histogram with global atomicAdd. The result is exact and deterministic. Exercises: byte
// loads, shared and global atomics with contention, bar.sync. Launch: any grid, any block size.
#define BINS 256

extern "C" __global__ void histogram(const unsigned char* __restrict__ data,
                                     unsigned* __restrict__ hist, int n) {
  __shared__ unsigned sh[BINS];
  for (int b = threadIdx.x; b < BINS; b += blockDim.x) sh[b] = 0u;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&sh[data[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < BINS; b += blockDim.x)
    if (sh[b] != 0u) atomicAdd(&hist[b], sh[b]);
}
