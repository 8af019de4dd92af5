// Many launches and many CTAs: a host loop of tiny launches (one warp each, each reading the
// previous launch's result; the count is argument 1, default 1,000), then a grid of small CTAs
// (argument 2, default 100,000 CTAs of 32 threads; then a fifth of them as a 2D grid), one CTA
// per row of a table, each checked.
// Prints the host time per launch and per CTA (gpurf's cost, docs/programs.md).
#include "check.h"
#include <chrono>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void step(unsigned* v, unsigned k) {
  const unsigned x = v[threadIdx.x];
  __syncwarp();
  v[threadIdx.x] = x * 1664525u + 1013904223u + k + v[(threadIdx.x + 1) & 31] % 7;
}

// CTA b sums row b (32 values) with shuffles and writes it, and counts itself.
__global__ void row_sums(const int* table, int* sums, unsigned* ctas, int rows) {
  const int b = blockIdx.x + blockIdx.y * gridDim.x;
  if (b >= rows) return;
  int v = table[b * 32 + threadIdx.x];
  for (int o = 16; o; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  if (threadIdx.x == 0) {
    sums[b] = v;
    atomicAdd(ctas, 1u);
  }
}

int main(int argc, char** argv) {
  const int launches = argc > 1 ? std::atoi(argv[1]) : 1000;
  const int rows = argc > 2 ? std::atoi(argv[2]) : 100000;
  if (launches < 1 || rows < 1) {
    std::printf("usage: many_launches [launches [ctas]] (positive)\n");
    return 2;
  }
  int bad = 0;
  unsigned* dv;
  CHECK(cudaMalloc(&dv, 32 * sizeof(unsigned)));
  unsigned v[32], w[32];
  for (int i = 0; i < 32; ++i) v[i] = i;
  CHECK(cudaMemcpy(dv, v, sizeof v, cudaMemcpyHostToDevice));
  auto t0 = std::chrono::steady_clock::now();
  for (int k = 0; k < launches; ++k) step<<<1, 32>>>(dv, unsigned(k));
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(w, dv, sizeof w, cudaMemcpyDeviceToHost));
  auto t1 = std::chrono::steady_clock::now();
  for (int k = 0; k < launches; ++k) {
    unsigned n[32];
    for (int i = 0; i < 32; ++i) n[i] = v[i] * 1664525u + 1013904223u + k + v[(i + 1) & 31] % 7;
    for (int i = 0; i < 32; ++i) v[i] = n[i];
  }
  for (int i = 0; i < 32; ++i) bad += v[i] != w[i];
  if (bad) std::printf("step chain: %d of 32 values wrong\n", bad);

  // 100,000 CTAs as a 1D grid, then a fifth of the rows as a 2D grid (256 wide).
  int* table = new int[size_t(rows) * 32];
  for (size_t i = 0; i < size_t(rows) * 32; ++i) table[i] = int(i % 1000) - 499;
  int *dt, *ds;
  unsigned* dc;
  CHECK(cudaMalloc(&dt, size_t(rows) * 32 * sizeof(int)));
  CHECK(cudaMalloc(&ds, rows * sizeof(int)));
  CHECK(cudaMalloc(&dc, sizeof(unsigned)));
  CHECK(cudaMemcpy(dt, table, size_t(rows) * 32 * sizeof(int), cudaMemcpyHostToDevice));
  int* sums = new int[rows];
  double cta_seconds = 0;
  long long ctas_run = 0;
  for (int shape = 0; shape < 2; ++shape) {
    const int rows_now = shape == 0 ? rows : (rows + 4) / 5;
    ctas_run += rows_now;
    CHECK(cudaMemset(ds, 0, rows * sizeof(int)));
    CHECK(cudaMemset(dc, 0, sizeof(unsigned)));
    const dim3 grid = shape == 0 ? dim3(rows) : dim3(256, (rows_now + 255) / 256);
    auto c0 = std::chrono::steady_clock::now();
    row_sums<<<grid, 32>>>(dt, ds, dc, rows_now);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    cta_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - c0).count();
    unsigned count = 0;
    CHECK(cudaMemcpy(&count, dc, sizeof count, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(sums, ds, rows * sizeof(int), cudaMemcpyDeviceToHost));
    int wrong = count != unsigned(rows_now);
    for (int b = 0; b < rows_now; ++b) {
      int s = 0;
      for (int t = 0; t < 32; ++t) s += table[size_t(b) * 32 + t];
      if (sums[b] != s && wrong++ < 3)
        std::printf("grid %d row %d: %d, expected %d\n", shape, b, sums[b], s);
    }
    if (wrong) std::printf("grid %d: %u CTAs counted, %d wrong\n", shape, count, wrong);
    bad += wrong;
  }
  // Costs on stderr (they vary from run to run; stdout stays the same).
  std::fprintf(stderr, "many_launches: %d launches %.1f us each; %lld CTAs %.2f us each\n",
               launches, std::chrono::duration<double>(t1 - t0).count() * 1e6 / launches, ctas_run,
               cta_seconds * 1e6 / double(ctas_run));
  return finish(bad);
}
