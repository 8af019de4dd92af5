// Host memory the device reads and writes, and launches sized from the device's properties:
// zero-copy mapped memory (cudaHostAlloc with cudaHostAllocMapped, cudaHostGetDevicePointer)
// written by a kernel and read by the host with no copy; a malloc'd buffer registered with
// cudaHostRegister; pinned memory with cudaMemcpyAsync on two streams; pitched memory with
// cudaMallocPitch, cudaMemset2D, cudaMemcpy2D (host, device, a sub-rectangle) and
// cudaMemcpy2DAsync; cudaMemcpyToSymbolAsync / FromSymbolAsync at an offset. A block-sum
// kernel is sized with cudaOccupancyMaxPotentialBlockSize and
// cudaOccupancyMaxActiveBlocksPerMultiprocessor; one block of maxThreadsPerBlock threads uses
// all of sharedMemPerBlock; one thread more or one byte more is refused. Arguments: the
// element count (default 100,000) and the 2D array's width and height (default 300 x 70).
#include "check.h"
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

__device__ int coeffs[64];

__global__ void scale_mapped(const int* in, int* out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    out[i] = in[i] * coeffs[i & 63] + 1;
}

// Grid-stride sum into one partial per block (dynamic shared memory: a word per thread).
__global__ void block_sums(const int* in, long long* partial, int n) {
  extern __shared__ long long acc[];
  long long s = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    s += in[i];
  acc[threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    long long t = 0;
    for (unsigned k = 0; k < blockDim.x; ++k) t += acc[k];
    partial[blockIdx.x] = t;
  }
}

// One block of every thread the device allows, filling all of its shared memory.
__global__ void fill_shared(unsigned* out, unsigned words) {
  extern __shared__ unsigned sh[];
  for (unsigned i = threadIdx.x; i < words; i += blockDim.x) sh[i] = i * 2654435761u;
  __syncthreads();
  unsigned x = 0;
  for (unsigned i = threadIdx.x; i < words; i += blockDim.x) x ^= sh[words - 1 - i];
  atomicXor(out, x);
  atomicAdd(out + 1, 1u);
}

