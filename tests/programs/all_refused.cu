// A program whose every kernel gpurf refuses (a cubemap texture fetch): the runtime still
// starts, so memory calls work, and the launch fails with cudaErrorInvalidDeviceFunction
// naming why, as CUDA fails a kernel that has no image for the device (not every call).
#include <cuda_runtime.h>

#include "check.h"

__global__ void sample_cubemap(cudaTextureObject_t t, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = texCubemap<float>(t, 1.0f, 0.5f * float(i), 0.25f);
}

int main() {
  const int n = 256;
  int host[n];
  for (int i = 0; i < n; ++i) host[i] = i * 7;
  int* dev = nullptr;
  CHECK(cudaMalloc(&dev, n * sizeof(int)));
  CHECK(cudaMemcpy(dev, host, sizeof host, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dev, 0, 16 * sizeof(int)));
  int back[n];
  CHECK(cudaMemcpy(back, dev, sizeof back, cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += back[i] != (i < 16 ? 0 : i * 7);
  std::printf("%d of %d words round-tripped\n", n - bad, n);
  sample_cubemap<<<1, 32>>>(0, nullptr, 32);
  const cudaError_t e = cudaGetLastError();
  std::printf("cubemap kernel: %s\n", cudaGetErrorName(e));
  CHECK(cudaDeviceSynchronize()); // the refusal is not sticky
  CHECK(cudaFree(dev));
  return finish(bad || e != cudaErrorInvalidDeviceFunction);
}
