// Speckle-reducing anisotropic diffusion on an image: J = exp(I / 255); each iteration reduces
// the region of interest to its mean and variance (a shared-memory tree per CTA, then float
// atomicAdd of the CTA's partial sums), computes the four directional derivatives and the
// diffusion coefficient of every pixel (one kernel), then updates the image from the
// coefficients of the pixel and its south and east neighbours (another kernel). Finally
// I = 255 log(J). Checked against the same computation on the host.
#include "check.h"
#include <cmath>
#include <cuda_runtime.h>

constexpr int BX = 16, BY = 16;

__global__ void to_exp(const float* img, float* j, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) j[i] = expf(img[i] / 255.0f);
}

// Sums of J and J^2 over rows [r0, r1) and columns [c0, c1).
__global__ void roi_sums(const float* j, int cols, int r0, int r1, int c0, int c1, float* sums) {
  __shared__ float s1[BX * BY], s2[BX * BY];
  const int t = threadIdx.y * BX + threadIdx.x;
  const int r = blockIdx.y * BY + threadIdx.y, c = blockIdx.x * BX + threadIdx.x;
  float v = (r >= r0 && r < r1 && c >= c0 && c < c1) ? j[r * cols + c] : 0.0f;
  s1[t] = v;
  s2[t] = v * v;
  __syncthreads();
  for (int half = BX * BY / 2; half > 0; half /= 2) {
    if (t < half) {
      s1[t] += s1[t + half];
      s2[t] += s2[t + half];
    }
    __syncthreads();
  }
  if (t == 0) {
    atomicAdd(&sums[0], s1[0]);
    atomicAdd(&sums[1], s2[0]);
  }
}

__device__ float q0_squared(const float* sums, int roi) {
  float mean = sums[0] / roi, var = sums[1] / roi - mean * mean;
  return var / (mean * mean);
}

__global__ void coefficients(const float* j, int rows, int cols, const float* sums, int roi,
                             float* dn, float* ds, float* dw, float* de, float* c) {
  const int r = blockIdx.y * BY + threadIdx.y, x = blockIdx.x * BX + threadIdx.x;
  if (r >= rows || x >= cols) return;
  const int i = r * cols + x;
  const float q0 = q0_squared(sums, roi), v = j[i];
  const float n = j[max(r - 1, 0) * cols + x] - v, s = j[min(r + 1, rows - 1) * cols + x] - v;
  const float w = j[r * cols + max(x - 1, 0)] - v, e = j[r * cols + min(x + 1, cols - 1)] - v;
  const float g2 = (n * n + s * s + w * w + e * e) / (v * v), l = (n + s + w + e) / v;
  const float num = 0.5f * g2 - (l * l) / 16.0f, den1 = 1 + 0.25f * l;
  const float q = num / (den1 * den1);
  float cc = 1.0f / (1.0f + (q - q0) / (q0 * (1 + q0)));
  dn[i] = n;
  ds[i] = s;
  dw[i] = w;
  de[i] = e;
  c[i] = fminf(fmaxf(cc, 0.0f), 1.0f);
}

__global__ void update(float* j, int rows, int cols, const float* dn, const float* ds,
                       const float* dw, const float* de, const float* c, float lambda) {
  const int r = blockIdx.y * BY + threadIdx.y, x = blockIdx.x * BX + threadIdx.x;
  if (r >= rows || x >= cols) return;
  const int i = r * cols + x;
  const float cn = c[i], cw = c[i], cs = c[min(r + 1, rows - 1) * cols + x];
  const float ce = c[r * cols + min(x + 1, cols - 1)];
  j[i] += 0.25f * lambda * (cn * dn[i] + cs * ds[i] + cw * dw[i] + ce * de[i]);
}

__global__ void to_log(const float* j, float* img, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) img[i] = logf(j[i]) * 255.0f;
}

