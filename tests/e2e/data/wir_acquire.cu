// tests/e2e/wir_test.cpp: loads that must not reuse an earlier load of the same address.
// Modes 0, 1: CTA 0 reads data[0], waits for the flag CTA 1 sets after storing data[0] (mode 0:
// an acquire load; mode 1: a volatile poll then __threadfence), and reads data[0] again:
// out = before * 1000 + after = 42. Mode 2: one warp copies src[0] then src[1] into the same
// shared word with cp.async, reading it after each wait with no barrier between: out =
// 14 * (1 + 2) = 42 as well.
// Compiled with `nvcc -arch=sm_80 -ptx -O3 wir_acquire.cu`.
#include <cuda_pipeline.h>

__device__ int load_acquire(const int* p) {
  int v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

extern "C" __global__ void wir_acquire(int* flag, int* data, const int* src, int* out, int mode) {
  if (mode == 2) {
    __shared__ int word[32];
    int sum = 0;
    for (int i = 0; i < 2; ++i) {
      __pipeline_memcpy_async(&word[threadIdx.x], &src[i], sizeof(int));
      __pipeline_commit();
      __pipeline_wait_prior(0);
      sum += word[threadIdx.x];
    }
    if (blockIdx.x == 0) out[threadIdx.x] = 14 * sum;
    return;
  }
  if (blockIdx.x == 1) {
    if (threadIdx.x == 0) {
      for (volatile int i = 0; i < 200; ++i) {
      }
      data[0] = 42;
      __threadfence();
      atomicExch(flag, 1);
    }
    return;
  }
  const int before = data[0];
  if (mode == 0) {
    while (load_acquire(flag) == 0) {
    }
  } else {
    while (*(volatile int*)flag == 0) {
    }
    __threadfence();
  }
  out[threadIdx.x] = before * 1000 + data[0];
}
