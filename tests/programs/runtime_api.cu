// The runtime API's memory and stream calls beyond the plain ones: symbol copies with offsets,
// cudaMallocPitch with cudaMemset2D and cudaMemcpy2D of a sub-rectangle, cudaMalloc3D with
// cudaMemset3D and cudaMemcpy3D of a sub-box, array-to-array copies, mapped pinned memory
// (cudaHostAllocMapped), events across two streams (cudaStreamWaitEvent, elapsed time; none for a
// cudaEventDisableTiming event), a stream capture replayed as a graph 12 times, a peer copy
// and peer access on the one device, streams' flags, the dynamic shared memory a kernel may
// opt into. Also built with --default-stream
// per-thread (the _ptds/_ptsz forms of the calls).
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>
#include <vector>

#include "check.h"

__constant__ int coef[64];
__device__ float table[256];
__device__ unsigned long long counter;

__global__ void scale2d(float* p, size_t pitch, int w, int h, float s) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x < w && y < h) {
    float* row = (float*)((char*)p + y * pitch);
    row[x] = row[x] * s + coef[(x + y) % 64];
  }
}
__global__ void vol(cudaPitchedPtr p, int nx, int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y, z = blockIdx.z;
  if (x >= nx) return;
  char* slice = (char*)p.ptr + z * p.pitch * ny;
  int* row = (int*)(slice + y * p.pitch);
  row[x] += x + 100 * y + 10000 * z;
}
__global__ void table_k(float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = table[i % 256] * 2.f + coef[i % 64];
    atomicAdd(&counter, 1ull);
  }
}
__global__ void zero_copy(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * 3 + 1;
}
__global__ void step(float* a, const float* b, int n, float k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = a[i] * 0.5f + b[i] * k;
}

