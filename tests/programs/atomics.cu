// Atomics ordinary programs use beyond int and float, built for sm_90 as well (programs.sh adds
// compute_90 PTX, which gpurf takes): atomicAdd on __half, __half2, __nv_bfloat16,
// __nv_bfloat162 (atom.add.noftz.f16...; on sm_75 bf16 is a CAS loop), on float2 (sm_90's
// atom.add.v2.f32), 64-bit atomicMin, a 16-bit atomicCAS loop; plus cuda::pipeline's
// asynchronous copies and a double shuffle. Every result against the host.
#include <cuda/pipeline>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "check.h"

__global__ void halves(__half2* h2, __half* h, __nv_bfloat16* b, __nv_bfloat162* b2) {
  atomicAdd(h2, __floats2half2_rn(0.5f, 0.25f));
  atomicAdd(h, __float2half(0.5f));
  atomicAdd(b, __float2bfloat16(0.5f));
  atomicAdd(b2, __floats2bfloat162_rn(0.5f, 0.25f));
}

__global__ void mixed(float2* acc, unsigned long long* low, unsigned short* counter,
                      const float* in, float* out, double* shuffled, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  __shared__ float stage[2][128];
  cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
  for (int s = 0; s < 2; ++s) {
    pipe.producer_acquire();
    cuda::memcpy_async(&stage[s][threadIdx.x], &in[(i + s * 128) % n], sizeof(float), pipe);
    pipe.producer_commit();
  }
  pipe.consumer_wait();
  const float a = stage[0][threadIdx.x];
  pipe.consumer_release();
  pipe.consumer_wait();
  const float b = stage[1][threadIdx.x];
  pipe.consumer_release();
  out[i] = a + b;
#if __CUDA_ARCH__ >= 900
  atomicAdd(acc, make_float2(a, b));
#else
  atomicAdd(&acc->x, a);
  atomicAdd(&acc->y, b);
#endif
  atomicMin(low, (unsigned long long)(i * 7919 % 1000 + 5));
  unsigned short old = *counter, want;
  do {
    want = old;
    old = atomicCAS(counter, want, (unsigned short)(want + 1));
  } while (old != want);
  shuffled[i] = __shfl_xor_sync(0xffffffffu, i * 0.5, 1);
}

int main() {
  __half2* h2;
  __half* h;
  __nv_bfloat16* b;
  __nv_bfloat162* b2;
  CHECK(cudaMalloc(&h2, 4));
  CHECK(cudaMalloc(&h, 2));
  CHECK(cudaMalloc(&b, 2));
  CHECK(cudaMalloc(&b2, 4));
  for (void* p : {(void*)h2, (void*)h, (void*)b, (void*)b2})
    CHECK(cudaMemset(p, 0, 4 - 2 * (p == h || p == b)));
  halves<<<1, 64>>>(h2, h, b, b2);
  CHECK(cudaGetLastError());
  __half2 hh2;
  __half hh;
  __nv_bfloat16 hb;
  __nv_bfloat162 hb2;
  CHECK(cudaMemcpy(&hh2, h2, 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&hh, h, 2, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&hb, b, 2, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&hb2, b2, 4, cudaMemcpyDeviceToHost));
  int bad = 0;
  // 64 adds of 0.5 and 0.25: exact in both formats.
  const float got[6] = {__low2float(hh2),     __high2float(hh2), __half2float(hh),
                        __bfloat162float(hb), __low2float(hb2),  __high2float(hb2)};
  const float want[6] = {32, 16, 32, 32, 32, 16};
  for (int k = 0; k < 6; ++k)
    if (got[k] != want[k]) std::printf("half sum %d: %f, want %f\n", k, got[k], want[k]), ++bad;

  constexpr int n = 512;
  float hin[n];
  for (int i = 0; i < n; ++i) hin[i] = float(i % 9);
  float *in, *out;
  float2* acc;
  unsigned long long* low;
  unsigned short* counter;
  double* shuffled;
  CHECK(cudaMalloc(&in, sizeof hin));
  CHECK(cudaMalloc(&out, sizeof hin));
  CHECK(cudaMalloc(&acc, sizeof(float2)));
  CHECK(cudaMalloc(&low, 8));
  CHECK(cudaMalloc(&counter, 2));
  CHECK(cudaMalloc(&shuffled, n * sizeof(double)));
  CHECK(cudaMemcpy(in, hin, sizeof hin, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(acc, 0, sizeof(float2)));
  CHECK(cudaMemset(low, 0xff, 8));
  CHECK(cudaMemset(counter, 0, 2));
  mixed<<<n / 128, 128>>>(acc, low, counter, in, out, shuffled, n);
  CHECK(cudaDeviceSynchronize());
  float hout[n];
  double hsh[n];
  float2 hacc;
  unsigned long long hlow;
  unsigned short hcount;
  CHECK(cudaMemcpy(hout, out, sizeof hout, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(hsh, shuffled, sizeof hsh, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&hacc, acc, sizeof hacc, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&hlow, low, 8, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&hcount, counter, 2, cudaMemcpyDeviceToHost));
  float sa = 0, sb = 0;
  for (int i = 0; i < n; ++i) {
    sa += hin[i];
    sb += hin[(i + 128) % n];
    if (hout[i] != hin[i] + hin[(i + 128) % n]) ++bad;
    if (hsh[i] != (i ^ 1) * 0.5) ++bad;
  }
  if (hacc.x != sa || hacc.y != sb)
    std::printf("float2 sum %f %f, want %f %f\n", hacc.x, hacc.y, sa, sb), ++bad;
  if (hlow != 5) std::printf("min %llu, want 5\n", hlow), ++bad;
  if (hcount != n) std::printf("counter %u, want %d\n", hcount, n), ++bad;
  return finish(bad);
}
