// Three scientific kernels in double, each against a host reference: a batched radix-2 FFT in
// shared memory (twiddles from sincospi, bit reversal with __brev, a transpose through shared
// memory for the 2D transform, forward then inverse; eight-byte shared-memory banks asked for
// through the deprecated bank-size calls), D2Q9 lattice-Boltzmann steps (BGK collision,
// periodic streaming, many live values), and a DGEMM on sm_80's double tensor cores (nvcuda::
// wmma m8n8k4 fragments, one warp per 8x8 tile of C).
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cuda_runtime.h>
#include <mma.h>
#include <vector>

#pragma GCC diagnostic ignored "-Wdeprecated-declarations" // cudaDeviceSetSharedMemConfig

#include "check.h"

constexpr int LOGN = 5, N = 1 << LOGN; // 32 x 32 2D transforms

// One CTA per row: each thread owns a butterfly per stage.
__global__ void fft_rows(double2* data, int dir) {
  __shared__ double2 s[N];
  double2* row = data + (size_t)blockIdx.x * N;
  int t = threadIdx.x;
  for (int i = t; i < N; i += blockDim.x) s[__brev(i) >> (32 - LOGN)] = row[i];
  __syncthreads();
  for (int len = 2; len <= N; len <<= 1) {
    int half = len >> 1;
    for (int b = t; b < N / 2; b += blockDim.x) {
      int grp = b / half, k = b % half, i = grp * len + k, j = i + half;
      double sn, cs;
      sincospi(dir * -2.0 * k / len, &sn, &cs);
      double2 u = s[i], v = s[j];
      double2 w = make_double2(fma(v.x, cs, -v.y * sn), fma(v.x, sn, v.y * cs));
      s[i] = make_double2(u.x + w.x, u.y + w.y);
      s[j] = make_double2(u.x - w.x, u.y - w.y);
    }
    __syncthreads();
  }
  double scale = dir < 0 ? 1.0 / N : 1.0;
  for (int i = t; i < N; i += blockDim.x) row[i] = make_double2(s[i].x * scale, s[i].y * scale);
}

// Transpose each N x N matrix of the batch through a padded shared tile.
__global__ void transpose(const double2* in, double2* out) {
  __shared__ double2 tile[8][8 + 1];
  int m = blockIdx.z, bx = blockIdx.x * 8, by = blockIdx.y * 8;
  const double2* a = in + (size_t)m * N * N;
  double2* b = out + (size_t)m * N * N;
  tile[threadIdx.y][threadIdx.x] = a[(by + threadIdx.y) * N + bx + threadIdx.x];
  __syncthreads();
  b[(bx + threadIdx.y) * N + by + threadIdx.x] = tile[threadIdx.x][threadIdx.y];
}

// D2Q9 lattice Boltzmann: pull streaming (periodic) then BGK collision.
constexpr int LX = 24, LY = 16, Q = 9;
__constant__ int cx[Q] = {0, 1, 0, -1, 0, 1, -1, -1, 1};
__constant__ int cy[Q] = {0, 0, 1, 0, -1, 1, 1, -1, -1};
__constant__ double wq[Q] = {4. / 9,  1. / 9,  1. / 9,  1. / 9, 1. / 9,
                             1. / 36, 1. / 36, 1. / 36, 1. / 36};
__global__ void lbm_step(const double* fin, double* fout, double* rho_u, double omega, double gx) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= LX || y >= LY) return;
  double f[Q];
  double rho = 0, ux = 0, uy = 0;
#pragma unroll
  for (int q = 0; q < Q; q++) {
    int sx = (x - cx[q] + LX) % LX, sy = (y - cy[q] + LY) % LY;
    f[q] = fin[(q * LY + sy) * LX + sx];
    rho += f[q];
    ux += f[q] * cx[q];
    uy += f[q] * cy[q];
  }
  ux = ux / rho + gx;
  uy /= rho;
  double usq = 1.5 * (ux * ux + uy * uy);
