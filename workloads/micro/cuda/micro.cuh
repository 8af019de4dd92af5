// Shared by the microbenchmark kernels. Each kernel runs a dependent chain of K instructions,
// then K more when `extra` is set; gpurf micro takes the difference of the two runs. So that
// the difference is exactly K chain instructions, nothing after the chain may overlap it
// differently in the two runs: the output address is computed before the chain (inline PTX,
// which nvcc does not move) and the only instruction after it is the store of its result.
#pragma once
#define K 32

#define TWICE(...)                                                                               \
  _Pragma("unroll") for (int i = 0; i < K; ++i) asm volatile(__VA_ARGS__);                       \
  if (extra) {                                                                                   \
    _Pragma("unroll") for (int i = 0; i < K; ++i) asm volatile(__VA_ARGS__);                     \
  }

// The global address of out[threadIdx.x] (elements of `bytes` bytes).
#define OUT_ADDR(p, out, bytes)                                                                  \
  asm volatile("{ .reg .u32 t; .reg .u64 o; mov.u32 t, %%tid.x; mul.wide.u32 o, t, " #bytes       \
               "; cvta.to.global.u64 %0, %1; add.s64 %0, %0, o; }"                               \
               : "=l"(p)                                                                         \
               : "l"(out))
