// Device queries filled from the platform, the occupancy calculator, function attributes, the
// error functions, limits, stream-ordered allocation, unified-memory hints, stream priorities and
// capture status, the profiler calls, and a function libgpurf-cudart does not implement
// (cudaErrorNotSupported, no abort). Prints the facts tests/cli/programs.sh compares with the
// platform.
#include "check.h"
#include <cstring>
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>

__global__ void k(float* p) { p[threadIdx.x] = threadIdx.x; }

int main() {
  int bad = 0, count = 0, dev = -1, v = 0;
  CHECK(cudaGetDeviceCount(&count));
  CHECK(cudaSetDevice(0));
  CHECK(cudaGetDevice(&dev));
  bad += count != 1 || dev != 0;
  cudaDeviceProp p;
  CHECK(cudaGetDeviceProperties(&p, 0));
  std::printf("name %s\nsms %d\nwarp %d\nthreads/sm %d\nshared/block %zu\ncc %d.%d\n", p.name,
              p.multiProcessorCount, p.warpSize, p.maxThreadsPerMultiProcessor, p.sharedMemPerBlock,
              p.major, p.minor);
  CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0));
  bad += v != p.multiProcessorCount;
  CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrWarpSize, 0));
  bad += v != 32;
  int blocks = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, k, 128, 0));
  std::printf("blocks/sm %d\n", blocks);
  bad += blocks < 1 || blocks * 128 > p.maxThreadsPerMultiProcessor;
  cudaFuncAttributes a;
  CHECK(cudaFuncGetAttributes(&a, k));
  bad += a.numRegs < 1;
  int version = 0;
  CHECK(cudaRuntimeGetVersion(&version));
  bad += version < 13000;
  // A launch with no CTA: a launch error, not sticky.
  float* d;
  CHECK(cudaMalloc(&d, 1024));
  k<<<0, 32>>>(d);
  const cudaError_t e = cudaGetLastError();
  std::printf("empty grid: %s\n", cudaGetErrorName(e));
  bad += e == cudaSuccess;
  bad += cudaGetLastError() != cudaSuccess; // cleared
  k<<<1, 32>>>(d);
  CHECK(cudaDeviceSynchronize());
  // A copy from freed device memory: an argument error, not sticky.
  float* gone;
  float x = 0;
  CHECK(cudaMalloc(&gone, 256));
  CHECK(cudaFree(gone));
  const cudaError_t fe = cudaMemcpy(&x, gone, sizeof x, cudaMemcpyDeviceToHost);
  std::printf("copy from freed memory: %s\n", cudaGetErrorName(fe));
  bad += fe != cudaErrorInvalidValue;
  cudaGetLastError();
  CHECK(cudaMemcpy(&x, d, sizeof x, cudaMemcpyDeviceToHost));
  // Limits round-trip; stream-ordered memory works in a kernel; hints and queries succeed.
  size_t heap = 0, stack = 0;
  CHECK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 16 << 20));
  CHECK(cudaDeviceGetLimit(&heap, cudaLimitMallocHeapSize));
  CHECK(cudaDeviceGetLimit(&stack, cudaLimitStackSize));
  bad += heap != (16 << 20) || stack == 0;
  bad += cudaDeviceSetLimit(cudaLimit(99), 1) != cudaErrorUnsupportedLimit;
  float* ordered = nullptr;
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  CHECK(cudaMallocAsync(&ordered, 32 * sizeof(float), s));
  k<<<1, 32, 0, s>>>(ordered);
  float back[32];
  CHECK(cudaMemcpyAsync(back, ordered, sizeof back, cudaMemcpyDeviceToHost, s));
  CHECK(cudaFreeAsync(ordered, s));
  CHECK(cudaStreamSynchronize(s));
  bad += back[31] != 31.0f;
  float* m;
  CHECK(cudaMallocManaged(&m, 256));
  cudaMemLocation loc{cudaMemLocationTypeDevice, 0};
  CHECK(cudaMemPrefetchAsync(m, 256, loc, 0, s));
  CHECK(cudaMemAdvise(m, 256, cudaMemAdviseSetReadMostly, loc));
  CHECK(cudaFree(m));
  int least = 1, greatest = 1, prio = 1;
  CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  CHECK(cudaStreamGetPriority(s, &prio));
  cudaStreamCaptureStatus cap = cudaStreamCaptureStatusActive;
  CHECK(cudaStreamIsCapturing(s, &cap));
  bad += least != 0 || greatest != 0 || prio != 0 || cap != cudaStreamCaptureStatusNone;
  CHECK(cudaProfilerStart());
  CHECK(cudaProfilerStop());
  CHECK(cudaStreamDestroy(s));
  // Not implemented: says so and returns cudaErrorNotSupported.
  // (CUDA IPC: one process; this was cudaGraphCreate before graphs were supported.)
  cudaIpcMemHandle_t ipc;
  const cudaError_t ns = cudaIpcGetMemHandle(&ipc, nullptr);
  std::printf("cudaIpcGetMemHandle: %s\n", cudaGetErrorName(ns));
  bad += ns != cudaErrorNotSupported;
  bad += std::strcmp(cudaGetErrorString(cudaErrorInvalidValue), "invalid argument") != 0;
  return finish(bad);
}
