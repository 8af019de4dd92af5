// Packed half-precision arithmetic as inference kernels write it (built with sm_80 PTX, the one
// gpurf runs: bf16x2 fma, max and min): __half2 and __nv_bfloat162 fused multiply-adds,
// products and sums with the no-contraction _rn forms, max/min, negation and absolute value,
// comparisons returning masks and bools, lane swaps and halves extracted; float2 <-> half2 and
// bfloat162 conversions; a dot product of half2 vectors accumulated in half2 and reduced across
// the warp with __shfl_xor_sync of the packed pairs; an activation (relu of a bias add) through
// __hmax2 with zero. The host rounds each exact result (computed in double, exact for these
// inputs) to half or bfloat16 itself, to nearest even: every result bit for bit. Argument: pairs
// (a multiple of 256).
#include "check.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

constexpr int kOut = 16; // 32-bit results per pair

// sm_80's bf16x2 instructions; the compute_75 PTX nvcc also embeds (gpurf runs the higher)
// computes the same in float: these inputs' products and sums are exact there.
__device__ __nv_bfloat162 bf_fma(__nv_bfloat162 a, __nv_bfloat162 b, __nv_bfloat162 c) {
#if __CUDA_ARCH__ >= 800
  return __hfma2(a, b, c);
#else
  const float2 x = __bfloat1622float2(a), y = __bfloat1622float2(b), z = __bfloat1622float2(c);
  return __floats2bfloat162_rn(fmaf(x.x, y.x, z.x), fmaf(x.y, y.y, z.y));
#endif
}
__device__ __nv_bfloat162 bf_max(__nv_bfloat162 a, __nv_bfloat162 b, bool min) {
#if __CUDA_ARCH__ >= 800
  return min ? __hmin2(a, b) : __hmax2(a, b);
#else
  const float2 x = __bfloat1622float2(a), y = __bfloat1622float2(b);
  const bool lo = min ? x.x <= y.x : x.x >= y.x, hi = min ? x.y <= y.y : x.y >= y.y;
  return __halves2bfloat162(lo ? a.x : b.x, hi ? a.y : b.y);
#endif
}

__global__ void half_ops(const __half2* __restrict__ a, const __half2* __restrict__ b,
                         const __half2* __restrict__ c, const __nv_bfloat162* __restrict__ x,
                         const __nv_bfloat162* __restrict__ y, const __nv_bfloat162* __restrict__ z,
                         uint32_t* __restrict__ out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const __half2 ha = a[i], hb = b[i], hc = c[i];
  const __nv_bfloat162 bx = x[i], by = y[i], bz = z[i];
  uint32_t* o = out + size_t(i) * kOut;
  auto bits = [](auto v) {
    uint32_t u;
    memcpy(&u, &v, 4);
    return u;
  };
  o[0] = bits(__hfma2(ha, hb, hc));
  o[1] = bits(__hmul2_rn(ha, hb));
  o[2] = bits(__hadd2_rn(ha, hc));
  o[3] = bits(__hsub2_rn(hb, hc));
  o[4] = bits(__hmax2(ha, hb));
  o[5] = bits(__hmin2(ha, hc));
  o[6] = bits(__habs2(__hneg2(ha)));
  o[7] = bits(__hgt2(ha, hb)) ^ (uint32_t(__hbge2(hb, hc)) << 31) ^ uint32_t(__hbeq2(ha, ha));
  o[8] = bits(__lowhigh2highlow(__hfma2(hc, hb, ha)));
  o[9] = bits(__float22half2_rn(make_float2(__low2float(ha) * 3.0f, __high2float(hb) / 8.0f)));
  o[10] = bits(bf_fma(bx, by, bz));
  o[11] = bits(bf_max(bx, bz, false)) ^ bits(bf_max(by, bz, true));
  o[12] = bits(__float22bfloat162_rn(
      make_float2(__low2float(bx) * __high2float(by), __high2float(bz) + 1.0f)));
  o[13] = bits(__hmax2(__hadd2_rn(ha, hb), __float2half2_rn(0.0f))); // relu(a + b)
  // Dot product of 8 consecutive pairs (wrapping), then the warp's sum by packed shuffles.
  __half2 acc = __float2half2_rn(0.0f);
  for (int k = 0; k < 8; ++k) acc = __hfma2(a[(i + k) % n], b[(i + 3 * k) % n], acc);
  o[14] = bits(acc);
  __half2 w = acc;
  for (int off = 16; off > 0; off /= 2) w = __hadd2_rn(w, __shfl_xor_sync(0xffffffffu, w, off));
  o[15] = bits(w);
}