__global__ void pitched(char* base, size_t pitch, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x < w && y < h) {
    float* row = (float*)(base + y * pitch);
    row[x] = row[x] * 2.0f + float(y);
  }
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 100000;
  const int w = argc > 2 ? std::atoi(argv[2]) : 300, h = argc > 3 ? std::atoi(argv[3]) : 70;
  if (n <= 0 || w <= 0 || h <= 0) {
    std::printf("usage: host_memory [n [width height]] (positive)\n");
    return 2;
  }
  int bad = 0;
  CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  if (!prop.canMapHostMemory || prop.warpSize != 32 || prop.maxThreadsPerBlock < 64 ||
      prop.sharedMemPerBlock < 1024 || prop.multiProcessorCount < 1)
    std::printf("device properties: map %d warp %d threads %d shared %zu SMs %d\n",
                prop.canMapHostMemory, prop.warpSize, prop.maxThreadsPerBlock,
                prop.sharedMemPerBlock, prop.multiProcessorCount),
        ++bad;

  // Coefficients through an asynchronous symbol copy at an offset (two halves).
  int c[64];
  for (int i = 0; i < 64; ++i) c[i] = (i * 5) % 11 - 3;
  cudaStream_t s1, s2;
  CHECK(cudaStreamCreate(&s1));
  CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  CHECK(cudaMemcpyToSymbolAsync(coeffs, c, 32 * sizeof(int), 0, cudaMemcpyHostToDevice, s1));
  CHECK(cudaMemcpyToSymbolAsync(coeffs, c + 32, 32 * sizeof(int), 32 * sizeof(int),
                                cudaMemcpyHostToDevice, s1));
  int back[16] = {};
  CHECK(cudaMemcpyFromSymbolAsync(back, coeffs, sizeof back, 40 * sizeof(int),
                                  cudaMemcpyDeviceToHost, s1));
  CHECK(cudaStreamSynchronize(s1));
  for (int i = 0; i < 16; ++i) bad += back[i] != c[40 + i];

  // Zero-copy: the kernel reads a registered malloc'd buffer and writes mapped pinned memory.
  int* in = (int*)std::malloc(n * sizeof(int));
  for (int i = 0; i < n; ++i) in[i] = (i * 7919) % 1000 - 500;
  CHECK(cudaHostRegister(in, n * sizeof(int), cudaHostRegisterMapped));
  int* out;
  CHECK(cudaHostAlloc((void**)&out, n * sizeof(int), cudaHostAllocMapped));
  unsigned flags = 0;
  CHECK(cudaHostGetFlags(&flags, out));
  if (!(flags & cudaHostAllocMapped)) std::printf("cudaHostGetFlags: %u\n", flags), ++bad;
  int *din, *dout;
  CHECK(cudaHostGetDevicePointer((void**)&din, in, 0));
  CHECK(cudaHostGetDevicePointer((void**)&dout, out, 0));
  cudaPointerAttributes attr;
  CHECK(cudaPointerGetAttributes(&attr, out));
  if (attr.type != cudaMemoryTypeHost || attr.hostPointer != out || attr.devicePointer != dout)
    std::printf("attributes of mapped memory: type %d\n", int(attr.type)), ++bad;
  std::memset(out, 0xff, n * sizeof(int));
  scale_mapped<<<prop.multiProcessorCount * 2, 128>>>(din, dout, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  int zc_bad = 0;
  for (int i = 0; i < n; ++i)
    if (out[i] != in[i] * c[i & 63] + 1 && zc_bad++ < 5)
      std::printf("mapped out[%d] = %d, expected %d\n", i, out[i], in[i] * c[i & 63] + 1);
  bad += zc_bad;
  // Writes through the host pointer are seen by the next kernel (same memory).
  for (int i = 0; i < n; ++i) in[i] = i % 97;
  scale_mapped<<<3, 256>>>(din + 1, dout + 1, n - 1); // an interior device pointer
  CHECK(cudaDeviceSynchronize());
  for (int i = 1; i < n; ++i) zc_bad += out[i] != in[i] * c[(i - 1) & 63] + 1;
  if (zc_bad) std::printf("mapped memory second pass: %d wrong\n", zc_bad), bad += zc_bad;
  // A copy and a memset through the registered range's device address reach the program's
  // memory; registering it twice, or unregistering what is not registered, are errors;
  // memory CUDA does not know is unregistered.
  const int seven[2] = {7, 7};
  CHECK(cudaMemcpy(din + 10, seven, sizeof seven, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(din + 12, 0, sizeof(int)));
  if (in[10] != 7 || in[11] != 7 || in[12] != 0)
    std::printf("copy through the registered device pointer: %d %d %d\n", in[10], in[11], in[12]),
        ++bad;
  const cudaError_t twice = cudaHostRegister(in + 4, 64, cudaHostRegisterDefault);
  const cudaError_t never = cudaHostUnregister(c);
  cudaGetLastError(); // (the two errors are the last error too, as on CUDA)
  CHECK(cudaPointerGetAttributes(&attr, c));
  if (twice != cudaErrorHostMemoryAlreadyRegistered || never != cudaErrorHostMemoryNotRegistered ||
      attr.type != cudaMemoryTypeUnregistered)
    std::printf("register twice: %s, unregister unknown: %s, stack memory type %d\n",
                cudaGetErrorName(twice), cudaGetErrorName(never), int(attr.type)),
        ++bad;
  CHECK(cudaPointerGetAttributes(&attr, in + 3));
  if (attr.type != cudaMemoryTypeHost || attr.devicePointer != din + 3)
    std::printf("attributes of registered memory: type %d\n", int(attr.type)), ++bad;

  // Sizing from the occupancy API: a partial sum per block, then pinned asynchronous copies.
  int min_grid = 0, block = 0;
  CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, block_sums, 0, 0));
  if (block < 32 || block > prop.maxThreadsPerBlock || block % prop.warpSize || min_grid < 1)
    std::printf("cudaOccupancyMaxPotentialBlockSize: grid %d block %d\n", min_grid, block), ++bad;
  int per_sm = 0;
  const size_t dyn = block * sizeof(long long);
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, block_sums, block, dyn));
  if (per_sm < 1) std::printf("cudaOccupancyMaxActiveBlocksPerMultiprocessor: %d\n", per_sm), ++bad;
  const int grid = per_sm * prop.multiProcessorCount;
  int *pin, *dev_in;
  long long *pin_part, *dev_part;
  CHECK(cudaMallocHost((void**)&pin, n * sizeof(int)));
  CHECK(cudaMallocHost((void**)&pin_part, grid * sizeof(long long)));
  CHECK(cudaMalloc(&dev_in, n * sizeof(int)));
  CHECK(cudaMalloc(&dev_part, (grid + 2) * sizeof(long long)));
  long long want = 0;
  for (int i = 0; i < n; ++i) want += pin[i] = i % 1013 - 300;
  const int half = n / 2;
  CHECK(cudaMemcpyAsync(dev_in, pin, half * sizeof(int), cudaMemcpyHostToDevice, s1));
  CHECK(cudaMemcpyAsync(dev_in + half, pin + half, (n - half) * sizeof(int), cudaMemcpyHostToDevice,
                        s2));
  cudaEvent_t copied;
  CHECK(cudaEventCreate(&copied));
  CHECK(cudaEventRecord(copied, s2));
  CHECK(cudaStreamWaitEvent(s1, copied, 0));
  block_sums<<<grid, block, dyn, s1>>>(dev_in, dev_part, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpyAsync(pin_part, dev_part, grid * sizeof(long long), cudaMemcpyDeviceToHost, s1));
  CHECK(cudaStreamSynchronize(s1));
  long long got = 0;
  for (int b = 0; b < grid; ++b) got += pin_part[b];
  if (got != want)
    std::printf("sum over %d x %d: %lld, expected %lld\n", grid, block, got, want), ++bad;

  // The kernel's own largest block (its registers may allow fewer than the device's) launches;
  // a warp more, where the device allows it, is too many resources, as on CUDA.
  cudaFuncAttributes fa;
  CHECK(cudaFuncGetAttributes(&fa, block_sums));
  const size_t fa_dyn = fa.maxThreadsPerBlock * sizeof(long long);
  if (fa.maxThreadsPerBlock < block || fa_dyn > prop.sharedMemPerBlock) {
    std::printf("cudaFuncGetAttributes: maxThreadsPerBlock %d\n", fa.maxThreadsPerBlock), ++bad;
  } else {
    block_sums<<<2, fa.maxThreadsPerBlock, fa_dyn>>>(dev_in, dev_part, n);
    CHECK(cudaGetLastError());
    long long two[2];
    CHECK(cudaMemcpy(two, dev_part, sizeof two, cudaMemcpyDeviceToHost));
    if (two[0] + two[1] != want)
      std::printf("sum over 2 x %d: %lld\n", fa.maxThreadsPerBlock, two[0] + two[1]), ++bad;
    const int more = fa.maxThreadsPerBlock + 32;
    if (more <= prop.maxThreadsPerBlock && more * sizeof(long long) <= prop.sharedMemPerBlock) {
      block_sums<<<1, more, more * sizeof(long long)>>>(dev_in, dev_part, n);
      const cudaError_t e = cudaGetLastError();
      if (e != cudaErrorLaunchOutOfResources)
        std::printf("block of %d threads: %s\n", more, cudaGetErrorName(e)), ++bad;
    }
  }

  // The largest block: maxThreadsPerBlock threads, sharedMemPerBlock bytes; one more of either
  // is refused and the error is not sticky.
  unsigned* res;
  CHECK(cudaMalloc(&res, 2 * sizeof(unsigned)));
  CHECK(cudaMemset(res, 0, 2 * sizeof(unsigned)));
  const unsigned words = unsigned(prop.sharedMemPerBlock / 4);
  fill_shared<<<1, prop.maxThreadsPerBlock, prop.sharedMemPerBlock>>>(res, words);
  CHECK(cudaGetLastError());
  unsigned r[2];
  CHECK(cudaMemcpy(r, res, sizeof r, cudaMemcpyDeviceToHost));
  unsigned x = 0;
  for (unsigned i = 0; i < words; ++i) x ^= i * 2654435761u;
  if (r[0] != x || r[1] != unsigned(prop.maxThreadsPerBlock))
    std::printf("fill_shared: %08x %u, expected %08x %d\n", r[0], r[1], x, prop.maxThreadsPerBlock),
        ++bad;
  fill_shared<<<1, prop.maxThreadsPerBlock + 1, 0>>>(res, 1);
  cudaError_t e1 = cudaGetLastError();
  fill_shared<<<1, 32, prop.sharedMemPerBlock + 1>>>(res, 1);
  cudaError_t e2 = cudaGetLastError();
  if (e1 != cudaErrorInvalidConfiguration || e2 == cudaSuccess || cudaGetLastError() != cudaSuccess)
    std::printf("oversized launches: %s, %s\n", cudaGetErrorName(e1), cudaGetErrorName(e2)), ++bad;
  std::printf("oversized launches: %s, %s\n", cudaGetErrorName(e1), cudaGetErrorName(e2));

  // Pitched 2D memory: set, copy a host array in, scale, copy a sub-rectangle device to
  // device, copy back asynchronously from pinned memory.
  char* d2;
  size_t pitch = 0;
  CHECK(cudaMallocPitch((void**)&d2, &pitch, w * sizeof(float), h));
  if (pitch < w * sizeof(float)) std::printf("pitch %zu < %zu\n", pitch, w * sizeof(float)), ++bad;
  CHECK(cudaMemset2D(d2, pitch, 0x3f, w * sizeof(float), h)); // 0x3f3f3f3f = 0.7470...f
  float* host2 = new float[w * h];
  CHECK(cudaMemcpy2D(host2, w * sizeof(float), d2, pitch, w * sizeof(float), h,
                     cudaMemcpyDeviceToHost));
  float v3f;
  const unsigned pattern = 0x3f3f3f3f;
  std::memcpy(&v3f, &pattern, 4);
  int p_bad = 0;
  for (int i = 0; i < w * h; ++i) p_bad += host2[i] != v3f;
  const int hw = w / 2; // the left half of each row replaced from the host
  for (int y = 0; y < h; ++y)
    for (int xx = 0; xx < hw; ++xx) host2[y * w + xx] = float(xx - y);
  CHECK(cudaMemcpy2D(d2, pitch, host2, w * sizeof(float), hw * sizeof(float), h,
                     cudaMemcpyHostToDevice));
  pitched<<<dim3((w + 127) / 128, h), 128>>>(d2, pitch, w, h);
  CHECK(cudaGetLastError());
  // Rows 1.. of columns 1.. into a second pitched array (device to device, offsets).
  char* e2d;
  size_t pitch2 = 0;
  CHECK(cudaMallocPitch((void**)&e2d, &pitch2, (w - 1) * sizeof(float), h - 1));
  CHECK(cudaMemcpy2D(e2d, pitch2, d2 + pitch + sizeof(float), pitch, (w - 1) * sizeof(float), h - 1,
                     cudaMemcpyDeviceToDevice));
  float* pin2;
  CHECK(cudaMallocHost((void**)&pin2, (w - 1) * (h - 1) * sizeof(float)));
  CHECK(cudaMemcpy2DAsync(pin2, (w - 1) * sizeof(float), e2d, pitch2, (w - 1) * sizeof(float),
                          h - 1, cudaMemcpyDeviceToHost, s2));
  CHECK(cudaStreamSynchronize(s2));
  for (int y = 1; y < h; ++y)
    for (int xx = 1; xx < w; ++xx) {
      const float before = xx < hw ? float(xx - y) : v3f, want2 = before * 2.0f + float(y);
      if (pin2[(y - 1) * (w - 1) + xx - 1] != want2 && p_bad++ < 5)
        std::printf("2D (%d,%d): %g, expected %g\n", xx, y, pin2[(y - 1) * (w - 1) + xx - 1],
                    want2);
    }
  bad += p_bad;

  CHECK(cudaHostUnregister(in));
  CHECK(cudaFreeHost(out));
  CHECK(cudaFreeHost(pin));
  CHECK(cudaFreeHost(pin_part));
  CHECK(cudaFreeHost(pin2));
  std::free(in);
  if (!bad)
    std::printf("%d SMs, block_sums %d x %d (%d per SM), largest block %d threads %zu B shared\n",
                prop.multiProcessorCount, grid, block, per_sm, prop.maxThreadsPerBlock,
                prop.sharedMemPerBlock);
  return finish(bad);
}
