// Managed memory the host and the kernels share without copies: a __managed__ variable and a
// cudaMallocManaged array, updated by the host between launches (a host loop on a device
// flag, as BFS-style programs do).
#include <cuda_runtime.h>
#include "check.h"

__managed__ int changed;
__managed__ int rounds = 100;

__global__ void relax(int* dist, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i == 0) ++rounds;
  if (i > 0 && i < n && dist[i - 1] + 1 < dist[i]) {
    dist[i] = dist[i - 1] + 1;
    changed = 1;
  }
}

int main() {
  const int n = 40;
  int* dist;
  CHECK(cudaMallocManaged(&dist, n * sizeof(int)));
  for (int i = 0; i < n; ++i) dist[i] = i == 0 ? 0 : 1000;
  int launches = 0;
  do {
    changed = 0;
    relax<<<1, 64>>>(dist, n);
    CHECK(cudaDeviceSynchronize());
    ++launches;
  } while (changed && launches < 100);
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += dist[i] != i;
  std::printf("%d launches, rounds %d\n", launches, rounds);
  bad += launches < 2 || launches > n || rounds != 100 + launches;
  return finish(bad);
}
