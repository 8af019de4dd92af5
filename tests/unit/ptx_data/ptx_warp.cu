// Warp-level and atomic kernels for the PTX engine unit tests.
// Regenerate: nvcc -arch=sm_75 -ptx ptx_warp.cu -o ptx_warp.ptx
extern "C" __global__ void shfl_ops(const int* in, int* out) {
  int t = threadIdx.x;
  int v = in[t];
  int o = t * 6;
  out[o + 0] = __shfl_down_sync(0xffffffffu, v, 3);
  out[o + 1] = __shfl_up_sync(0xffffffffu, v, 5);
  out[o + 2] = __shfl_xor_sync(0xffffffffu, v, 9);
  out[o + 3] = __shfl_sync(0xffffffffu, v, (t * 7) & 31);
  out[o + 4] = __shfl_down_sync(0xffffffffu, v, 2, 8); // width 8
  out[o + 5] = __shfl_sync(0xffffffffu, v, 3, 16);     // width 16
}

extern "C" __global__ void warp_reduce(const int* in, int* out) {
  int v = in[threadIdx.x + blockIdx.x * blockDim.x];
  for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
  if ((threadIdx.x & 31) == 0) out[(threadIdx.x + blockIdx.x * blockDim.x) / 32] = v;
}

extern "C" __global__ void vote_ops(const int* in, unsigned* out) {
  int t = threadIdx.x;
  int v = in[t];
  unsigned b = __ballot_sync(0xffffffffu, v > 0);
  int all = __all_sync(0xffffffffu, v > -100);
  int any = __any_sync(0xffffffffu, v == 12345);
  unsigned am = 0;
  if (v & 1) am = __activemask();
  out[t * 4 + 0] = b;
  out[t * 4 + 1] = all;
  out[t * 4 + 2] = any;
  out[t * 4 + 3] = am;
}

extern "C" __global__ void atomics(int* gi, unsigned* gu, float* gf, unsigned long long* gull,
                                   double* gd, int* out) {
  __shared__ int sh[4];
  int t = threadIdx.x;
  if (t < 4) sh[t] = 0;
  __syncthreads();
  atomicAdd(&gi[0], t);
  atomicMin(&gi[1], 100 - t);
  atomicMax(&gi[2], t * 3 - 50);
  atomicAnd(&gu[0], ~(1u << (t & 31)));
  atomicOr(&gu[1], 1u << (t & 31));
  atomicXor(&gu[2], (unsigned)t * 2654435761u);
  atomicInc(&gu[3], 10u);
  atomicDec(&gu[4], 7u);
  atomicAdd(&gf[0], 0.5f);
  atomicAdd(&gull[0], (unsigned long long)t << 33);
  atomicAdd(&gd[0], 0.25);
  int old = atomicCAS(&gi[3], t, t + 1); // chain: only the thread holding the token advances
  out[t] = old;
  atomicExch(&gi[4], t);
  atomicAdd(&sh[t & 3], 1);
  atomicMax(&sh[2], t);
  __syncthreads();
  if (t < 4) gi[8 + t] = sh[t];
}

extern "C" __global__ void match_any(const int* in, unsigned* out) {
  unsigned m = __match_any_sync(0xffffffffu, in[threadIdx.x]);
  out[threadIdx.x] = m;
}
