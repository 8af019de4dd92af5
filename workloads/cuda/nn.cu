// nn: nearest-neighbour search in 2D. For each of nq query points, the nearest of nr reference
// points (squared Euclidean distance, first index wins ties); writes the distance (sqrt.rn.f32) and
// the index, and folds the largest nearest-neighbour distance into *max_dist_bits with atomicMax on
// the float's bit pattern (non-negative floats order like their bits). Reference points are
// tiled through shared memory 128 at a time.
// Exercises: shared memory, a long compare/select loop with data-dependent (divergent) updates,
// atomicMax.
// Launch: grid (ceil(nq/128)), block (128).
#define BS 128

extern "C" __global__ void nn(const float* __restrict__ qx, const float* __restrict__ qy,
                              const float* __restrict__ rx, const float* __restrict__ ry,
                              float* __restrict__ dist, int* __restrict__ index,
                              unsigned* __restrict__ max_dist_bits, int nq, int nr) {
  __shared__ float sx[BS], sy[BS];
  const int q = blockIdx.x * BS + threadIdx.x;
  const float x = q < nq ? qx[q] : 0.0f;
  const float y = q < nq ? qy[q] : 0.0f;
  float best = 3.402823466e38f;
  int best_i = -1;
  for (int base = 0; base < nr; base += BS) {
    const int j = base + threadIdx.x;
    sx[threadIdx.x] = j < nr ? rx[j] : 0.0f;
    sy[threadIdx.x] = j < nr ? ry[j] : 0.0f;
    __syncthreads();
    const int cnt = min(BS, nr - base);
    for (int t = 0; t < cnt; ++t) {
      const float dx = sx[t] - x, dy = sy[t] - y;
      const float d = dx * dx + dy * dy;
      if (d < best) {
        best = d;
        best_i = base + t;
      }
    }
    __syncthreads();
  }
  if (q < nq) {
    const float d = sqrtf(best);
    dist[q] = d;
    index[q] = best_i;
    atomicMax(max_dist_bits, __float_as_uint(d));
  }
}
