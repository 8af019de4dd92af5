// daxpy_dot: double precision y = a * x + y (in place) fused with the per-CTA partial dot product
// sum x[i] * y_new[i]. Each thread accumulates a grid-stride slice (fma.rn.f64), warps reduce with
// 64-bit shuffles (two 32-bit shfl.sync each), the 8 warp sums go through shared memory and warp 0
// reduces them; partial[blockIdx.x] receives the CTA's sum (no f64 atomics: the result is
// deterministic).
// Exercises: f64 arithmetic on register pairs (DP pipe), 64-bit loads/stores, f64 shuffles.
// Launch: any grid, block (256).
#define BS 256
#define WARPS (BS / 32)

extern "C" __global__ void daxpy_dot(const double* __restrict__ x, double* __restrict__ y,
                                     double* __restrict__ partial, int n, double a) {
  __shared__ double s[WARPS];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  double acc = 0.0;
  for (int i = blockIdx.x * BS + threadIdx.x; i < n; i += gridDim.x * BS) {
    const double xi = x[i];
    const double yi = a * xi + y[i];
    y[i] = yi;
    acc += xi * yi;
  }
  for (int off = 16; off > 0; off >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, off);
  if (lane == 0) s[warp] = acc;
  __syncthreads();
  if (warp == 0) {
    acc = lane < WARPS ? s[lane] : 0.0;
    for (int off = WARPS / 2; off > 0; off >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, off);
    if (lane == 0) partial[blockIdx.x] = acc;
  }
}
