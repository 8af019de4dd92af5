// The other unit of separate.cu (nvcc -rdc=true): defines what that unit declares extern.
#include <cuda_runtime.h>

#include "check.h"
#include "separate.h"

__device__ int lib_counter = 0;
__constant__ int lib_table[kTable] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3};

// Internal to this unit: the same name as separate.cu's, another rule.
static __device__ int clamp_to(int v) { return v < -50 ? -50 : v; }

__device__ int lib_scale(int v) { return clamp_to(3 * v - 7); }
int host_lib_scale(int v) { return 3 * v - 7 < -50 ? -50 : 3 * v - 7; }
int host_lib_table(int i) {
  static const int t[kTable] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3};
  return t[i];
}
int host_lib_tail(int v) { return 2 * (v ^ 5) - 1; }

__global__ void tail_kernel(const int* in, int* out, int n) {
  extern __shared__ int stage[];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  stage[threadIdx.x] = i < n ? in[i] : 0;
  __syncthreads();
  if (i < n) out[i] = twice(stage[threadIdx.x] ^ 5) - 1;
  if (i < n) atomicAdd(&lib_counter, 1);
  if (i == 0) printf("tail: unit lib, out[0] = %d\n", out[0]);
}

void launch_lib_kernel(const int* in, int* out, int n) {
  tail_kernel<<<(n + 63) / 64, 64, 64 * sizeof(int)>>>(in, out, n);
  CHECK(cudaGetLastError());
}