#pragma unroll
  for (int q = 0; q < Q; q++) {
    double cu = 3.0 * (cx[q] * ux + cy[q] * uy);
    double feq = wq[q] * rho * (1.0 + cu + 0.5 * cu * cu - usq);
    fout[(q * LY + y) * LX + x] = f[q] - omega * (f[q] - feq);
  }
  rho_u[(y * LX + x) * 3] = rho;
  rho_u[(y * LX + x) * 3 + 1] = ux;
  rho_u[(y * LX + x) * 3 + 2] = uy;
}

// C = alpha A B + beta C, A row-major (M x K), B column-major (K x N), C row-major.
__global__ void dgemm(const double* a, const double* b, double* c, int M, int N, int K,
                      double alpha, double beta) {
#if __CUDA_ARCH__ >= 800 // (programs.sh also builds compute_75 PTX; gpurf runs the newest)
  using namespace nvcuda;
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, tiles_n = N / 8;
  if (warp >= (M / 8) * tiles_n) return;
  int tm = warp / tiles_n * 8, tn = warp % tiles_n * 8;
  wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 8, 8, 4, double> acc, fc;
  wmma::fill_fragment(acc, 0.0);
  for (int k = 0; k < K; k += 4) {
    wmma::load_matrix_sync(fa, a + (size_t)tm * K + k, K);
    wmma::load_matrix_sync(fb, b + (size_t)tn * K + k, K);
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::load_matrix_sync(fc, c + (size_t)tm * N + tn, N, wmma::mem_row_major);
  for (int i = 0; i < fc.num_elements; i++) fc.x[i] = fma(alpha, acc.x[i], beta * fc.x[i]);
  wmma::store_matrix_sync(c + (size_t)tm * N + tn, fc, N, wmma::mem_row_major);
#else
  __trap();
#endif
}

static void host_fft(std::vector<std::complex<double>>& a, int dir) {
  int n = a.size();
  std::vector<std::complex<double>> r(n);
  for (int k = 0; k < n; k++) {
    std::complex<double> s = 0;
    for (int j = 0; j < n; j++) s += a[j] * std::polar(1.0, -dir * 2 * M_PI * (double)j * k / n);
    r[k] = dir < 0 ? s / (double)n : s;
  }
  a = r;
}

int main() {
  const int BATCH = 2;
  int bad = 0;
  // Eight-byte shared-memory banks for the double2 tiles (deprecated; devices with fixed banks
  // accept and ignore it), per device and per kernel; a bad value is refused.
  CHECK(cudaDeviceSetSharedMemConfig(cudaSharedMemBankSizeEightByte));
  CHECK(cudaFuncSetSharedMemConfig(transpose, cudaSharedMemBankSizeEightByte));
  cudaSharedMemConfig smc;
  CHECK(cudaDeviceGetSharedMemConfig(&smc));
  if (smc != cudaSharedMemBankSizeFourByte && smc != cudaSharedMemBankSizeEightByte) bad++;
  if (cudaDeviceSetSharedMemConfig((cudaSharedMemConfig)7) != cudaErrorInvalidValue) bad++;
  if (cudaGetLastError() != cudaErrorInvalidValue) bad++; // the last error, then cleared
  CHECK(cudaGetLastError());
  // FFT: forward 2D (rows, transpose, rows, transpose), compared with a host DFT, then inverse.
  size_t total = (size_t)BATCH * N * N;
  std::vector<double2> h(total), g(total);
  for (size_t i = 0; i < total; i++)
    h[i] = make_double2(std::sin(0.37 * i) + 0.25 * std::cos(1.3 * i), std::cos(0.11 * i * i));
  double2 *d_a, *d_b;
  CHECK(cudaMalloc(&d_a, total * sizeof(double2)));
  CHECK(cudaMalloc(&d_b, total * sizeof(double2)));
  CHECK(cudaMemcpy(d_a, h.data(), total * sizeof(double2), cudaMemcpyHostToDevice));
  dim3 tb(8, 8), tg(N / 8, N / 8, BATCH);
  auto fft2 = [&](int dir) {
    fft_rows<<<BATCH * N, 16>>>(d_a, dir);
    transpose<<<tg, tb>>>(d_a, d_b);
    fft_rows<<<BATCH * N, 16>>>(d_b, dir);
    transpose<<<tg, tb>>>(d_b, d_a);
  };
  fft2(1);
  CHECK(cudaMemcpy(g.data(), d_a, total * sizeof(double2), cudaMemcpyDeviceToHost));
  double err = 0;
  for (int m = 0; m < BATCH; m++) {
    std::vector<std::vector<std::complex<double>>> a(N, std::vector<std::complex<double>>(N));
    for (int y = 0; y < N; y++)
      for (int x = 0; x < N; x++) {
        double2 v = h[(size_t)m * N * N + y * N + x];
        a[y][x] = {v.x, v.y};
      }
    for (int y = 0; y < N; y++) host_fft(a[y], 1);
    for (int x = 0; x < N; x++) {
      std::vector<std::complex<double>> col(N);
      for (int y = 0; y < N; y++) col[y] = a[y][x];
      host_fft(col, 1);
      for (int y = 0; y < N; y++) a[y][x] = col[y];
    }
    for (int y = 0; y < N; y++)
      for (int x = 0; x < N; x++) {
        double2 v = g[(size_t)m * N * N + y * N + x];
        err = std::fmax(err, std::abs(std::complex<double>(v.x, v.y) - a[y][x]));
      }
  }
  fft2(-1);
  CHECK(cudaMemcpy(g.data(), d_a, total * sizeof(double2), cudaMemcpyDeviceToHost));
  double rt = 0;
  for (size_t i = 0; i < total; i++)
    rt = std::fmax(rt, std::fabs(g[i].x - h[i].x) + std::fabs(g[i].y - h[i].y));
  std::printf("fft: forward error %.2e, round trip %.2e\n", err, rt);
  if (!(err < 1e-10) || !(rt < 1e-13)) bad++;

  // LBM: a body force along x drives a periodic flow from rest; 12 steps.
  const int STEPS = 8, CELLS = LX * LY;
  const double omega = 1.2, gx = 1e-4;
  std::vector<double> f(Q * CELLS), hf, ru(3 * CELLS);
  const int hcx[Q] = {0, 1, 0, -1, 0, 1, -1, -1, 1}, hcy[Q] = {0, 0, 1, 0, -1, 1, 1, -1, -1};
  const double hw[Q] = {4. / 9, 1. / 9, 1. / 9, 1. / 9, 1. / 9, 1. / 36, 1. / 36, 1. / 36, 1. / 36};
  for (int q = 0; q < Q; q++)
    for (int c = 0; c < CELLS; c++) f[q * CELLS + c] = hw[q] * (1.0 + 0.01 * std::sin(0.7 * c + q));
  hf = f;
  double *d_f0, *d_f1, *d_ru;
  CHECK(cudaMalloc(&d_f0, f.size() * 8));
  CHECK(cudaMalloc(&d_f1, f.size() * 8));
  CHECK(cudaMalloc(&d_ru, ru.size() * 8));
  CHECK(cudaMemcpy(d_f0, f.data(), f.size() * 8, cudaMemcpyHostToDevice));
  dim3 lb(8, 8), lg((LX + 7) / 8, (LY + 7) / 8);
  for (int s = 0; s < STEPS; s++) {
    lbm_step<<<lg, lb>>>(d_f0, d_f1, d_ru, omega, gx);
    std::swap(d_f0, d_f1);
  }
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(f.data(), d_f0, f.size() * 8, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(ru.data(), d_ru, ru.size() * 8, cudaMemcpyDeviceToHost));
  std::vector<double> nf(hf.size()), hru(3 * CELLS);
  for (int s = 0; s < STEPS; s++) {
    for (int y = 0; y < LY; y++)
      for (int x = 0; x < LX; x++) {
        double fq[Q], rho = 0, ux = 0, uy = 0;
        for (int q = 0; q < Q; q++) {
          int sx = (x - hcx[q] + LX) % LX, sy = (y - hcy[q] + LY) % LY;
          fq[q] = hf[(q * LY + sy) * LX + sx];
          rho += fq[q];
          ux += fq[q] * hcx[q];
          uy += fq[q] * hcy[q];
        }
        ux = ux / rho + gx;
        uy /= rho;
        double usq = 1.5 * (ux * ux + uy * uy);
        for (int q = 0; q < Q; q++) {
          double cu = 3.0 * (hcx[q] * ux + hcy[q] * uy);
          double feq = hw[q] * rho * (1.0 + cu + 0.5 * cu * cu - usq);
          nf[(q * LY + y) * LX + x] = fq[q] - omega * (fq[q] - feq);
        }
        hru[(y * LX + x) * 3] = rho;
        hru[(y * LX + x) * 3 + 1] = ux;
        hru[(y * LX + x) * 3 + 2] = uy;
      }
    hf.swap(nf);
  }
  double lerr = 0, mass = 0, hmass = 0;
  for (size_t i = 0; i < f.size(); i++) {
    lerr = std::fmax(lerr, std::fabs(f[i] - hf[i]));
    mass += f[i];
    hmass += hf[i];
  }
  for (size_t i = 0; i < ru.size(); i++) lerr = std::fmax(lerr, std::fabs(ru[i] - hru[i]));
  std::printf("lbm: max error %.2e, mass %.12f (host %.12f)\n", lerr, mass, hmass);
  if (!(lerr < 1e-13) || std::fabs(mass - hmass) > 1e-11) bad++;

  // DGEMM: twice, the second accumulating onto the first's result.
  const int GM = 32, GN = 24, GK = 20;
  std::vector<double> ga(GM * GK), gb(GK * GN), gc(GM * GN), gr(GM * GN);
  for (int i = 0; i < GM * GK; i++) ga[i] = std::sin(0.3 * i) * 2.0;
  for (int i = 0; i < GK * GN; i++) gb[i] = std::cos(0.7 * i) - 0.25;
  for (int i = 0; i < GM * GN; i++) gc[i] = 0.01 * i;
  double *d_ga, *d_gb, *d_gc;
  CHECK(cudaMalloc(&d_ga, ga.size() * 8));
  CHECK(cudaMalloc(&d_gb, gb.size() * 8));
  CHECK(cudaMalloc(&d_gc, gc.size() * 8));
  CHECK(cudaMemcpy(d_ga, ga.data(), ga.size() * 8, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_gb, gb.data(), gb.size() * 8, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_gc, gc.data(), gc.size() * 8, cudaMemcpyHostToDevice));
  const int warps = (GM / 8) * (GN / 8);
  for (int rep = 0; rep < 2; rep++) {
    dgemm<<<(warps * 32 + 63) / 64, 64>>>(d_ga, d_gb, d_gc, GM, GN, GK, 1.5, rep ? 1.0 : 0.5);
    for (int i = 0; i < GM; i++)
      for (int j = 0; j < GN; j++) {
        double s = 0;
        for (int k = 0; k < GK; k++) s += ga[i * GK + k] * gb[j * GK + k];
        gc[i * GN + j] = 1.5 * s + (rep ? 1.0 : 0.5) * gc[i * GN + j];
      }
  }
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(gr.data(), d_gc, gr.size() * 8, cudaMemcpyDeviceToHost));
  double gerr = 0;
  for (int i = 0; i < GM * GN; i++)
    gerr = std::fmax(gerr, std::fabs(gr[i] - gc[i]) / (1 + std::fabs(gc[i])));
  std::printf("dgemm: max error %.2e\n", gerr);
  if (!(gerr < 1e-13)) bad++;
  CHECK(cudaFree(d_ga));
  CHECK(cudaFree(d_gb));
  CHECK(cudaFree(d_gc));
  CHECK(cudaFree(d_a));
  CHECK(cudaFree(d_b));
  CHECK(cudaFree(d_f0));
  CHECK(cudaFree(d_f1));
  CHECK(cudaFree(d_ru));
  return finish(bad);
}
