// What harnesses ask of the runtime before and around their launches: cudaFuncGetAttributes
// (a __launch_bounds__ kernel's maxThreadsPerBlock, static shared and .local bytes, ptxas's
// register count under every register allocator, the PTX version), the block size the
// occupancy API proposes for a __launch_bounds__ kernel and a block beyond the bounds
// (cudaErrorLaunchOutOfResources, not sticky), cudaLaunchKernelEx's launch-completion and
// programmatic events, stream-ordered allocation (cudaMallocAsync, memory pools), stream
// priorities and callbacks, event and stream queries, the driver API through
// cudaGetDriverEntryPoint and cudaGetFuncBySymbol, cudaFuncGetName and cudaFuncGetParamInfo,
// cudaGetKernel, stream ids, devices and attributes, a pool of the program's own,
// 2D async copies and memsets, pointer attributes, managed memory prefetch and advice, a
// same-device peer copy.
#include "check.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

__global__ void __launch_bounds__(128, 4) fill(int* p, int n, int v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += v + i;
}
// A per-thread stack indexed at run time: a .local array (localSizeBytes).
__global__ void local_stack(const int* in, int* out, int n) {
  int st[40];
  int t = threadIdx.x, sp = 0;
  for (int i = 0; i < n; ++i) st[sp++] = in[(t + i) % n];
  int s = 0;
  while (sp) s = s * 3 + st[--sp];
  out[t] = s;
}
// Many live values: 64 accumulators (under ptx_virtual gpurf's count was the PTX's ~1,000
// virtual registers).
__global__ void many_live(const float* in, float* out) {
  float acc[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) acc[i] = in[threadIdx.x + i];
#pragma unroll
  for (int r = 0; r < 8; ++r)
#pragma unroll
    for (int i = 0; i < 64; ++i) acc[i] = fmaf(acc[i], acc[(i + r + 1) % 64], 0.5f);
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < 64; ++i) s += acc[i];
  out[threadIdx.x] = s;
}
__global__ void sm_user(float* p) {
  __shared__ float s[1000];
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  p[threadIdx.x] = s[999 - threadIdx.x];
}
static void CUDART_CB cb(cudaStream_t, cudaError_t st, void* u) {
  *(int*)u = st == cudaSuccess ? 42 : -1;
}

