// Two streams, asynchronous copies and kernels, events around the work: the elapsed time is
// simulated time (> 0, and the longer kernel takes longer); every memcpy kind and
// page-locked host memory; host functions and callbacks in stream order.
#include "check.h"
#include <cuda_runtime.h>

// A host function sees the stream's work before it done: the first element already scaled.
struct Seen {
  const float* host;
  float first = -1;
  int calls = 0;
  cudaError_t status = cudaErrorUnknown;
};
void CUDART_CB host_fn(void* p) {
  Seen* s = static_cast<Seen*>(p);
  s->first = s->host[1];
  ++s->calls;
}
void CUDART_CB callback(cudaStream_t, cudaError_t status, void* p) {
  static_cast<Seen*>(p)->status = status;
  ++static_cast<Seen*>(p)->calls;
}

__global__ void scale(float* v, float f, int n, int rounds) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = v[i];
  for (int r = 0; r < rounds; ++r) x = x * f;
  v[i] = x;
}

int main() {
  const int n = 2048;
  float *h, *d0, *d1;
  CHECK(cudaMallocHost(&h, n * sizeof(float)));
  for (int i = 0; i < n; ++i) h[i] = float(i % 17);
  CHECK(cudaMalloc(&d0, n * sizeof(float)));
  CHECK(cudaMalloc(&d1, n * sizeof(float)));
  cudaStream_t s0, s1;
  CHECK(cudaStreamCreate(&s0));
  CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  cudaEvent_t e0, e1, e2;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  CHECK(cudaEventCreate(&e2));
  CHECK(cudaMemcpyAsync(d0, h, n * sizeof(float), cudaMemcpyHostToDevice, s0));
  CHECK(cudaMemcpyAsync(d1, d0, n * sizeof(float), cudaMemcpyDeviceToDevice, s0));
  CHECK(cudaEventRecord(e0, s0));
  scale<<<n / 256, 256, 0, s0>>>(d0, 2.0f, n, 1);
  CHECK(cudaEventRecord(e1, s0));
  CHECK(cudaStreamWaitEvent(s1, e1, 0));
  scale<<<n / 256, 256, 0, s1>>>(d1, 0.5f, n, 8);
  CHECK(cudaEventRecord(e2, s1));
  CHECK(cudaStreamSynchronize(s1));
  CHECK(cudaEventSynchronize(e2));
  // d1 back to a page-locked buffer, then a host function and a callback on the same stream.
  float* pinned;
  CHECK(cudaMallocHost(&pinned, n * sizeof(float)));
  Seen seen{pinned};
  CHECK(cudaMemcpyAsync(pinned, d1, n * sizeof(float), cudaMemcpyDeviceToHost, s1));
  CHECK(cudaLaunchHostFunc(s1, host_fn, &seen));
  CHECK(cudaStreamAddCallback(s1, callback, &seen, 0));
  CHECK(cudaStreamSynchronize(s1));
  float short_ms = 0, long_ms = 0;
  CHECK(cudaEventElapsedTime(&short_ms, e0, e1));
  CHECK(cudaEventElapsedTime(&long_ms, e1, e2));
  float* back = new float[n];
  float* back1 = new float[n];
  CHECK(cudaMemcpy(back, d0, n * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(back1, d1, n * sizeof(float), cudaMemcpyDefault));
  float* copy = new float[n];
  CHECK(cudaMemcpy(copy, h, n * sizeof(float), cudaMemcpyHostToHost));
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    bad += back[i] != h[i] * 2.0f;
    bad += back1[i] != h[i] / 256.0f;
    bad += copy[i] != h[i];
  }
  bad += seen.calls != 2 || seen.first != h[1] / 256.0f || seen.status != cudaSuccess;
  std::printf("host function saw %g (%d calls)\n", seen.first, seen.calls);
  CHECK(cudaFreeHost(pinned));
  std::printf("elapsed: %.6f ms, %.6f ms\n", short_ms, long_ms);
  if (!(short_ms > 0 && long_ms > short_ms)) ++bad;
  if (cudaStreamQuery(s0) != cudaSuccess) ++bad;
  CHECK(cudaEventDestroy(e0));
  CHECK(cudaEventDestroy(e1));
  CHECK(cudaEventDestroy(e2));
  CHECK(cudaStreamDestroy(s0));
  CHECK(cudaStreamDestroy(s1));
  CHECK(cudaFreeHost(h));
  return finish(bad);
}
