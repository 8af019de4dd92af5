// What separate.cu and separate_lib.cu share (nvcc -rdc=true: device symbols across units).
#pragma once

constexpr int kTable = 16;
extern __device__ int lib_counter;
extern __constant__ int lib_table[kTable];
__device__ int lib_scale(int v);
void launch_lib_kernel(const int* in, int* out, int n);
int host_lib_scale(int v);
int host_lib_table(int i);
int host_lib_tail(int v);

template <class T> __device__ __noinline__ T twice(T v) { return v + v; }
