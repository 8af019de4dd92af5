// A Jacobi-preconditioned conjugate-gradient solver in double precision, the loop of sparse
// solvers: the CSR matrix (a 2D diffusion operator with varying coefficients) assembled on the
// device from __constant__ coefficients, then per iteration a CSR SpMV, two dot products
// (per-block partials and a one-block finish, __launch_bounds__), device-side scalars (alpha,
// beta: no host round trip) and fused vector updates: 8 launches an iteration, 40 iterations
// from a host loop; the residual norm copied each iteration into page-locked memory with
// cudaMemcpyAsync on a second stream ordered by events (cudaStreamWaitEvent), snapshots of x
// copied device to device. Then the SpMV template for float and int on the same structure.
// Built with PTX for two architectures (a fat binary with two PTX entries; gpurf runs the
// highest). Checked against the host running the same algorithm: the residual history and x
// to 1e-9, float and int products exactly.
#include "check.h"

#include <cmath>
#include <cstdio>
#include <vector>

constexpr int kSide = 40, kN = kSide * kSide, kBlock = 256, kIters = 40;
constexpr int kGrid = (kN + kBlock - 1) / kBlock;

__constant__ double c_coef[4]; // diffusion in x and y, reaction, its variation

__device__ double kappa(int i, int j) { return c_coef[3] * (double)((i * 7 + j * 3) % 11) / 10.0; }

// Row r of the operator: 5 entries (fewer at the border) in column order.
__global__ void assemble(int* rowptr, int* col, double* val) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= kN) return;
  int i = r / kSide, j = r % kSide;
  // entries before row r: 5 a row, less the missing neighbours of the rows before it (top
  // row, bottom row, left column, right column)
  int k =
      5 * r - min(r, kSide) - max(0, r - (kSide - 1) * kSide) - (r + kSide - 1) / kSide - r / kSide;
  rowptr[r] = k;
  double kx = c_coef[0] * (1.0 + kappa(i, j)), ky = c_coef[1];
  if (i > 0) col[k] = r - kSide, val[k++] = -ky;
  if (j > 0) col[k] = r - 1, val[k++] = -kx;
  col[k] = r, val[k++] = 2 * kx + 2 * ky + c_coef[2];
  if (j < kSide - 1) col[k] = r + 1, val[k++] = -kx;
  if (i < kSide - 1) col[k] = r + kSide, val[k++] = -ky;
  if (r == kN - 1) rowptr[kN] = k;
}

template <typename T>
__global__ void spmv(const int* __restrict__ rowptr, const int* __restrict__ col,
                     const T* __restrict__ val, const T* __restrict__ x, T* y, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  T s = 0;
  for (int k = rowptr[r]; k < rowptr[r + 1]; ++k) s += val[k] * x[col[k]];
  y[r] = s;
}

__device__ double block_sum(double v) {
  __shared__ double warp_sums[kBlock / 32];
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = v;
  __syncthreads();
  v = threadIdx.x < kBlock / 32 ? warp_sums[threadIdx.x] : 0.0;
  if (threadIdx.x < 32)
    for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

__global__ void __launch_bounds__(kBlock, 2)
    dot_partial(const double* a, const double* b, double* partial, int n) {
  double s = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    s += a[i] * b[i];
  s = block_sum(s);
  if (threadIdx.x == 0) partial[blockIdx.x] = s;
}

__global__ void __launch_bounds__(kBlock) dot_finish(const double* partial, int m, double* out) {
  double s = threadIdx.x < m ? partial[threadIdx.x] : 0.0;
  s = block_sum(s);
  if (threadIdx.x == 0) *out = s;
}

// The solver's scalars, on the device: [0] rz, [1] pq, [2] rz_new, [3] alpha, [4] beta.
__global__ void scalars_alpha(double* s) { s[3] = s[0] / s[1]; }
__global__ void scalars_beta(double* s) {
  s[4] = s[2] / s[0];
  s[0] = s[2];
}

__global__ void update_xrz(double* x, double* r, double* z, const double* p, const double* q,
                           const double* inv_diag, const double* s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double alpha = s[3];
  x[i] += alpha * p[i];
  double ri = r[i] - alpha * q[i];
  r[i] = ri;
  z[i] = ri * inv_diag[i];
}

__global__ void update_p(double* p, const double* z, const double* s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = z[i] + s[4] * p[i];
}

__global__ void jacobi_setup(const int* rowptr, const int* col, const double* val, const double* b,
                             double* r, double* z, double* p, double* x, double* inv_diag, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double d = 1;
  for (int k = rowptr[i]; k < rowptr[i + 1]; ++k)
    if (col[k] == i) d = val[k];
  inv_diag[i] = 1.0 / d;
  x[i] = 0;
  r[i] = b[i];
  z[i] = b[i] / d;
  p[i] = z[i];
}

__global__ void to_float_int(const double* v, float* f, int* k, int m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m) {
    f[i] = (float)v[i];
    k[i] = (int)llrint(v[i] * 4.0) % 97;
  }
}

