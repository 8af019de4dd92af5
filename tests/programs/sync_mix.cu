// Synchronisation patterns of real programs: a one-pass sum where the last CTA to finish (an
// atomicInc after __threadfence) adds the CTAs' partials; a histogram of float maxima per bucket
// by an atomicCAS loop; a per-bucket spin lock taken by lanes of the same warp (needs
// independent thread scheduling, sm_70+); __syncthreads_or/count; a 6 KB kernel argument (FIR
// coefficients by value, CUDA 12.1+); two streams ordered by an event, with a host function.
#include "check.h"
#include <cmath>
#include <cuda_runtime.h>
#include <vector>

__device__ unsigned done_ctas = 0;

__global__ void one_pass_sum(const float* x, int n, float* partial, float* total) {
  __shared__ float s[256];
  __shared__ bool last;
  const int t = threadIdx.x;
  float v = 0;
  for (int i = blockIdx.x * blockDim.x + t; i < n; i += gridDim.x * blockDim.x) v += x[i];
  s[t] = v;
  __syncthreads();
  for (int h = blockDim.x / 2; h > 0; h /= 2) {
    if (t < h) s[t] += s[t + h];
    __syncthreads();
  }
  if (t == 0) {
    partial[blockIdx.x] = s[0];
    __threadfence();
    last = atomicInc(&done_ctas, gridDim.x - 1) == gridDim.x - 1; // wraps to 0 for the next use
  }
  __syncthreads();
  if (last && t == 0) {
    float sum = 0;
    for (int b = 0; b < gridDim.x; ++b) sum += ((volatile float*)partial)[b];
    *total = sum;
  }
}

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

__global__ void bucket_max(const float* x, int n, float* maxima, int buckets) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomic_max_float(&maxima[i % buckets], x[i]);
}

// Lanes of one warp contend for the same lock: only independent thread scheduling lets the
// holder go on while the others spin.
__global__ void locked_buckets(const int* keys, int n, int* locks, long long* sums, int* counts,
                               int buckets) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int b = keys[i] % buckets;
  bool done = false;
  while (!done) {
    if (atomicCAS(&locks[b], 0, 1) == 0) {
      __threadfence();
      sums[b] += keys[i]; // plain read-modify-write, under the lock
      counts[b] += 1;
      __threadfence();
      atomicExch(&locks[b], 0);
      done = true;
    }
  }
}

__global__ void votes(const int* x, int n, int* any_negative, int* count_even) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int v = i < n ? x[i] : 1;
  const int neg = __syncthreads_or(v < 0), even = __syncthreads_count(v % 2 == 0 && i < n);
  if (threadIdx.x == 0) {
    any_negative[blockIdx.x] = neg;
    count_even[blockIdx.x] = even;
  }
}

constexpr int TAPS = 1500;
struct Fir {
  float c[TAPS];
  int taps;
};

__global__ void fir(Fir f, const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = 0;
  for (int k = 0; k < f.taps && k <= i; ++k) s += f.c[k] * x[i - k];
  y[i] = s;
}

static void CUDART_CB note(void* flag) { *(int*)flag = 1; }

