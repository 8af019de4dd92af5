// A host program as an architect brings one: a global constructor allocating before main, a
// Jacobi solver copying its residual back every iteration, symbols written and read at
// offsets, templates launched with <<<>>> and cudaLaunchKernel, 64-bit and double atomics, three
// streams joined by events with host functions and callbacks polled by cudaEventQuery, four
// host threads each on its own stream, mapped memory and pointer attributes, 2D and 3D
// memsets of sub-regions; and the runtime's answers CUDA gives: a launch beyond a per-dimension
// limit (cudaErrorInvalidConfiguration), more dynamic shared memory than the kernel's
// cudaFuncAttributeMaxDynamicSharedMemorySize (cudaErrorInvalidValue; 48 KB less the static
// bytes until cudaFuncSetAttribute raises it, sharedMemPerBlock 48 KB whatever the SM has;
// cudaOccupancyAvailableDynamicSMemPerBlock), the device's memory pool
// (cudaDeviceGetMemPool/SetMemPool, its used-memory attributes), the errors of an unknown
// attribute, an unrecorded event's elapsed time and a double cudaFree, cudaMalloc of 0 bytes,
// symbol copies from device memory and the wrong way round, device management calls
// (cudaInitDevice, cudaDeviceGetByPCIBusId, cudaDeviceGetCacheConfig...), every error code's name
// and text. It exits without cudaDeviceReset or freeing; a global destructor launches, another
// one after the runtime's end gets cudaErrorCudartUnloading.
#include "check.h"

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

__constant__ float ctab[64];
__device__ int dsym[32];
__device__ unsigned long long dmax;
__device__ double dsum;

__global__ void fill(int* p, int n, int v);

// Constructed before the runtime starts, so destroyed after it shut down: CUDA answers its
// calls with cudaErrorCudartUnloading (gpurf used to run them on a torn-down simulation).
struct Late {
  int** p = nullptr;
  ~Late() {
    const cudaError_t e = cudaFree(*p);
    if (e != cudaErrorCudartUnloading) {
      std::printf("cudaFree in a destructor after the runtime's end: %s\n", cudaGetErrorName(e));
      std::fflush(stdout);
      std::_Exit(3);
    }
  }
};
static Late late;
// CUDA before main: the runtime starts inside a global constructor, so this object's destructor
// runs while the runtime lives and may launch (gpurf's <<<>>> stack was a thread_local vector,
// destroyed at exit before the global destructors: a heap corruption).
struct Early {
  int* p = nullptr;
  cudaError_t e;
  Early() {
    e = cudaMalloc(&p, 1024);
    if (e == cudaSuccess) e = cudaMemset(p, 0, 1024);
    late.p = &p;
  }
  ~Early() {
    int h[256] = {};
    fill<<<1, 256>>>(p, 256, 40);
    const cudaError_t e = cudaMemcpy(h, p, sizeof h, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess || h[255] != 295) {
      std::printf("a launch in a global destructor: %s, %d\n", cudaGetErrorName(e), h[255]);
      std::fflush(stdout);
      std::_Exit(3);
    }
  }
};
static Early early;

