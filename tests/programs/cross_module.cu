// Two translation units compiled without relocatable device code (-rdc=false, nvcc's
// default), so two modules: this one's kernel fills its __device__ array; a kernel of the other
// (cross_module_lib.cu) sums the array through the pointer cudaGetSymbolAddress gave, as a
// library's kernel reads a caller's table. The memory check must know every module's
// variables: the read is inside an allocation, not a stray access.
#include <cuda_runtime.h>

#include "check.h"

constexpr int kN = 300;
__device__ int table[kN];

__global__ void fill(int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) table[i] = i * i % 97 + 1;
}

// cross_module_lib.cu: launches its own module's kernel over `p`.
long long sum_elsewhere(const int* p, int n);

int main() {
  fill<<<(kN + 127) / 128, 128>>>(kN);
  CHECK(cudaGetLastError());
  int* p = nullptr;
  CHECK(cudaGetSymbolAddress((void**)&p, table));
  const long long got = sum_elsewhere(p, kN);
  long long want = 0;
  for (int i = 0; i < kN; ++i) want += i * i % 97 + 1;
  std::printf("sum %lld, expected %lld\n", got, want);
  return finish(got != want);
}
