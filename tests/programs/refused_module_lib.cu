// The loadable module of refused_module.cu.
#include <cuda_runtime.h>

#include <vector>

#include "check.h"

__global__ void square(int* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = i * i;
}

int squares_right(int n) {
  int* d = nullptr;
  CHECK(cudaMalloc(&d, n * sizeof(int)));
  square<<<(n + 63) / 64, 64>>>(d, n);
  CHECK(cudaGetLastError());
  std::vector<int> h(n);
  CHECK(cudaMemcpy(h.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d));
  int right = 0;
  for (int i = 0; i < n; ++i) right += h[i] == i * i;
  return right;
}
