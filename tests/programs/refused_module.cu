// A program whose main translation unit holds only a kernel gpurf cannot load (a surface
// store): the program still starts, the other module's kernel runs and verifies, and the
// launch of the refused kernel fails with cudaErrorInvalidDeviceFunction, naming why.
#include <cuda_runtime.h>

#include "check.h"

__global__ void store_surface(cudaSurfaceObject_t s, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) surf1Dwrite(i, s, i * int(sizeof(int)));
}

// refused_module_lib.cu: squares 0..n-1 on the device, returns how many are right.
int squares_right(int n);

int main() {
  const int n = 200;
  const int right = squares_right(n);
  std::printf("%d of %d squares right\n", right, n);
  store_surface<<<1, 32>>>(0, 32);
  const cudaError_t e = cudaGetLastError();
  std::printf("surface kernel: %s\n", cudaGetErrorName(e));
  return finish(right != n || e != cudaErrorInvalidDeviceFunction);
}
