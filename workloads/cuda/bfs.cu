// bfs: one level of a breadth-first search over a directed graph in CSR form. Every vertex v with
// level[v] == cur visits its out-neighbours; an unvisited neighbour (level -1) is claimed with
// atomicCAS and gets level cur + 1. The number of newly discovered vertices is summed per warp with
// shuffles and added to *discovered with one atomicAdd per warp. The result is deterministic.
// Exercises: irregular, data-dependent loop trip counts (vertex degrees 1..32), heavy divergence,
// scattered global loads, atomicCAS / atomicAdd, vote.ballot.sync for a warp-uniform early exit.
// Launch: grid (ceil(n/256)), block (256) (any multiple of 32 works).

extern "C" __global__ void bfs(const unsigned* __restrict__ row_ptr,
                               const unsigned* __restrict__ cols, int* level, unsigned* discovered,
                               int n, int cur) {
  const int v = blockIdx.x * blockDim.x + threadIdx.x;
  const bool frontier = v < n && level[v] == cur;
  // Whole warps without a frontier vertex leave at once (warp-uniform branch).
  if (__ballot_sync(0xffffffffu, frontier) == 0u) return;
  unsigned found = 0;
  if (frontier) {
    const unsigned end = row_ptr[v + 1];
    for (unsigned e = row_ptr[v]; e < end; ++e) {
      const int u = (int)cols[e];
      if (level[u] == -1 && atomicCAS(&level[u], -1, cur + 1) == -1) ++found;
    }
  }
  for (int off = 16; off > 0; off >>= 1) found += __shfl_down_sync(0xffffffffu, found, off);
  if ((threadIdx.x & 31) == 0 && found != 0u) atomicAdd(discovered, found);
}