namespace {
// Round an exactly known value to a format of `mant` stored mantissa bits, exponent bias
// `bias`, to nearest even (no overflow for these inputs); subnormals below 2^(1-bias).
uint16_t round_to(double v, int mant, int bias) {
  const uint16_t sign = std::signbit(v) ? uint16_t(1u << 15) : 0;
  v = std::fabs(v);
  const int e = v == 0 ? 1 - bias : std::max(std::ilogb(v), 1 - bias); // subnormals: 2^(1-bias)
  const double r = std::nearbyint(v / std::ldexp(1.0, e - mant)) * std::ldexp(1.0, e - mant);
  if (r < std::ldexp(1.0, 1 - bias)) // zero or subnormal: the count of the smallest quanta
    return uint16_t(sign | uint16_t(r / std::ldexp(1.0, 1 - bias - mant)));
  const int be = std::ilogb(r); // e, or e + 1 when rounded up into the next binade
  const double m = r / std::ldexp(1.0, be - mant) - std::ldexp(1.0, mant);
  return uint16_t(sign | uint16_t((be + bias) << mant) | uint16_t(m));
}
uint16_t to_h(double v) { return round_to(v, 10, 15); }
uint16_t to_b(double v) { return round_to(v, 7, 127); }
double from_h(uint16_t h) {
  const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  const double v = e ? std::ldexp(1.0 + m / 1024.0, e - 15) : std::ldexp(m / 1024.0, -14);
  return (h >> 15) ? -v : v;
}
double from_b(uint16_t b) {
  uint32_t u = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
uint32_t pack(uint16_t lo, uint16_t hi) { return uint32_t(lo) | uint32_t(hi) << 16; }
uint16_t lo(uint32_t v) { return uint16_t(v); }
uint16_t hi(uint32_t v) { return uint16_t(v >> 16); }
} // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 1024;
  if (n % 256) return finish(1);
  // Inputs: halves k / 16 for |k| <= 255 (exact products and sums in double), some tiny
  // (subnormal results) and some equal; bf16 values k / 8 for |k| < 128.
  std::vector<uint32_t> A(n), B(n), C(n), X(n), Y(n), Z(n);
  uint32_t s = 1234567;
  auto r = [&](int range) {
    s = s * 1103515245u + 12345u;
    return int((s >> 8) % uint32_t(2 * range + 1)) - range;
  };
  for (int i = 0; i < n; ++i) {
    const double scale = i % 17 == 0 ? 1.0 / 65536 : 1.0 / 16; // tiny: subnormal products
    A[i] = pack(to_h(r(255) * scale), to_h(r(255) / 16.0));
    B[i] = i % 13 == 0 ? A[i] : pack(to_h(r(255) / 16.0), to_h(r(255) / 16.0));
    C[i] = pack(to_h(r(255) / 16.0), to_h(r(255) * scale));
    X[i] = pack(to_b(r(127) / 8.0), to_b(r(127) / 8.0));
    Y[i] = pack(to_b(r(127) / 8.0), to_b(r(127) / 8.0));
    Z[i] = pack(to_b(r(127) / 8.0), to_b(r(127) / 8.0));
  }
  void *da, *db, *dc, *dx, *dy, *dz;
  uint32_t* d_out;
  for (auto [p, v] : {std::pair{&da, &A}, {&db, &B}, {&dc, &C}, {&dx, &X}, {&dy, &Y}, {&dz, &Z}}) {
    CHECK(cudaMalloc(p, n * 4));
    CHECK(cudaMemcpy(*p, v->data(), n * 4, cudaMemcpyHostToDevice));
  }
  CHECK(cudaMalloc(&d_out, size_t(n) * kOut * 4));
  half_ops<<<n / 256, 256>>>((const __half2*)da, (const __half2*)db, (const __half2*)dc,
                             (const __nv_bfloat162*)dx, (const __nv_bfloat162*)dy,
                             (const __nv_bfloat162*)dz, d_out, n);
  CHECK(cudaGetLastError());
  std::vector<uint32_t> out(size_t(n) * kOut);
  CHECK(cudaMemcpy(out.data(), d_out, out.size() * 4, cudaMemcpyDeviceToHost));

