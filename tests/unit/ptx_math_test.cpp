// Arithmetic semantics of the PTX engine checked against C++ reference computations
// (kernels in tests/unit/ptx_data/ptx_math.cu, compiled by nvcc 13 for sm_75).
#include <gtest/gtest.h>

#include <cfenv>
#include <climits>
#include <cmath>
#include <cstring>
#include <limits>

#include "tests/unit/ptx_test_util.h"

using namespace gpurf::ptx;
using ptxtest::data_module;
using ptxtest::Launch;

namespace {

const Module& math() { return data_module("ptx_math.ptx"); }

uint32_t fb(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
uint64_t db(double d) {
  uint64_t u;
  std::memcpy(&u, &d, 8);
  return u;
}
// Compares floats bit-for-bit, treating any two NaNs as equal.
::testing::AssertionResult same_f(float a, float b) {
  if ((std::isnan(a) && std::isnan(b)) || fb(a) == fb(b)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << a << " (0x" << std::hex << fb(a) << ") vs " << b << " (0x" << fb(b) << ")";
}
::testing::AssertionResult same_d(double a, double b) {
  if ((std::isnan(a) && std::isnan(b)) || db(a) == db(b)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << a << " (0x" << std::hex << db(a) << ") vs " << b << " (0x" << db(b) << ")";
}

// Evaluates fn() under rounding mode `mode`. The asm barriers keep the compiler from moving
// the floating-point operation across the fesetround() calls.
template <class F> auto rounded(int mode, F fn) {
  int old = fegetround();
  fesetround(mode);
  asm volatile("" ::: "memory");
  auto r = fn();
  asm volatile("" : "+m"(r)::"memory");
  fesetround(old);
  return r;
}

// PTX float→int conversion: value already rounded to an integer; saturates, NaN → 0.
template <class I> I sat(double v) {
  if (std::isnan(v)) return 0;
  if (v <= double(std::numeric_limits<I>::min())) return std::numeric_limits<I>::min();
  if (v >= std::ldexp(1.0, std::numeric_limits<I>::digits)) return std::numeric_limits<I>::max();
  return I(v);
}

} // namespace

TEST(PtxMath, Integer64) {
  const int n = 32;
  std::vector<unsigned long long> a(n), b(n);
  for (int i = 0; i < n; ++i) {
    a[i] = 0x9E3779B97F4A7C15ull * (i + 1) ^ (0xFFull << i);
    b[i] = (i % 5 == 0) ? 0 : 0xBF58476D1CE4E5B9ull * (i + 3) >> (i % 40);
  }
  a[1] = 0x8000000000000000ull;
  b[1] = ~0ull; // INT64_MIN / -1
  Launch L(math(), "math64", Dim3(1), Dim3(n));
  uint64_t da = L.buf(a), dbb = L.buf(b), d_o = L.zeros(n * 64);
  L.arg(da).arg(dbb).arg(d_o);
  L.run();
  auto o = L.get<unsigned long long>(d_o, n * 8);
  for (int t = 0; t < n; ++t) {
    unsigned long long x = a[t], y = b[t];
    long long sx = (long long)x, sy = (long long)y;
    EXPECT_EQ(o[t * 8 + 0], x * y) << t;
    EXPECT_EQ(o[t * 8 + 1], (unsigned long long)(((unsigned __int128)x * y) >> 64)) << t;
    EXPECT_EQ(o[t * 8 + 2], (unsigned long long)(((__int128)sx * sy) >> 64)) << t;
    EXPECT_EQ(o[t * 8 + 3], y ? x / y : 0) << t;
    EXPECT_EQ(o[t * 8 + 4], y ? x % y : 0) << t;
    unsigned long long q = 0, r = 0;
    if (sy == -1) {
      q = 0 - x; // wraps for INT64_MIN
      r = 0;
    } else if (sy) {
      q = (unsigned long long)(sx / sy);
      r = (unsigned long long)(sx % sy);
    }
    EXPECT_EQ(o[t * 8 + 5], q) << t;
    EXPECT_EQ(o[t * 8 + 6], r) << t;
    EXPECT_EQ(o[t * 8 + 7],
              (x >> (y & 63)) ^ (x << (y & 31)) ^ (unsigned long long)(sx >> (y & 63)))
        << t;
  }
}

TEST(PtxMath, Integer32EdgeCases) {
  std::vector<int> a = {INT_MIN, INT_MIN, INT_MAX, -1, 0,     7,   -7,         123456789,
                        -98765,  1,       5,       -5, 65536, 255, 0x7f00ff00, -2147483647};
  std::vector<int> b = {-1, 1, -1, INT_MIN, 5, -2, 2, 1000, 37, 0, -5, 3, 65536, 8, 13, 2};
  const int n = int(a.size());
  Launch L(math(), "intops", Dim3(1), Dim3(n));
  uint64_t da = L.buf(a), dbb = L.buf(b), d_o = L.zeros(n * 64);
  L.arg(da).arg(dbb).arg(d_o);
  L.run();
  auto o = L.get<int>(d_o, n * 16);
  auto byte_perm = [](unsigned x, unsigned y, unsigned s) {
    unsigned long long v = x | ((unsigned long long)y << 32);
    unsigned r = 0;
    for (int i = 0; i < 4; ++i) r |= unsigned((v >> (8 * ((s >> (4 * i)) & 7))) & 0xff) << (8 * i);
    return r;
  };
  for (int t = 0; t < n; ++t) {
    int x = a[t], y = b[t];
    unsigned ux = unsigned(x), uy = unsigned(y);
    const int* r = &o[t * 16];
    int q = 0, m = 0;
    if (y == -1) {
      q = int(0u - ux);
      m = 0;
    } else if (y) {
      q = x / y;
      m = x % y;
    }
    EXPECT_EQ(r[0], q) << t;
    EXPECT_EQ(r[1], m) << t;
    EXPECT_EQ(r[2], uy ? int(ux / uy) : 0) << t;
    EXPECT_EQ(r[3], uy ? int(ux % uy) : 0) << t;
    EXPECT_EQ(r[4], int(((long long)x * y) >> 32)) << t;
    EXPECT_EQ(r[5], int(((unsigned long long)ux * uy) >> 32)) << t;
    EXPECT_EQ(r[6], x == INT_MIN ? INT_MIN : std::abs(x)) << t;
    EXPECT_EQ(r[7], int(unsigned(std::min(x, y)) + std::max(ux, uy))) << t;
    EXPECT_EQ(r[8], __builtin_popcount(ux) + ((ux ? __builtin_clz(ux) : 32) << 8)) << t;
    unsigned rev = 0;
    for (int i = 0; i < 32; ++i)
      if ((ux >> i) & 1) rev |= 1u << (31 - i);
    EXPECT_EQ(r[9], int(rev)) << t;
    EXPECT_EQ(r[10], int(byte_perm(ux, uy, 0x5140u + unsigned(t & 7)))) << t;
    unsigned sh = uy & 31;
    EXPECT_EQ(r[11], int(unsigned((((unsigned long long)uy << 32 | ux) << sh) >> 32))) << t;
    long long p = (long long)x * y;
    int ffs = x ? __builtin_ctz(ux) + 1 : 0;
    int clzll = p ? __builtin_clzll((unsigned long long)p) : 64;
    EXPECT_EQ(r[12], ffs + (clzll << 8)) << t;
    EXPECT_EQ(r[13], x >> (y & 31)) << t;
    EXPECT_EQ(r[14], int((ux >> (uy & 31)) + (ux << (y & 7)))) << t;
    auto s24 = [](int v) { return int(unsigned(v) << 8) >> 8; }; // no UB on negative v
    unsigned sad = unsigned(x > y ? (long long)x - y : (long long)y - x) + 3u;
    EXPECT_EQ(r[15], int(sad + unsigned((long long)s24(x) * s24(y)))) << t;
  }
}

TEST(PtxMath, Float32RoundingModes) {
  const float inf = INFINITY, nan = NAN;
  std::vector<float> a = {1.0f,        1.0f / 3.0f, -2.5f,  3.4e38f, 1e-40f, -0.0f,   nan,  inf,
                          16777217.0f, 0.1f,        -7.25f, 1.5f,    2.0f,   -1e-30f, 5.0f, 0.75f};
  std::vector<float> b = {3.0f, 7.0f,  0.3f, 3.4e38f, 1e-40f, 0.0f, 1.0f, inf,
                          1.0f, -0.2f, 0.0f, -inf,    1e30f,  3.0f, -nan, 1e-39f};
  const int n = int(a.size());
  Launch L(math(), "fops", Dim3(1), Dim3(n));
  uint64_t da = L.buf(a), dbb = L.buf(b), d_o = L.zeros(n * 64);
  L.arg(da).arg(dbb).arg(d_o);
  L.run();
  auto o = L.get<float>(d_o, n * 16);
  for (int t = 0; t < n; ++t) {
    volatile float x = a[t], y = b[t];
    const float* r = &o[t * 16];
    EXPECT_TRUE(same_f(r[0], rounded(FE_TONEAREST, [&] { return float(x + y); }))) << t;
    EXPECT_TRUE(same_f(r[1], rounded(FE_TOWARDZERO, [&] { return float(x + y); }))) << t;
    EXPECT_TRUE(same_f(r[2], rounded(FE_DOWNWARD, [&] { return float(x + y); }))) << t;
    EXPECT_TRUE(same_f(r[3], rounded(FE_UPWARD, [&] { return float(x + y); }))) << t;
    EXPECT_TRUE(same_f(r[4], rounded(FE_TOWARDZERO, [&] { return float(x * y); }))) << t;
    EXPECT_TRUE(same_f(r[5], rounded(FE_UPWARD, [&] { return float(x * y); }))) << t;
    EXPECT_TRUE(same_f(
        r[6], rounded(FE_DOWNWARD, [&] { return std::fma(float(x), float(y), 1.0f / 3.0f); })))
        << t;
    EXPECT_TRUE(same_f(r[7], rounded(FE_TONEAREST, [&] { return float(x / y); }))) << t;
    EXPECT_TRUE(same_f(r[8], rounded(FE_TOWARDZERO, [&] { return float(x / y); }))) << t;
    EXPECT_TRUE(same_f(r[9], std::sqrt(std::fabs(float(x))))) << t;
    EXPECT_TRUE(same_f(r[10], rounded(FE_TOWARDZERO, [&] { return float(1.0f / y); }))) << t;
    // PTX min/max: NaN loses to a number; -0.0 orders below +0.0
    float mn = std::fmin(float(x), float(y)), mx = std::fmax(float(x), float(y));
    if (x == 0.0f && y == 0.0f) {
      mn = (std::signbit(float(x)) || std::signbit(float(y))) ? -0.0f : 0.0f;
      mx = (!std::signbit(float(x)) || !std::signbit(float(y))) ? 0.0f : -0.0f;
    }
    EXPECT_TRUE(same_f(r[11], mn)) << t;
    EXPECT_TRUE(same_f(r[12], mx)) << t;
    float s = std::isnan(x) ? 0.0f : std::min(1.0f, std::max(0.0f, float(x)));
    EXPECT_TRUE(same_f(r[13], s == 0.0f ? 0.0f : s)) << t;
    EXPECT_TRUE(same_f(r[14], float(std::fabs(float(x)) - y))) << t;
    EXPECT_TRUE(same_f(r[15], float(x / y))) << t;
    // NaN results are the canonical 0x7fffffff
    if (std::isnan(r[0])) {
      EXPECT_EQ(fb(r[0]), 0x7fffffffu) << t;
    }
  }
}

TEST(PtxMath, Float64RoundingModes) {
  std::vector<double> a = {1.0, 1.0 / 3.0, -2.5, 1e308, 5e-324, -0.0, NAN, 0.1, 2.0, -7.0};
  std::vector<double> b = {3.0, 7.0, 0.3, 10.0, 5e-324, 0.0, 1.0, -0.2, 1e-300, INFINITY};
  const int n = int(a.size());
  Launch L(math(), "dops", Dim3(1), Dim3(n));
  uint64_t da = L.buf(a), dbb = L.buf(b), d_o = L.zeros(n * 64);
  L.arg(da).arg(dbb).arg(d_o);
  L.run();
  auto o = L.get<double>(d_o, n * 8);
  for (int t = 0; t < n; ++t) {
    volatile double x = a[t], y = b[t];
    const double* r = &o[t * 8];
    EXPECT_TRUE(same_d(r[0], rounded(FE_TOWARDZERO, [&] { return double(x + y); }))) << t;
    EXPECT_TRUE(same_d(r[1], rounded(FE_UPWARD, [&] { return double(x * y); }))) << t;
    EXPECT_TRUE(same_d(
        r[2], rounded(FE_DOWNWARD, [&] { return std::fma(double(x), double(y), 1.0 / 3.0); })))
        << t;
    EXPECT_TRUE(same_d(r[3], double(x / y))) << t;
    EXPECT_TRUE(
        same_d(r[4], rounded(FE_TOWARDZERO, [&] { return std::sqrt(std::fabs(double(x))); })))
        << t;
    EXPECT_TRUE(same_d(r[5], std::fmin(double(x), double(y)))) << t;
    EXPECT_TRUE(same_d(r[6], 1.0 / y)) << t;
    EXPECT_TRUE(same_d(r[7], std::fma(double(y), -3.0, double(x)))) << t; // contracted by nvcc
  }
}

TEST(PtxMath, Conversions) {
  std::vector<float> f = {2.5f,  -2.5f,    3.5f,     -0.5f,       1e10f,         -1e10f,
                          NAN,   7.9999f,  -7.9999f, 0.49999997f, 4294967296.0f, 123.456f,
                          -0.0f, 65537.7f, -129.3f,  300.6f};
  std::vector<double> d = {1.0 / 3.0,    -1.0 / 3.0, 2.5,  1e40,    -1e40, NAN,    1e-50,  0.1,
                           4294967295.7, -3.5,       1e-5, 123.456, 0.0,   2.0e-3, -129.3, 300.6};
  const int n = int(f.size());
  Launch L(math(), "cvts", Dim3(1), Dim3(n));
  uint64_t df = L.buf(f), dd = L.buf(d), doi = L.zeros(n * 16), dou = L.zeros(n * 8),
           dof = L.zeros(n * 24), dol = L.zeros(n * 16);
  L.arg(df).arg(dd).arg(doi).arg(dou).arg(dof).arg(dol);
  L.run();
  auto oi = L.get<int>(doi, n * 4);
  auto ou = L.get<unsigned>(dou, n * 2);
  auto of = L.get<float>(dof, n * 6);
  auto ol = L.get<long long>(dol, n * 2);
  for (int t = 0; t < n; ++t) {
    volatile float x = f[t];
    volatile double y = d[t];
    EXPECT_EQ(oi[t * 4 + 0],
              sat<int>(rounded(FE_TONEAREST, [&] { return std::nearbyint(double(x)); })))
        << t;
    EXPECT_EQ(oi[t * 4 + 1], sat<int>(std::trunc(double(x)))) << t;
    EXPECT_EQ(oi[t * 4 + 2], sat<int>(std::floor(double(x)))) << t;
    EXPECT_EQ(oi[t * 4 + 3], sat<int>(std::ceil(double(x)))) << t;
    EXPECT_EQ(ou[t * 2 + 0], sat<unsigned>(std::trunc(double(x)))) << t;
    EXPECT_EQ(ou[t * 2 + 1],
              sat<unsigned>(rounded(FE_TONEAREST, [&] { return std::nearbyint(double(y)); })))
        << t;
    EXPECT_TRUE(same_f(of[t * 6 + 0], rounded(FE_TONEAREST, [&] { return float(y); }))) << t;
    EXPECT_TRUE(same_f(of[t * 6 + 1], rounded(FE_TOWARDZERO, [&] { return float(y); }))) << t;
    EXPECT_TRUE(same_f(of[t * 6 + 2], rounded(FE_DOWNWARD, [&] { return float(y); }))) << t;
    EXPECT_TRUE(same_f(of[t * 6 + 3], rounded(FE_UPWARD, [&] { return float(y); }))) << t;
    volatile int yi = sat<int>(std::trunc(double(y) * 1000.0));
    EXPECT_TRUE(same_f(of[t * 6 + 4], rounded(FE_TOWARDZERO, [&] { return float(yi); }))) << t;
    volatile unsigned long long yu = sat<unsigned long long>(std::trunc(double(y) * 1e15));
    EXPECT_TRUE(same_f(of[t * 6 + 5], rounded(FE_UPWARD, [&] { return float(yu); }))) << t;
    EXPECT_EQ(ol[t * 2 + 0], sat<long long>(std::floor(double(y)))) << t;
    int xi = sat<int>(std::trunc(double(x))), yi2 = sat<int>(std::trunc(double(y)));
    EXPECT_EQ(ol[t * 2 + 1], (long long)(short)xi + (long long)(signed char)yi2) << t;
  }
}

TEST(PtxMath, SetpOrderedAndUnordered) {
  const float nan = NAN;
  std::vector<float> a = {1.0f, 2.0f, 2.0f, nan, 1.0f, nan, -0.0f, INFINITY, -INFINITY, 3.0f};
  std::vector<float> b = {2.0f, 1.0f, 2.0f, 1.0f, nan, nan, 0.0f, INFINITY, 1.0f, -3.0f};
  const int n = int(a.size());
  Launch L(math(), "cmps", Dim3(1), Dim3(n));
  uint64_t da = L.buf(a), dbb = L.buf(b), d_o = L.zeros(n * 4);
  L.arg(da).arg(dbb).arg(d_o);
  L.run();
  auto o = L.get<unsigned>(d_o, n);
  for (int t = 0; t < n; ++t) {
    volatile float x = a[t], y = b[t];
    unsigned r = 0;
    r |= unsigned(x < y) << 0;
    r |= unsigned(x <= y) << 1;
    r |= unsigned(x > y) << 2;
    r |= unsigned(x >= y) << 3;
    r |= unsigned(x == y) << 4;
    r |= unsigned(x != y) << 5;
    r |= unsigned(!(x < y)) << 6;
    r |= unsigned(!(x >= y)) << 7;
    r |= unsigned(!(x == y)) << 8;
    r |= unsigned(!(x != y)) << 9;
    r |= unsigned(std::isnan(float(x))) << 10;
    r |= unsigned(std::isinf(float(y))) << 11;
    r |= unsigned(!(x > y) && !(x < y)) << 12;
    EXPECT_EQ(o[t], r) << "t=" << t << " x=" << x << " y=" << y;
  }
}

TEST(PtxMath, CarryChains) {
  const int n = 8;
  std::vector<unsigned> a(n * 4), b(n * 4);
  for (int i = 0; i < n * 4; ++i) {
    a[i] = (i % 3 == 0) ? 0xffffffffu : 0x9E3779B9u * unsigned(i + 1);
    b[i] = (i % 4 == 1) ? 0xffffffffu : 0x85EBCA6Bu * unsigned(i + 7);
  }
  a[0] = a[1] = a[2] = a[3] = 0xffffffffu; // full carry propagation
  b[0] = 1;
  b[1] = b[2] = b[3] = 0;
  Launch L(math(), "carry", Dim3(1), Dim3(n));
  uint64_t da = L.buf(a), dbb = L.buf(b), d_o = L.zeros(n * 40);
  L.arg(da).arg(dbb).arg(d_o);
  L.run();
  auto o = L.get<unsigned>(d_o, n * 10);
  for (int t = 0; t < n; ++t) {
    unsigned __int128 x = 0, y = 0;
    for (int k = 3; k >= 0; --k) {
      x = (x << 32) | a[t * 4 + k];
      y = (y << 32) | b[t * 4 + k];
    }
    unsigned __int128 s = x + y, d = x - y;
    for (int k = 0; k < 4; ++k) {
      EXPECT_EQ(o[t * 10 + k], unsigned(s >> (32 * k))) << t << " add word " << k;
      EXPECT_EQ(o[t * 10 + 4 + k], unsigned(d >> (32 * k))) << t << " sub word " << k;
    }
    unsigned long long p = (unsigned long long)a[t * 4] * b[t * 4];
    unsigned long long lo = (unsigned long long)unsigned(p) + a[t * 4 + 1];
    unsigned m1 = unsigned(p >> 32) + b[t * 4 + 1] + unsigned(lo >> 32);
    EXPECT_EQ(o[t * 10 + 8], unsigned(lo)) << t;
    EXPECT_EQ(o[t * 10 + 9], m1) << t;
  }
}

// The carry flag after a subtraction is the carry of a + ~b + 1 (1: no borrow), as the hardware
// sets it, and subc computes a + ~b + CF: a sub.cc chain read by addc (nvcc's 128-bit division
// tests its remainder's sign so) gives 1 when nothing was borrowed, a subc after add.cc
// subtracts one less when the add carried. A sub chain read by subc is a - b - borrow either way.
TEST(PtxMath, CarryFlagOfSubtractionIsNotBorrow) {
  const std::string text = R"(.version 8.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 in, .param .u64 out)
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 16;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.v4.u32 {%r2, %r3, %r4, %r5}, [%rd4];
  sub.cc.u32 %r6, %r2, %r4;
  subc.cc.u32 %r6, %r3, %r5;
  addc.u32 %r7, 0, 0;
  add.cc.u32 %r6, %r2, %r4;
  subc.u32 %r8, %r3, %r5;
  sub.cc.u32 %r6, %r2, %r4;
  subc.cc.u32 %r6, %r3, %r5;
  subc.u32 %r9, 0, 0;
  cvt.u64.u32 %rd5, %r2;
  cvt.u64.u32 %rd6, %r4;
  sub.cc.u64 %rd7, %rd5, %rd6;
  addc.u64 %rd8, 0, 0;
  mul.wide.u32 %rd9, %r1, 24;
  add.s64 %rd10, %rd2, %rd9;
  st.global.v2.u32 [%rd10], {%r7, %r8};
  st.global.u32 [%rd10+8], %r9;
  st.global.u64 [%rd10+16], %rd8;
  ret;
}
)";
  const Module m = parse_ptx(text, "t.ptx");
  ASSERT_TRUE(m.refused.empty()) << m.refused.begin()->second;
  // (lo, hi) of two 64-bit values x = (a0, a1), y = (b0, b1): equal, x > y, x < y, and words
  // that carry or borrow alone.
  const std::vector<uint32_t> in = {5,           7, 5, 7,           9, 7,           5, 7, 5, 7, 9,
                                    7,           0, 1, 1,           0, 0xffffffffu, 3, 1, 3, 2, 0,
                                    0xffffffffu, 0, 1, 0xffffffffu, 0, 0xffffffffu, 0, 0, 1, 0};
  const unsigned n = unsigned(in.size() / 4);
  Launch L(m, "k", {1, 1, 1}, {n, 1, 1});
  const uint64_t di = L.buf(in), d_o = L.zeros(n * 24);
  L.arg(di).arg(d_o);
  L.run();
  const auto o = L.get<uint32_t>(d_o, n * 6);
  for (unsigned t = 0; t < n; ++t) {
    const uint32_t a0 = in[4 * t], a1 = in[4 * t + 1], b0 = in[4 * t + 2], b1 = in[4 * t + 3];
    const uint64_t x = uint64_t(a1) << 32 | a0, y = uint64_t(b1) << 32 | b0;
    const uint32_t add_carry = (uint64_t(a0) + b0) >> 32;
    EXPECT_EQ(o[6 * t], x >= y ? 1u : 0u) << t << ": addc after a sub.cc chain";
    EXPECT_EQ(o[6 * t + 1], a1 - b1 - 1 + add_carry) << t << ": subc after add.cc";
    EXPECT_EQ(o[6 * t + 2], x < y ? 0xffffffffu : 0u) << t << ": subc after a sub.cc chain";
    EXPECT_EQ(o[6 * t + 4], a0 >= b0 ? 1u : 0u) << t << ": addc.u64 after sub.cc.u64";
  }
}

// The carry flag read by the other kind of instruction (ptx_math.cu carry_mixed): after a
// subtraction it is the carry of a + ~b + 1, 1 when nothing was borrowed (an addc reads it so
// and a subc borrows its complement), as nvcc's 128-bit division relies on. Before, it held the
// borrow: the addc read the opposite and every 128-bit quotient by a constant was wrong.
TEST(PtxMath, CarryBetweenAdditionAndSubtraction) {
  const int n = 8;
  const std::vector<unsigned> a = {5, 3, 0, 0xffffffffu, 7, 0x80000000u, 1, 123456789u};
  const std::vector<unsigned> b = {3, 5, 0, 1, 7, 0x80000001u, 0xffffffffu, 987654321u};
  Launch L(math(), "carry_mixed", Dim3(1), Dim3(n));
  uint64_t da = L.buf(a), dbb = L.buf(b), d_o = L.zeros(n * 20), dq = L.zeros(n * 16);
  L.arg(da).arg(dbb).arg(d_o).arg(dq);
  L.run();
  auto o = L.get<unsigned>(d_o, n * 5);
  auto q = L.get<unsigned long long>(dq, n * 2);
  for (int t = 0; t < n; ++t) {
    const unsigned x = a[t], y = b[t];
    const unsigned long long wide =
        ((unsigned long long)x << 32 | x) - ((unsigned long long)y << 32 | y);
    EXPECT_EQ(o[t * 5 + 0], unsigned(wide)) << t;
    EXPECT_EQ(o[t * 5 + 1], unsigned(wide >> 32)) << t;
    EXPECT_EQ(o[t * 5 + 2], x >= y ? 1u : 0u) << t << ": addc after the subtractions";
    const bool carry = (unsigned long long)x + y > 0xffffffffu;
    EXPECT_EQ(o[t * 5 + 3], x + y) << t;
    EXPECT_EQ(o[t * 5 + 4], x - y - (carry ? 0u : 1u)) << t << ": subc after an add";
    unsigned __int128 v = ((unsigned __int128)x << 96) | ((unsigned __int128)y << 40) | (x ^ y);
    v /= 1000003u;
    EXPECT_EQ(q[t * 2], (unsigned long long)v) << t << ": 128-bit quotient";
    EXPECT_EQ(q[t * 2 + 1], (unsigned long long)(v >> 64)) << t;
  }
}

TEST(PtxMath, BitFieldOps) {
  const int n = 32;
  std::vector<unsigned> a(n), b(n);
  for (int i = 0; i < n; ++i) {
    a[i] = 0xF0E1D2C3u * unsigned(i + 1) ^ (i & 1 ? 0x80000000u : 0);
    b[i] = unsigned(i * 7) | (unsigned(i * 5 % 40) << 8);
  }
  a[0] = 0;
  b[3] = 0xff00 | 250; // pos beyond msb
  b[4] = 0x0000 | 5;   // len 0
  Launch L(math(), "bitfield", Dim3(1), Dim3(n));
  uint64_t da = L.buf(a), dbb = L.buf(b), d_o = L.zeros(n * 20);
  L.arg(da).arg(dbb).arg(d_o);
  L.run();
  auto o = L.get<unsigned>(d_o, n * 5);
  for (int t = 0; t < n; ++t) {
    unsigned x = a[t], y = b[t];
    unsigned pos = y & 0xff, len = (y >> 8) & 0xff;
    auto bfe = [&](bool sgn) {
      unsigned sbit = (sgn && len) ? (x >> std::min(pos + len - 1, 31u)) & 1 : 0;
      unsigned d = 0;
      for (unsigned i = 0; i < 32; ++i) {
        unsigned bit = (i < len && pos + i <= 31) ? (x >> (pos + i)) & 1 : sbit;
        d |= bit << i;
      }
      return d;
    };
    EXPECT_EQ(o[t * 5 + 0], bfe(false)) << t;
    EXPECT_EQ(o[t * 5 + 1], bfe(true)) << t;
    unsigned ipos = y & 0x3f, ilen = (y >> 8) & 0x3f, f = x;
    for (unsigned i = 0; i < ilen && ipos + i <= 31; ++i)
      f = (f & ~(1u << (ipos + i))) | (((y >> i) & 1) << (ipos + i));
    EXPECT_EQ(o[t * 5 + 2], f) << t;
    unsigned long long v = x | ((unsigned long long)y << 32);
    unsigned c = y & 3, pr = 0;
    for (unsigned i = 0; i < 4; ++i) pr |= unsigned((v >> (8 * ((c + i) & 7))) & 0xff) << (8 * i);
    EXPECT_EQ(o[t * 5 + 3], pr) << t;
    EXPECT_EQ(o[t * 5 + 4], x ? 31u - unsigned(__builtin_clz(x)) : 0xffffffffu) << t;
  }
}