// 1 KB of its own .shared and the dynamic bytes it opted into (cudaFuncSetAttribute).
__global__ void shared_k(float* out) {
  __shared__ float own[256];
  extern __shared__ float dyn[];
  own[threadIdx.x] = float(threadIdx.x);
  __syncthreads();
  dyn[threadIdx.x] = 2.0f * own[255 - threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = dyn[threadIdx.x];
}

int main() {
  int bad = 0;
  // Constant and device symbols written and read with offsets.
  int hc[64];
  for (int i = 0; i < 64; ++i) hc[i] = i * 3 - 20;
  CHECK(cudaMemcpyToSymbol(coef, hc, 32 * sizeof(int)));
  CHECK(cudaMemcpyToSymbol(coef, hc + 32, 32 * sizeof(int), 32 * sizeof(int)));
  float ht[256];
  for (int i = 0; i < 256; ++i) ht[i] = i * 0.25f;
  CHECK(cudaMemcpyToSymbol(table, ht + 100, 156 * sizeof(float), 100 * sizeof(float),
                           cudaMemcpyHostToDevice));
  CHECK(cudaMemcpyToSymbol(table, ht, 100 * sizeof(float)));
  unsigned long long z = 0;
  CHECK(cudaMemcpyToSymbol(counter, &z, sizeof z));
  float back[10];
  CHECK(cudaMemcpyFromSymbol(back, table, sizeof back, 200 * sizeof(float)));
  for (int i = 0; i < 10; ++i)
    if (back[i] != ht[200 + i]) {
      bad++;
      printf("symbol read %d\n", i);
    }

  // Pitched 2D: cudaMallocPitch, cudaMemset2D, cudaMemcpy2D both ways, a sub-rectangle.
  const int W = 300, H = 50;
  float* d2;
  size_t pitch;
  CHECK(cudaMallocPitch(&d2, &pitch, W * sizeof(float), H));
  if (pitch < W * sizeof(float)) {
    bad++;
    printf("pitch %zu\n", pitch);
  }
  CHECK(cudaMemset2D(d2, pitch, 0, W * sizeof(float), H));
  std::vector<float> h2(W * H);
  for (int i = 0; i < W * H; ++i) h2[i] = float(i % 977) * 0.5f;
  // The rectangle from column 10, row 5, 200 x 40, from a host array of row length W.
  CHECK(cudaMemcpy2D((char*)d2 + 5 * pitch + 10 * sizeof(float), pitch, &h2[5 * W + 10],
                     W * sizeof(float), 200 * sizeof(float), 40, cudaMemcpyHostToDevice));
  scale2d<<<dim3((W + 127) / 128, H), 128>>>(d2, pitch, W, H, 3.f);
  std::vector<float> r2(W * H);
  CHECK(cudaMemcpy2D(r2.data(), W * sizeof(float), d2, pitch, W * sizeof(float), H,
                     cudaMemcpyDeviceToHost));
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      bool in = x >= 10 && x < 210 && y >= 5 && y < 45;
      float want = (in ? h2[y * W + x] : 0.f) * 3.f + hc[(x + y) % 64];
      if (r2[y * W + x] != want && bad++ < 5)
        printf("2d %d,%d: %g want %g\n", x, y, r2[y * W + x], want);
    }
  // Device-to-device 2D copy into a tight buffer.
  float* dt;
  CHECK(cudaMalloc(&dt, W * H * sizeof(float)));
  CHECK(cudaMemcpy2D(dt, W * sizeof(float), d2, pitch, W * sizeof(float), H,
                     cudaMemcpyDeviceToDevice));
  std::vector<float> rt(W * H);
  CHECK(cudaMemcpy(rt.data(), dt, W * H * sizeof(float), cudaMemcpyDeviceToHost));
  if (memcmp(rt.data(), r2.data(), W * H * sizeof(float))) {
    bad++;
    printf("2d d2d\n");
  }

  // 3D: cudaMalloc3D, cudaMemset3D, cudaMemcpy3D of a sub-box from host, kernel, copy back.
  const int NX = 70, NY = 12, NZ = 9;
  cudaPitchedPtr p3;
  CHECK(cudaMalloc3D(&p3, make_cudaExtent(NX * sizeof(int), NY, NZ)));
  CHECK(cudaMemset3D(p3, 0x01, make_cudaExtent(NX * sizeof(int), NY, NZ)));
  std::vector<int> h3(NX * NY * NZ);
  for (int i = 0; i < NX * NY * NZ; ++i) h3[i] = i * 7;
  cudaMemcpy3DParms cp = {};
  cp.srcPtr = make_cudaPitchedPtr(h3.data(), NX * sizeof(int), NX, NY);
  cp.srcPos = make_cudaPos(2 * sizeof(int), 1, 1);
  cp.dstPtr = p3;
  cp.dstPos = make_cudaPos(2 * sizeof(int), 1, 1);
  cp.extent = make_cudaExtent(60 * sizeof(int), 10, 7);
  cp.kind = cudaMemcpyHostToDevice;
  CHECK(cudaMemcpy3D(&cp));
  vol<<<dim3(1, NY, NZ), 128>>>(p3, NX, NY, NZ);
  std::vector<int> r3(NX * NY * NZ);
  cudaMemcpy3DParms cb = {};
  cb.srcPtr = p3;
  cb.dstPtr = make_cudaPitchedPtr(r3.data(), NX * sizeof(int), NX, NY);
  cb.extent = make_cudaExtent(NX * sizeof(int), NY, NZ);
  cb.kind = cudaMemcpyDeviceToHost;
  CHECK(cudaMemcpy3D(&cb));
  for (int zz = 0; zz < NZ; ++zz)
    for (int y = 0; y < NY; ++y)
      for (int x = 0; x < NX; ++x) {
        bool in = x >= 2 && x < 62 && y >= 1 && y < 11 && zz >= 1 && zz < 8;
        int i = (zz * NY + y) * NX + x;
        int want = (in ? h3[i] : 0x01010101) + x + 100 * y + 10000 * zz;
        if (r3[i] != want && bad++ < 5) printf("3d %d,%d,%d: %d want %d\n", x, y, zz, r3[i], want);
      }

  // CUDA arrays: a sub-rectangle of one copied into another (cudaMemcpy2DArrayToArray), then
  // two whole rows (the deprecated cudaMemcpyArrayToArray), read back.
  const int AW = 48, AH = 20;
  const cudaChannelFormatDesc cd = cudaCreateChannelDesc<int>();
  cudaArray_t a1, a2;
  CHECK(cudaMallocArray(&a1, &cd, AW, AH));
  CHECK(cudaMallocArray(&a2, &cd, AW, AH));
  std::vector<int> hx(AW * AH), hz(AW * AH, -1), hr(AW * AH);
  for (int i = 0; i < AW * AH; ++i) hx[i] = i * 3 + 1;
  CHECK(cudaMemcpy2DToArray(a1, 0, 0, hx.data(), AW * 4, AW * 4, AH, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy2DToArray(a2, 0, 0, hz.data(), AW * 4, AW * 4, AH, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy2DArrayToArray(a2, 4 * 4, 2, a1, 10 * 4, 5, 20 * 4, 12));
  CHECK(cudaMemcpyArrayToArray(a2, 0, 17, a1, 0, 1, 2 * AW * 4, cudaMemcpyDeviceToDevice));
  CHECK(cudaMemcpy2DFromArray(hr.data(), AW * 4, a2, 0, 0, AW * 4, AH, cudaMemcpyDeviceToHost));
  for (int y = 0; y < AH; ++y)
    for (int x = 0; x < AW; ++x) {
      int want = -1;
      if (x >= 4 && x < 24 && y >= 2 && y < 14) want = hx[(y - 2 + 5) * AW + x - 4 + 10];
      if (y >= 17 && y < 19) want = hx[(y - 16) * AW + x];
      if (hr[y * AW + x] != want && bad++ < 5)
        printf("array %d,%d: %d want %d\n", x, y, hr[y * AW + x], want);
    }
  CHECK(cudaFreeArray(a1));
  CHECK(cudaFreeArray(a2));

  // Mapped pinned memory: the kernel reads and writes host memory through device pointers.
  const int N = 64 * 40;
  int *hin, *hout, *din, *dout;
  CHECK(cudaHostAlloc(&hin, N * sizeof(int), cudaHostAllocMapped));
  CHECK(cudaHostAlloc(&hout, N * sizeof(int), cudaHostAllocMapped | cudaHostAllocWriteCombined));
  for (int i = 0; i < N; ++i) {
    hin[i] = i - 77;
    hout[i] = -1;
  }
  CHECK(cudaHostGetDevicePointer(&din, hin, 0));
  CHECK(cudaHostGetDevicePointer(&dout, hout, 0));
  zero_copy<<<N / 64, 64>>>(din, dout, N);
  CHECK(cudaDeviceSynchronize());
  for (int i = 0; i < N; ++i)
    if (hout[i] != hin[i] * 3 + 1 && bad++ < 5) printf("mapped %d: %d\n", i, hout[i]);

  float* dtab;
  CHECK(cudaMalloc(&dtab, N * sizeof(float)));
  table_k<<<N / 64, 64>>>(dtab, N);
  unsigned long long cnt;
  CHECK(cudaMemcpyFromSymbol(&cnt, counter, sizeof cnt));
  if (cnt != (unsigned long long)N) {
    bad++;
    printf("counter %llu\n", cnt);
  }
  std::vector<float> rtab(N);
  CHECK(cudaMemcpy(rtab.data(), dtab, N * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < N; ++i)
    if (rtab[i] != ht[i % 256] * 2.f + hc[i % 64] && bad++ < 5) printf("table %d\n", i);

  // Two streams: s1 fills, s2 waits on its event; a capture of s1 replayed as a graph.
  cudaStream_t s1, s2;
  CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  CHECK(cudaStreamCreate(&s2));
  cudaEvent_t e0, e1, e2;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  CHECK(cudaEventCreateWithFlags(&e2, cudaEventDisableTiming));
  float *da, *db;
  CHECK(cudaMalloc(&da, N * sizeof(float)));
  CHECK(cudaMalloc(&db, N * sizeof(float)));
  std::vector<float> ha(N), hb(N);
  for (int i = 0; i < N; ++i) {
    ha[i] = float(i % 100);
    hb[i] = float(i % 7);
  }
  CHECK(cudaEventRecord(e0, s1));
  CHECK(cudaMemcpyAsync(da, ha.data(), N * sizeof(float), cudaMemcpyHostToDevice, s1));
  CHECK(cudaMemcpyAsync(db, hb.data(), N * sizeof(float), cudaMemcpyHostToDevice, s1));
  CHECK(cudaEventRecord(e2, s1));
  CHECK(cudaStreamWaitEvent(s2, e2, 0));
  step<<<N / 64, 64, 0, s2>>>(da, db, N, 1.f);
  CHECK(cudaEventRecord(e1, s2));
  CHECK(cudaEventSynchronize(e1));
  float ms = -1;
  CHECK(cudaEventElapsedTime(&ms, e0, e1));
  if (!(ms >= 0)) { // 0 when fast-forwarded (no simulated time)
    bad++;
    printf("elapsed %g\n", ms);
  }
  if (cudaEventElapsedTime(&ms, e0, e2) != cudaErrorInvalidResourceHandle) {
    bad++;
    printf("no-timing event elapsed\n");
  }
  cudaGetLastError();

  cudaGraph_t g;
  cudaGraphExec_t ge;
  CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  step<<<N / 64, 64, 0, s1>>>(da, db, N, 2.f);
  CHECK(cudaMemcpyAsync(db, da, N * sizeof(float), cudaMemcpyDeviceToDevice, s1));
  step<<<N / 128, 128, 0, s1>>>(da, db, N, -0.25f);
  CHECK(cudaStreamEndCapture(s1, &g));
  CHECK(cudaGraphInstantiate(&ge, g, 0));
  std::vector<float> ra(N), rb(N);
  for (int i = 0; i < N; ++i) {
    ha[i] = ha[i] * 0.5f + hb[i];
  }
  const int reps = 12;
  for (int r = 0; r < reps; ++r) CHECK(cudaGraphLaunch(ge, s1));
  CHECK(cudaStreamSynchronize(s1));
  for (int r = 0; r < reps; ++r)
    for (int i = 0; i < N; ++i) {
      ha[i] = ha[i] * 0.5f + hb[i] * 2.f;
      hb[i] = ha[i];
      ha[i] = ha[i] * 0.5f + hb[i] * -0.25f;
    }
  CHECK(cudaMemcpy(ra.data(), da, N * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(rb.data(), db, N * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < N; ++i)
    if ((ra[i] != ha[i] || rb[i] != hb[i]) && bad++ < 5)
      printf("graph %d: %g %g want %g %g\n", i, ra[i], rb[i], ha[i], hb[i]);
  // One device: a peer copy within it (a row of the 2D result), no peer access to itself;
  // the streams' flags.
  int can = -1;
  CHECK(cudaDeviceCanAccessPeer(&can, 0, 0));
  if (can != 0) {
    bad++;
    printf("device 0 can access itself as a peer: %d\n", can);
  }
  CHECK(cudaMemset(dt, 0, W * sizeof(float)));
  CHECK(cudaMemcpyPeer(dt, 0, (char*)d2 + 7 * pitch, 0, W * sizeof(float)));
  CHECK(cudaMemcpy(rt.data(), dt, W * sizeof(float), cudaMemcpyDeviceToHost));
  if (memcmp(rt.data(), &r2[7 * W], W * sizeof(float))) {
    bad++;
    printf("peer copy\n");
  }
  unsigned f1 = 99, f2 = 99;
  CHECK(cudaStreamGetFlags(s1, &f1));
  CHECK(cudaStreamGetFlags(s2, &f2));
  if (f1 != cudaStreamNonBlocking || f2 != cudaStreamDefault) {
    bad++;
    printf("stream flags %u %u\n", f1, f2);
  }
  // The dynamic shared memory a kernel may opt into: the device's opt-in limit less its own
  // .shared bytes; one byte more is cudaErrorInvalidValue. A launch then gets all of it.
  int optin = 0;
  CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
  const int room = optin - int(256 * sizeof(float));
  CHECK(cudaFuncSetAttribute(shared_k, cudaFuncAttributeMaxDynamicSharedMemorySize, room));
  const cudaError_t over =
      cudaFuncSetAttribute(shared_k, cudaFuncAttributeMaxDynamicSharedMemorySize, room + 1);
  if (over != cudaErrorInvalidValue) {
    bad++;
    printf("opting into %d dynamic bytes of %d: %s\n", room + 1, optin, cudaGetErrorName(over));
  }
  (void)cudaGetLastError();
  float* ds = nullptr;
  CHECK(cudaMalloc(&ds, 256 * sizeof(float)));
  shared_k<<<1, 256, room>>>(ds);
  CHECK(cudaGetLastError());
  std::vector<float> hs(256);
  CHECK(cudaMemcpy(hs.data(), ds, 256 * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < 256; ++i)
    if (hs[i] != 2.0f * float(255 - i) && bad++ < 5) printf("shared_k[%d] = %g\n", i, hs[i]);
  CHECK(cudaFree(ds));
  CHECK(cudaGraphExecDestroy(ge));
  CHECK(cudaGraphDestroy(g));
  CHECK(cudaStreamDestroy(s1));
  CHECK(cudaStreamDestroy(s2));
  CHECK(cudaFreeHost(hin));
  CHECK(cudaFreeHost(hout));
  CHECK(cudaFree(p3.ptr));
  CHECK(cudaFree(d2));
  return finish(bad);
}
