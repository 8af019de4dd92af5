// reduce: sum of n floats. Each CTA of 256 threads accumulates a grid-stride slice per thread,
// reduces in shared memory down to 64 values (bar.sync per level), then finishes in warp 0 with a
// warp-shuffle tail (shfl.sync.down). Thread 0 stores the CTA's partial sum and atomically adds it
// to *total (float atomics: the total's rounding depends on the CTA order).
// Launch: any grid, block (256).
#define BS 256

extern "C" __global__ void reduce(const float* __restrict__ in, float* __restrict__ partial,
                                  float* __restrict__ total, int n) {
  __shared__ float s[BS];
  const unsigned tid = threadIdx.x;
  float v = 0.0f;
  for (int i = blockIdx.x * BS + tid; i < n; i += gridDim.x * BS) v += in[i];
  s[tid] = v;
  __syncthreads();
  for (unsigned stride = BS / 2; stride > 32; stride >>= 1) {
    if (tid < stride) s[tid] += s[tid + stride];
    __syncthreads();
  }
  if (tid < 32) {
    v = s[tid] + s[tid + 32];
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    if (tid == 0) {
      partial[blockIdx.x] = v;
      atomicAdd(total, v);
    }
  }
}
