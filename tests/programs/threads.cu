// Two host threads share the device, as a program with a worker thread per task does: each
// allocates its own buffers, copies in, launches its kernel several times with <<<>>> (a call
// configuration each thread pushes and pops), copies back and checks; a launch error one
// thread provokes is that thread's last error, not the other's (CUDA's last error is per host
// thread). libgpurf-cudart runs their calls one at a time.
#include <cuda_runtime.h>
#include <thread>
#include <vector>

#include "check.h"

__global__ void scale_add(float* x, float a, float b, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = a * x[i] + b;
}

__global__ void square_mod(unsigned* x, unsigned m, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * x[i] % m;
}

constexpr int kRounds = 4;

// Thread 0: floats, scale_add; also an empty grid (its own launch error).
static void worker_float(int* bad) {
  const int n = 700;
  std::vector<float> h(n), want(n);
  for (int i = 0; i < n; ++i) want[i] = h[i] = float(i % 13);
  float* d = nullptr;
  CHECK(cudaMalloc(&d, n * sizeof(float)));
  CHECK(cudaMemcpy(d, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  for (int r = 0; r < kRounds; ++r) {
    scale_add<<<(n + 127) / 128, 128>>>(d, 0.5f, float(r), n);
    CHECK(cudaGetLastError());
    for (float& v : want) v = 0.5f * v + float(r);
  }
  scale_add<<<0, 128>>>(d, 1.0f, 0.0f, n); // refused: this thread's error
  const cudaError_t e = cudaGetLastError();
  if (e != cudaErrorInvalidConfiguration)
    std::printf("thread 0: empty grid gave %s\n", cudaGetErrorName(e)), ++*bad;
  CHECK(cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) *bad += h[i] != want[i];
  CHECK(cudaFree(d));
}

// Thread 1: unsigned ints, square_mod.
static void worker_uint(int* bad) {
  const int n = 900;
  const unsigned m = 65521;
  std::vector<unsigned> h(n), want(n);
  for (int i = 0; i < n; ++i) want[i] = h[i] = unsigned(i * 37 + 11);
  unsigned* d = nullptr;
  CHECK(cudaMalloc(&d, n * sizeof(unsigned)));
  CHECK(cudaMemcpy(d, h.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
  for (int r = 0; r < kRounds; ++r) {
    square_mod<<<(n + 255) / 256, 256>>>(d, m, n);
    CHECK(cudaGetLastError());
    for (unsigned& v : want) v = v * v % m;
  }
  CHECK(cudaMemcpy(h.data(), d, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) *bad += h[i] != want[i];
  CHECK(cudaFree(d));
}

int main() {
  int bad[2] = {0, 0};
  std::thread a(worker_float, &bad[0]), b(worker_uint, &bad[1]);
  a.join();
  b.join();
  std::printf("thread 0: %d wrong, thread 1: %d wrong\n", bad[0], bad[1]);
  return finish(bad[0] + bad[1]);
}
