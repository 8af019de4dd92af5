// tests/e2e/wir_test.cpp: CTA 1 publishes a value and then a flag (atomicExch after a fence);
// CTA 0 polls the flag through L2 (__ldcg: ld.global.cg; mode 1: __ldcv, ld.global.cv) with
// no store or barrier of its own between the polls, then reads the value. Compiled with
// `nvcc -arch=sm_75 -ptx -O3 wir_poll.cu`.
extern "C" __global__ void wir_poll(int* flag, int* data, int* out, int mode) {
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
  int f = 0, polls = 0;
  do {
    f = mode ? __ldcv(flag) : __ldcg(flag);
    ++polls;
  } while (f == 0);
  __threadfence();
  out[threadIdx.x] = (mode ? __ldcv(data) : __ldcg(data)) + (polls > 1 ? 1000 : 0);
}
