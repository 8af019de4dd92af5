// f16/bf16 kernels for tests/unit/ptx_engine_half_test.cpp (nvcc -ptx -arch=sm_90: native
// bf16 arithmetic). Each lane applies every operation to its inputs.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

extern "C" __global__ void half_ops(const __half* a, const __half* b, const __half* c,
                                    __half* out, float* fout, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i * 6 + 0] = __hadd(a[i], b[i]);
  out[i * 6 + 1] = __hmul(a[i], b[i]);
  out[i * 6 + 2] = __hfma(a[i], b[i], c[i]);
  out[i * 6 + 3] = __hneg(a[i]);
  out[i * 6 + 4] = __hmax(a[i], b[i]);
  out[i * 6 + 5] = __float2half_rz(__half2float(a[i]) * 3.0f);
  fout[i] = __half2float(a[i]) + (__hlt(a[i], b[i]) ? 1000.0f : 0.0f);
}

extern "C" __global__ void half2_ops(const __half2* a, const __half2* b, __half2* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i * 3 + 0] = __hadd2(a[i], b[i]);
  out[i * 3 + 1] = __hfma2(a[i], b[i], a[i]);
  out[i * 3 + 2] = __floats2half2_rn(__low2float(a[i]), 2.5f);
}

extern "C" __global__ void bf16_ops(const __nv_bfloat16* a, const __nv_bfloat16* b,
                                    __nv_bfloat16* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i * 3 + 0] = __hadd(a[i], b[i]);
  out[i * 3 + 1] = __hfma(a[i], b[i], a[i]);
  out[i * 3 + 2] = __float2bfloat16_rn(__bfloat162float(a[i]) / 3.0f);
}
