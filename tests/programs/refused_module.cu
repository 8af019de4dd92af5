// A program whose main translation unit holds only a kernel gpurf cannot load (a cubemap
// texture fetch): the program still starts, the other module's kernel runs and verifies, and the
// launch of the refused kernel fails with cudaErrorInvalidDeviceFunction, naming why.
#include <cuda_runtime.h>

#include "check.h"

__global__ void sample_cubemap(cudaTextureObject_t t, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = texCubemap<float>(t, 1.0f, 0.5f * float(i), 0.25f);
}

// refused_module_lib.cu: squares 0..n-1 on the device, returns how many are right.
int squares_right(int n);

int main() {
  const int n = 200;
  const int right = squares_right(n);
  std::printf("%d of %d squares right\n", right, n);
  // A library sizes its launch first (CUB does): the query fails as the launch does, saying why.
  cudaFuncAttributes attr;
  const cudaError_t q = cudaFuncGetAttributes(&attr, sample_cubemap);
  std::printf("cubemap attributes: %s\n", cudaGetErrorName(q));
  sample_cubemap<<<1, 32>>>(0, nullptr, 32);
  const cudaError_t e = cudaGetLastError();
  std::printf("cubemap kernel: %s\n", cudaGetErrorName(e));
  return finish(right != n || e != cudaErrorInvalidDeviceFunction ||
                q != cudaErrorInvalidDeviceFunction);
}
