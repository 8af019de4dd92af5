// A program calling one of CUDA's precompiled libraries (cuRAND's host API, in libcurand.so):
// such a library carries a runtime of its own that needs CUDA's private driver interface, which
// gpurf does not have, so its generator cannot be created. gpurf names the library and why
// (tests/cli/programs.sh); before, the program saw CURAND_STATUS_INITIALIZATION_FAILED alone.
// The program's own kernel still runs.
#include "check.h"

#include <curand.h>

__global__ void fill(float* v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = 0.5f * i;
}

int main() {
  float* d;
  CHECK(cudaMalloc(&d, 256 * sizeof(float)));
  curandGenerator_t g;
  curandStatus_t s = curandCreateGenerator(&g, CURAND_RNG_PSEUDO_PHILOX4_32_10);
  std::printf("curandCreateGenerator: status %d\n", (int)s);
  if (s == CURAND_STATUS_SUCCESS) curandDestroyGenerator(g);
  fill<<<1, 256>>>(d, 256);
  CHECK(cudaGetLastError());
  float h[256];
  CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < 256; ++i) bad += h[i] != 0.5f * i;
  return finish(bad);
}
