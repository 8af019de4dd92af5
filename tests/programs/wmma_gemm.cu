// Tensor-core matrix multiplies through nvcuda::wmma, as mixed-precision codes write them:
// 16x16x16 half fragments, one warp per 16x16 tile of the output, four warps a block.
// - D = alpha (A B) + C: A row-major and B column-major from global memory, the accumulator
//   loaded from C (float, row-major), scaled element-wise through the fragment's x[] array,
//   stored row-major;
// - A column-major and B row-major staged through padded shared memory (ldm 40), a half
//   accumulator from fill_fragment, stored column-major;
// - the float result converted to half by a plain kernel and fed back as A (a chain of two
//   products).
// Integer-valued inputs keep every product and sum exact in half and float: each output
// against the host bit for bit. Arguments: M, N, K (multiples of 32, 32, 16).
#include "check.h"

#include <cuda_fp16.h>
#include <mma.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

using namespace nvcuda;

constexpr int kT = 16;

// Block (128 threads): a 32 x 32 tile of D, warp w at tile (w / 2, w % 2).
__global__ void gemm_global(const half* __restrict__ a, const half* __restrict__ b,
                            const float* __restrict__ c, float* __restrict__ d, int m, int n, int k,
                            float alpha) {
  const int warp = threadIdx.x / 32;
  const int row = blockIdx.y * 32 + (warp / 2) * kT, col = blockIdx.x * 32 + (warp % 2) * kT;
  wmma::fragment<wmma::matrix_a, kT, kT, kT, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, kT, kT, kT, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, kT, kT, kT, float> acc, fc;
  wmma::fill_fragment(acc, 0.0f);
  for (int kk = 0; kk < k; kk += kT) {
    wmma::load_matrix_sync(fa, a + size_t(row) * k + kk, k); // A[m][k] row-major
    wmma::load_matrix_sync(fb, b + size_t(col) * k + kk, k); // B[k][n] column-major
    wmma::mma_sync(acc, fa, fb, acc);
  }
  wmma::load_matrix_sync(fc, c + size_t(row) * n + col, n, wmma::mem_row_major);
  for (int i = 0; i < acc.num_elements; ++i) acc.x[i] = alpha * acc.x[i] + fc.x[i];
  wmma::store_matrix_sync(d + size_t(row) * n + col, acc, n, wmma::mem_row_major);
}

// A column-major (A[i][j] at a[j * m + i]), B row-major (B[i][j] at b[i * n + j]); the block's
// A and B panels staged in shared memory with a padded leading dimension; half accumulator;
// D column-major.
constexpr int kLd = 32 + 8; // a panel's 32 rows (or columns) and 8 halves of padding
__global__ void gemm_shared(const half* __restrict__ a, const half* __restrict__ b,
                            half* __restrict__ d, int m, int n, int k) {
  __shared__ half sa[kT * kLd], sb[kT * kLd];
  const int warp = threadIdx.x / 32;
  const int row0 = blockIdx.y * 32, col0 = blockIdx.x * 32;
  wmma::fragment<wmma::matrix_a, kT, kT, kT, half, wmma::col_major> fa;
  wmma::fragment<wmma::matrix_b, kT, kT, kT, half, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, kT, kT, kT, half> acc;
  wmma::fill_fragment(acc, __float2half(0.0f));
  for (int kk = 0; kk < k; kk += kT) {
    // sa: column kk+j of the block's 32 rows of A at sa[j * kLd + r] (column-major);
    // sb: row kk+j of its 32 columns of B at sb[j * kLd + c] (row-major).
    for (int e = threadIdx.x; e < 32 * kT; e += blockDim.x) {
      const int r = e % 32, j = e / 32;
      sa[j * kLd + r] = a[size_t(kk + j) * m + row0 + r];
      sb[j * kLd + r] = b[size_t(kk + j) * n + col0 + r];
    }
    __syncthreads();
    wmma::load_matrix_sync(fa, sa + (warp / 2) * kT, kLd);
    wmma::load_matrix_sync(fb, sb + (warp % 2) * kT, kLd);
    wmma::mma_sync(acc, fa, fb, acc);
    __syncthreads();
  }
  const int row = row0 + (warp / 2) * kT, col = col0 + (warp % 2) * kT;
  wmma::store_matrix_sync(d + size_t(col) * m + row, acc, m, wmma::mem_col_major);
}

__global__ void to_half(const float* __restrict__ x, half* __restrict__ y, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) y[i] = __float2half_rn(x[i] * (1.0f / 64.0f));
}

