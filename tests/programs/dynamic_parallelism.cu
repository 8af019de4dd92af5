// Dynamic parallelism (CDP2, nvcc -rdc=true ... -lcudadevrt): kernels launching kernels.
// - parent/child: each block of a parent grid launches a child grid;
// - a recursive quicksort: each grid partitions its range and launches one child per half, each
//   into a stream of its own (device-side cudaStreamCreateWithFlags), down to a depth limit;
// - a tail launch (cudaStreamTailLaunch) that reads what fire-and-forget children wrote: it runs
//   after all of its parent's other work;
// - cudaGetParameterBuffer / cudaLaunchDevice (the explicit API);
// - the limits: the nesting depth (24) and cudaLimitDevRuntimePendingLaunchCount, each launch
//   past them returning CUDA's error, and device-side cudaGetLastError / cudaPeekAtLastError.
// Every result is checked on the host; prints PASS.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CHECK(x)                                                                                   \
  do {                                                                                             \
    cudaError_t e_ = (x);                                                                          \
    if (e_ != cudaSuccess) {                                                                       \
      std::printf("FAIL: %s: %s\n", #x, cudaGetErrorString(e_));                                   \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)

// ---------------------------------------------------------------- parent / child
__global__ void child(int* o, int base) { o[base + threadIdx.x] = base + threadIdx.x; }
__global__ void parent(int* o) {
  if (threadIdx.x == 0) child<<<1, 32>>>(o, blockIdx.x * 32);
}

// ---------------------------------------------------------------- recursive quicksort
constexpr int kSortDepth = 6, kSmall = 16;
__global__ void quicksort(int* d, int lo, int hi, int depth, int* max_depth) {
  // one thread: the grid is <<<1, 1>>>
  atomicMax(max_depth, depth);
  if (hi - lo <= kSmall || depth >= kSortDepth) { // insertion sort
    for (int i = lo + 1; i <= hi; ++i) {
      const int v = d[i];
      int j = i - 1;
      while (j >= lo && d[j] > v) {
        d[j + 1] = d[j];
        --j;
      }
      d[j + 1] = v;
    }
    return;
  }
  const int pivot = d[(lo + hi) / 2];
  int i = lo, j = hi;
  while (i <= j) {
    while (d[i] < pivot) ++i;
    while (d[j] > pivot) --j;
    if (i <= j) {
      const int t = d[i];
      d[i++] = d[j];
      d[j--] = t;
    }
  }
  // the halves sort concurrently: a stream each (the NULL stream would order them)
  if (lo < j) {
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    quicksort<<<1, 1, 0, s>>>(d, lo, j, depth + 1, max_depth);
    cudaStreamDestroy(s);
  }
  if (i < hi) {
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    quicksort<<<1, 1, 0, s>>>(d, i, hi, depth + 1, max_depth);
    cudaStreamDestroy(s);
  }
}

// ---------------------------------------------------------------- tail launch
__global__ void produce(int* v, int base) { v[base + threadIdx.x] = base + threadIdx.x + 1; }
__global__ void sum(const int* v, int n, int* out) {
  if (threadIdx.x == 0) {
    int s = 0;
    for (int i = 0; i < n; ++i) s += v[i];
    *out = s;
  }
}
__global__ void tail_parent(int* v, int* out) {
  if (threadIdx.x != 0) return;
  // made first, runs last: after the fire-and-forget children wrote every value
  sum<<<1, 32, 0, cudaStreamTailLaunch>>>(v, 4 * 64, out);
  for (int b = 0; b < 4; ++b) produce<<<1, 64, 0, cudaStreamFireAndForget>>>(v, b * 64);
}

// ---------------------------------------------------------------- cudaLaunchDevice
struct ChildArgs {
  int* o;
  int base;
};
__global__ void explicit_parent(int* o) {
  if (threadIdx.x != 0) return;
  ChildArgs* a = static_cast<ChildArgs*>(cudaGetParameterBuffer(8, sizeof(ChildArgs)));
  if (!a) return;
  a->o = o;
  a->base = 64;
  cudaLaunchDevice((void*)child, a, dim3(1), dim3(32), 0, 0);
}

// ---------------------------------------------------------------- limits
// Each grid of the chain records that it ran, launches the next one down and records the
// launch's error (cudaGetLastError) at its depth.
__global__ void chain(int depth, int* ran, int* err) {
  ran[depth] = 1;
  chain<<<1, 1>>>(depth + 1, ran, err);
  err[depth] = cudaPeekAtLastError() * 1000 + cudaGetLastError() + cudaGetLastError();
}
// (threadIdx.x, 0 here, gives the kernel a register operand to check on every platform)
__global__ void noop(int* n) { atomicAdd(n, 1 + int(threadIdx.x)); }
__global__ void many(int* n, int* err, int count) {
  for (int i = 0; i < count; ++i) {
    noop<<<1, 1>>>(n);
    err[i] = cudaGetLastError();
  }
}

int main() {
  // parent / child
  int* o;
  CHECK(cudaMalloc(&o, 128 * sizeof(int)));
  CHECK(cudaMemset(o, 0xff, 128 * sizeof(int)));
  parent<<<4, 32>>>(o);
  CHECK(cudaGetLastError());
  int h[128];
  CHECK(cudaMemcpy(h, o, sizeof h, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 128; ++i)
    if (h[i] != i) {
      std::printf("FAIL: parent/child: o[%d] = %d\n", i, h[i]);
      return 1;
    }

  // explicit API: overwrites 64..95 with the same values after a marker
  CHECK(cudaMemset(o + 64, 0, 32 * sizeof(int)));
  explicit_parent<<<1, 32>>>(o);
  CHECK(cudaMemcpy(h, o, sizeof h, cudaMemcpyDeviceToHost));
  for (int i = 64; i < 96; ++i)
    if (h[i] != i) {
      std::printf("FAIL: cudaLaunchDevice: o[%d] = %d\n", i, h[i]);
      return 1;
    }

  // quicksort
  const int n = 1000;
  int* data = static_cast<int*>(std::malloc(n * sizeof(int)));
  unsigned x = 12345;
  for (int i = 0; i < n; ++i) {
    x = x * 1103515245u + 12345u;
    data[i] = int((x >> 8) % 5000);
  }
  int *dd, *dmax;
  CHECK(cudaMalloc(&dd, n * sizeof(int)));
  CHECK(cudaMalloc(&dmax, sizeof(int)));
  CHECK(cudaMemcpy(dd, data, n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dmax, 0, sizeof(int)));
  quicksort<<<1, 1>>>(dd, 0, n - 1, 0, dmax);
  CHECK(cudaGetLastError());
  int* sorted = static_cast<int*>(std::malloc(n * sizeof(int)));
  int max_depth = 0;
  CHECK(cudaMemcpy(sorted, dd, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&max_depth, dmax, sizeof(int), cudaMemcpyDeviceToHost));
  long long s0 = 0, s1 = 0;
  for (int i = 0; i < n; ++i) {
    s0 += data[i];
    s1 += sorted[i];
    if (i && sorted[i - 1] > sorted[i]) {
      std::printf("FAIL: quicksort: not sorted at %d (%d > %d)\n", i, sorted[i - 1], sorted[i]);
      return 1;
    }
  }
  if (s0 != s1 || max_depth != kSortDepth) {
    std::printf("FAIL: quicksort: sums %lld / %lld, depth %d (expected %d)\n", s0, s1, max_depth,
                kSortDepth);
    return 1;
  }

  // tail launch
  int *v, *out;
  CHECK(cudaMalloc(&v, 256 * sizeof(int)));
  CHECK(cudaMalloc(&out, sizeof(int)));
  CHECK(cudaMemset(v, 0, 256 * sizeof(int)));
  tail_parent<<<1, 32>>>(v, out);
  int total = 0;
  CHECK(cudaMemcpy(&total, out, sizeof(int), cudaMemcpyDeviceToHost));
  if (total != 256 * 257 / 2) {
    std::printf("FAIL: tail launch: sum %d (expected %d)\n", total, 256 * 257 / 2);
    return 1;
  }

  // nesting depth: grids at depths 0..24 run; the one at 24 gets cudaErrorLaunchMaxDepthExceeded
  int *ran, *err;
  CHECK(cudaMalloc(&ran, 32 * sizeof(int)));
  CHECK(cudaMalloc(&err, 32 * sizeof(int)));
  CHECK(cudaMemset(ran, 0, 32 * sizeof(int)));
  CHECK(cudaMemset(err, 0, 32 * sizeof(int)));
  chain<<<1, 1>>>(0, ran, err);
  CHECK(cudaGetLastError());
  int hr[32], he[32];
  CHECK(cudaMemcpy(hr, ran, sizeof hr, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(he, err, sizeof he, cudaMemcpyDeviceToHost));
  for (int d = 0; d < 32; ++d) {
    const int want_ran = d <= 24;
    // peek and the first get return the error, the second get none
    const int want_err = d == 24 ? cudaErrorLaunchMaxDepthExceeded * 1001 : 0;
    if (hr[d] != want_ran || he[d] != want_err) {
      std::printf("FAIL: depth %d: ran %d, error %d (expected %d, %d)\n", d, hr[d], he[d],
                  want_ran, want_err);
      return 1;
    }
  }

  // pending launches: a limit of 4, six launches
  CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, 4));
  size_t limit = 0;
  CHECK(cudaDeviceGetLimit(&limit, cudaLimitDevRuntimePendingLaunchCount));
  int* cnt;
  CHECK(cudaMalloc(&cnt, sizeof(int)));
  CHECK(cudaMemset(cnt, 0, sizeof(int)));
  CHECK(cudaMemset(err, 0, 32 * sizeof(int)));
  many<<<1, 1>>>(cnt, err, 6);
  CHECK(cudaGetLastError());
  int count = 0;
  CHECK(cudaMemcpy(&count, cnt, sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(he, err, sizeof he, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 6; ++i)
    if (he[i] != (i < 4 ? 0 : int(cudaErrorLaunchPendingCountExceeded))) {
      std::printf("FAIL: pending launch %d: error %d\n", i, he[i]);
      return 1;
    }
  if (limit != 4 || count != 4) {
    std::printf("FAIL: pending limit %zu, %d children ran (expected 4, 4)\n", limit, count);
    return 1;
  }
  std::printf("PASS\n");
  return 0;
}
