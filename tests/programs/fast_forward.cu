// A Jacobi heat stencil with ping-pong buffers, ITERS launches of `jacobi`, then a block
// reduction of the final grid (`sum_rows`) and a scale of it (`scale`), checked on the host
// against the same computation: the shape of a program one fast-forwards to a late launch
// (docs/programs.md "Fast-forward"; tests/cli/fast_forward.sh; docs/speed.md measures the
// fast-forward speed with a large N).
//   fast_forward [N [ITERS]]   (default 64 8)
#include <cmath>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#include "check.h"

__global__ void jacobi(const float* in, float* out, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= n || y >= n) return;
  if (x == 0 || y == 0 || x == n - 1 || y == n - 1) {
    out[y * n + x] = in[y * n + x]; // the boundary holds its temperature
    return;
  }
  out[y * n + x] = 0.25f * (in[y * n + x - 1] + in[y * n + x + 1] + in[(y - 1) * n + x] +
                            in[(y + 1) * n + x]);
}

// One row per block: a shared-memory tree reduction.
__global__ void sum_rows(const float* g, float* rows, int n) {
  __shared__ float s[256];
  float v = 0;
  for (int x = threadIdx.x; x < n; x += blockDim.x) v += g[blockIdx.x * n + x];
  s[threadIdx.x] = v;
  __syncthreads();
  for (int k = blockDim.x / 2; k > 0; k /= 2) {
    if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
    __syncthreads();
  }
  if (threadIdx.x == 0) rows[blockIdx.x] = s[0];
}

__global__ void scale(float* rows, int n, float f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) rows[i] *= f;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 64;
  const int iters = argc > 2 ? std::atoi(argv[2]) : 8;
  std::vector<float> g(size_t(n) * n, 0.0f), ref;
  for (int x = 0; x < n; ++x) g[x] = 100.0f; // a hot top edge
  for (int y = 0; y < n; ++y) g[size_t(y) * n] = 50.0f + y % 7;
  ref = g;
  float *a, *b, *rows;
  const size_t bytes = g.size() * sizeof(float);
  CHECK(cudaMalloc(&a, bytes));
  CHECK(cudaMalloc(&b, bytes));
  CHECK(cudaMalloc(&rows, n * sizeof(float)));
  CHECK(cudaMemcpy(a, g.data(), bytes, cudaMemcpyHostToDevice));
  const dim3 block(16, 16), grid((n + 15) / 16, (n + 15) / 16);
  for (int t = 0; t < iters; ++t) {
    jacobi<<<grid, block>>>(t % 2 ? b : a, t % 2 ? a : b, n);
    CHECK(cudaGetLastError());
  }
  const float* last = iters % 2 ? b : a;
  sum_rows<<<n, 256>>>(last, rows, n);
  scale<<<(n + 127) / 128, 128>>>(rows, n, 1.0f / n);
  CHECK(cudaDeviceSynchronize());
  std::vector<float> got(n);
  CHECK(cudaMemcpy(got.data(), rows, n * sizeof(float), cudaMemcpyDeviceToHost));

  // The host's: the same float operations in the same order per point.
  std::vector<float> nxt(ref.size());
  for (int t = 0; t < iters; ++t) {
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x) {
        const size_t i = size_t(y) * n + x;
        nxt[i] = x == 0 || y == 0 || x == n - 1 || y == n - 1
                     ? ref[i]
                     : 0.25f * (ref[i - 1] + ref[i + 1] + ref[i - n] + ref[i + n]);
      }
    ref.swap(nxt);
  }
  int bad = 0;
  for (int y = 0; y < n; ++y) {
    double s = 0;
    for (int x = 0; x < n; ++x) s += ref[size_t(y) * n + x];
    const double want = s / n;
    if (std::fabs(got[y] - want) > 1e-3 * std::fabs(want) + 1e-3) {
      if (bad < 5) std::printf("row %d: %f, expected %f\n", y, got[y], want);
      ++bad;
    }
  }
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  CHECK(cudaFree(rows));
  return finish(bad);
}
