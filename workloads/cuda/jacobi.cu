// jacobi: the two kernels of a Jacobi relaxation program (workloads/apps/jacobi.yaml), whose
// host loop runs `jacobi_step` a few times between buffers it swaps, then `jacobi_residual`
// and the suite's `reduce` (workloads/cuda/reduce.cu) to sum the change of the last step, and
// stops once it is small.
//
// jacobi_step: one sweep of the 5-point Jacobi iteration for Laplace's equation on an nx x ny
// grid with fixed (Dirichlet) borders: an interior cell becomes the mean of its four
// neighbours, 0.25f * ((W + E) + (N + S)) in that order (no fma: the reference replays it bit
// for bit); a border cell is copied. Launch: grid (ceil(nx/32), ceil(ny/8)), block (32, 8).
//
// jacobi_residual: per-CTA sums of |a[i] - b[i]| over a grid-stride slice per thread, reduced in
// shared memory by a tree of halving strides (bar.sync per level), times `scale`, stored in
// partial[blockIdx.x]. Every order is fixed: no atomics. Launch: any grid, block (256).
#define BX 32
#define BY 8
#define BS 256

extern "C" __global__ void jacobi_step(const float* __restrict__ in, float* __restrict__ out,
                                       int nx, int ny) {
  const int x = blockIdx.x * BX + threadIdx.x, y = blockIdx.y * BY + threadIdx.y;
  if (x >= nx || y >= ny) return;
  const int i = y * nx + x;
  if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
    out[i] = in[i];
    return;
  }
  const float w = in[i - 1], e = in[i + 1], n = in[i - nx], s = in[i + nx];
  out[i] = 0.25f * ((w + e) + (n + s));
}

extern "C" __global__ void jacobi_residual(const float* __restrict__ a,
                                           const float* __restrict__ b,
                                           float* __restrict__ partial, int n, float scale) {
  __shared__ float s[BS];
  const unsigned tid = threadIdx.x;
  float v = 0.0f;
  for (int i = blockIdx.x * BS + tid; i < n; i += gridDim.x * BS) v += fabsf(a[i] - b[i]);
  s[tid] = v;
  __syncthreads();
  for (unsigned stride = BS / 2; stride > 0; stride >>= 1) {
    if (tid < stride) s[tid] += s[tid + stride];
    __syncthreads();
  }
  if (tid == 0) partial[blockIdx.x] = s[0] * scale;
}
