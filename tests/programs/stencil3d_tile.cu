// A 3D stencil with a big register tile: each thread of a __launch_bounds__(256, 2) kernel walks a
// column in z keeping a 9-plane register queue for 4 points in y (radius-4 star stencil in
// double, loops unrolled), a shared-memory xy tile with halos; beside it a per-thread 8x8 register
// tile matrix product (64 accumulators, fully unrolled) that spills under -maxrregcount and on
// Fermi-sized register files. Several time steps, ping-pong buffers, checked on the host.
#include "check.h"
#include <cmath>
#include <vector>

#define R 4
#define TX 32
#define TY 8
#define PY 4 // points per thread in y
__constant__ double kC[R + 1];

__global__ void __launch_bounds__(256, 2)
    star3d(const double* __restrict__ in, double* __restrict__ out, int nx, int ny, int nz) {
  __shared__ double tile[TY * PY + 2 * R][TX + 2 * R];
  int gx = blockIdx.x * TX + threadIdx.x;
  int gy0 = blockIdx.y * TY * PY + threadIdx.y * PY;
  int lx = threadIdx.x + R;
  size_t plane = (size_t)nx * ny;
  auto at = [&](int x, int y, int z) -> double {
    x = min(max(x, 0), nx - 1);
    y = min(max(y, 0), ny - 1);
    z = min(max(z, 0), nz - 1);
    return in[(size_t)z * plane + (size_t)y * nx + x];
  };
  double q[PY][2 * R + 1];
#pragma unroll
  for (int p = 0; p < PY; ++p)
#pragma unroll
    for (int k = 0; k < 2 * R + 1; ++k) q[p][k] = at(gx, gy0 + p, k - R);
  for (int z = 0; z < nz; ++z) {
    __syncthreads();
#pragma unroll
    for (int p = 0; p < PY; ++p) tile[threadIdx.y * PY + p + R][lx] = q[p][R];
    if (threadIdx.x < R) {
#pragma unroll
      for (int p = 0; p < PY; ++p) {
        tile[threadIdx.y * PY + p + R][threadIdx.x] = at(gx - R, gy0 + p, z);
        tile[threadIdx.y * PY + p + R][lx + TX] = at(gx + TX, gy0 + p, z);
      }
    }
    if (threadIdx.y == 0 && threadIdx.x < TX) {
      int by = blockIdx.y * TY * PY;
#pragma unroll
      for (int h = 0; h < R; ++h) {
        tile[h][lx] = at(gx, by - R + h, z);
        tile[TY * PY + R + h][lx] = at(gx, by + TY * PY + h, z);
      }
    }
    __syncthreads();
    if (gx < nx) {
#pragma unroll
      for (int p = 0; p < PY; ++p) {
        int ty = threadIdx.y * PY + p + R;
        double v = kC[0] * q[p][R];
#pragma unroll
        for (int r = 1; r <= R; ++r)
          v += kC[r] * (q[p][R - r] + q[p][R + r] + tile[ty][lx - r] + tile[ty][lx + r] +
                        tile[ty - r][lx] + tile[ty + r][lx]);
        if (gy0 + p < ny) out[(size_t)z * plane + (size_t)(gy0 + p) * nx + gx] = v;
      }
    }
#pragma unroll
    for (int p = 0; p < PY; ++p) {
#pragma unroll
      for (int k = 0; k < 2 * R; ++k) q[p][k] = q[p][k + 1];
      q[p][2 * R] = at(gx, gy0 + p, z + R + 1);
    }
  }
}

// C (n x n) = A * B with each thread computing an 8x8 block held in registers.
__global__ void __launch_bounds__(64) tile_gemm(const float* A, const float* B, float* C, int n) {
  int bx = (blockIdx.x * blockDim.x + threadIdx.x) * 8, by = blockIdx.y * 8;
  if (bx >= n || by >= n) return;
  float acc[8][8];
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;
  for (int k = 0; k < n; ++k) {
    float a[8], b[8];
#pragma unroll
    for (int i = 0; i < 8; ++i) a[i] = A[(by + i) * n + k];
#pragma unroll
    for (int j = 0; j < 8; ++j) b[j] = B[k * n + bx + j];
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
      for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
  }
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) C[(by + i) * n + bx + j] = acc[i][j];
}

