// Kernels for the engine's printf and assert (tests/unit/ptx_device_output_test.cpp).
// Regenerate: nvcc -arch=sm_75 -ptx ptx_device_output.cu -o ptx_device_output.ptx
#include <cassert>
#include <cstdio>

extern "C" __global__ void say(const int* v, double d) {
  int i = threadIdx.x;
  if (i < 3) printf("t%d v=%d d=%.3f u=%u x=%x c=%c s=%s l=%ld%%\n", i, v[i], d, 4000000000u, 255,
                    'A' + i, "str", -5000000000l);
}

extern "C" __global__ void check(const int* v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  assert(v[i] >= 0);
}
