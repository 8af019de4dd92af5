// Sparse matrix-vector products as iterative eigen-solvers run them: a power iteration on a
// symmetric matrix with an irregular sparsity pattern (row lengths 1-36) held as CSR and as ELL
// (column-major, padded). Each iteration: y = A x by a warp per row (lanes stride the row, then
// __shfl_down_sync halves the partial sums; short rows leave lanes idle), the norm of y by a
// block reduction in shared memory and a one-warp __shfl_xor_sync finish with the Rayleigh
// quotient, and x = y / |y| (4 launches an iteration, 20 iterations); the first product also by
// a thread per row over the ELL arrays (coalesced, padding ended by a column of -1), compared on
// the device. Integer-valued matrix and start vector; the host reference sums in the device's
// order (the warp trees; products added with fmaf on both sides, as nvcc would contract them): the
// eigenvalue estimates bit for bit, the final vector to 1e-6. Arguments: rows, iterations.
#include "check.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

constexpr int kWarp = 32;
constexpr int kNormBlock = 256;

__global__ void spmv_csr_warp(const int* __restrict__ row_ptr, const int* __restrict__ col,
                              const float* __restrict__ val, const float* __restrict__ x,
                              float* __restrict__ y, int rows) {
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / kWarp;
  const int lane = threadIdx.x % kWarp;
  if (warp >= rows) return; // whole warps leave together
  float sum = 0.0f;
  for (int k = row_ptr[warp] + lane; k < row_ptr[warp + 1]; k += kWarp)
    sum = fmaf(val[k], x[col[k]], sum);
  for (int off = kWarp / 2; off > 0; off /= 2) sum += __shfl_down_sync(0xffffffffu, sum, off);
  if (lane == 0) y[warp] = sum;
}

// ELL: slot j of row r at [j * rows + r]; padding has column -1.
__global__ void spmv_ell(const int* __restrict__ ecol, const float* __restrict__ eval,
                         const float* __restrict__ x, const float* __restrict__ y_csr,
                         float* __restrict__ y, int rows, int width, unsigned* mismatches) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float sum = 0.0f;
  for (int j = 0; j < width; ++j) {
    const int c = ecol[j * rows + r];
    if (c < 0) break;
    sum = fmaf(eval[j * rows + r], x[c], sum);
  }
  y[r] = sum;
  // Integer-valued data: both orders give exact sums while they stay below 2^24.
  if (sum != y_csr[r]) atomicAdd(mismatches, 1u);
}

// Per block: the sum of squares of its slice, tree-reduced in shared memory.
__global__ void sum_squares(const float* __restrict__ y, float* __restrict__ partial, int n) {
  __shared__ float s[kNormBlock];
  float acc = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    acc = fmaf(y[i], y[i], acc);
  s[threadIdx.x] = acc;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) s[threadIdx.x] += s[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}

// One warp: the partials' sum, its square root, and the Rayleigh quotient x.y (x unit length).
__global__ void finish_norm(const float* __restrict__ partial, int parts,
                            const float* __restrict__ x, const float* __restrict__ y, int n,
                            float* norm, float* lambda, int iter) {
  float s = 0.0f, d = 0.0f;
  for (int i = threadIdx.x; i < parts; i += kWarp) s += partial[i];
  for (int i = threadIdx.x; i < n; i += kWarp) d = fmaf(x[i], y[i], d);
  for (int off = 1; off < kWarp; off *= 2) {
    s += __shfl_xor_sync(0xffffffffu, s, off);
    d += __shfl_xor_sync(0xffffffffu, d, off);
  }
  if (threadIdx.x == 0) {
    *norm = sqrtf(s);
    lambda[iter] = d;
  }
}

__global__ void scale(float* __restrict__ x, const float* __restrict__ y, const float* norm,
                      int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float inv = 1.0f / *norm;
  if (i < n) x[i] = y[i] * inv;
}

