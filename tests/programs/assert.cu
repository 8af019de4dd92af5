// A device assert that fires: the launch's error is cudaErrorAssert, sticky for later calls.
#include <cassert>
#include <cuda_runtime.h>
#include "check.h"

__global__ void check_positive(const int* v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) assert(v[i] > 0);
}

int main() {
  const int n = 64;
  int h[n];
  for (int i = 0; i < n; ++i) h[i] = i == 37 ? -5 : i + 1;
  int* d;
  CHECK(cudaMalloc(&d, sizeof h));
  CHECK(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice));
  check_positive<<<2, 32>>>(d, n);
  const cudaError_t e = cudaDeviceSynchronize();
  const cudaError_t again = cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  std::printf("synchronize: %s, then memcpy: %s\n", cudaGetErrorName(e), cudaGetErrorName(again));
  return finish(e != cudaErrorAssert || again != cudaErrorAssert);
}
