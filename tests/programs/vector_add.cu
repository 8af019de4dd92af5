// c = a + b on device memory (cudaMalloc, cudaMemcpy both ways), then again on managed memory
// the host writes and reads directly; launched with <<<>>> and with cudaLaunchKernel.
#include <cuda_runtime.h>
#include "check.h"

__global__ void vector_add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

int main() {
  const int n = 3000;
  float ha[n], hb[n], hc[n];
  for (int i = 0; i < n; ++i) ha[i] = 0.5f * i, hb[i] = 1000.0f - i;
  float *a, *b, *c;
  CHECK(cudaMalloc(&a, n * sizeof(float)));
  CHECK(cudaMalloc(&b, n * sizeof(float)));
  CHECK(cudaMalloc(&c, n * sizeof(float)));
  CHECK(cudaMemcpy(a, ha, n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(b, hb, n * sizeof(float), cudaMemcpyHostToDevice));
  vector_add<<<(n + 255) / 256, 256>>>(a, b, c, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(hc, c, n * sizeof(float), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += hc[i] != ha[i] + hb[i];

  // Managed memory: the host's pointers are the device's.
  float *ma, *mb, *mc;
  CHECK(cudaMallocManaged(&ma, n * sizeof(float)));
  CHECK(cudaMallocManaged(&mb, n * sizeof(float)));
  CHECK(cudaMallocManaged(&mc, n * sizeof(float)));
  for (int i = 0; i < n; ++i) ma[i] = 3.0f * i, mb[i] = -1.0f * i, mc[i] = 0;
  int nn = n;
  void* args[] = {&ma, &mb, &mc, &nn};
  CHECK(cudaLaunchKernel((const void*)vector_add, dim3((n + 127) / 128), dim3(128), args, 0, 0));
  CHECK(cudaDeviceSynchronize());
  for (int i = 0; i < n; ++i) bad += mc[i] != 2.0f * i;
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  CHECK(cudaFree(c));
  CHECK(cudaFree(ma));
  CHECK(cudaFree(mb));
  CHECK(cudaFree(mc));
  return finish(bad);
}
