// A 256-bin byte histogram two ways, as histogram benchmarks compare them: `hist_global`
// adds every byte to the global bins with atomicAdd; `hist_shared` counts in a per-block
// shared copy (shared-memory atomics), then adds the block's nonzero bins to the global ones.
// The input is skewed (a third of the bytes fall in 8 bins) so that the atomics contend.
// Both results are checked against the host's count.
#include <cstdint>
#include <cuda_runtime.h>
#include <vector>
#include "check.h"

__global__ void hist_global(unsigned* bins, const unsigned char* data, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&bins[data[i]], 1u);
}

__global__ void hist_shared(unsigned* bins, const unsigned char* data, int n) {
  __shared__ unsigned local[256];
  for (int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += blockDim.x)
    if (local[b]) atomicAdd(&bins[b], local[b]);
}

int main() {
  const int n = 20000;
  std::vector<unsigned char> data(n);
  uint32_t s = 99;
  for (int i = 0; i < n; ++i) {
    s = s * 1103515245u + 12345u;
    const unsigned r = s >> 16;
    data[i] = (unsigned char)(r % 3 == 0 ? 100 + r % 8 : r % 256);
  }
  unsigned want[256] = {0}, got_global[256], got_shared[256];
  for (int i = 0; i < n; ++i) ++want[data[i]];

  unsigned char* d_data;
  unsigned *d_global, *d_shared;
  CHECK(cudaMalloc(&d_data, n));
  CHECK(cudaMalloc(&d_global, 256 * sizeof(unsigned)));
  CHECK(cudaMalloc(&d_shared, 256 * sizeof(unsigned)));
  CHECK(cudaMemcpy(d_data, data.data(), n, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_global, 0, 256 * sizeof(unsigned)));
  CHECK(cudaMemset(d_shared, 0, 256 * sizeof(unsigned)));
  hist_global<<<8, 256>>>(d_global, d_data, n);
  hist_shared<<<6, 192>>>(d_shared, d_data, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(got_global, d_global, sizeof got_global, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(got_shared, d_shared, sizeof got_shared, cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int b = 0; b < 256; ++b) {
    if (got_global[b] != want[b] && bad++ < 5)
      std::printf("global bin %d = %u, expected %u\n", b, got_global[b], want[b]);
    if (got_shared[b] != want[b] && bad++ < 5)
      std::printf("shared bin %d = %u, expected %u\n", b, got_shared[b], want[b]);
  }
  return finish(bad);
}