int main(int argc, char** argv) {
  const int m = argc > 1 ? std::atoi(argv[1]) : 64, n = argc > 2 ? std::atoi(argv[2]) : 96,
            k = argc > 3 ? std::atoi(argv[3]) : 64;
  if (m % 32 || n % 32 || k % 16 || n % 16) return finish(1);
  std::vector<float> A(size_t(m) * k), B(size_t(k) * n), C(size_t(m) * n);
  unsigned s = 99;
  auto small = [&](int range) {
    s = s * 1664525u + 1013904223u;
    return float(int((s >> 16) % (2 * range + 1)) - range);
  };
  for (auto& x : A) x = small(3);
  for (auto& x : B) x = small(3);
  for (auto& x : C) x = small(100);
  // Device layouts: A row-major and column-major, B column-major and row-major.
  std::vector<half> a_rm(A.size()), a_cm(A.size()), b_cm(B.size()), b_rm(B.size());
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < k; ++j) {
      a_rm[size_t(i) * k + j] = __float2half(A[size_t(i) * k + j]);
      a_cm[size_t(j) * m + i] = __float2half(A[size_t(i) * k + j]);
    }
  for (int i = 0; i < k; ++i)
    for (int j = 0; j < n; ++j) {
      b_cm[size_t(j) * k + i] = __float2half(B[size_t(i) * n + j]);
      b_rm[size_t(i) * n + j] = __float2half(B[size_t(i) * n + j]);
    }
  half *d_arm, *d_acm, *d_bcm, *d_brm, *d_dh, *d_a2;
  float *d_c, *d_d, *d_d2;
  CHECK(cudaMalloc(&d_arm, A.size() * sizeof(half)));
  CHECK(cudaMalloc(&d_acm, A.size() * sizeof(half)));
  CHECK(cudaMalloc(&d_bcm, B.size() * sizeof(half)));
  CHECK(cudaMalloc(&d_brm, B.size() * sizeof(half)));
  CHECK(cudaMalloc(&d_dh, C.size() * sizeof(half)));
  CHECK(cudaMalloc(&d_c, C.size() * sizeof(float)));
  CHECK(cudaMalloc(&d_d, C.size() * sizeof(float)));
  CHECK(cudaMemcpy(d_arm, a_rm.data(), A.size() * sizeof(half), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_acm, a_cm.data(), A.size() * sizeof(half), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_bcm, b_cm.data(), B.size() * sizeof(half), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_brm, b_rm.data(), B.size() * sizeof(half), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_c, C.data(), C.size() * sizeof(float), cudaMemcpyHostToDevice));
  const dim3 grid(n / 32, m / 32);
  gemm_global<<<grid, 128>>>(d_arm, d_bcm, d_c, d_d, m, n, k, 0.5f);
  gemm_shared<<<grid, 128>>>(d_acm, d_brm, d_dh, m, n, k);
  CHECK(cudaGetLastError());
  // The chain: D / 64 in half is the A of a second product, D (m x n) times B2 (n x 32).
  const int n2 = 32;
  std::vector<float> B2(size_t(n) * n2);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n2; ++j) B2[size_t(i) * n2 + j] = float((i * 7 + j * 3) % 5 - 2);
  std::vector<half> b2_cm(B2.size());
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n2; ++j) b2_cm[size_t(j) * n + i] = __float2half(B2[size_t(i) * n2 + j]);
  half* d_b2;
  float* d_c2;
  CHECK(cudaMalloc(&d_a2, C.size() * sizeof(half)));
  CHECK(cudaMalloc(&d_b2, B2.size() * sizeof(half)));
  CHECK(cudaMalloc(&d_c2, size_t(m) * n2 * sizeof(float)));
  CHECK(cudaMalloc(&d_d2, size_t(m) * n2 * sizeof(float)));
  CHECK(cudaMemcpy(d_b2, b2_cm.data(), B2.size() * sizeof(half), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_c2, 0, size_t(m) * n2 * sizeof(float)));
  to_half<<<(m * n + 255) / 256, 256>>>(d_d, d_a2, m * n);
  gemm_global<<<dim3(n2 / 32, m / 32), 128>>>(d_a2, d_b2, d_c2, d_d2, m, n2, n, 1.0f);
  CHECK(cudaGetLastError());

  std::vector<float> D(C.size()), D2(size_t(m) * n2);
  std::vector<half> Dh(C.size());
  CHECK(cudaMemcpy(D.data(), d_d, D.size() * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(Dh.data(), d_dh, Dh.size() * sizeof(half), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(D2.data(), d_d2, D2.size() * sizeof(float), cudaMemcpyDeviceToHost));
  int bad = 0;
  std::vector<float> P(C.size()), Q(size_t(m) * n);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double p = 0;
      for (int kk = 0; kk < k; ++kk) p += double(A[size_t(i) * k + kk]) * B[size_t(kk) * n + j];
      P[size_t(i) * n + j] = float(p);
      const float want = 0.5f * float(p) + C[size_t(i) * n + j];
      Q[size_t(i) * n + j] = want;
      if (D[size_t(i) * n + j] != want) {
        if (bad < 5) std::printf("D[%d][%d] = %g, host %g\n", i, j, D[size_t(i) * n + j], want);
        ++bad;
      }
      const float h = __half2float(Dh[size_t(j) * m + i]);
      if (h != float(p)) {
        if (bad < 5) std::printf("shared D[%d][%d] = %g, host %g\n", i, j, h, float(p));
        ++bad;
      }
    }
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n2; ++j) {
      // A2 = half(Q / 64): Q is a multiple of 0.5 below 2^10, so Q / 64 is exact in half.
      double p = 0;
      for (int kk = 0; kk < n; ++kk)
        p += double(Q[size_t(i) * n + kk] / 64.0f) * B2[size_t(kk) * n2 + j];
      if (D2[size_t(i) * n2 + j] != float(p)) {
        if (bad < 5)
          std::printf("chained D[%d][%d] = %g, host %g\n", i, j, D2[size_t(i) * n2 + j], p);
        ++bad;
      }
    }
  std::printf("%d x %d x %d and %d x %d x %d products: %d wrong\n", m, n, k, m, n2, n, bad);
  return finish(bad);
}