// The same register tile in a 1,024-thread CTA: __launch_bounds__(1024) caps the registers at
// 32 on Fermi's 32,768 (64 on later GPUs), so the compiler spills; each thread its own 8x8
// outer products over 8 steps.
__global__ void __launch_bounds__(1024) wide_tile(const float* a, const float* b, float* out) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  float acc[8][8];
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;
  for (int k = 0; k < 8; ++k) {
    float x[8], y[8];
#pragma unroll
    for (int i = 0; i < 8; ++i) {
      x[i] = a[(t + k + i) & 1023];
      y[i] = b[(t * 3 + k * 8 + i) & 1023];
    }
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
      for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(x[i], y[j], acc[i][j]);
  }
  float s = 0.0f;
#pragma unroll
  for (int i = 0; i < 8; ++i)
#pragma unroll
    for (int j = 0; j < 8; ++j) s += acc[i][j] * (float)(i * 8 + j + 1);
  out[t] = s;
}

static double host_at(const std::vector<double>& a, int nx, int ny, int nz, int x, int y, int z) {
  x = std::min(std::max(x, 0), nx - 1);
  y = std::min(std::max(y, 0), ny - 1);
  z = std::min(std::max(z, 0), nz - 1);
  return a[((size_t)z * ny + y) * nx + x];
}

