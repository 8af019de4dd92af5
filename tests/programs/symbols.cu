// A __constant__ table written with cudaMemcpyToSymbol before the first launch, a __device__
// counter updated with atomics and read back with cudaMemcpyFromSymbol, a __device__ array
// with an initial value, and cudaGetSymbolAddress passed to a kernel as a pointer.
#include <cuda_runtime.h>
#include "check.h"

__constant__ int table[16];
__device__ unsigned int counter;
__device__ int scale[4] = {1, 2, 3, 4};

__global__ void lookup(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = table[in[i] & 15] * scale[i & 3];
  if (out[i] % 2 == 0) atomicAdd(&counter, 1u);
}

__global__ void add_to(int* p, int v) { p[threadIdx.x] += v; }

int main() {
  const int n = 500;
  int t[16], in[n], out[n];
  for (int i = 0; i < 16; ++i) t[i] = i * i + 1;
  for (int i = 0; i < n; ++i) in[i] = (i * 7) % 23;
  CHECK(cudaMemcpyToSymbol(table, t, sizeof t));
  unsigned zero = 0;
  CHECK(cudaMemcpyToSymbol(counter, &zero, sizeof zero));
  int *din, *dout;
  CHECK(cudaMalloc(&din, sizeof in));
  CHECK(cudaMalloc(&dout, sizeof out));
  CHECK(cudaMemcpy(din, in, sizeof in, cudaMemcpyHostToDevice));
  lookup<<<(n + 127) / 128, 128>>>(din, dout, n);
  CHECK(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));
  unsigned count = 0;
  CHECK(cudaMemcpyFromSymbol(&count, counter, sizeof count));
  int bad = 0;
  unsigned want_count = 0;
  for (int i = 0; i < n; ++i) {
    const int want = t[in[i] & 15] * (1 + (i & 3));
    bad += out[i] != want;
    want_count += want % 2 == 0;
  }
  if (count != want_count) std::printf("counter %u, expected %u\n", count, want_count), ++bad;
  // The __device__ array through its address.
  int* s;
  CHECK(cudaGetSymbolAddress((void**)&s, scale));
  add_to<<<1, 4>>>(s, 10);
  int hs[4];
  CHECK(cudaMemcpyFromSymbol(hs, scale, sizeof hs));
  for (int i = 0; i < 4; ++i) bad += hs[i] != 11 + i;
  return finish(bad);
}