  int bad = 0;
  const char* names[kOut] = {"hfma2",  "hmul2_rn", "hadd2_rn", "hsub2_rn", "hmax2",  "hmin2",
                             "habs2",  "compare",  "swap",     "float2",   "bf fma", "bf max/min",
                             "bf cvt", "relu",     "dot",      "warp dot"};
  std::vector<uint32_t> dot(n);
  for (int i = 0; i < n; ++i) {
    const uint32_t a = A[i], b = B[i], c = C[i], x = X[i], y = Y[i], z = Z[i];
    auto H = [&](uint32_t v, int k) { return from_h(k ? hi(v) : lo(v)); };
    auto Bf = [&](uint32_t v, int k) { return from_b(k ? hi(v) : lo(v)); };
    uint32_t want[kOut];
    auto each = [&](auto f) { return pack(f(0), f(1)); };
    want[0] = each([&](int k) { return to_h(H(a, k) * H(b, k) + H(c, k)); });
    want[1] = each([&](int k) { return to_h(H(a, k) * H(b, k)); });
    want[2] = each([&](int k) { return to_h(H(a, k) + H(c, k)); });
    want[3] = each([&](int k) { return to_h(H(b, k) - H(c, k)); });
    want[4] =
        each([&](int k) { return H(a, k) >= H(b, k) ? (k ? hi(a) : lo(a)) : (k ? hi(b) : lo(b)); });
    want[5] =
        each([&](int k) { return H(a, k) <= H(c, k) ? (k ? hi(a) : lo(a)) : (k ? hi(c) : lo(c)); });
    want[6] = each([&](int k) { return uint16_t((k ? hi(a) : lo(a)) & 0x7fff); });
    want[7] = each([&](int k) { return uint16_t(H(a, k) > H(b, k) ? 0x3c00 : 0); }) ^
              (uint32_t(H(b, 0) >= H(c, 0) && H(b, 1) >= H(c, 1)) << 31) ^ 1u;
    const uint32_t f2 = each([&](int k) { return to_h(H(c, k) * H(b, k) + H(a, k)); });
    want[8] = pack(hi(f2), lo(f2));
    want[9] = pack(to_h(H(a, 0) * 3.0), to_h(H(b, 1) / 8.0));
    want[10] = each([&](int k) { return to_b(Bf(x, k) * Bf(y, k) + Bf(z, k)); });
    want[11] = each([&](int k) {
                 return Bf(x, k) >= Bf(z, k) ? (k ? hi(x) : lo(x)) : (k ? hi(z) : lo(z));
               }) ^
               each([&](int k) {
                 return Bf(y, k) <= Bf(z, k) ? (k ? hi(y) : lo(y)) : (k ? hi(z) : lo(z));
               });
    want[12] = pack(to_b(Bf(x, 0) * Bf(y, 1)), to_b(Bf(z, 1) + 1.0));
    want[13] = each([&](int k) {
      const uint16_t sum = to_h(H(a, k) + H(b, k));
      return from_h(sum) > 0 ? sum : uint16_t(0);
    });
    uint32_t acc = 0;
    for (int k = 0; k < 8; ++k) {
      const uint32_t p = A[(i + k) % n], q = B[(i + 3 * k) % n], prev = acc;
      acc = each([&](int h) { return to_h(H(p, h) * H(q, h) + H(prev, h)); });
    }
    want[14] = dot[i] = acc;
    want[15] = 0; // below
    for (int k = 0; k < 15; ++k)
      if (out[size_t(i) * kOut + k] != want[k]) {
        if (bad < 12)
          std::printf("%s, pair %d: 0x%08x, host 0x%08x\n", names[k], i, out[size_t(i) * kOut + k],
                      want[k]);
        ++bad;
      }
  }
  // The butterfly: every lane ends with the same association order as lane 0's partner tree.
  for (int w = 0; w < n / 32; ++w) {
    std::vector<uint32_t> v(dot.begin() + w * 32, dot.begin() + w * 32 + 32);
    for (int off = 16; off > 0; off /= 2) {
      std::vector<uint32_t> nv(32);
      for (int l = 0; l < 32; ++l) {
        const uint32_t p = v[l], q = v[l ^ off];
        nv[l] = pack(to_h(from_h(lo(p)) + from_h(lo(q))), to_h(from_h(hi(p)) + from_h(hi(q))));
      }
      v = nv;
    }
    for (int l = 0; l < 32; ++l) {
      const int i = w * 32 + l;
      if (out[size_t(i) * kOut + 15] != v[l]) {
        if (bad < 12)
          std::printf("warp dot, pair %d: 0x%08x, host 0x%08x\n", i, out[size_t(i) * kOut + 15],
                      v[l]);
        ++bad;
      }
    }
  }
  std::printf("%d pairs x %d results: %d wrong\n", n, kOut, bad);
  return finish(bad);
}