int main() {
  const int n = 40000, ctas = 48;
  std::vector<float> x(n);
  std::vector<int> keys(n);
  unsigned s = 4;
  for (int i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    x[i] = ((s >> 8) % 2001) / 1000.0f - 1.0f;
    keys[i] = (s >> 4) % 100000;
  }
  float *dx, *dpart, *dtotal, *dmax, *dy;
  int *dkeys, *dlocks, *dcounts, *dneg, *deven;
  long long* dsums;
  const int buckets = 37;
  CHECK(cudaMalloc(&dx, n * sizeof(float)));
  CHECK(cudaMalloc(&dpart, ctas * sizeof(float)));
  CHECK(cudaMalloc(&dtotal, sizeof(float)));
  CHECK(cudaMalloc(&dmax, buckets * sizeof(float)));
  CHECK(cudaMalloc(&dy, n * sizeof(float)));
  CHECK(cudaMalloc(&dkeys, n * sizeof(int)));
  CHECK(cudaMalloc(&dlocks, buckets * sizeof(int)));
  CHECK(cudaMalloc(&dcounts, buckets * sizeof(int)));
  CHECK(cudaMalloc(&dsums, buckets * sizeof(long long)));
  const int vctas = (n + 255) / 256;
  CHECK(cudaMalloc(&dneg, vctas * sizeof(int)));
  CHECK(cudaMalloc(&deven, vctas * sizeof(int)));
  CHECK(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dkeys, keys.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  int bad = 0;
  // One-pass sums, twice (the counter wraps back to 0).
  for (int r = 0; r < 2; ++r) {
    float total = 0;
    one_pass_sum<<<ctas, 256>>>(dx, n, dpart, dtotal);
    CHECK(cudaMemcpy(&total, dtotal, sizeof total, cudaMemcpyDeviceToHost));
    double want = 0;
    for (float v : x) want += v;
    if (std::fabs(total - want) > 1e-2 && bad++ < 5)
      std::printf("sum %d: %f, expected %f\n", r, total, want);
    CHECK(cudaMemset(dtotal, 0, sizeof(float)));
  }
  // Maxima by CAS.
  std::vector<float> init(buckets, -1e30f), mx(buckets);
  CHECK(cudaMemcpy(dmax, init.data(), buckets * sizeof(float), cudaMemcpyHostToDevice));
  bucket_max<<<(n + 255) / 256, 256>>>(dx, n, dmax, buckets);
  CHECK(cudaMemcpy(mx.data(), dmax, buckets * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) init[i % buckets] = std::fmax(init[i % buckets], x[i]);
  for (int b = 0; b < buckets; ++b)
    if (mx[b] != init[b] && bad++ < 5)
      std::printf("bucket %d max %f, expected %f\n", b, mx[b], init[b]);
  // Spin locks.
  CHECK(cudaMemset(dlocks, 0, buckets * sizeof(int)));
  CHECK(cudaMemset(dcounts, 0, buckets * sizeof(int)));
  CHECK(cudaMemset(dsums, 0, buckets * sizeof(long long)));
  locked_buckets<<<(n + 127) / 128, 128>>>(dkeys, n, dlocks, dsums, dcounts, buckets);
  CHECK(cudaGetLastError());
  std::vector<long long> sums(buckets), hs(buckets, 0);
  std::vector<int> counts(buckets), hc(buckets, 0);
  CHECK(cudaMemcpy(sums.data(), dsums, buckets * sizeof(long long), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(counts.data(), dcounts, buckets * sizeof(int), cudaMemcpyDeviceToHost));
  for (int k : keys) hs[k % buckets] += k, hc[k % buckets]++;
  for (int b = 0; b < buckets; ++b)
    if ((sums[b] != hs[b] || counts[b] != hc[b]) && bad++ < 5)
      std::printf("locked bucket %d: %lld/%d, expected %lld/%d\n", b, sums[b], counts[b], hs[b],
                  hc[b]);
  // Block votes.
  std::vector<int> kx(n);
  for (int i = 0; i < n; ++i) kx[i] = (i % 1000 == 999 && (i / 1000) % 3 == 0) ? -keys[i] : keys[i];
  CHECK(cudaMemcpy(dkeys, kx.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  votes<<<vctas, 256>>>(dkeys, n, dneg, deven);
  std::vector<int> neg(vctas), even(vctas);
  CHECK(cudaMemcpy(neg.data(), dneg, vctas * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(even.data(), deven, vctas * sizeof(int), cudaMemcpyDeviceToHost));
  for (int b = 0; b < vctas; ++b) {
    int hn = 0, he = 0;
    for (int i = b * 256; i < (b + 1) * 256 && i < n; ++i) hn |= kx[i] < 0, he += kx[i] % 2 == 0;
    if ((!!neg[b] != hn || even[b] != he) && bad++ < 5)
      std::printf("CTA %d votes: or %d count %d, expected %d %d\n", b, neg[b], even[b], hn, he);
  }
  // A 6 KB argument on one stream, ordered after the other stream by an event; a host function.
  static Fir f;
  f.taps = TAPS;
  for (int k = 0; k < TAPS; ++k) f.c[k] = 1.0f / (1 + k);
  cudaStream_t a, b;
  cudaEvent_t ready;
  CHECK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
  CHECK(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));
  std::vector<float> xs(n);
  for (int i = 0; i < n; ++i) xs[i] = std::sin(0.01f * i);
  float* dxs;
  CHECK(cudaMalloc(&dxs, n * sizeof(float)));
  CHECK(cudaMemcpyAsync(dxs, xs.data(), n * sizeof(float), cudaMemcpyHostToDevice, a));
  CHECK(cudaEventRecord(ready, a));
  CHECK(cudaStreamWaitEvent(b, ready, 0));
  const int m = 4000;
  fir<<<(m + 127) / 128, 128, 0, b>>>(f, dxs, dy, m);
  CHECK(cudaGetLastError());
  int flag = 0;
  CHECK(cudaLaunchHostFunc(b, note, &flag));
  CHECK(cudaStreamSynchronize(b));
  if (!flag && bad++ < 5) std::printf("the host function did not run\n");
  std::vector<float> y(m);
  CHECK(cudaMemcpy(y.data(), dy, m * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < m; ++i) {
    float w = 0;
    for (int k = 0; k < TAPS && k <= i; ++k) w += f.c[k] * xs[i - k];
    if (std::fabs(y[i] - w) > 1e-3f * (1 + std::fabs(w)) && bad++ < 5)
      std::printf("fir %d: %f, expected %f\n", i, y[i], w);
  }
  return finish(bad);
}