__global__ void jacobi(const float* a, float* b, int n, float* res) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1) {
    float v = 0.5f * (a[i - 1] + a[i + 1]);
    b[i] = v;
    atomicAdd(res, fabsf(v - a[i]));
  }
}
__global__ void read_symbols(int* out, int n) {
  int i = threadIdx.x;
  if (i < n) out[i] = dsym[i] + int(ctab[i]);
}
__global__ void atomics64(const unsigned long long* v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    atomicMax(&dmax, v[i]);
    atomicAdd(&dsum, double(v[i]) * 0.5);
  }
}
__global__ void fill(int* p, int n, int v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = v + i;
}
template <typename T> __global__ void axpy(T a, const T* x, T* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
extern __shared__ float dyn[];
__global__ void dynamic_sum(float* out, int n) {
  for (int i = threadIdx.x; i < n; i += blockDim.x) dyn[i] = float(i % 7);
  __syncthreads();
  if (threadIdx.x == 0) {
    float s = 0;
    for (int i = 0; i < n; ++i) s += dyn[i];
    out[0] = s;
  }
}
// 1 KB of static shared memory beside the dynamic bytes.
__global__ void static_and_dynamic(float* out) {
  __shared__ float fixed[256];
  fixed[threadIdx.x] = dyn[0] = 1.0f;
  __syncthreads();
  out[0] = fixed[0];
}

static std::atomic<int> host_calls{0};
void CUDART_CB host_fn(void* d) { host_calls += *static_cast<int*>(d); }
void CUDART_CB callback(cudaStream_t, cudaError_t st, void* d) {
  if (st == cudaSuccess) host_calls += *static_cast<int*>(d);
}

int main() {
  int bad = 0;
  if (early.e != cudaSuccess)
    std::printf("global constructor: %s\n", cudaGetErrorName(early.e)), ++bad;
  int count = 0;
  CHECK(cudaGetDeviceCount(&count));
  CHECK(cudaSetDevice(0));
  if (count < 1 || cudaSetDevice(count) != cudaErrorInvalidDevice)
    std::printf("cudaSetDevice(%d) accepted\n", count), ++bad;
  cudaGetLastError();
  size_t free_bytes = 0, total = 0;
  CHECK(cudaMemGetInfo(&free_bytes, &total));
  if (free_bytes == 0 || free_bytes > total)
    std::printf("cudaMemGetInfo %zu of %zu\n", free_bytes, total), ++bad;
  {
    // Free memory falls by what the program allocates.
    void* big;
    size_t free_after = 0;
    CHECK(cudaMalloc(&big, 64 << 20));
    CHECK(cudaMemGetInfo(&free_after, &total));
    CHECK(cudaFree(big));
    if (free_after + (64 << 20) > free_bytes)
      std::printf("cudaMemGetInfo: %zu free, %zu after allocating 64 MB\n", free_bytes, free_after),
          ++bad;
  }
  int max_threads, smem_block, optin, v;
  CHECK(cudaDeviceGetAttribute(&max_threads, cudaDevAttrMaxThreadsPerBlock, 0));
  CHECK(cudaDeviceGetAttribute(&smem_block, cudaDevAttrMaxSharedMemoryPerBlock, 0));
  CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
  CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrUnifiedAddressing, 0));
  // Without the opt-in a block gets at most 48 KB, whatever the SM has.
  if (v != 1 || smem_block != (optin < 49152 ? optin : 49152))
    std::printf("sharedMemPerBlock %d (opt-in %d), unified addressing %d\n", smem_block, optin, v),
        ++bad;

  // Launches beyond a limit: cudaErrorInvalidConfiguration, reported twice by Peek then Get.
  int* d;
  CHECK(cudaMalloc(&d, 4096 * sizeof(int)));
  fill<<<1, max_threads + 1>>>(d, 10, 0);
  const cudaError_t e1 = cudaPeekAtLastError(), e2 = cudaGetLastError(), e3 = cudaGetLastError();
  if (e1 != cudaErrorInvalidConfiguration || e2 != e1 || e3 != cudaSuccess ||
      std::strcmp(cudaGetErrorString(e1), "invalid configuration argument"))
    std::printf("block of %d: %s, %s, %s\n", max_threads + 1, cudaGetErrorName(e1),
                cudaGetErrorName(e2), cudaGetErrorName(e3)),
        ++bad;
  fill<<<dim3(1, 70000), 32>>>(d, 10, 0);
  const cudaError_t grid_y = cudaGetLastError();
  fill<<<1, dim3(1, 1, 128)>>>(d, 10, 0);
  const cudaError_t block_z = cudaGetLastError();
  fill<<<1, 32, 1 << 20>>>(d, 10, 0);
  const cudaError_t too_shared = cudaGetLastError();
  if (grid_y != cudaErrorInvalidConfiguration || block_z != cudaErrorInvalidConfiguration ||
      too_shared != cudaErrorInvalidValue)
    std::printf("grid (1,70000): %s, block (1,1,128): %s, 1 MB of shared memory: %s\n",
                cudaGetErrorName(grid_y), cudaGetErrorName(block_z), cudaGetErrorName(too_shared)),
        ++bad;
  CHECK(cudaDeviceSynchronize());

  // Dynamic shared memory: 48 KB less the static bytes by default; above it once raised.
  {
    float* out;
    CHECK(cudaMalloc(&out, sizeof(float)));
    cudaFuncAttributes fa, fb;
    CHECK(cudaFuncGetAttributes(&fa, dynamic_sum));
    CHECK(cudaFuncGetAttributes(&fb, static_and_dynamic));
    if (fa.maxDynamicSharedSizeBytes != smem_block || fb.sharedSizeBytes != 1024 ||
        fb.maxDynamicSharedSizeBytes != smem_block - 1024)
      std::printf("maxDynamicSharedSizeBytes %d and %d (static %zu)\n",
                  fa.maxDynamicSharedSizeBytes, fb.maxDynamicSharedSizeBytes, fb.sharedSizeBytes),
          ++bad;
    static_and_dynamic<<<1, 256, smem_block - 1024 + 4>>>(out);
    if (cudaGetLastError() != cudaErrorInvalidValue)
      std::printf("static + dynamic above 48 KB accepted\n"), ++bad;
    static_and_dynamic<<<1, 256, smem_block - 1024>>>(out);
    CHECK(cudaGetLastError());
    int bytes = smem_block;
    if (optin > smem_block) {
      bytes = optin;
      dynamic_sum<<<1, 256, bytes>>>(out, bytes / 4);
      if (cudaGetLastError() != cudaErrorInvalidValue)
        std::printf("%d dynamic bytes without the attribute accepted\n", bytes), ++bad;
      if (cudaFuncSetAttribute(dynamic_sum, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               optin + 1) != cudaErrorInvalidValue)
        std::printf("attribute above the opt-in accepted\n"), ++bad;
      cudaGetLastError();
      CHECK(cudaFuncSetAttribute(dynamic_sum, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
      CHECK(cudaFuncGetAttributes(&fa, dynamic_sum));
      if (fa.maxDynamicSharedSizeBytes != bytes)
        std::printf("attribute reads %d\n", fa.maxDynamicSharedSizeBytes), ++bad;
    }
    dynamic_sum<<<1, 256, bytes>>>(out, bytes / 4);
    CHECK(cudaGetLastError());
    float s;
    CHECK(cudaMemcpy(&s, out, sizeof s, cudaMemcpyDeviceToHost));
    float want = 0;
    for (int i = 0; i < bytes / 4; ++i) want += float(i % 7);
    if (s != want) std::printf("dynamic_sum of %d bytes: %g, expected %g\n", bytes, s, want), ++bad;
    CHECK(cudaFree(out));
  }

  // Symbols at offsets.
  float ct[64];
  for (int i = 0; i < 64; ++i) ct[i] = float(i * 2);
  CHECK(cudaMemcpyToSymbol(ctab, ct, sizeof ct));
  const float four[4] = {100, 101, 102, 103};
  CHECK(cudaMemcpyToSymbol(ctab, four, sizeof four, 8 * sizeof(float)));
  int ds[32];
  for (int i = 0; i < 32; ++i) ds[i] = 1000 * i;
  CHECK(cudaMemcpyToSymbol(dsym, ds, sizeof ds));
  const int sevens[2] = {7, 7};
  CHECK(cudaMemcpyToSymbol(dsym, sevens, sizeof sevens, 30 * sizeof(int), cudaMemcpyHostToDevice));
  if (cudaMemcpyToSymbol(dsym, sevens, sizeof sevens, 31 * sizeof(int)) != cudaErrorInvalidValue)
    std::printf("a copy past the symbol accepted\n"), ++bad;
  cudaGetLastError();
  // From device memory (cudaMemcpyDeviceToDevice); a kind the wrong way round is refused.
  int* staged;
  CHECK(cudaMalloc(&staged, sizeof(int)));
  CHECK(cudaMemcpy(staged, &ds[5], sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpyToSymbol(dsym, staged, sizeof(int), 5 * sizeof(int), cudaMemcpyDeviceToDevice));
  const cudaError_t to_host = cudaMemcpyToSymbol(dsym, ds, sizeof(int), 0, cudaMemcpyDeviceToHost),
                    from_host =
                        cudaMemcpyFromSymbol(ds, dsym, sizeof(int), 0, cudaMemcpyHostToDevice);
  if (to_host != cudaErrorInvalidMemcpyDirection || from_host != cudaErrorInvalidMemcpyDirection)
    std::printf("symbol copies the wrong way: %s, %s\n", cudaGetErrorName(to_host),
                cudaGetErrorName(from_host)),
        ++bad;
  cudaGetLastError();
  int* dsym_at;
  size_t dsym_bytes;
  CHECK(cudaGetSymbolAddress((void**)&dsym_at, dsym));
  CHECK(cudaGetSymbolSize(&dsym_bytes, dsym));
  if (dsym_bytes != sizeof ds) std::printf("cudaGetSymbolSize %zu\n", dsym_bytes), ++bad;
  CHECK(cudaMemset(dsym_at + 1, 0, sizeof(int)));
  read_symbols<<<1, 32>>>(d, 32);
  int got[32];
  CHECK(cudaMemcpy(got, d, sizeof got, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 32; ++i) {
    const int s = i == 1 ? 0 : (i >= 30 ? 7 : 1000 * i),
              c = (i >= 8 && i < 12) ? 100 + i - 8 : 2 * i;
    if (got[i] != s + c) {
      std::printf("symbols [%d]: %d, expected %d\n", i, got[i], s + c), ++bad;
      break;
    }
  }
  int back[3];
  CHECK(cudaMemcpyFromSymbol(back, dsym, sizeof back, 29 * sizeof(int)));
  if (back[0] != 29000 || back[1] != 7 || back[2] != 7)
    std::printf("cudaMemcpyFromSymbol at an offset: %d %d %d\n", back[0], back[1], back[2]), ++bad;

  // Jacobi: the residual copied back after every iteration decides when to stop.
  {
    const int n = 256;
    std::vector<float> h(n, 0.f), ha, hb;
    h[0] = h[n - 1] = 1;
    ha = hb = h;
    float *a, *b, *res, r = 1;
    CHECK(cudaMalloc(&a, n * sizeof(float)));
    CHECK(cudaMalloc(&b, n * sizeof(float)));
    CHECK(cudaMalloc(&res, sizeof(float)));
    CHECK(cudaMemcpy(a, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(b, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    int it = 0;
    for (; it < 150 && r > 0.1f; ++it) {
      CHECK(cudaMemset(res, 0, sizeof(float)));
      jacobi<<<(n + 127) / 128, 128>>>(a, b, n, res);
      CHECK(cudaMemcpy(&r, res, sizeof r, cudaMemcpyDeviceToHost));
      std::swap(a, b);
      for (int i = 1; i < n - 1; ++i) hb[i] = 0.5f * (ha[i - 1] + ha[i + 1]);
      std::swap(ha, hb);
    }
    CHECK(cudaMemcpy(h.data(), a, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i)
      if (h[i] != ha[i]) {
        std::printf("jacobi [%d]: %g, expected %g\n", i, h[i], ha[i]), ++bad;
        break;
      }
    std::printf("jacobi: %d iterations, residual %g\n", it, r);
  }

  // 64-bit integer and double atomics on __device__ variables.
  {
    std::vector<unsigned long long> hv(1000);
    double want = 0;
    for (int i = 0; i < 1000; ++i)
      hv[i] = (unsigned long long)((i * 37) % 1000) * 0x100000001ull, want += double(hv[i]) * 0.5;
    unsigned long long* dv;
    CHECK(cudaMalloc(&dv, hv.size() * 8));
    CHECK(cudaMemcpy(dv, hv.data(), hv.size() * 8, cudaMemcpyHostToDevice));
    atomics64<<<8, 128>>>(dv, 1000);
    unsigned long long mx;
    double sum;
    CHECK(cudaMemcpyFromSymbol(&mx, dmax, sizeof mx));
    CHECK(cudaMemcpyFromSymbol(&sum, dsum, sizeof sum));
    if (mx != 999 * 0x100000001ull || std::fabs(sum - want) > 1e-9 * want)
      std::printf("atomics64: %llx, %.17g (expected %.17g)\n", mx, sum, want), ++bad;
  }

  // One template for double and int, by <<<>>> and cudaLaunchKernel with its argument array.
  {
    double *x, *y;
    CHECK(cudaMalloc(&x, 100 * sizeof(double)));
    CHECK(cudaMalloc(&y, 100 * sizeof(double)));
    std::vector<double> hx(100, 2.0), hy(100, 1.0);
    CHECK(cudaMemcpy(x, hx.data(), 800, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(y, hy.data(), 800, cudaMemcpyHostToDevice));
    axpy<double><<<1, 128>>>(3.0, x, y, 100);
    double half = 0.5;
    int n = 100;
    void* args[] = {&half, &x, &y, &n};
    CHECK(cudaLaunchKernel((const void*)axpy<double>, dim3(1), dim3(128), args, 0, 0));
    CHECK(cudaMemcpy(hy.data(), y, 800, cudaMemcpyDeviceToHost));
    int* xi = reinterpret_cast<int*>(x);
    CHECK(cudaMemset(x, 0, 800));
    CHECK(cudaMemset(y, 0, 800));
    fill<<<1, 32>>>(xi, 10, 1);
    axpy<int><<<1, 32>>>(3, xi, reinterpret_cast<int*>(y), 10);
    int hi[10];
    CHECK(cudaMemcpy(hi, y, sizeof hi, cudaMemcpyDeviceToHost));
    if (hy[5] != 8.0 || hi[9] != 30)
      std::printf("axpy: %g (expected 8), %d (expected 30)\n", hy[5], hi[9]), ++bad;
    CHECK(cudaFree(x));
    CHECK(cudaFree(y));
  }

  // Occupancy.
  {
    int blocks = 0, grid, block;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, fill, 128, 0));
    CHECK(cudaOccupancyMaxPotentialBlockSize(&grid, &block, fill, 0, 0));
    // The dynamic shared memory two blocks of 128 may each have: two fit, with a byte more not
    // (unless the kernel's limit is what stops it).
    size_t avail = 0;
    int two = 0, more = 0;
    CHECK(cudaOccupancyAvailableDynamicSMemPerBlock(&avail, dynamic_sum, 2, 128));
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&two, dynamic_sum, 128, avail));
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&more, dynamic_sum, 128, avail + 1));
    cudaFuncAttributes fa;
    CHECK(cudaFuncGetAttributes(&fa, dynamic_sum));
    if (avail == 0 || two < 2 || (more >= 2 && avail < size_t(fa.maxDynamicSharedSizeBytes)))
      std::printf(
          "available dynamic shared memory for 2 blocks: %zu (%d blocks, %d with a byte more)\n",
          avail, two, more),
          ++bad;
    if (blocks < 1 || block < 32 || block > max_threads || grid < 1)
      std::printf("occupancy %d, grid %d block %d\n", blocks, grid, block), ++bad;
  }

  // Three streams joined by events; host functions and callbacks; polling.
  {
    cudaStream_t s[3];
    cudaEvent_t ev[3], t0, t1;
    for (auto& x : s) CHECK(cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking));
    for (auto& x : ev) CHECK(cudaEventCreateWithFlags(&x, cudaEventDisableTiming));
    CHECK(cudaEventCreate(&t0));
    CHECK(cudaEventCreate(&t1));
    int *hp, *dd;
    CHECK(cudaMallocHost(&hp, 3 * 1024 * sizeof(int)));
    CHECK(cudaMalloc(&dd, 3 * 1024 * sizeof(int)));
    static int inc[3] = {1, 10, 100};
    CHECK(cudaEventRecord(t0, s[0]));
    for (int k = 0; k < 3; ++k) {
      fill<<<8, 128, 0, s[k]>>>(dd + k * 1024, 1024, k * 5000);
      CHECK(cudaEventRecord(ev[k], s[k]));
      CHECK(cudaLaunchHostFunc(s[k], host_fn, &inc[k]));
      CHECK(cudaStreamAddCallback(s[k], callback, &inc[k], 0));
    }
    CHECK(cudaStreamWaitEvent(s[0], ev[1], 0));
    CHECK(cudaStreamWaitEvent(s[0], ev[2], 0));
    CHECK(cudaMemcpyAsync(hp, dd, 3 * 1024 * sizeof(int), cudaMemcpyDeviceToHost, s[0]));
    CHECK(cudaEventRecord(t1, s[0]));
    while (cudaEventQuery(t1) == cudaErrorNotReady) {
    }
    while (cudaStreamQuery(s[0]) == cudaErrorNotReady) {
    }
    CHECK(cudaEventQuery(t1));
    float ms = -1;
    CHECK(cudaEventElapsedTime(&ms, t0, t1));
    if (!(ms >= 0) || cudaEventElapsedTime(&ms, ev[0], t1) != cudaErrorInvalidResourceHandle)
      std::printf("elapsed time %g or without timing\n", ms), ++bad;
    cudaGetLastError();
    CHECK(cudaDeviceSynchronize());
    for (int i = 0; i < 3 * 1024; ++i)
      if (hp[i] != i / 1024 * 5000 + i % 1024) {
        std::printf("streams [%d]: %d\n", i, hp[i]), ++bad;
        break;
      }
    if (host_calls != 222)
      std::printf("host functions and callbacks: %d\n", host_calls.load()), ++bad;
    for (auto& x : s) CHECK(cudaStreamDestroy(x));
    CHECK(cudaFreeHost(hp));
    CHECK(cudaFree(dd));
  }

  // Memory pools: the device's current pool, one of the program's own, their attributes.
  {
    cudaMemPool_t def, cur, mine;
    CHECK(cudaDeviceGetDefaultMemPool(&def, 0));
    CHECK(cudaDeviceGetMemPool(&cur, 0));
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
    CHECK(cudaMemPoolCreate(&mine, &props));
    CHECK(cudaDeviceSetMemPool(0, mine));
    cudaMemPool_t now;
    CHECK(cudaDeviceGetMemPool(&now, 0));
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    int* p;
    CHECK(cudaMallocAsync((void**)&p, 4096, s)); // from the current pool: mine
    fill<<<4, 256, 0, s>>>(p, 1024, 3);
    int hh[1024];
    CHECK(cudaMemcpyAsync(hh, p, sizeof hh, cudaMemcpyDeviceToHost, s));
    uint64_t used = 0, high = 0, def_used = 1, threshold = UINT64_MAX, read = 0;
    CHECK(cudaMemPoolGetAttribute(mine, cudaMemPoolAttrUsedMemCurrent, &used));
    CHECK(cudaMemPoolGetAttribute(def, cudaMemPoolAttrUsedMemCurrent, &def_used));
    CHECK(cudaFreeAsync(p, s));
    CHECK(cudaStreamSynchronize(s));
    uint64_t after = 1;
    CHECK(cudaMemPoolGetAttribute(mine, cudaMemPoolAttrUsedMemCurrent, &after));
    CHECK(cudaMemPoolGetAttribute(mine, cudaMemPoolAttrUsedMemHigh, &high));
    CHECK(cudaMemPoolSetAttribute(def, cudaMemPoolAttrReleaseThreshold, &threshold));
    CHECK(cudaMemPoolGetAttribute(def, cudaMemPoolAttrReleaseThreshold, &read));
    int reuse = 0;
    CHECK(cudaMemPoolGetAttribute(def, cudaMemPoolReuseAllowOpportunistic, &reuse));
    if (cur != def || now != mine || used != 4096 || def_used != 0 || after != 0 || high != 4096 ||
        read != threshold || reuse != 1 || hh[1023] != 1026)
      std::printf("pools: current %s, set %s, used %llu/%llu/%llu high %llu, threshold %llu, reuse "
                  "%d, value %d\n",
                  cur == def ? "default" : "other", now == mine ? "mine" : "other",
                  (unsigned long long)used, (unsigned long long)def_used, (unsigned long long)after,
                  (unsigned long long)high, (unsigned long long)read, reuse, hh[1023]),
          ++bad;
    CHECK(cudaDeviceSetMemPool(0, def));
    CHECK(cudaMemPoolDestroy(mine));
    CHECK(cudaStreamDestroy(s));
  }

  // Mapped, portable host memory; pointer attributes of host, device and plain memory.
  {
    int *hm, *dm, plain;
    CHECK(cudaHostAlloc((void**)&hm, 4096, cudaHostAllocMapped | cudaHostAllocPortable));
    CHECK(cudaHostGetDevicePointer((void**)&dm, hm, 0));
    fill<<<4, 256>>>(dm, 1024, 9);
    CHECK(cudaDeviceSynchronize());
    if (hm[100] != 109) std::printf("mapped memory: %d\n", hm[100]), ++bad;
    cudaPointerAttributes pa;
    CHECK(cudaPointerGetAttributes(&pa, hm));
    if (pa.type != cudaMemoryTypeHost || pa.devicePointer != dm)
      std::printf("attributes of mapped memory: type %d\n", pa.type), ++bad;
    CHECK(cudaPointerGetAttributes(&pa, d + 5));
    if (pa.type != cudaMemoryTypeDevice || pa.devicePointer != d + 5)
      std::printf("attributes of device memory: type %d\n", pa.type), ++bad;
    CHECK(cudaPointerGetAttributes(&pa, &plain));
    if (pa.type != cudaMemoryTypeUnregistered)
      std::printf("attributes of plain memory: type %d\n", pa.type), ++bad;
    unsigned flags;
    CHECK(cudaHostGetFlags(&flags, hm));
    if (!(flags & cudaHostAllocMapped)) std::printf("cudaHostGetFlags %u\n", flags), ++bad;
    CHECK(cudaFreeHost(hm));
  }

  // 2D and 3D memsets of a whole allocation, then of a sub-region.
  {
    size_t pitch;
    char* p2;
    CHECK(cudaMallocPitch((void**)&p2, &pitch, 100, 10));
    CHECK(cudaMemset2D(p2, pitch, 0x11, pitch, 10));
    CHECK(cudaMemset2D(p2 + 3, pitch, 0x22, 50, 5));
    std::vector<char> h2(100 * 10);
    CHECK(cudaMemcpy2D(h2.data(), 100, p2, pitch, 100, 10, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 1000; ++i) {
      const int x = i % 100, y = i / 100;
      if (h2[i] != ((y < 5 && x >= 3 && x < 53) ? 0x22 : 0x11)) {
        std::printf("memset2D (%d,%d): %d\n", x, y, h2[i]), ++bad;
        break;
      }
    }
    const cudaExtent ex = make_cudaExtent(64, 4, 3);
    cudaPitchedPtr pp;
    CHECK(cudaMalloc3D(&pp, ex));
    CHECK(cudaMemset3D(pp, 0x5a, ex));
    CHECK(cudaMemset3D(make_cudaPitchedPtr((char*)pp.ptr + pp.pitch * 4 + 8, pp.pitch, 64, 4), 0x01,
                       make_cudaExtent(16, 2, 2)));
    std::vector<unsigned char> h3(64 * 4 * 3);
    cudaMemcpy3DParms cp = {};
    cp.srcPtr = pp;
    cp.dstPtr = make_cudaPitchedPtr(h3.data(), 64, 64, 4);
    cp.extent = ex;
    cp.kind = cudaMemcpyDeviceToHost;
    CHECK(cudaMemcpy3D(&cp));
    for (int i = 0; i < 64 * 4 * 3; ++i) {
      const int x = i % 64, y = i / 64 % 4, z = i / 256;
      if (h3[i] != ((z >= 1 && y < 2 && x >= 8 && x < 24) ? 1 : 0x5a)) {
        std::printf("memset3D (%d,%d,%d): %d\n", x, y, z, h3[i]), ++bad;
        break;
      }
    }
  }

  // Host threads, each launching on its own stream.
  {
    std::vector<std::thread> threads;
    std::atomic<int> wrong{0};
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([t, &wrong] {
        cudaStream_t s;
        int *p, h[1024];
        if (cudaStreamCreate(&s) || cudaMalloc(&p, sizeof h)) {
          ++wrong;
          return;
        }
        for (int r = 0; r < 5; ++r) {
          fill<<<4, 256, 0, s>>>(p, 1024, t * 100 + r);
          if (cudaMemcpyAsync(h, p, sizeof h, cudaMemcpyDeviceToHost, s) ||
              cudaStreamSynchronize(s) || h[7] != t * 100 + r + 7)
            ++wrong;
        }
        if (cudaFree(p) || cudaStreamDestroy(s)) ++wrong;
      });
    for (auto& t : threads) t.join();
    if (wrong) std::printf("host threads: %d wrong\n", wrong.load()), ++bad;
  }

  // Errors of the calls' arguments: an attribute outside cudaDeviceAttr, the elapsed time of
  // an event never recorded, a pointer freed twice.
  {
    int value;
    cudaEvent_t fresh, done;
    CHECK(cudaEventCreate(&fresh));
    CHECK(cudaEventCreate(&done));
    CHECK(cudaEventRecord(done, 0));
    float ms;
    int *twice, *none = &value;
    CHECK(cudaMalloc(&none, 0)); // CUDA: a null pointer
    if (none) std::printf("cudaMalloc of 0 bytes: %p\n", (void*)none), ++bad;
    CHECK(cudaFree(none));
    CHECK(cudaMalloc(&twice, 64));
    CHECK(cudaFree(twice));
    const cudaError_t attr = cudaDeviceGetAttribute(&value, cudaDeviceAttr(9999), 0),
                      elapsed = cudaEventElapsedTime(&ms, fresh, done), freed = cudaFree(twice);
    if (attr != cudaErrorInvalidValue || elapsed != cudaErrorInvalidResourceHandle ||
        freed != cudaErrorInvalidValue)
      std::printf(
          "attribute 9999: %s, elapsed time of an unrecorded event: %s, second cudaFree: %s\n",
          cudaGetErrorName(attr), cudaGetErrorName(elapsed), cudaGetErrorName(freed)),
          ++bad;
    cudaGetLastError();
  }

  // Device management calls a harness makes (each cudaErrorNotSupported before).
  {
    char bus[32];
    int by_bus = -1, valid[1] = {0};
    cudaFuncCache cache = cudaFuncCachePreferL1;
    cudaStream_t a, b;
    CHECK(cudaInitDevice(0, 0, 0));
    CHECK(cudaDeviceGetPCIBusId(bus, sizeof bus, 0));
    CHECK(cudaDeviceGetByPCIBusId(&by_bus, bus));
    CHECK(cudaSetValidDevices(valid, 1));
    CHECK(cudaDeviceGetCacheConfig(&cache));
    CHECK(cudaStreamCreate(&a));
    CHECK(cudaStreamCreate(&b));
    CHECK(cudaStreamCopyAttributes(b, a));
    const cudaError_t disable = cudaDeviceDisablePeerAccess(0);
    if (by_bus != 0 || cache != cudaFuncCachePreferNone || disable != cudaErrorPeerAccessNotEnabled)
      std::printf("device %d by bus id %s, cache config %d, disabling peer access: %s\n", by_bus,
                  bus, int(cache), cudaGetErrorName(disable)),
          ++bad;
    cudaGetLastError();
  }

  // Every code's name and text as CUDA's runtime gives them (a few of the 134).
  const struct {
    int code;
    const char *name, *text;
  } names[] = {{65, "cudaErrorLaunchMaxDepthExceeded",
                "launch would exceed maximum depth of nested launches"},
               {69, "cudaErrorLaunchPendingCountExceeded",
                "launch failed because launch would exceed cudaLimitDevRuntimePendingLaunchCount"},
               {127, "cudaErrorStartupFailure", "startup failure in cuda runtime"},
               {201, "cudaErrorDeviceUninitialized", "invalid device context"},
               {719, "cudaErrorLaunchFailure", "unspecified launch failure"},
               {4242, "unrecognized error code", "unrecognized error code"}};
  for (const auto& n : names)
    if (std::strcmp(cudaGetErrorName(cudaError_t(n.code)), n.name) ||
        std::strcmp(cudaGetErrorString(cudaError_t(n.code)), n.text))
      std::printf("error %d: %s '%s'\n", n.code, cudaGetErrorName(cudaError_t(n.code)),
                  cudaGetErrorString(cudaError_t(n.code))),
          ++bad;
  return finish(bad); // no cudaDeviceReset, nothing freed
}