// ---------------------------------------------------------------------------------------------

struct Csr {
  std::vector<int> rowptr, col;
  std::vector<double> val;
};

static Csr host_assemble(const double* coef) {
  Csr a;
  for (int r = 0; r < kN; ++r) {
    a.rowptr.push_back((int)a.col.size());
    int i = r / kSide, j = r % kSide;
    double kx = coef[0] * (1.0 + coef[3] * (double)((i * 7 + j * 3) % 11) / 10.0), ky = coef[1];
    auto add = [&](int c, double v) {
      a.col.push_back(c);
      a.val.push_back(v);
    };
    if (i > 0) add(r - kSide, -ky);
    if (j > 0) add(r - 1, -kx);
    add(r, 2 * kx + 2 * ky + coef[2]);
    if (j < kSide - 1) add(r + 1, -kx);
    if (i < kSide - 1) add(r + kSide, -ky);
  }
  a.rowptr.push_back((int)a.col.size());
  return a;
}

template <typename T>
static std::vector<T> host_spmv(const Csr& a, const std::vector<T>& val, const std::vector<T>& x) {
  std::vector<T> y(kN);
  for (int r = 0; r < kN; ++r) {
    T s = 0;
    for (int k = a.rowptr[r]; k < a.rowptr[r + 1]; ++k) {
      if constexpr (std::is_same<T, float>::value)
        s = std::fmaf(val[k], x[a.col[k]], s);
      else if constexpr (std::is_same<T, double>::value)
        s = std::fma(val[k], x[a.col[k]], s);
      else
        s = (T)((unsigned)s + (unsigned)val[k] * (unsigned)x[a.col[k]]);
    }
    y[r] = s;
  }
  return y;
}