int main() {
  int bad = 0;
  int lo, hi;
  CHECK(cudaDeviceGetStreamPriorityRange(&lo, &hi));
  cudaStream_t s1, s2;
  CHECK(cudaStreamCreateWithPriority(&s1, cudaStreamNonBlocking, hi));
  CHECK(cudaStreamCreateWithPriority(&s2, cudaStreamDefault, lo));
  int pr;
  CHECK(cudaStreamGetPriority(s1, &pr));
  if (pr != hi) {
    bad++;
    printf("prio %d %d\n", pr, hi);
  }
  // stream-ordered allocation
  int n = 1000;
  int* a;
  CHECK(cudaMallocAsync(&a, n * 4, s1));
  CHECK(cudaMemsetAsync(a, 0, n * 4, s1));
  fill<<<(n + 127) / 128, 128, 0, s1>>>(a, n, 5);
  cudaMemPool_t pool;
  CHECK(cudaDeviceGetDefaultMemPool(&pool, 0));
  unsigned long long thr = ~0ull;
  CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &thr));
  int* b;
  CHECK(cudaMallocFromPoolAsync(&b, n * 4, pool, s1));
  CHECK(cudaMemcpyAsync(b, a, n * 4, cudaMemcpyDeviceToDevice, s1));
  fill<<<(n + 127) / 128, 128, 0, s1>>>(b, n, 1);
  std::vector<int> hb(n);
  CHECK(cudaMemcpyAsync(hb.data(), b, n * 4, cudaMemcpyDeviceToHost, s1));
  CHECK(cudaFreeAsync(a, s1));
  CHECK(cudaFreeAsync(b, s1));
  int flag = 0;
  CHECK(cudaStreamAddCallback(s1, cb, &flag, 0));
  CHECK(cudaStreamSynchronize(s1));
  if (cudaStreamQuery(s1) != cudaSuccess) {
    bad++;
    printf("query\n");
  }
  for (int i = 0; i < n; ++i)
    if (hb[i] != 6 + 2 * i && bad++ < 5) printf("async %d %d\n", i, hb[i]);
  if (flag != 42) {
    bad++;
    printf("callback %d\n", flag);
  }
  // events
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreateWithFlags(&e0, cudaEventBlockingSync));
  CHECK(cudaEventCreate(&e1));
  CHECK(cudaEventRecord(e0, s2));
  fill<<<8, 128, 0, s2>>>((int*)nullptr + 0, 0, 0);
  CHECK(cudaEventRecord(e1, s2));
  CHECK(cudaEventSynchronize(e1));
  if (cudaEventQuery(e1) != cudaSuccess) {
    bad++;
    printf("event query\n");
  }
  float ms;
  CHECK(cudaEventElapsedTime(&ms, e0, e1));
  if (ms < 0) {
    bad++;
    printf("ms %g\n", ms);
  }
  // attributes
  cudaFuncAttributes fa;
  CHECK(cudaFuncGetAttributes(&fa, sm_user));
  if (fa.sharedSizeBytes != 4000 || fa.maxThreadsPerBlock < 1000 || fa.ptxVersion != 80) {
    bad++;
    printf("func attr %zu %d %d\n", fa.sharedSizeBytes, fa.maxThreadsPerBlock, fa.ptxVersion);
  }
  CHECK(cudaFuncGetAttributes(&fa, fill));
  if (fa.maxThreadsPerBlock != 128) {
    bad++;
    printf("launch bounds %d\n", fa.maxThreadsPerBlock);
  }
  CHECK(cudaFuncGetAttributes(&fa, local_stack));
  if (fa.localSizeBytes < 160) {
    bad++;
    printf("local %zu\n", fa.localSizeBytes);
  }
  CHECK(cudaFuncGetAttributes(&fa, many_live));
  if (fa.numRegs < 16 || fa.numRegs > 255) {
    bad++;
    printf("numRegs %d\n", fa.numRegs);
  }
  { // the block size the occupancy API proposes for a __launch_bounds__(128) kernel launches
    int grid, block;
    CHECK(cudaOccupancyMaxPotentialBlockSize(&grid, &block, fill, 0, 0));
    int* z;
    CHECK(cudaMalloc(&z, 4 * block));
    CHECK(cudaMemset(z, 0, 4 * block));
    fill<<<1, block>>>(z, block, 1);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    if (block > 128) {
      bad++;
      printf("potential block %d\n", block);
    }
    CHECK(cudaFree(z));
  }
  int nb;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, fill, 128, 0));
  if (nb < 1) {
    bad++;
    printf("occ %d\n", nb);
  }
  int mg, bs;
  CHECK(cudaOccupancyMaxPotentialBlockSize(&mg, &bs, sm_user, 0, 0));
  if (bs < 32) {
    bad++;
    printf("bs %d\n", bs);
  }
  int v;
  CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0));
  if (v < 1) bad++;
  CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrComputeCapabilityMajor, 0));
  CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
  CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrL2CacheSize, 0));
  CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrMemoryPoolsSupported, 0));
  if (v != 1) {
    bad++;
    printf("pools %d\n", v);
  }
  size_t fr, tot;
  CHECK(cudaMemGetInfo(&fr, &tot));
  if (fr > tot || tot == 0) {
    bad++;
    printf("meminfo\n");
  }
  { // a block beyond __launch_bounds__(128): refused (too many resources), not sticky
    int* z;
    CHECK(cudaMalloc(&z, 4 * 256));
    fill<<<1, 256>>>(z, 256, 1);
    cudaError_t le = cudaGetLastError();
    if (le != cudaErrorLaunchOutOfResources) {
      bad++;
      printf("launch bounds exceeded: %s\n", cudaGetErrorName(le));
    }
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(z));
  }
  { // cudaLaunchKernelEx: the launch-completion and programmatic events are recorded
    int* z;
    CHECK(cudaMalloc(&z, 4 * 128));
    CHECK(cudaMemset(z, 0, 4 * 128));
    cudaEvent_t start, done, prog;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&done));
    CHECK(cudaEventCreateWithFlags(&prog, cudaEventDisableTiming));
    CHECK(cudaEventRecord(start, s2));
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(1);
    cfg.blockDim = dim3(128);
    cfg.stream = s2;
    cudaLaunchAttribute at[3];
    at[0].id = cudaLaunchAttributeLaunchCompletionEvent;
    at[0].val.launchCompletionEvent.event = done;
    at[0].val.launchCompletionEvent.flags = 0;
    at[1].id = cudaLaunchAttributeProgrammaticEvent;
    at[1].val.programmaticEvent.event = prog;
    at[1].val.programmaticEvent.flags = 0;
    at[1].val.programmaticEvent.triggerAtBlockStart = 0;
    at[2].id = cudaLaunchAttributePriority;
    at[2].val.priority = hi;
    cfg.attrs = at;
    cfg.numAttrs = 3;
    CHECK(cudaLaunchKernelEx(&cfg, fill, z, 128, 3));
    CHECK(cudaStreamWaitEvent(s1, prog, 0));
    CHECK(cudaEventSynchronize(done));
    CHECK(cudaEventSynchronize(prog));
    float ems = -1;
    cudaError_t ee = cudaEventElapsedTime(&ems, start, done);
    if (ee != cudaSuccess || !(ems >= 0)) { // 0 when fast-forwarded (no simulated time)
      bad++;
      printf("completion event: %s %g\n", cudaGetErrorName(ee), ems);
    }
    int hz[128];
    CHECK(cudaMemcpy(hz, z, sizeof hz, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 128; ++i)
      if (hz[i] != 3 + i) {
        bad++;
        printf("launchEx %d %d\n", i, hz[i]);
        break;
      }
    CHECK(cudaFree(z));
  }
  { // the driver API through cudaGetDriverEntryPoint (no -lcuda): cuMemAlloc and cuLaunchKernel of
    // the handle cudaGetFuncBySymbol gives; a kernel's name and parameter layout
    typedef int (*MemAlloc)(unsigned long long*, size_t);
    typedef int (*Launch)(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                          unsigned, cudaStream_t, void**, void**);
    void *alloc_fn = nullptr, *launch_fn = nullptr, *none = &bad;
    cudaDriverEntryPointQueryResult qa, ql, qn;
    CHECK(cudaGetDriverEntryPointByVersion("cuMemAlloc", &alloc_fn, 13000, cudaEnableDefault, &qa));
    CHECK(cudaGetDriverEntryPointByVersion("cuLaunchKernel", &launch_fn, 12000, cudaEnableDefault,
                                           &ql));
    CHECK(cudaGetDriverEntryPointByVersion("cuNoSuchCall", &none, 13000, cudaEnableDefault, &qn));
    if (!alloc_fn || !launch_fn || qa != cudaDriverEntryPointSuccess ||
        ql != cudaDriverEntryPointSuccess || none || qn != cudaDriverEntryPointSymbolNotFound) {
      bad++;
      printf("entry points %p %p %p %d %d %d\n", alloc_fn, launch_fn, none, (int)qa, (int)ql,
             (int)qn);
    } else {
      unsigned long long dp = 0;
      int r = ((MemAlloc)alloc_fn)(&dp, 128 * 4);
      int* z = reinterpret_cast<int*>(dp);
      CHECK(cudaMemset(z, 0, 128 * 4));
      cudaFunction_t f;
      CHECK(cudaGetFuncBySymbol(&f, (const void*)fill));
      int count = 128, add = 9;
      void* args[] = {&z, &count, &add};
      int lr = ((Launch)launch_fn)((void*)f, 1, 1, 1, 128, 1, 1, 0, 0, args, nullptr);
      int hz[128];
      CHECK(cudaMemcpy(hz, z, sizeof hz, cudaMemcpyDeviceToHost));
      if (r || lr || hz[100] != 109)
        bad++, printf("driver entry points %d %d %d\n", r, lr, hz[100]);
    }
    const char* name = nullptr;
    size_t off = 0, size = 0;
    CHECK(cudaFuncGetName(&name, (const void*)fill));
    CHECK(cudaFuncGetParamInfo((const void*)fill, 2, &off, &size));
    if (!name || strcmp(name, "_Z4fillPiii") || off != 12 || size != 4)
      bad++, printf("name %s param %zu %zu\n", name ? name : "-", off, size);
    if (cudaFuncGetParamInfo((const void*)fill, 3, &off, &size) != cudaErrorInvalidValue)
      bad++, printf("param 3\n");
  }
  { // CUDA 12's handles and stream queries: cudaGetKernel launched, stream ids and devices, an L2
    // access-policy window (a hint), a pool of the program's own
    cudaKernel_t kk;
    CHECK(cudaGetKernel(&kk, fill));
    int* z;
    CHECK(cudaMalloc(&z, 4 * 64));
    CHECK(cudaMemset(z, 0, 4 * 64));
    int count = 64, add = 2;
    void* args[] = {&z, &count, &add};
    CHECK(cudaLaunchKernel((const void*)kk, dim3(1), dim3(64), args, 0, s2));
    unsigned long long id1 = 0, id2 = 0;
    int dev = -1;
    CHECK(cudaStreamGetId(s1, &id1));
    CHECK(cudaStreamGetId(s2, &id2));
    CHECK(cudaStreamGetDevice(s2, &dev));
    if (id1 == id2 || dev != 0) bad++, printf("stream ids %llu %llu device %d\n", id1, id2, dev);
    cudaStreamAttrValue w = {};
    w.accessPolicyWindow.base_ptr = z;
    w.accessPolicyWindow.num_bytes = 4 * 64;
    w.accessPolicyWindow.hitRatio = 0.6f;
    w.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    w.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    CHECK(cudaStreamSetAttribute(s2, cudaStreamAttributeAccessPolicyWindow, &w));
    CHECK(cudaStreamGetAttribute(s2, cudaStreamAttributeAccessPolicyWindow, &w));
    CHECK(cudaCtxResetPersistingL2Cache());
    cudaMemPool_t own;
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
    CHECK(cudaMemPoolCreate(&own, &props));
    int* q;
    CHECK(cudaMallocFromPoolAsync(&q, 4 * 64, own, s2));
    CHECK(cudaMemcpyAsync(q, z, 4 * 64, cudaMemcpyDeviceToDevice, s2));
    int hq[64];
    CHECK(cudaMemcpyAsync(hq, q, sizeof hq, cudaMemcpyDeviceToHost, s2));
    CHECK(cudaFreeAsync(q, s2));
    CHECK(cudaStreamSynchronize(s2));
    CHECK(cudaMemPoolTrimTo(own, 0));
    CHECK(cudaMemPoolDestroy(own));
    for (int i = 0; i < 64; ++i)
      if (hq[i] != 2 + i) {
        bad++, printf("cudaGetKernel launch %d %d\n", i, hq[i]);
        break;
      }
    CHECK(cudaFree(z));
  }
  // 2D async + pointer attributes
  int W = 13, H = 7;
  size_t pitch;
  int* p2;
  CHECK(cudaMallocPitch(&p2, &pitch, W * 4, H));
  int* hp;
  CHECK(cudaHostAlloc(&hp, W * H * 4, cudaHostAllocDefault));
  for (int i = 0; i < W * H; ++i) hp[i] = i * 3;
  CHECK(cudaMemcpy2DAsync(p2, pitch, hp, W * 4, W * 4, H, cudaMemcpyHostToDevice, s2));
  CHECK(cudaMemset2DAsync(p2, pitch, 0, 4, H, s2));
  std::vector<int> h2(W * H);
  CHECK(cudaMemcpy2DAsync(h2.data(), W * 4, p2, pitch, W * 4, H, cudaMemcpyDeviceToHost, s2));
  CHECK(cudaStreamSynchronize(s2));
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x)
      if (h2[y * W + x] != (x == 0 ? 0 : (y * W + x) * 3) && bad++ < 5)
        printf("2d %d %d %d\n", x, y, h2[y * W + x]);
  cudaPointerAttributes pa;
  CHECK(cudaPointerGetAttributes(&pa, p2));
  if (pa.type != cudaMemoryTypeDevice) {
    bad++;
    printf("ptr dev %d\n", pa.type);
  }
  CHECK(cudaPointerGetAttributes(&pa, hp));
  if (pa.type != cudaMemoryTypeHost) {
    bad++;
    printf("ptr host %d\n", pa.type);
  }
  // managed with prefetch / advise
  int* m;
  CHECK(cudaMallocManaged(&m, n * 4));
  for (int i = 0; i < n; ++i) m[i] = i;
  cudaMemLocation loc = {cudaMemLocationTypeDevice, 0};
  CHECK(cudaMemAdvise(m, n * 4, cudaMemAdviseSetPreferredLocation, loc));
  CHECK(cudaMemPrefetchAsync(m, n * 4, loc, 0, s1));
  fill<<<(n + 127) / 128, 128, 0, s1>>>(m, n, 2);
  CHECK(cudaStreamSynchronize(s1));
  for (int i = 0; i < n; ++i)
    if (m[i] != 2 * i + 2 && bad++ < 5) printf("managed %d %d\n", i, m[i]);
  // peer copy on the same device
  int *q1, *q2;
  CHECK(cudaMalloc(&q1, 64));
  CHECK(cudaMalloc(&q2, 64));
  CHECK(cudaMemset(q1, 7, 64));
  CHECK(cudaMemcpyPeerAsync(q2, 0, q1, 0, 64, s2));
  CHECK(cudaStreamSynchronize(s2));
  unsigned char hq[64];
  CHECK(cudaMemcpy(hq, q2, 64, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 64; ++i)
    if (hq[i] != 7) {
      bad++;
      printf("peer\n");
      break;
    }
  CHECK(cudaStreamDestroy(s1));
  CHECK(cudaStreamDestroy(s2));
  CHECK(cudaDeviceSynchronize());
  return finish(bad);
}
