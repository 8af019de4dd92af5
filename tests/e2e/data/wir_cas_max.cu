// tests/e2e/wir_test.cpp: float maxima per bucket by an atomicCAS loop whose first read is a
// plain load (`old = *p`, as the CUDA Programming Guide's atomicAdd-by-CAS does). Element i
// goes to bucket i % 37, so warps 37 apart load the same 32 addresses: the later load's tag
// matches the earlier one's while other warps' CAS changed those words. Compiled with
// `nvcc -arch=sm_75 -ptx -O3 wir_cas_max.cu`.
__device__ float atomic_max_float(float* a, float v) {
  int* p = (int*)a;
  int old = *p, seen;
  do {
    seen = old;
    if (__int_as_float(seen) >= v) break;
    old = atomicCAS(p, seen, __float_as_int(v));
  } while (old != seen);
  return __int_as_float(old);
}

extern "C" __global__ void wir_cas_max(const float* x, int n, float* maxima) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomic_max_float(&maxima[i % 37], x[i]);
}
