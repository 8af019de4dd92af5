// A kernel reading a buffer the host freed: gpurf's memory check reports the freed allocation;
// the program gets cudaErrorIllegalAddress.
#include <cuda_runtime.h>
#include "check.h"

__global__ void copy(int* out, const int* in) { out[threadIdx.x] = in[threadIdx.x]; }

int main() {
  int *in, *out;
  CHECK(cudaMalloc(&in, 32 * sizeof(int)));
  CHECK(cudaMalloc(&out, 32 * sizeof(int)));
  CHECK(cudaFree(in));
  copy<<<1, 32>>>(out, in);
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("synchronize: %s\n", cudaGetErrorName(e));
  return finish(e != cudaErrorIllegalAddress);
}
