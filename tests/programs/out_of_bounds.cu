// An out-of-bounds store (the bound test is one too high): gpurf's memory check stops the
// kernel naming the thread, the PTX line, the address and the allocation; the program gets
// cudaErrorIllegalAddress, sticky, as compute-sanitizer's memcheck would report it.
#include "check.h"
#include <cuda_runtime.h>

__global__ void scale(float* y, const float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) y[i] = 2.0f * x[i]; // the bug: i == n writes one past y
}

int main() {
  const int n = 64;
  float *x, *y;
  CHECK(cudaMalloc(&x, (n + 64) * sizeof(float))); // x is large enough, y is not
  CHECK(cudaMalloc(&y, n * sizeof(float)));
  CHECK(cudaMemset(x, 0, (n + 64) * sizeof(float)));
  scale<<<1, 128>>>(y, x, n);
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("synchronize: %s\n", cudaGetErrorName(e));
  // The process is left in an inconsistent state: any further CUDA work gets the same error
  // (the Runtime API's cudaErrorIllegalAddress), making a stream or recording an event too.
  cudaStream_t s;
  cudaEvent_t ev;
  const cudaError_t stream = cudaStreamCreate(&s), event = cudaEventCreate(&ev);
  std::printf("then cudaStreamCreate: %s, cudaEventCreate: %s\n", cudaGetErrorName(stream),
              cudaGetErrorName(event));
  return finish(e != cudaErrorIllegalAddress || stream != e || event != e);
}
