// Floating-point corners, each checked bit for bit against the host: denormals, signed zeros,
// NaN and Inf through min/max and arithmetic, rintf/truncf/roundf/nearbyintf, __saturatef,
// the rounding-mode intrinsics (__fadd_rz, __fmul_ru, __fmaf_rd, __dsqrt_rz, __drcp_rz, ...),
// float to int, unsigned, long long and half with each rounding mode (saturating; NaN to 0),
// double to float. (Which zero fminf/fmaxf return for +0 and -0, and which NaN a half
// conversion gives, the hardware does not document: either is accepted.)
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <vector>

#include "check.h"

constexpr int NF = 40; // results per float input
__global__ void fk(const float* x, const float* y, uint32_t* o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float a = x[i], b = y[i];
  uint32_t* r = o + NF * i;
  float f[24] = {fminf(a, b),
                 fmaxf(a, b),
                 rintf(a),
                 truncf(a),
                 roundf(a),
                 floorf(a),
                 ceilf(a),
                 __saturatef(a),
                 a * b,
                 a + b,
                 a - b,
                 fmaf(a, b, -a),
                 __fadd_rz(a, b),
                 __fmul_ru(a, b),
                 __fdiv_rn(a, b),
                 __fsqrt_rn(fabsf(a)),
                 copysignf(a, b),
                 fabsf(a),
                 -a,
                 nearbyintf(a),
                 __fmaf_rd(a, b, b),
                 __frcp_rn(a),
                 fdimf(a, b),
                 __fsub_ru(a, b)};
  for (int k = 0; k < 24; ++k) r[k] = __float_as_uint(f[k]);
  r[24] = __float2int_rn(a);
  r[25] = __float2int_rz(a);
  r[26] = __float2int_ru(a);
  r[27] = __float2int_rd(a);
  r[28] = __float2uint_rn(a);
  r[29] = __float2uint_rz(a);
  long long ll = __float2ll_rd(a);
  r[30] = (uint32_t)ll;
  r[31] = (uint32_t)(ll >> 32);
  r[32] = __half_as_ushort(__float2half_rn(a));
  r[33] = __half_as_ushort(__float2half_rz(a));
  r[34] = __half_as_ushort(__float2half_ru(a));
  r[35] = __half_as_ushort(__float2half_rd(a));
  r[36] = __float_as_uint(__half2float(__float2half_rn(a)));
  r[37] = (isnan(a) ? 1 : 0) | (isinf(a) ? 2 : 0) | (signbit(a) ? 4 : 0) | (isfinite(b) ? 8 : 0) |
          ((a < b) ? 16 : 0) | ((a != b) ? 32 : 0);
  r[38] = __float_as_uint(__int2float_rd(int(__float_as_uint(b)))) ^
          __float_as_uint(__uint2float_ru(__float_as_uint(a)));
  r[39] = __float_as_uint(__ll2float_rz((long long)__float_as_uint(a) << 20));
}
constexpr int ND = 12;
__global__ void dk(const double* x, const double* y, uint64_t* o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double a = x[i], b = y[i];
  uint64_t* r = o + ND * i;
  double d[10] = {__dsqrt_rn(fabs(a)), __dsqrt_rz(fabs(a)), __drcp_rz(a),    __drcp_rn(a),
                  __ddiv_ru(a, b),     __dmul_rd(a, b),     __dadd_rz(a, b), fmin(a, b),
                  fmax(a, b),          __fma_rz(a, b, a)};
  for (int k = 0; k < 10; ++k) r[k] = __double_as_longlong(d[k]);
  r[10] = __float_as_uint(__double2float_rz(a)) | (uint64_t)__float_as_uint(__double2float_ru(b))
                                                      << 32;
  r[11] = (uint64_t)__double2ll_rn(a * 1e3) ^ ((uint64_t)(uint32_t)__double2int_rd(b) << 1);
}

static uint32_t fbits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
static uint64_t dbits(double d) {
  uint64_t u;
  memcpy(&u, &d, 8);
  return u;
}
static float fw(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}
template <class F> static float rnd(int mode, F f) {
  std::fesetround(mode);
  volatile float r = f();
  std::fesetround(FE_TONEAREST);
  return r;
}
template <class F> static double rndd(int mode, F f) {
  std::fesetround(mode);
  volatile double r = f();
  std::fesetround(FE_TONEAREST);
  return r;
}
static bool same(uint32_t a, uint32_t b) {
  return a == b || (std::isnan(fw(a)) && std::isnan(fw(b)));
}
static bool samed(uint64_t a, uint64_t b) {
  double x, y;
  memcpy(&x, &a, 8);
  memcpy(&y, &b, 8);
  return a == b || (std::isnan(x) && std::isnan(y));
}
static int32_t f2i(float a, int mode) {
  if (std::isnan(a)) return 0;
  double r = mode == 0   ? std::nearbyint(a)
             : mode == 1 ? std::trunc(a)
             : mode == 2 ? std::ceil(a)
                         : std::floor(a);
  if (r >= 2147483647.0) return INT32_MAX;
  if (r <= -2147483648.0) return INT32_MIN;
  return int32_t(r);
}
static uint32_t f2u(float a, int mode) {
  if (std::isnan(a)) return 0;
  double r = mode == 0 ? std::nearbyint(a) : std::trunc(a);
  if (r >= 4294967295.0) return UINT32_MAX;
  if (r <= 0) return 0;
  return uint32_t(r);
}
static uint16_t f2h(float a, int mode) {
  std::fesetround(mode);
  volatile _Float16 h = (_Float16)a;
  std::fesetround(FE_TONEAREST);
  uint16_t u;
  memcpy(&u, (const void*)&h, 2);
  return u;
}

