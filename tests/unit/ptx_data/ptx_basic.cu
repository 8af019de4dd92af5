// Small kernels for the PTX engine unit tests (tests/unit/ptx_engine_test.cpp).
// Regenerate: nvcc -arch=sm_75 -ptx ptx_basic.cu -o ptx_basic.ptx
extern "C" __global__ void vadd(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

extern "C" __global__ void divergent(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int x = in[i];
  int s = 0;
  if (x & 1) {
    for (int j = 0; j < (x % 7); ++j) s += j * x;
    s += 1000;
  } else if (x % 4 == 0) {
    s = x * x - 3;
  } else {
    for (int j = x; j > 0; j -= 3) s ^= j;
  }
  out[i] = s + x;
}

extern "C" __global__ void loop_sum(const int* counts, long long* out) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  long long s = 0;
  for (int j = 0; j < counts[i]; ++j) s += (long long)j * j + i;
  out[i] = s;
}

extern "C" __global__ void reduce_shared(const int* in, int* out) {
  __shared__ int buf[256];
  unsigned t = threadIdx.x;
  buf[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) buf[t] += buf[t + s];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = buf[0];
}

extern "C" __global__ void dyn_shared(const int* in, int* out) {
  extern __shared__ int sm[];
  unsigned t = threadIdx.x;
  sm[t] = in[t] * 3;
  __syncthreads();
  out[t] = sm[blockDim.x - 1 - t];
}

__device__ __noinline__ int helper(int a, int b, int* p) {
  p[threadIdx.x] = a - b;
  return a * b + 7;
}
__device__ __noinline__ unsigned long long fact(unsigned n) {
  return n <= 1 ? 1ull : n * fact(n - 1);
}
__device__ __noinline__ float2 pair(float x) { return make_float2(x * 2.0f, x + 0.5f); }

extern "C" __global__ void calls(int* out, int* side, unsigned long long* f, float* pf) {
  int t = threadIdx.x;
  if (t & 1) out[t] = helper(t, 3, side);
  else out[t] = -1;
  f[t] = fact(t % 21);
  float2 r = pair(float(t));
  pf[2 * t] = r.x;
  pf[2 * t + 1] = r.y;
}

extern "C" __global__ void local_array(const int* idx, int* out) {
  int a[16];
  int t = threadIdx.x;
  for (int j = 0; j < 16; ++j) a[j] = j * t + 1;
  out[t] = a[idx[t] & 15] + a[(idx[t] >> 4) & 15];
}

extern "C" __global__ void grid3d(int* out) {
  int bx = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  int tx = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  int nthreads = blockDim.x * blockDim.y * blockDim.z;
  out[bx * nthreads + tx] = (threadIdx.z << 16) | (threadIdx.y << 8) | threadIdx.x |
                            (blockIdx.z << 28) | (blockIdx.y << 24) | (blockIdx.x << 20);
}

extern "C" __global__ void divergent_sync(int* out) {
  __shared__ int s[64];
  if (threadIdx.x < 16) {
    s[threadIdx.x] = 1;
    __syncthreads();
  }
  out[threadIdx.x] = s[0];
}

extern "C" __global__ void spin(volatile int* flag) {
  while (flag[0] == 0) {
  }
}

__device__ int counter = 5;
__constant__ int table[8] = {3, 1, 4, 1, 5, 9, 2, 6};
extern "C" __global__ void globals(int* out) {
  int t = threadIdx.x;
  out[t] = table[t & 7] + counter;
  __syncthreads();
  if (t == 0) counter = 42;
}

extern "C" __global__ void early_exit_sync(const int* in, int* out, int n) {
  __shared__ int s[128];
  int t = threadIdx.x;
  if (t >= n) return;
  s[t] = in[t];
  __syncthreads();
  out[t] = s[(t + 1) % n];
}

extern "C" __global__ void sync_count(const int* in, int* out) {
  int t = threadIdx.x;
  int c = __syncthreads_count(in[t] > 10);
  int a = __syncthreads_and(in[t] >= 0);
  int o = __syncthreads_or(in[t] == 77);
  out[t] = c * 100 + a * 10 + o;
}
