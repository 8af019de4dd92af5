// Device queries filled from the platform, the occupancy calculator, function attributes, the
// error functions, and a function libgpurf-cudart does not implement (cudaErrorNotSupported,
// no abort). Prints the facts tests/cli/programs.sh compares with the platform.
#include <cstring>
#include <cuda_runtime.h>
#include "check.h"

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
              p.multiProcessorCount, p.warpSize, p.maxThreadsPerMultiProcessor,
              p.sharedMemPerBlock, p.major, p.minor);
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
  // Not implemented: says so and returns cudaErrorNotSupported.
  cudaGraph_t g;
  const cudaError_t ns = cudaGraphCreate(&g, 0);
  std::printf("cudaGraphCreate: %s\n", cudaGetErrorName(ns));
  bad += ns != cudaErrorNotSupported;
  bad += std::strcmp(cudaGetErrorString(cudaErrorInvalidValue), "invalid argument") != 0;
  return finish(bad);
}
