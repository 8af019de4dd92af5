// A program without a kernel, as a device query or a bandwidth test is: the device's
// properties and attributes, pageable and pinned copies both ways timed with events,
// cudaMallocAsync on a stream, memsets; and, in a second translation unit without a kernel
// either, a __constant__ table written and read through the symbol calls.
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>
#include <vector>

#include "check.h"

cudaError_t put_table(const float* v);
cudaError_t get_table(float* v, int first, int n);

int main() {
  int bad = 0, count = 0;
  CHECK(cudaGetDeviceCount(&count));
  cudaDeviceProp p;
  CHECK(cudaGetDeviceProperties(&p, 0));
  int pools = 0, map = 0, sms = 0;
  CHECK(cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, 0));
  CHECK(cudaDeviceGetAttribute(&map, cudaDevAttrCanMapHostMemory, 0));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  printf("%d device: %s, compute capability %d.%d, %d SMs, %zu bytes of shared memory a block\n",
         count, p.name, p.major, p.minor, p.multiProcessorCount, p.sharedMemPerBlock);
  if (count != 1 || sms != p.multiProcessorCount || sms < 1 || p.warpSize != 32 || !pools || !map) {
    bad++;
    printf("properties: %d devices, %d SMs, warp %d, pools %d, map %d\n", count, sms, p.warpSize,
           pools, map);
  }
  // Bandwidth-test style: pageable and pinned copies, each way, timed with events.
  const size_t n = 1 << 20;
  std::vector<unsigned> pageable(n), back(n);
  for (size_t i = 0; i < n; ++i) pageable[i] = unsigned(i * 2654435761u);
  unsigned *pinned, *d, *d2;
  CHECK(cudaMallocHost(&pinned, n * sizeof(unsigned)));
  CHECK(cudaMalloc(&d, n * sizeof(unsigned)));
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  for (int rep = 0; rep < 3; ++rep) {
    CHECK(cudaEventRecord(a));
    CHECK(cudaMemcpy(d, pageable.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(pinned, d, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float ms = -1;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    if (ms < 0 || memcmp(pinned, pageable.data(), n * sizeof(unsigned))) {
      bad++;
      printf("copy round %d: %g ms, data %s\n", rep, ms,
             memcmp(pinned, pageable.data(), n * sizeof(unsigned)) ? "differs" : "equal");
    }
  }
  // Stream-ordered allocation, a device-to-device copy and a memset on a stream.
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  CHECK(cudaMallocAsync(&d2, n * sizeof(unsigned), s));
  CHECK(cudaMemcpyAsync(d2, d, n * sizeof(unsigned), cudaMemcpyDeviceToDevice, s));
  CHECK(cudaMemsetAsync(d2, 0xab, 64, s));
  CHECK(cudaMemcpyAsync(back.data(), d2, n * sizeof(unsigned), cudaMemcpyDeviceToHost, s));
  CHECK(cudaStreamSynchronize(s));
  for (size_t i = 0; i < n; ++i) {
    const unsigned want = i < 16 ? 0xababababu : pageable[i];
    if (back[i] != want && bad++ < 5) printf("async copy %zu: %08x want %08x\n", i, back[i], want);
  }
  CHECK(cudaFreeAsync(d2, s));
  // The other translation unit's __constant__ table (its module has no kernel).
  float t[16], r[5];
  for (int i = 0; i < 16; ++i) t[i] = i * 1.5f - 4.f;
  CHECK(put_table(t));
  CHECK(get_table(r, 9, 5));
  for (int i = 0; i < 5; ++i)
    if (r[i] != t[9 + i] && bad++ < 5) printf("table[%d] = %g want %g\n", 9 + i, r[i], t[9 + i]);
  CHECK(cudaStreamDestroy(s));
  CHECK(cudaFreeHost(pinned));
  CHECK(cudaFree(d));
  return finish(bad);
}
