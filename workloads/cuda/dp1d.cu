// dp1d: pathfinder-style 1D dynamic programming over a grid of integer weights. Starting from the
// costs `src` of the row before `start_row`, computes `height` rows of
//   cost[r][x] = wall[r][x] + min(cost[r-1][x-1], cost[r-1][x], cost[r-1][x+1])
// (neighbours clamped at the grid edges) and writes the last row to `dst`.
// Each CTA of 256 threads owns 256 - 2*height output columns and keeps a halo of `height` columns
// on each side (the "pyramid"): the set of computing threads shrinks by one on each side per row.
// Exercises: shared memory, bar.sync in a loop, heavily divergent edges, integer min/max.
// Launch: grid (ceil(cols / (256 - 2*height))), block (256); height < 128.
#define BS 256

extern "C" __global__ void dp1d(const int* __restrict__ wall, const int* __restrict__ src,
                                int* __restrict__ dst, int cols, int start_row, int height) {
  __shared__ int prev[BS];
  __shared__ int res[BS];
  const int tx = threadIdx.x;
  const int small_w = BS - 2 * height;
  const int blk_x = small_w * (int)blockIdx.x - height; // global column of thread 0
  const int xidx = blk_x + tx;
  const int valid_min = max(0, -blk_x);
  const int valid_max = min(BS - 1, cols - 1 - blk_x);
  const bool in_range = tx >= valid_min && tx <= valid_max;
  if (in_range) prev[tx] = src[xidx];
  __syncthreads();
  bool computed = false;
  for (int i = 0; i < height; ++i) {
    computed = false;
    if (tx >= i + 1 && tx <= BS - i - 2 && in_range) {
      computed = true;
      const int w = max(tx - 1, valid_min);
      const int e = min(tx + 1, valid_max);
      const int best = min(min(prev[w], prev[tx]), prev[e]);
      res[tx] = best + wall[(start_row + i) * cols + xidx];
    }
    __syncthreads();
    if (i == height - 1) break;
    if (computed) prev[tx] = res[tx];
    __syncthreads();
  }
  if (computed) dst[xidx] = res[tx];
}