namespace {
uint32_t rng = 12345;
uint32_t next() {
  rng = rng * 1664525u + 1013904223u;
  return rng >> 8;
}

// The device's warp sum: lane l accumulates elements l, l+32, ... in order, then the tree of
// __shfl_down_sync (lane l adds lane l+off; lanes past 31 read their own value: only lane 0's
// result is used, and it never reads past its tree).
float warp_row(const std::vector<int>& rp, const std::vector<int>& col,
               const std::vector<float>& val, const std::vector<float>& x, int r) {
  float lanes[kWarp];
  for (int l = 0; l < kWarp; ++l) {
    float s = 0.0f;
    for (int k = rp[r] + l; k < rp[r + 1]; k += kWarp) s = std::fma(val[k], x[col[k]], s);
    lanes[l] = s;
  }
  for (int off = kWarp / 2; off > 0; off /= 2)
    for (int l = 0; l < kWarp; ++l) lanes[l] += l + off < kWarp ? lanes[l + off] : lanes[l];
  return lanes[0];
}
} // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 600;
  const int iters = argc > 2 ? std::atoi(argv[2]) : 20;
  // A symmetric pattern: row r links to r +- d for a few pseudo-random d, and every 37th row is
  // dense-ish (up to 70 entries): irregular lengths across a warp's rows.
  std::vector<std::vector<std::pair<int, float>>> rows(n);
  auto link = [&](int a, int b, float v) {
    for (auto& e : rows[a])
      if (e.first == b) return;
    rows[a].push_back({b, v});
    if (a != b) rows[b].push_back({a, v});
  };
  for (int r = 0; r < n; ++r) {
    link(r, r, float(4 + next() % 5));
    const int extra = r % 37 == 0 ? 30 : int(next() % 3);
    for (int e = 0; e < extra; ++e) link(r, int(next() % n), float(int(next() % 5) - 2));
  }
  std::vector<int> rp(n + 1, 0), col;
  std::vector<float> val;
  int width = 0;
  for (int r = 0; r < n; ++r) {
    for (auto& e : rows[r]) {
      col.push_back(e.first);
      val.push_back(e.second);
    }
    rp[r + 1] = int(col.size());
    width = std::max(width, int(rows[r].size()));
  }
  std::vector<int> ecol(size_t(width) * n, -1);
  std::vector<float> eval(size_t(width) * n, 0.0f);
  for (int r = 0; r < n; ++r)
    for (size_t j = 0; j < rows[r].size(); ++j) {
      ecol[j * n + r] = rows[r][j].first;
      eval[j * n + r] = rows[r][j].second;
    }
  std::vector<float> x0(n);
  for (int i = 0; i < n; ++i) x0[i] = float(1 + i % 7);

  const int nb = 8; // norm partial blocks
  int *d_rp, *d_col, *d_ecol;
  float *d_val, *d_eval, *d_x, *d_y, *d_y2, *d_part, *d_norm, *d_lambda;
  unsigned* d_bad;
  CHECK(cudaMalloc(&d_rp, (n + 1) * sizeof(int)));
  CHECK(cudaMalloc(&d_col, col.size() * sizeof(int)));
  CHECK(cudaMalloc(&d_val, val.size() * sizeof(float)));
  CHECK(cudaMalloc(&d_ecol, ecol.size() * sizeof(int)));
  CHECK(cudaMalloc(&d_eval, eval.size() * sizeof(float)));
  CHECK(cudaMalloc(&d_x, n * sizeof(float)));
  CHECK(cudaMalloc(&d_y, n * sizeof(float)));
  CHECK(cudaMalloc(&d_y2, n * sizeof(float)));
  CHECK(cudaMalloc(&d_part, nb * sizeof(float)));
  CHECK(cudaMalloc(&d_norm, sizeof(float)));
  CHECK(cudaMalloc(&d_lambda, iters * sizeof(float)));
  CHECK(cudaMalloc(&d_bad, sizeof(unsigned)));
  CHECK(cudaMemcpy(d_rp, rp.data(), (n + 1) * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_col, col.data(), col.size() * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_val, val.data(), val.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_ecol, ecol.data(), ecol.size() * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_eval, eval.data(), eval.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_x, x0.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_bad, 0, sizeof(unsigned)));

  // The first product is on integers: the ELL check is exact there; later iterations compare
  // only the CSR result with the host (ELL's fmaf order differs once x is fractional).
  const int warps_per_block = 4;
  for (int it = 0; it < iters; ++it) {
    spmv_csr_warp<<<(n + warps_per_block - 1) / warps_per_block, warps_per_block * kWarp>>>(
        d_rp, d_col, d_val, d_x, d_y, n);
    if (it == 0)
      spmv_ell<<<(n + 127) / 128, 128>>>(d_ecol, d_eval, d_x, d_y, d_y2, n, width, d_bad);
    sum_squares<<<nb, kNormBlock>>>(d_y, d_part, n);
    finish_norm<<<1, kWarp>>>(d_part, nb, d_x, d_y, n, d_norm, d_lambda, it);
    scale<<<(n + 255) / 256, 256>>>(d_x, d_y, d_norm, n);
  }
  CHECK(cudaGetLastError());
  std::vector<float> x(n), lambda(iters);
  unsigned bad_ell = 0;
  CHECK(cudaMemcpy(x.data(), d_x, n * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(lambda.data(), d_lambda, iters * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&bad_ell, d_bad, sizeof(unsigned), cudaMemcpyDeviceToHost));

  // The host: the same products in the same orders (float), the reductions as the kernels
  // order them.
  std::vector<float> hx = x0, hy(n);
  std::vector<float> hl(iters);
  for (int it = 0; it < iters; ++it) {
    for (int r = 0; r < n; ++r) hy[r] = warp_row(rp, col, val, hx, r);
    // sum_squares: thread t of block b sums i = b*256+t, +nb*256, ...; then the tree.
    float part[nb];
    for (int b = 0; b < nb; ++b) {
      float s[kNormBlock];
      for (int t = 0; t < kNormBlock; ++t) {
        float acc = 0.0f;
        for (int i = b * kNormBlock + t; i < n; i += nb * kNormBlock)
          acc = std::fma(hy[i], hy[i], acc);
        s[t] = acc;
      }
      for (int half = kNormBlock / 2; half > 0; half /= 2)
        for (int t = 0; t < half; ++t) s[t] += s[t + half];
      part[b] = s[0];
    }
    float sl[kWarp], dl[kWarp];
    for (int l = 0; l < kWarp; ++l) {
      sl[l] = 0.0f;
      dl[l] = 0.0f;
      for (int i = l; i < nb; i += kWarp) sl[l] += part[i];
      for (int i = l; i < n; i += kWarp) dl[l] = std::fma(hx[i], hy[i], dl[l]);
    }
    for (int off = 1; off < kWarp; off *= 2) {
      float s2[kWarp], d2[kWarp];
      for (int l = 0; l < kWarp; ++l) {
        s2[l] = sl[l] + sl[l ^ off];
        d2[l] = dl[l] + dl[l ^ off];
      }
      for (int l = 0; l < kWarp; ++l) {
        sl[l] = s2[l];
        dl[l] = d2[l];
      }
    }
    const float norm = std::sqrt(sl[0]);
    hl[it] = dl[0];
    const float inv = 1.0f / norm;
    for (int i = 0; i < n; ++i) hx[i] = hy[i] * inv;
  }
  int bad = 0;
  if (bad_ell) {
    std::printf("ELL and CSR products differ in %u rows\n", bad_ell);
    ++bad;
  }
  for (int it = 0; it < iters; ++it)
    if (lambda[it] != hl[it]) {
      if (bad < 5) std::printf("iteration %d: lambda %.9g, host %.9g\n", it, lambda[it], hl[it]);
      ++bad;
    }
  for (int i = 0; i < n; ++i)
    if (std::fabs(x[i] - hx[i]) > 1e-6f) {
      if (bad < 5) std::printf("x[%d] = %.9g, host %.9g\n", i, x[i], hx[i]);
      ++bad;
    }
  std::printf("n %d, %zu nonzeros, ELL width %d, lambda %.6f after %d iterations\n", n, val.size(),
              width, lambda[iters - 1], iters);
  return finish(bad);
}