int main() {
  const int rows = 96, cols = 160, n = rows * cols, iterations = 8;
  const int r0 = 8, r1 = 40, c0 = 16, c1 = 80, roi = (r1 - r0) * (c1 - c0);
  const float lambda = 0.5f;
  float* img = new float[n];
  unsigned s = 3;
  for (int i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    img[i] = 60 + 40 * std::sin(i * 0.01f) + (s >> 24) * 0.3f;
  }
  float *dimg, *dj, *dd[4], *dc, *dsums;
  CHECK(cudaMalloc(&dimg, n * sizeof(float)));
  CHECK(cudaMalloc(&dj, n * sizeof(float)));
  for (auto& d : dd) CHECK(cudaMalloc(&d, n * sizeof(float)));
  CHECK(cudaMalloc(&dc, n * sizeof(float)));
  CHECK(cudaMalloc(&dsums, 2 * sizeof(float)));
  CHECK(cudaMemcpy(dimg, img, n * sizeof(float), cudaMemcpyHostToDevice));
  const dim3 block(BX, BY), grid((cols + BX - 1) / BX, (rows + BY - 1) / BY);
  to_exp<<<(n + 255) / 256, 256>>>(dimg, dj, n);
  for (int it = 0; it < iterations; ++it) {
    CHECK(cudaMemset(dsums, 0, 2 * sizeof(float)));
    roi_sums<<<grid, block>>>(dj, cols, r0, r1, c0, c1, dsums);
    coefficients<<<grid, block>>>(dj, rows, cols, dsums, roi, dd[0], dd[1], dd[2], dd[3], dc);
    update<<<grid, block>>>(dj, rows, cols, dd[0], dd[1], dd[2], dd[3], dc, lambda);
    CHECK(cudaGetLastError());
  }
  to_log<<<(n + 255) / 256, 256>>>(dj, dimg, n);
  float* got = new float[n];
  CHECK(cudaMemcpy(got, dimg, n * sizeof(float), cudaMemcpyDeviceToHost));
  // Host.
  double* j = new double[n];
  double *d[4], *c = new double[n];
  for (auto& p : d) p = new double[n];
  for (int i = 0; i < n; ++i) j[i] = std::exp(img[i] / 255.0);
  for (int it = 0; it < iterations; ++it) {
    double s1 = 0, s2 = 0;
    for (int r = r0; r < r1; ++r)
      for (int x = c0; x < c1; ++x) {
        s1 += j[r * cols + x];
        s2 += j[r * cols + x] * j[r * cols + x];
      }
    double mean = s1 / roi, var = s2 / roi - mean * mean, q0 = var / (mean * mean);
    for (int r = 0; r < rows; ++r)
      for (int x = 0; x < cols; ++x) {
        int i = r * cols + x;
        double v = j[i];
        double nn = j[(r > 0 ? r - 1 : 0) * cols + x] - v,
               ss = j[(r + 1 < rows ? r + 1 : r) * cols + x] - v;
        double w = j[r * cols + (x > 0 ? x - 1 : 0)] - v,
               e = j[r * cols + (x + 1 < cols ? x + 1 : x)] - v;
        double g2 = (nn * nn + ss * ss + w * w + e * e) / (v * v), l = (nn + ss + w + e) / v;
        double num = 0.5 * g2 - l * l / 16, den1 = 1 + 0.25 * l, q = num / (den1 * den1);
        double cc = 1 / (1 + (q - q0) / (q0 * (1 + q0)));
        d[0][i] = nn, d[1][i] = ss, d[2][i] = w, d[3][i] = e;
        c[i] = cc < 0 ? 0 : cc > 1 ? 1 : cc;
      }
    for (int r = 0; r < rows; ++r)
      for (int x = 0; x < cols; ++x) {
        int i = r * cols + x;
        double cs = c[(r + 1 < rows ? r + 1 : r) * cols + x],
               ce = c[r * cols + (x + 1 < cols ? x + 1 : x)];
        j[i] += 0.25 * lambda * (c[i] * d[0][i] + cs * d[1][i] + c[i] * d[2][i] + ce * d[3][i]);
      }
  }
  int bad = 0;
  double worst = 0;
  for (int i = 0; i < n; ++i) {
    double want = std::log(j[i]) * 255, err = std::fabs(got[i] - want);
    worst = err > worst ? err : worst;
    if (err > 0.05 && bad++ < 5) std::printf("pixel %d: %f, expected %f\n", i, got[i], want);
  }
  std::printf("largest difference %g\n", worst);
  return finish(bad);
}
