// sgemm_async: C = A * B for n x n row-major single-precision matrices, the tiles of A and B
// brought into shared memory with asynchronous copies (cp.async, sm_80) and double-buffered:
// the copies of tile t + 1 are in flight while tile t is multiplied.
// Each thread copies one element of each tile (cp.async.ca, 4 bytes); an element past the
// matrix's edge is zero-filled (src-size 0). cp.async.commit_group after each tile's copies,
// cp.async.wait_group 1 (the previous tile landed) before bar.sync and the inner loop.
// Launch: grid (ceil(n/16), ceil(n/16)), block (16, 16); any n.
// gen-ptx: -arch=sm_80
#include <cuda_pipeline.h>

#define TILE 16

extern "C" __global__ void sgemm_async(const float* __restrict__ A, const float* __restrict__ B,
                                       float* __restrict__ C, int n) {
  __shared__ float As[2][TILE][TILE];
  __shared__ float Bs[2][TILE][TILE];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE + ty;
  const int col = blockIdx.x * TILE + tx;
  // Starts the copies of tile `t` into buffer `b`; out-of-range elements read nothing and are
  // zero-filled.
  auto load = [&](int t, int b) {
    const bool a_in = row < n && t + tx < n, b_in = t + ty < n && col < n;
    __pipeline_memcpy_async(&As[b][ty][tx], a_in ? &A[row * n + t + tx] : A, 4, a_in ? 0 : 4);
    __pipeline_memcpy_async(&Bs[b][ty][tx], b_in ? &B[(t + ty) * n + col] : B, 4, b_in ? 0 : 4);
    __pipeline_commit();
  };
  float acc = 0.0f;
  load(0, 0);
  int b = 0;
  for (int t = 0; t < n; t += TILE, b ^= 1) {
    if (t + TILE < n)
      load(t + TILE, b ^ 1);
    else
      __pipeline_commit(); // an empty group keeps "all but the newest" meaning this tile's
    __pipeline_wait_prior(1);
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; ++k) acc += As[b][ty][k] * Bs[b][k][tx];
    __syncthreads();
  }
  if (row < n && col < n) C[row * n + col] = acc;
}
