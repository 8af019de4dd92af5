// Templates, extended lambdas and many live values, as generic CUDA libraries write them (built
// with --extended-lambda and PTX for compute_75, 80 and 90; gpurf runs the highest; also as a
// debug build, nvcc -G, where every value goes through the stack):
// - a kernel template over a __device__ lambda (captures by value: a scale, an offset, a
//   pointer) and a tile width: each thread keeps a tile of 16 floats in registers, maps the
//   lambda over it and multiplies it by a 16 x 16 __constant__ matrix (256 products, the tile
//   live throughout), instantiated for three lambdas and two widths;
// - a __noinline__ function of 12 scalar arguments returning a struct of 6 values (the call
//   ABI's parameter space), and a __noinline__ mixer over 8 64-bit words passed by reference
//   (a local array), called in a loop: 16 live 64-bit values;
// - a functor template with a static member function and a variadic sum.
// Integer-valued floats keep every float result exact: all results against the host bit for
// bit. Argument: threads (a multiple of 128).
#include "check.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

constexpr int kTile = 16;
__constant__ float c_mat[kTile * kTile];

template <int W, typename F>
__global__ void tile_map(const float* __restrict__ in, float* __restrict__ out, int n, F f) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  float v[kTile];
#pragma unroll
  for (int k = 0; k < kTile; ++k) v[k] = f(in[size_t(t) * kTile + (k * W) % kTile]);
  float r[kTile];
#pragma unroll
  for (int i = 0; i < kTile; ++i) {
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < kTile; ++k) s += c_mat[i * kTile + k] * v[k];
    r[i] = s;
  }
#pragma unroll
  for (int i = 0; i < kTile; ++i) out[size_t(t) * kTile + i] = r[i];
}

struct Six {
  int a, b, c, d;
  long long e;
  float f;
};

__device__ __noinline__ Six twelve(int x0, int x1, int x2, int x3, int x4, int x5, long long y0,
                                   long long y1, float z0, float z1, unsigned u0, unsigned u1) {
  Six s;
  s.a = int(unsigned(x0) * unsigned(x1) - unsigned(x2)); // wraps, as the host's
  s.b = x3 ^ (x4 << 3) ^ x5;
  s.c = int(u0 % 97u) + int(u1 >> 7);
  s.d = x0 + x1 + x2 + x3 + x4 + x5;
  s.e = y0 * 3 - y1 + x5;
  s.f = z0 * 2.0f - z1;
  return s;
}

__device__ __noinline__ void mix(uint64_t (&w)[8], uint64_t key) {
  uint64_t t[8];
#pragma unroll
  for (int i = 0; i < 8; ++i) t[i] = w[i] ^ (key * (2 * i + 1));
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const uint64_t x = t[i] + t[(i + 3) % 8];
    w[i] = (x << 13 | x >> 51) ^ t[(i + 5) % 8];
  }
}

template <typename T> struct Poly {
  __device__ __host__ static T eval(T x) { return (x * 3 + 1) * x - 7; }
};
template <typename T> __device__ __host__ T sum_all(T x) { return x; }
template <typename T, typename... R> __device__ __host__ T sum_all(T x, R... r) {
  return x + sum_all(r...);
}

__global__ void calls(const int* __restrict__ in, int* __restrict__ out, uint64_t* __restrict__ h,
                      int n) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  const int x = in[t];
  const Six s = twelve(x, x + 1, x - 2, x * 3, x & 0xff, x >> 4, (long long)x << 20, x * 7ll,
                       float(x % 100), float(x % 7), unsigned(x) * 2654435761u, unsigned(t));
  out[6 * t] = s.a;
  out[6 * t + 1] = s.b;
  out[6 * t + 2] = s.c;
  out[6 * t + 3] = s.d;
  out[6 * t + 4] = int(s.e ^ (s.e >> 32)) + int(s.f);
  out[6 * t + 5] = Poly<int>::eval(x % 1000) + sum_all(x, 1, x >> 1, 3, x & 7);
  uint64_t w[8];
  for (int i = 0; i < 8; ++i) w[i] = uint64_t(x) * (i + 11) + i;
  for (int r = 0; r < (x & 3) + 2; ++r) mix(w, uint64_t(r) * 0x9e3779b97f4a7c15ull + t);
  h[t] = w[0] ^ w[1] ^ w[2] ^ w[3] ^ w[4] ^ w[5] ^ w[6] ^ w[7];
}