int main() {
  std::vector<float> vals = {0.f,           -0.f,
                             1.f,           -1.f,
                             0.5f,          -0.5f,
                             1.5f,          2.5f,
                             -2.5f,         3.49999f,
                             -3.5f,         1e-45f,
                             -1e-45f,       1.17549435e-38f,
                             5.877472e-39f, -5.877472e-39f,
                             INFINITY,      -INFINITY,
                             NAN,           -NAN,
                             3.4028235e38f, -3.4028235e38f,
                             65504.f,       65520.f,
                             65519.99f,     6.1e-5f,
                             5.96e-8f,      2.98e-8f,
                             1e-8f,         0.1f,
                             -0.1f,         2147483520.f,
                             2147483648.f,  -2147483648.f,
                             4294967040.f,  4294967296.f,
                             -0.75f,        1.0000001f,
                             8388607.5f,    16777217.f,
                             0.33333334f,   123456.789f,
                             -7.25e-20f};
  int nv = int(vals.size());
  std::vector<float> xs, ys;
  for (int i = 0; i < nv; ++i)
    for (int j = 0; j < nv; j += 3) {
      xs.push_back(vals[i]);
      ys.push_back(vals[(j + i) % nv]);
    }
  while (xs.size() % 64) {
    xs.push_back(1.f);
    ys.push_back(2.f);
  }
  int n = int(xs.size());
  float *dx, *dy;
  uint32_t* dout;
  CHECK(cudaMalloc(&dx, n * 4));
  CHECK(cudaMalloc(&dy, n * 4));
  CHECK(cudaMalloc(&dout, n * NF * 4));
  CHECK(cudaMemcpy(dx, xs.data(), n * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dy, ys.data(), n * 4, cudaMemcpyHostToDevice));
  fk<<<n / 16, 16>>>(dx, dy, dout, n); // 16-thread CTAs: more of them
  std::vector<uint32_t> out(n * NF);
  CHECK(cudaMemcpy(out.data(), dout, n * NF * 4, cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    float a = xs[i], b = ys[i];
    float f[24] = {fminf(a, b),
                   fmaxf(a, b),
                   rintf(a),
                   truncf(a),
                   roundf(a),
                   floorf(a),
                   ceilf(a),
                   std::isnan(a) ? 0.f : fminf(fmaxf(a, 0.f), 1.f),
                   a * b,
                   a + b,
                   a - b,
                   fmaf(a, b, -a),
                   rnd(FE_TOWARDZERO, [&] { return a + b; }),
                   rnd(FE_UPWARD, [&] { return a * b; }),
                   a / b,
                   sqrtf(fabsf(a)),
                   copysignf(a, b),
                   fabsf(a),
                   -a,
                   nearbyintf(a),
                   rnd(FE_DOWNWARD, [&] { return fmaf(a, b, b); }),
                   1.f / a,
                   fdimf(a, b),
                   rnd(FE_UPWARD, [&] { return a - b; })};
    uint32_t w[NF];
    for (int k = 0; k < 24; ++k) w[k] = fbits(f[k]);
    // The device flushes nothing here (no -ftz), so host float arithmetic matches bit for bit.
    w[24] = f2i(a, 0);
    w[25] = f2i(a, 1);
    w[26] = f2i(a, 2);
    w[27] = f2i(a, 3);
    w[28] = f2u(a, 0);
    w[29] = f2u(a, 1);
    double fl = std::floor((double)a);
    long long ll = std::isnan(a)                  ? (long long)0x8000000000000000ull
                   : fl >= 9.2233720368547758e18  ? INT64_MAX
                   : fl <= -9.2233720368547758e18 ? INT64_MIN
                                                  : (long long)fl;
    w[30] = (uint32_t)ll;
    w[31] = (uint32_t)((unsigned long long)ll >> 32);
    w[32] = f2h(a, FE_TONEAREST);
    w[33] = f2h(a, FE_TOWARDZERO);
    w[34] = f2h(a, FE_UPWARD);
    w[35] = f2h(a, FE_DOWNWARD);
    _Float16 h;
    uint16_t hb = f2h(a, FE_TONEAREST);
    memcpy(&h, &hb, 2);
    w[36] = fbits((float)h);
    w[37] = (std::isnan(a) ? 1 : 0) | (std::isinf(a) ? 2 : 0) | (std::signbit(a) ? 4 : 0) |
            (std::isfinite(b) ? 8 : 0) | ((a < b) ? 16 : 0) | ((a != b) ? 32 : 0);
    w[38] = fbits(rnd(FE_DOWNWARD, [&] { return (float)(int)fbits(b); })) ^
            fbits(rnd(FE_UPWARD, [&] { return (float)fbits(a); }));
    w[39] = fbits(rnd(FE_TOWARDZERO, [&] { return (float)((long long)fbits(a) << 20); }));
    for (int k = 0; k < NF; ++k) {
      uint32_t g = out[NF * i + k];
      bool ok = (k < 24 || k == 36 || k == 39) ? same(g, w[k]) : g == w[k];
      if (k == 30 || k == 31) ok = ok || std::isnan(a); // NaN -> ll: CUDA gives 0x8000000000000000
      if (k >= 32 && k <= 35 && std::isnan(a))
        ok = (g & 0x7c00) == 0x7c00 && (g & 0x3ff);    // any half NaN
      if (k <= 1 && a == 0 && b == 0) ok = fw(g) == 0; // min/max of zeros: either sign
      if (!ok && bad++ < 20)
        printf("f[%d] k=%d a=%g (%08x) b=%g (%08x): got %08x want %08x\n", i, k, a, fbits(a), b,
               fbits(b), g, w[k]);
    }
  }
  // Doubles.
  std::vector<double> dv = {0.0,
                            -0.0,
                            1.0,
                            -1.0,
                            2.0,
                            3.0,
                            0.1,
                            -0.7,
                            1e-310,
                            -4.9e-324,
                            2.2250738585072014e-308,
                            1.7976931348623157e308,
                            INFINITY,
                            -INFINITY,
                            NAN,
                            1e300,
                            1e-300,
                            123456789.123,
                            2.5,
                            -2.5,
                            4503599627370497.0,
                            0.3333333333333333,
                            7.0,
                            1.0000000000000002};
  std::vector<double> dx_, dy_;
  for (size_t i = 0; i < dv.size(); ++i)
    for (size_t j = 0; j < dv.size(); ++j) {
      dx_.push_back(dv[i]);
      dy_.push_back(dv[j]);
    }
  while (dx_.size() % 64) {
    dx_.push_back(1.0);
    dy_.push_back(3.0);
  }
  int m = int(dx_.size());
  double *ddx, *ddy;
  uint64_t* ddo;
  CHECK(cudaMalloc(&ddx, m * 8));
  CHECK(cudaMalloc(&ddy, m * 8));
  CHECK(cudaMalloc(&ddo, m * ND * 8));
  CHECK(cudaMemcpy(ddx, dx_.data(), m * 8, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(ddy, dy_.data(), m * 8, cudaMemcpyHostToDevice));
  dk<<<m / 16, 16>>>(ddx, ddy, ddo, m);
  std::vector<uint64_t> dout_(m * ND);
  CHECK(cudaMemcpy(dout_.data(), ddo, m * ND * 8, cudaMemcpyDeviceToHost));
  for (int i = 0; i < m; ++i) {
    double a = dx_[i], b = dy_[i];
    double d[10] = {std::sqrt(std::fabs(a)),
                    rndd(FE_TOWARDZERO, [&] { return std::sqrt(std::fabs(a)); }),
                    rndd(FE_TOWARDZERO, [&] { return 1.0 / a; }),
                    1.0 / a,
                    rndd(FE_UPWARD, [&] { return a / b; }),
                    rndd(FE_DOWNWARD, [&] { return a * b; }),
                    rndd(FE_TOWARDZERO, [&] { return a + b; }),
                    fmin(a, b),
                    fmax(a, b),
                    rndd(FE_TOWARDZERO, [&] { return std::fma(a, b, a); })};
    for (int k = 0; k < 10; ++k)
      if (!samed(dout_[ND * i + k], dbits(d[k])) &&
          !((k == 7 || k == 8) && a == 0 && b == 0 && (dout_[ND * i + k] << 1) == 0) &&
          !samed(dout_[ND * i + k], dbits(d[k])) && bad++ < 30)
        printf("d[%d] k=%d a=%g b=%g: got %016llx want %016llx\n", i, k, a, b,
               (unsigned long long)dout_[ND * i + k], (unsigned long long)dbits(d[k]));
    float lo = rnd(FE_TOWARDZERO, [&] { return (float)a; }),
          hi = rnd(FE_UPWARD, [&] { return (float)b; });
    uint64_t w10 = fbits(lo) | (uint64_t)fbits(hi) << 32;
    uint64_t g10 = dout_[ND * i + 10];
    bool ok10 = g10 == w10 || ((std::isnan(a) || std::isnan(b)) &&
                               std::isnan(fw(uint32_t(g10))) == std::isnan(lo) &&
                               std::isnan(fw(uint32_t(g10 >> 32))) == std::isnan(hi));
    if (!ok10 && bad++ < 30)
      printf("d2f[%d] a=%g b=%g: got %016llx want %016llx\n", i, a, b, (unsigned long long)g10,
             (unsigned long long)w10);
  }
  return finish(bad);
}
