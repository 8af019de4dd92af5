// The other module of cross_module.cu: a kernel that sums an array it is handed a pointer to
// (here, the other module's __device__ array).
#include <cuda_runtime.h>

#include "check.h"

__global__ void sum(const int* p, int n, unsigned long long* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(out, (unsigned long long)p[i]);
}

long long sum_elsewhere(const int* p, int n) {
  unsigned long long* out = nullptr;
  CHECK(cudaMalloc(&out, sizeof *out));
  CHECK(cudaMemset(out, 0, sizeof *out));
  sum<<<(n + 63) / 64, 64>>>(p, n, out);
  CHECK(cudaDeviceSynchronize());
  unsigned long long s = 0;
  CHECK(cudaMemcpy(&s, out, sizeof s, cudaMemcpyDeviceToHost));
  CHECK(cudaFree(out));
  return (long long)s;
}