namespace {
struct HostSix {
  int a, b, c, d;
  long long e;
  float f;
};
HostSix host_twelve(int x0, int x1, int x2, int x3, int x4, int x5, long long y0, long long y1,
                    float z0, float z1, unsigned u0, unsigned u1) {
  return {int(unsigned(x0) * unsigned(x1) - unsigned(x2)),
          x3 ^ (x4 << 3) ^ x5,
          int(u0 % 97u) + int(u1 >> 7),
          x0 + x1 + x2 + x3 + x4 + x5,
          y0 * 3 - y1 + x5,
          z0 * 2.0f - z1};
}
void host_mix(uint64_t (&w)[8], uint64_t key) {
  uint64_t t[8];
  for (int i = 0; i < 8; ++i) t[i] = w[i] ^ (key * (2 * i + 1));
  for (int i = 0; i < 8; ++i) {
    const uint64_t x = t[i] + t[(i + 3) % 8];
    w[i] = (x << 13 | x >> 51) ^ t[(i + 5) % 8];
  }
}
} // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 1024;
  if (n % 128) return finish(1);
  std::vector<float> mat(kTile * kTile), in(size_t(n) * kTile);
  for (int i = 0; i < kTile * kTile; ++i) mat[i] = float((i * 5) % 7 - 3);
  for (size_t i = 0; i < in.size(); ++i) in[i] = float(int((i * 2654435761u) >> 24) % 64 - 32);
  CHECK(cudaMemcpyToSymbol(c_mat, mat.data(), mat.size() * sizeof(float)));
  float *d_in, *d_out;
  CHECK(cudaMalloc(&d_in, in.size() * sizeof(float)));
  CHECK(cudaMalloc(&d_out, 6 * in.size() * sizeof(float)));
  CHECK(cudaMemcpy(d_in, in.data(), in.size() * sizeof(float), cudaMemcpyHostToDevice));
  const float scale = 2.0f, offset = -1.0f;
  float* bias = nullptr; // captured pointer, read through
  CHECK(cudaMalloc(&bias, sizeof(float)));
  const float b0 = 4.0f;
  CHECK(cudaMemcpy(bias, &b0, sizeof(float), cudaMemcpyHostToDevice));
  const size_t stride = in.size();
  auto affine = [=] __device__(float x) { return x * scale + offset; };
  auto square = [] __device__(float x) { return x * x; };
  auto biased = [=] __device__(float x) { return x - *bias; };
  tile_map<1><<<n / 128, 128>>>(d_in, d_out, n, affine);
  tile_map<3><<<n / 128, 128>>>(d_in, d_out + stride, n, affine);
  tile_map<1><<<n / 128, 128>>>(d_in, d_out + 2 * stride, n, square);
  tile_map<5><<<n / 128, 128>>>(d_in, d_out + 3 * stride, n, square);
  tile_map<1><<<n / 128, 128>>>(d_in, d_out + 4 * stride, n, biased);
  tile_map<7><<<n / 64, 64>>>(d_in, d_out + 5 * stride, n, biased);
  CHECK(cudaGetLastError());
  std::vector<float> out(6 * stride);
  CHECK(cudaMemcpy(out.data(), d_out, out.size() * sizeof(float), cudaMemcpyDeviceToHost));

  std::vector<int> xi(n);
  for (int t = 0; t < n; ++t) xi[t] = int((t * 40503u) ^ (t << 9)) - 300000;
  int *d_xi, *d_ci;
  uint64_t* d_h;
  CHECK(cudaMalloc(&d_xi, n * sizeof(int)));
  CHECK(cudaMalloc(&d_ci, 6 * n * sizeof(int)));
  CHECK(cudaMalloc(&d_h, n * sizeof(uint64_t)));
  CHECK(cudaMemcpy(d_xi, xi.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  calls<<<n / 128, 128>>>(d_xi, d_ci, d_h, n);
  CHECK(cudaGetLastError());
  std::vector<int> ci(6 * n);
  std::vector<uint64_t> hh(n);
  CHECK(cudaMemcpy(ci.data(), d_ci, ci.size() * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(hh.data(), d_h, hh.size() * sizeof(uint64_t), cudaMemcpyDeviceToHost));

  int bad = 0;
  const int widths[6] = {1, 3, 1, 5, 1, 7};
  for (int l = 0; l < 6; ++l)
    for (int t = 0; t < n; ++t) {
      float v[kTile];
      for (int k = 0; k < kTile; ++k) {
        const float x = in[size_t(t) * kTile + (k * widths[l]) % kTile];
        v[k] = l < 2 ? x * scale + offset : l < 4 ? x * x : x - b0;
      }
      for (int i = 0; i < kTile; ++i) {
        float s = 0.0f;
        for (int k = 0; k < kTile; ++k) s += mat[i * kTile + k] * v[k];
        const float got = out[l * stride + size_t(t) * kTile + i];
        if (got != s) {
          if (bad < 8) std::printf("lambda %d thread %d row %d: %g, host %g\n", l, t, i, got, s);
          ++bad;
        }
      }
    }
  for (int t = 0; t < n; ++t) {
    const int x = xi[t];
    const HostSix s =
        host_twelve(x, x + 1, x - 2, x * 3, x & 0xff, x >> 4, (long long)x << 20, x * 7ll,
                    float(x % 100), float(x % 7), unsigned(x) * 2654435761u, unsigned(t));
    const int want[6] = {s.a,
                         s.b,
                         s.c,
                         s.d,
                         int(s.e ^ (s.e >> 32)) + int(s.f),
                         Poly<int>::eval(x % 1000) + sum_all(x, 1, x >> 1, 3, x & 7)};
    for (int k = 0; k < 6; ++k)
      if (ci[6 * t + k] != want[k]) {
        if (bad < 8)
          std::printf("calls thread %d result %d: %d, host %d\n", t, k, ci[6 * t + k], want[k]);
        ++bad;
      }
    uint64_t w[8];
    for (int i = 0; i < 8; ++i) w[i] = uint64_t(x) * (i + 11) + i;
    for (int r = 0; r < (x & 3) + 2; ++r) host_mix(w, uint64_t(r) * 0x9e3779b97f4a7c15ull + t);
    const uint64_t hw = w[0] ^ w[1] ^ w[2] ^ w[3] ^ w[4] ^ w[5] ^ w[6] ^ w[7];
    if (hh[t] != hw) {
      if (bad < 8)
        std::printf("mix thread %d: %llx, host %llx\n", t, (unsigned long long)hh[t],
                    (unsigned long long)hw);
      ++bad;
    }
  }
  std::printf("%d threads, 7 launches: %d wrong\n", n, bad);
  return finish(bad);
}
