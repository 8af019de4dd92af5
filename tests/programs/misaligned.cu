// A misaligned load: records of 6 bytes are read as int through a cast (the bug: record i
// starts at 6 i, 4-byte aligned only for even i), so thread 1 loads 4 bytes at an address
// 2 bytes past a 4-byte boundary. gpurf stops the kernel naming the thread, the PTX line,
// the address and the size, as compute-sanitizer's memcheck reports it; the program gets
// cudaErrorMisalignedAddress, sticky.
#include <cuda_runtime.h>
#include "check.h"

__global__ void read_keys(int* keys, const unsigned char* records, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) keys[i] = *reinterpret_cast<const int*>(records + 6 * i);
}

int main() {
  const int n = 32;
  unsigned char* records;
  int* keys;
  CHECK(cudaMalloc(&records, 6 * n));
  CHECK(cudaMalloc(&keys, n * sizeof(int)));
  CHECK(cudaMemset(records, 1, 6 * n));
  read_keys<<<1, n>>>(keys, records, n);
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("synchronize: %s\n", cudaGetErrorName(e));
  const cudaError_t again = cudaMemcpy(keys, keys, 4, cudaMemcpyDeviceToDevice);
  std::printf("then memcpy: %s\n", cudaGetErrorName(again));
  return finish(e != cudaErrorMisalignedAddress || again != cudaErrorMisalignedAddress);
}
