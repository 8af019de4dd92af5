// Global sequence alignment (Needleman-Wunsch) over a (N+1)x(N+1) score matrix in 16x16 tiles:
// the tiles of one anti-diagonal are independent, so one launch computes one anti-diagonal of
// tiles, growing from the corner (upper_half) then shrinking (lower_half). Within a tile 16
// threads sweep its 31 inner anti-diagonals through shared memory. Checked against the host.
#include "alignment.h"
#include "check.h"
#include <cuda_runtime.h>

// Tile (tile_row, tile_col) of the matrix: rows 1 + 16 tile_row .. and columns likewise.
__device__ void tile(int* score, const int* seq_a, const int* seq_b, int n, int tile_row,
                     int tile_col) {
  __shared__ int s[TILE + 1][TILE + 1];
  __shared__ int ca[TILE], cb[TILE];
  const int tx = threadIdx.x, width = n + 1;
  const int r0 = tile_row * TILE, c0 = tile_col * TILE; // the halo row and column
  s[0][tx + 1] = score[r0 * width + c0 + tx + 1];
  s[tx + 1][0] = score[(r0 + tx + 1) * width + c0];
  if (tx == 0) s[0][0] = score[r0 * width + c0];
  ca[tx] = seq_a[r0 + tx];
  cb[tx] = seq_b[c0 + tx];
  __syncthreads();
  for (int d = 0; d < 2 * TILE - 1; ++d) {
    int r = tx + 1, c = d - tx + 1; // the thread's cell on inner anti-diagonal d
    if (c >= 1 && c <= TILE)
      s[r][c] = cell_score(s[r - 1][c - 1], s[r - 1][c], s[r][c - 1], ca[r - 1], cb[c - 1]);
    __syncthreads();
  }
  for (int r = 1; r <= TILE; ++r) score[(r0 + r) * width + c0 + tx + 1] = s[r][tx + 1];
}

// Anti-diagonal `diag` (0-based) of the upper-left triangle of tiles: diag + 1 tiles.
__global__ void upper_half(int* score, const int* seq_a, const int* seq_b, int n, int diag) {
  tile(score, seq_a, seq_b, n, diag - blockIdx.x, blockIdx.x);
}

// Anti-diagonal `diag` of the lower-right triangle, counted from the longest one below the
// main anti-diagonal: tiles - 1 - diag tiles.
__global__ void lower_half(int* score, const int* seq_a, const int* seq_b, int n, int diag) {
  const int tiles = n / TILE;
  tile(score, seq_a, seq_b, n, tiles - 1 - blockIdx.x, diag + 1 + blockIdx.x);
}

int main() {
  const int n = 512, width = n + 1, tiles = n / TILE;
  int table[ALPHABET * ALPHABET];
  for (int i = 0; i < ALPHABET; ++i)
    for (int j = 0; j < ALPHABET; ++j)
      table[i * ALPHABET + j] = i == j ? 5 + i % 4 : -((i * 7 + j * 3) % 6);
  int *a = new int[n], *b = new int[n], *m = new int[width * width];
  unsigned s = 99;
  for (int i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    a[i] = (s >> 9) % ALPHABET;
  }
  for (int i = 0; i < n; ++i) { // a related sequence: a shifted, with substitutions
    s = s * 1664525u + 1013904223u;
    b[i] = (i % 7 == 3) ? (s >> 17) % ALPHABET : a[(i + 5) % n];
  }
  for (int i = 0; i < width * width; ++i) m[i] = 0;
  for (int i = 0; i < width; ++i) m[i * width] = m[i] = -GAP * i;
  CHECK(cudaMemcpyToSymbol(substitution, table, sizeof table));
  int *dm, *da, *db;
  CHECK(cudaMalloc(&dm, sizeof(int) * width * width));
  CHECK(cudaMalloc(&da, sizeof(int) * n));
  CHECK(cudaMalloc(&db, sizeof(int) * n));
  CHECK(cudaMemcpy(dm, m, sizeof(int) * width * width, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(da, a, sizeof(int) * n, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b, sizeof(int) * n, cudaMemcpyHostToDevice));
  for (int d = 0; d < tiles; ++d) upper_half<<<d + 1, TILE>>>(dm, da, db, n, d);
  for (int d = 0; d < tiles - 1; ++d) lower_half<<<tiles - 1 - d, TILE>>>(dm, da, db, n, d);
  CHECK(cudaGetLastError());
  int* got = new int[width * width];
  CHECK(cudaMemcpy(got, dm, sizeof(int) * width * width, cudaMemcpyDeviceToHost));
  for (int i = 1; i < width; ++i)
    for (int j = 1; j < width; ++j) {
      int v = m[(i - 1) * width + j - 1] + table[a[i - 1] * ALPHABET + b[j - 1]];
      v = v > m[(i - 1) * width + j] - GAP ? v : m[(i - 1) * width + j] - GAP;
      v = v > m[i * width + j - 1] - GAP ? v : m[i * width + j - 1] - GAP;
      m[i * width + j] = v;
    }
  int bad = 0;
  for (int i = 0; i < width * width; ++i)
    if (got[i] != m[i] && bad++ < 5)
      std::printf("score[%d][%d] = %d, expected %d\n", i / width, i % width, got[i], m[i]);
  std::printf("alignment score %d\n", got[width * width - 1]);
  return finish(bad);
}
