// In-kernel malloc and free: each thread's own block, a block one launch allocates and the next
// reads and frees (the heap outlives launches), and NULL once the heap set with
// cudaDeviceSetLimit(cudaLimitMallocHeapSize) is full.
#include <cuda_runtime.h>

#include "check.h"

__global__ void per_thread(int* sums, int n) {
  int* p = static_cast<int*>(malloc(n * sizeof(int)));
  if (!p) {
    sums[threadIdx.x] = -1;
    return;
  }
  for (int i = 0; i < n; ++i) p[i] = i * int(threadIdx.x);
  int s = 0;
  for (int i = 0; i < n; ++i) s += p[i];
  free(p);
  sums[threadIdx.x] = s;
}

__global__ void keep(int** slot) {
  if (threadIdx.x == 0) {
    int* p = static_cast<int*>(malloc(64 * sizeof(int)));
    for (int i = 0; i < 64; ++i) p[i] = 3 * i;
    *slot = p;
  }
}

__global__ void use_and_free(int** slot, int* out) {
  if (threadIdx.x == 0) {
    int s = 0;
    for (int i = 0; i < 64; ++i) s += (*slot)[i];
    free(*slot);
    *out = s;
  }
}

// More than the heap holds: NULL.
__global__ void too_big(int* got) { *got = malloc(size_t(2) << 20) != nullptr; }

int main() {
  CHECK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 1 << 20));
  int *sums, **slot, *out;
  CHECK(cudaMallocManaged(&sums, 64 * sizeof(int)));
  CHECK(cudaMallocManaged(&slot, sizeof(int*)));
  CHECK(cudaMallocManaged(&out, sizeof(int)));
  per_thread<<<1, 64>>>(sums, 10);
  CHECK(cudaDeviceSynchronize());
  int bad = 0;
  for (int t = 0; t < 64; ++t) bad += sums[t] != 45 * t;
  keep<<<1, 32>>>(slot);
  use_and_free<<<1, 32>>>(slot, out);
  CHECK(cudaDeviceSynchronize());
  bad += *out != 3 * 63 * 64 / 2;
  too_big<<<1, 1>>>(out);
  CHECK(cudaDeviceSynchronize());
  bad += *out != 0;
  std::printf("%d wrong\n", bad);
  return finish(bad);
}
