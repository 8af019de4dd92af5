// Gaussian elimination as Rodinia's gaussian does it: for each of the n-1 pivots, fan1 computes
// the multipliers of the column and fan2 updates the rows below, two kernels alternating
// 2(n-1) launches; then back substitution on the host, checked against the known solution.
#include <cmath>
#include <cuda_runtime.h>
#include "check.h"

__global__ void fan1(float* m, const float* a, int n, int t) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n - 1 - t) return;
  m[n * (i + t + 1) + t] = a[n * (i + t + 1) + t] / a[n * t + t];
}

__global__ void fan2(const float* m, float* a, float* b, int n, int t) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= n - 1 - t || y >= n - t) return;
  a[n * (x + 1 + t) + (y + t)] -= m[n * (x + 1 + t) + t] * a[n * t + (y + t)];
  if (y == 0) b[x + 1 + t] -= m[n * (x + 1 + t) + (y + t)] * b[t];
}

int main() {
  const int n = 24;
  float a[n * n], b[n], x[n], want[n];
  for (int i = 0; i < n; ++i) {
    want[i] = 1.0f + 0.25f * i;
    for (int j = 0; j < n; ++j) a[i * n + j] = i == j ? 2.0f * n : 1.0f / (1 + i + j);
  }
  for (int i = 0; i < n; ++i) {
    b[i] = 0;
    for (int j = 0; j < n; ++j) b[i] += a[i * n + j] * want[j];
  }
  float *da, *db, *dm;
  CHECK(cudaMalloc(&da, sizeof a));
  CHECK(cudaMalloc(&db, sizeof b));
  CHECK(cudaMalloc(&dm, sizeof a));
  CHECK(cudaMemcpy(da, a, sizeof a, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b, sizeof b, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dm, 0, sizeof a));
  for (int t = 0; t < n - 1; ++t) {
    fan1<<<1, 32>>>(dm, da, n, t);
    fan2<<<dim3(2, 2), dim3(16, 16)>>>(dm, da, db, n, t);
    CHECK(cudaGetLastError());
  }
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(a, da, sizeof a, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(b, db, sizeof b, cudaMemcpyDeviceToHost));
  for (int i = n - 1; i >= 0; --i) {
    float s = b[i];
    for (int j = i + 1; j < n; ++j) s -= a[i * n + j] * x[j];
    x[i] = s / a[i * n + i];
  }
  int bad = 0;
  for (int i = 0; i < n; ++i)
    if (std::fabs(x[i] - want[i]) > 1e-3f * std::fabs(want[i])) {
      std::printf("x[%d] = %f, expected %f\n", i, x[i], want[i]);
      ++bad;
    }
  return finish(bad);
}
