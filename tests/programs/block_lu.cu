// Blocked LU decomposition without pivoting (a diagonally dominant matrix), in place, 16x16
// blocks: for each block step k, one CTA factors the diagonal block, one CTA per remaining
// block row/column solves the perimeter (U to the right, L below), and a grid of CTAs updates
// the trailing blocks. Checked by multiplying L and U back and against the host's factors.
#include "check.h"
#include <cmath>
#include <cuda_runtime.h>

constexpr int BS = 16;

__global__ void factor_diagonal(float* a, int n, int k) {
  __shared__ float t[BS][BS + 1];
  const int tx = threadIdx.x, base = k * BS;
  for (int r = 0; r < BS; ++r) t[r][tx] = a[(base + r) * n + base + tx];
  __syncthreads();
  for (int p = 0; p < BS - 1; ++p) {
    if (tx > p) t[tx][p] /= t[p][p]; // multipliers of column p
    __syncthreads();
    if (tx > p)
      for (int c = p + 1; c < BS; ++c) t[tx][c] -= t[tx][p] * t[p][c];
    __syncthreads();
  }
  for (int r = 0; r < BS; ++r) a[(base + r) * n + base + tx] = t[r][tx];
}

// CTA b: the block right of the diagonal in block row k (threads 0..15, a column each:
// U = L_kk^-1 A) and the block below it in block column k (threads 16..31, a row each:
// L = A U_kk^-1).
__global__ void factor_perimeter(float* a, int n, int k) {
  __shared__ float d[BS][BS + 1], right[BS][BS + 1], below[BS][BS + 1];
  const int tx = threadIdx.x, base = k * BS, other = (k + 1 + blockIdx.x) * BS;
  for (int i = tx; i < BS * BS; i += blockDim.x) {
    int r = i / BS, c = i % BS;
    d[r][c] = a[(base + r) * n + base + c];
    right[r][c] = a[(base + r) * n + other + c];
    below[r][c] = a[(other + r) * n + base + c];
  }
  __syncthreads();
  if (tx < BS) { // forward substitution down column tx (unit lower triangle)
    for (int r = 1; r < BS; ++r) {
      float s = right[r][tx];
      for (int p = 0; p < r; ++p) s -= d[r][p] * right[p][tx];
      right[r][tx] = s;
    }
  } else { // along row tx - 16 against the upper triangle
    const int r = tx - BS;
    for (int c = 0; c < BS; ++c) {
      float s = below[r][c];
      for (int p = 0; p < c; ++p) s -= below[r][p] * d[p][c];
      below[r][c] = s / d[c][c];
    }
  }
  __syncthreads();
  for (int i = tx; i < BS * BS; i += blockDim.x) {
    int r = i / BS, c = i % BS;
    a[(base + r) * n + other + c] = right[r][c];
    a[(other + r) * n + base + c] = below[r][c];
  }
}

__global__ void update_trailing(float* a, int n, int k) {
  __shared__ float l[BS][BS], u[BS][BS];
  const int tx = threadIdx.x, ty = threadIdx.y, base = k * BS;
  const int row = (k + 1 + blockIdx.y) * BS + ty, col = (k + 1 + blockIdx.x) * BS + tx;
  l[ty][tx] = a[row * n + base + tx];
  u[ty][tx] = a[(base + ty) * n + col];
  __syncthreads();
  float s = 0;
  for (int p = 0; p < BS; ++p) s += l[ty][p] * u[p][tx];
  a[row * n + col] -= s;
}

int main() {
  const int n = 192, nb = n / BS;
  float *a = new float[n * n], *lu = new float[n * n], *got = new float[n * n];
  unsigned s = 7;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      s = s * 1103515245u + 12345u;
      a[i * n + j] = ((s >> 10) % 1000) / 1000.0f + (i == j ? n : 0);
    }
  float* da;
  CHECK(cudaMalloc(&da, sizeof(float) * n * n));
  CHECK(cudaMemcpy(da, a, sizeof(float) * n * n, cudaMemcpyHostToDevice));
  for (int k = 0; k < nb; ++k) {
    factor_diagonal<<<1, BS>>>(da, n, k);
    if (k + 1 < nb) {
      factor_perimeter<<<nb - k - 1, 2 * BS>>>(da, n, k);
      update_trailing<<<dim3(nb - k - 1, nb - k - 1), dim3(BS, BS)>>>(da, n, k);
    }
    CHECK(cudaGetLastError());
  }
  CHECK(cudaMemcpy(got, da, sizeof(float) * n * n, cudaMemcpyDeviceToHost));
  // Host: unblocked Doolittle.
  for (int i = 0; i < n * n; ++i) lu[i] = a[i];
  for (int p = 0; p < n; ++p)
    for (int r = p + 1; r < n; ++r) {
      lu[r * n + p] /= lu[p * n + p];
      for (int c = p + 1; c < n; ++c) lu[r * n + c] -= lu[r * n + p] * lu[p * n + c];
    }
  int bad = 0;
  for (int i = 0; i < n * n; ++i)
    if (std::fabs(got[i] - lu[i]) > 1e-3f * (1 + std::fabs(lu[i])) && bad++ < 5)
      std::printf("lu[%d][%d] = %g, host %g\n", i / n, i % n, got[i], lu[i]);
  // L U = A, from the device's factors.
  double worst = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      double v = 0;
      for (int p = 0; p <= (i < j ? i : j); ++p)
        v += (p == i ? 1.0 : got[i * n + p]) * got[p * n + j];
      worst = std::fmax(worst, std::fabs(v - a[i * n + j]) / (1 + std::fabs(a[i * n + j])));
    }
  if (worst > 1e-4) {
    std::printf("L U differs from A by %g\n", worst);
    ++bad;
  }
  return finish(bad);
}