int main() {
  const double coef[4] = {1.0, 0.5, 1.5, 3.0};
  CHECK(cudaMemcpyToSymbol(c_coef, coef, sizeof coef));
  Csr a = host_assemble(coef);
  const int nnz = (int)a.col.size();
  int *d_rowptr, *d_col;
  double *d_val, *d_b, *d_x, *d_r, *d_z, *d_p, *d_q, *d_inv, *d_partial, *d_s, *d_snap;
  CHECK(cudaMalloc(&d_rowptr, (kN + 1) * 4));
  CHECK(cudaMalloc(&d_col, nnz * 4));
  CHECK(cudaMalloc(&d_val, nnz * 8));
  for (double** v : {&d_b, &d_x, &d_r, &d_z, &d_p, &d_q, &d_inv}) CHECK(cudaMalloc(v, kN * 8));
  CHECK(cudaMalloc(&d_partial, kGrid * 8));
  CHECK(cudaMalloc(&d_s, 8 * 8));
  CHECK(cudaMalloc(&d_snap, 4 * kN * 8));
  std::vector<double> b(kN);
  for (int r = 0; r < kN; ++r) b[r] = std::sin(0.1 * r) + (r % 17 == 0 ? 2.0 : 0.0);
  CHECK(cudaMemcpy(d_b, b.data(), kN * 8, cudaMemcpyHostToDevice));

  cudaStream_t compute, copy;
  CHECK(cudaStreamCreate(&compute));
  CHECK(cudaStreamCreateWithFlags(&copy, cudaStreamNonBlocking));
  cudaEvent_t ready[kIters], t0, t1;
  for (auto& e : ready) CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  CHECK(cudaEventCreate(&t0));
  CHECK(cudaEventCreate(&t1));
  double* h_rz;
  CHECK(cudaMallocHost(&h_rz, kIters * 8));

  assemble<<<kGrid, kBlock, 0, compute>>>(d_rowptr, d_col, d_val);
  jacobi_setup<<<kGrid, kBlock, 0, compute>>>(d_rowptr, d_col, d_val, d_b, d_r, d_z, d_p, d_x,
                                              d_inv, kN);
  dot_partial<<<kGrid, kBlock, 0, compute>>>(d_r, d_z, d_partial, kN);
  dot_finish<<<1, kBlock, 0, compute>>>(d_partial, kGrid, d_s + 0);
  CHECK(cudaGetLastError());
  CHECK(cudaEventRecord(t0, compute));
  for (int it = 0; it < kIters; ++it) {
    spmv<double><<<kGrid, kBlock, 0, compute>>>(d_rowptr, d_col, d_val, d_p, d_q, kN);
    dot_partial<<<kGrid, kBlock, 0, compute>>>(d_p, d_q, d_partial, kN);
    dot_finish<<<1, kBlock, 0, compute>>>(d_partial, kGrid, d_s + 1);
    scalars_alpha<<<1, 1, 0, compute>>>(d_s);
    update_xrz<<<kGrid, kBlock, 0, compute>>>(d_x, d_r, d_z, d_p, d_q, d_inv, d_s, kN);
    dot_partial<<<kGrid, kBlock, 0, compute>>>(d_r, d_z, d_partial, kN);
    dot_finish<<<1, kBlock, 0, compute>>>(d_partial, kGrid, d_s + 2);
    scalars_beta<<<1, 1, 0, compute>>>(d_s);
    update_p<<<kGrid, kBlock, 0, compute>>>(d_p, d_z, d_s, kN);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(ready[it], compute));
    CHECK(cudaStreamWaitEvent(copy, ready[it], 0));
    CHECK(cudaMemcpyAsync(h_rz + it, d_s + 0, 8, cudaMemcpyDeviceToHost, copy));
    if (it % 10 == 9)
      CHECK(cudaMemcpyAsync(d_snap + (it / 10) * kN, d_x, kN * 8, cudaMemcpyDeviceToDevice, copy));
  }
  CHECK(cudaEventRecord(t1, compute));
  CHECK(cudaStreamSynchronize(copy));
  CHECK(cudaEventSynchronize(t1));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, t0, t1));
  std::vector<double> x(kN), snap(4 * kN);
  CHECK(cudaMemcpy(x.data(), d_x, kN * 8, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(snap.data(), d_snap, 4 * kN * 8, cudaMemcpyDeviceToHost));

  // The host's solver, the same algorithm.
  int bad = 0;
  std::vector<double> hx(kN, 0), hr = b, hz(kN), hp(kN), inv(kN), hist, snaps;
  for (int r = 0; r < kN; ++r) {
    double d = 1;
    for (int k = a.rowptr[r]; k < a.rowptr[r + 1]; ++k)
      if (a.col[k] == r) d = a.val[k];
    inv[r] = 1.0 / d;
    hz[r] = b[r] / d;
    hp[r] = hz[r];
  }
  auto dot = [](const std::vector<double>& u, const std::vector<double>& v) {
    long double s = 0;
    for (int i = 0; i < kN; ++i) s += (long double)u[i] * v[i];
    return (double)s;
  };
  double rz = dot(hr, hz);
  for (int it = 0; it < kIters; ++it) {
    std::vector<double> q = host_spmv(a, a.val, hp);
    double alpha = rz / dot(hp, q);
    for (int i = 0; i < kN; ++i) {
      hx[i] += alpha * hp[i];
      hr[i] -= alpha * q[i];
      hz[i] = hr[i] * inv[i];
    }
    double rz_new = dot(hr, hz), beta = rz_new / rz;
    rz = rz_new;
    hist.push_back(rz);
    for (int i = 0; i < kN; ++i) hp[i] = hz[i] + beta * hp[i];
    if (it % 10 == 9) snaps.insert(snaps.end(), hx.begin(), hx.end());
  }
  {
    int b_ = 0;
    for (int it = 0; it < kIters; ++it)
      if (!(std::fabs(h_rz[it] - hist[it]) <= 1e-9 * hist[it] + 1e-300) && b_++ < 4)
        std::printf("iteration %d: r.z %.17g, host %.17g\n", it, h_rz[it], hist[it]);
    double xmax = 0;
    for (double v : hx) xmax = std::fmax(xmax, std::fabs(v));
    for (int i = 0; i < kN; ++i)
      if (!(std::fabs(x[i] - hx[i]) <= 1e-9 * xmax) && b_++ < 8)
        std::printf("x[%d] %.17g, host %.17g\n", i, x[i], hx[i]);
    for (int i = 0; i < 4 * kN; ++i)
      if (!(std::fabs(snap[i] - snaps[i]) <= 1e-9 * xmax) && b_++ < 8)
        std::printf("snapshot %d x[%d] %.17g, host %.17g\n", i / kN, i % kN, snap[i], snaps[i]);
    std::printf("CG: r.z %.3e -> %.3e after %d iterations, %d wrong, %.3f ms\n", hist[0],
                hist[kIters - 1], kIters, b_, ms);
    if (!(hist[kIters - 1] < 1e-6 * hist[0]) || !(ms > 0)) ++b_;
    bad += b_;
  }

  // The same structure through the float and int instances of the SpMV.
  {
    float *d_vf, *d_xf, *d_yf;
    int *d_vi, *d_xi, *d_yi;
    CHECK(cudaMalloc(&d_vf, nnz * 4));
    CHECK(cudaMalloc(&d_vi, nnz * 4));
    CHECK(cudaMalloc(&d_xf, kN * 4));
    CHECK(cudaMalloc(&d_xi, kN * 4));
    CHECK(cudaMalloc(&d_yf, kN * 4));
    CHECK(cudaMalloc(&d_yi, kN * 4));
    to_float_int<<<(nnz + kBlock - 1) / kBlock, kBlock>>>(d_val, d_vf, d_vi, nnz);
    to_float_int<<<kGrid, kBlock>>>(d_b, d_xf, d_xi, kN);
    spmv<float><<<kGrid, kBlock>>>(d_rowptr, d_col, d_vf, d_xf, d_yf, kN);
    spmv<int><<<kGrid, kBlock>>>(d_rowptr, d_col, d_vi, d_xi, d_yi, kN);
    CHECK(cudaGetLastError());
    std::vector<float> yf(kN), vf(nnz), xf(kN);
    std::vector<int> yi(kN), vi(nnz), xi(kN);
    CHECK(cudaMemcpy(yf.data(), d_yf, kN * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(yi.data(), d_yi, kN * 4, cudaMemcpyDeviceToHost));
    for (int k = 0; k < nnz; ++k) {
      vf[k] = (float)a.val[k];
      vi[k] = (int)(std::llrint(a.val[k] * 4.0) % 97);
    }
    for (int r = 0; r < kN; ++r) {
      xf[r] = (float)b[r];
      xi[r] = (int)(std::llrint(b[r] * 4.0) % 97);
    }
    std::vector<float> wf = host_spmv(a, vf, xf);
    std::vector<int> wi = host_spmv(a, vi, xi);
    int b_ = 0;
    for (int r = 0; r < kN; ++r) {
      if (yf[r] != wf[r] && b_++ < 4)
        std::printf("spmv<float> row %d: %.9g, host %.9g\n", r, yf[r], wf[r]);
      if (yi[r] != wi[r] && b_++ < 4)
        std::printf("spmv<int> row %d: %d, host %d\n", r, yi[r], wi[r]);
    }
    std::printf("float and int SpMV: %d wrong\n", b_);
    bad += b_;
  }
  return finish(bad);
}
