// Breadth-first search as GPU benchmark suites write it: a level-synchronous BFS over a CSR
// graph built on the host. Each level is two kernels: `expand` visits the frontier's edges and
// marks undiscovered vertices for the next level, `advance` makes the marks the new frontier
// and raises a device flag when there is one; the host loops while the flag is set. The
// levels are checked against a BFS on the host.
#include <cstdint>
#include <cuda_runtime.h>
#include <vector>
#include "check.h"

__global__ void expand(const int* row, const int* col, const int* frontier, int* next, int* level,
                       int n, int depth) {
  const int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n || !frontier[v]) return;
  for (int e = row[v]; e < row[v + 1]; ++e) {
    const int u = col[e];
    if (level[u] < 0) { // threads that find u in the same level all write the same depth
      level[u] = depth + 1;
      next[u] = 1;
    }
  }
}

__global__ void advance(int* frontier, int* next, int n, int* changed) {
  const int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= n) return;
  const int f = next[v];
  frontier[v] = f;
  if (f) {
    next[v] = 0;
    *changed = 1;
  }
}

int main() {
  const int n = 1500, src = 0;
  // 1 to 6 out-edges per vertex, to pseudo-random vertices (a fixed LCG): a few vertices are
  // unreachable, the depth is about 8.
  std::vector<int> row(n + 1), col;
  uint32_t s = 12345;
  auto next_rand = [&] { return (s = s * 1664525u + 1013904223u) >> 8; };
  for (int v = 0; v < n; ++v) {
    row[v] = int(col.size());
    const int degree = 1 + int(next_rand() % 6);
    for (int k = 0; k < degree; ++k) col.push_back(int(next_rand() % n));
  }
  row[n] = int(col.size());
  const int m = int(col.size());
  std::vector<int> level(n, -1), frontier(n, 0);
  level[src] = 0;
  frontier[src] = 1;

  int *d_row, *d_col, *d_frontier, *d_next, *d_level, *d_changed;
  CHECK(cudaMalloc(&d_row, (n + 1) * sizeof(int)));
  CHECK(cudaMalloc(&d_col, m * sizeof(int)));
  CHECK(cudaMalloc(&d_frontier, n * sizeof(int)));
  CHECK(cudaMalloc(&d_next, n * sizeof(int)));
  CHECK(cudaMalloc(&d_level, n * sizeof(int)));
  CHECK(cudaMalloc(&d_changed, sizeof(int)));
  CHECK(cudaMemcpy(d_row, row.data(), (n + 1) * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_col, col.data(), m * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_frontier, frontier.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_next, 0, n * sizeof(int)));
  CHECK(cudaMemcpy(d_level, level.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  const int threads = 256, blocks = (n + threads - 1) / threads;
  int depth = 0, changed = 0;
  do {
    CHECK(cudaMemset(d_changed, 0, sizeof(int)));
    expand<<<blocks, threads>>>(d_row, d_col, d_frontier, d_next, d_level, n, depth);
    advance<<<blocks, threads>>>(d_frontier, d_next, n, d_changed);
    CHECK(cudaMemcpy(&changed, d_changed, sizeof(int), cudaMemcpyDeviceToHost));
    ++depth;
  } while (changed && depth < n);
  CHECK(cudaMemcpy(level.data(), d_level, n * sizeof(int), cudaMemcpyDeviceToHost));

  std::vector<int> want(n, -1), queue{src};
  want[src] = 0;
  for (size_t q = 0; q < queue.size(); ++q)
    for (int e = row[queue[q]]; e < row[queue[q] + 1]; ++e)
      if (want[col[e]] < 0) {
        want[col[e]] = want[queue[q]] + 1;
        queue.push_back(col[e]);
      }
  int bad = 0, deepest = 0;
  for (int v = 0; v < n; ++v) {
    deepest = want[v] > deepest ? want[v] : deepest;
    if (level[v] != want[v] && bad++ < 5)
      std::printf("level[%d] = %d, expected %d\n", v, level[v], want[v]);
  }
  // One pass per level and a last one that finds nothing.
  if (depth != deepest + 1) {
    std::printf("%d passes for depth %d\n", depth, deepest);
    ++bad;
  }
  std::printf("%d vertices, %d edges, %zu reached, depth %d\n", n, m, queue.size(), deepest);
  return finish(bad);
}