int main(int argc, char** argv) {
  int nx = 40, ny = 36, nz = argc > 1 ? atoi(argv[1]) : 6, steps = 2, n = 32;
  double hc[R + 1] = {-2.5, 0.4, -0.05, 0.008, -0.0006};
  CHECK(cudaMemcpyToSymbol(kC, hc, sizeof(hc)));
  size_t cells = (size_t)nx * ny * nz;
  std::vector<double> h(cells);
  for (size_t i = 0; i < cells; ++i) h[i] = sin(0.01 * i) + 0.001 * (i % 17);
  double *a, *b;
  CHECK(cudaMalloc(&a, cells * sizeof(double)));
  CHECK(cudaMalloc(&b, cells * sizeof(double)));
  CHECK(cudaMemcpy(a, h.data(), cells * sizeof(double), cudaMemcpyHostToDevice));
  dim3 block(TX, TY), grid((nx + TX - 1) / TX, (ny + TY * PY - 1) / (TY * PY));
  for (int s = 0; s < steps; ++s) {
    star3d<<<grid, block>>>(a, b, nx, ny, nz);
    std::swap(a, b);
  }
  CHECK(cudaGetLastError());
  std::vector<double> got(cells);
  CHECK(cudaMemcpy(got.data(), a, cells * sizeof(double), cudaMemcpyDeviceToHost));
  for (int s = 0; s < steps; ++s) {
    std::vector<double> o(cells);
    for (int z = 0; z < nz; ++z)
      for (int y = 0; y < ny; ++y)
        for (int x = 0; x < nx; ++x) {
          double v = hc[0] * host_at(h, nx, ny, nz, x, y, z);
          for (int r = 1; r <= R; ++r)
            v +=
                hc[r] * (host_at(h, nx, ny, nz, x, y, z - r) + host_at(h, nx, ny, nz, x, y, z + r) +
                         host_at(h, nx, ny, nz, x - r, y, z) + host_at(h, nx, ny, nz, x + r, y, z) +
                         host_at(h, nx, ny, nz, x, y - r, z) + host_at(h, nx, ny, nz, x, y + r, z));
          o[((size_t)z * ny + y) * nx + x] = v;
        }
    h.swap(o);
  }
  int bad = 0;
  for (size_t i = 0; i < cells; ++i)
    if (fabs(got[i] - h[i]) > 1e-9 * (1.0 + fabs(h[i]))) {
      if (bad < 5) printf("stencil cell %zu: got %.15g want %.15g\n", i, got[i], h[i]);
      ++bad;
    }

  std::vector<float> hA(n * n), hB(n * n), hC(n * n);
  for (int i = 0; i < n * n; ++i) {
    hA[i] = (float)((i * 7) % 13) * 0.25f;
    hB[i] = (float)((i * 5) % 11) * 0.5f - 2.0f;
  }
  float *A, *B, *C;
  CHECK(cudaMalloc(&A, n * n * sizeof(float)));
  CHECK(cudaMalloc(&B, n * n * sizeof(float)));
  CHECK(cudaMalloc(&C, n * n * sizeof(float)));
  CHECK(cudaMemcpy(A, hA.data(), n * n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(B, hB.data(), n * n * sizeof(float), cudaMemcpyHostToDevice));
  tile_gemm<<<dim3(1, n / 8), n / 8>>>(A, B, C, n);
  CHECK(cudaMemcpy(hC.data(), C, n * n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      float want = 0.0f;
      for (int k = 0; k < n; ++k) want = fmaf(hA[i * n + k], hB[k * n + j], want);
      if (hC[i * n + j] != want) {
        if (bad < 5) printf("gemm (%d,%d): got %g want %g\n", i, j, hC[i * n + j], want);
        ++bad;
      }
    }
  // One 1,024-thread CTA of the bounded kernel (refused on the Fermi family before: ptxas's 64
  // registers for sm_75 do not fit 32 warps there).
  float *wa, *wb, *wo;
  std::vector<float> ha(1024), hb(1024), ho(1024);
  for (int i = 0; i < 1024; ++i) {
    ha[i] = (float)(i % 9) * 0.5f - 2.0f;
    hb[i] = (float)(i % 7) * 0.25f;
  }
  CHECK(cudaMalloc(&wa, 1024 * sizeof(float)));
  CHECK(cudaMalloc(&wb, 1024 * sizeof(float)));
  CHECK(cudaMalloc(&wo, 1024 * sizeof(float)));
  CHECK(cudaMemcpy(wa, ha.data(), 1024 * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(wb, hb.data(), 1024 * sizeof(float), cudaMemcpyHostToDevice));
  // What the runtime reports for it: registers that let 1,024 threads fit this device's file.
  cudaFuncAttributes fa;
  cudaDeviceProp prop;
  CHECK(cudaFuncGetAttributes(&fa, wide_tile));
  CHECK(cudaGetDeviceProperties(&prop, 0));
  if (fa.maxThreadsPerBlock != 1024 || fa.numRegs * 1024 > prop.regsPerMultiprocessor) {
    printf("wide_tile: %d registers, at most %d threads; %d registers per SM\n", fa.numRegs,
           fa.maxThreadsPerBlock, prop.regsPerMultiprocessor);
    ++bad;
  }
  wide_tile<<<1, 1024>>>(wa, wb, wo);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(ho.data(), wo, 1024 * sizeof(float), cudaMemcpyDeviceToHost));
  for (int t = 0; t < 1024; ++t) {
    float acc[8][8] = {};
    for (int k = 0; k < 8; ++k)
      for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 8; ++j)
          acc[i][j] = fmaf(ha[(t + k + i) & 1023], hb[(t * 3 + k * 8 + j) & 1023], acc[i][j]);
    float s = 0.0f;
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < 8; ++j) s += acc[i][j] * (float)(i * 8 + j + 1);
    if (fabsf(ho[t] - s) > 1e-3f * (1.0f + fabsf(s))) {
      if (bad < 5) printf("wide_tile %d: got %g want %g\n", t, ho[t], s);
      ++bad;
    }
  }
  printf("%dx%dx%d, %d steps, gemm %d\n", nx, ny, nz, steps, n);
  return finish(bad);
}
