// The engine's f16/bf16 instructions on nvcc's own output (tests/unit/ptx_data/ptx_half.cu,
// sm_90: native bf16), each lane against the value worked out with the host's _Float16 (an
// independent implementation of f16 rounding) or by hand, and hand-written PTX for the forms
// nvcc emits rarely (setp.f16x2, min.NaN, cvt.sat/.relu/.satfinite, integer conversions).
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "gpurf/modules/frontend/ptx/half.h"
#include "gpurf/modules/frontend/ptx/parser.h"
#include "tests/unit/ptx_test_util.h"

using namespace gpurf::ptx;
using ptxtest::data_module;
using ptxtest::Launch;

namespace {

const Module& halves() { return data_module("ptx_half.ptx"); }

_Float16 h(uint16_t b) {
  _Float16 x;
  std::memcpy(&x, &b, 2);
  return x;
}
uint16_t b(_Float16 x) {
  uint16_t u;
  std::memcpy(&u, &x, 2);
  return u;
}

} // namespace

TEST(PtxEngineHalf, ScalarF16MatchesTheHost) {
  const int n = 256;
  std::mt19937 rng(3);
  std::vector<uint16_t> a(n), bb(n), c(n);
  for (int i = 0; i < n; ++i) { // finite values of moderate size, some subnormal
    a[i] = b(_Float16(float(int(rng() % 2000) - 1000) / 64));
    bb[i] = b(_Float16(float(int(rng() % 2000) - 1000) / 16));
    c[i] = uint16_t(rng() % 0x0400); // subnormals
  }
  a[0] = b(_Float16(1.0f));
  bb[0] = 0x1000; // 2^-11: 1 + 2^-11 is a tie
  Launch L(halves(), "half_ops", {2, 1, 1}, {128, 1, 1});
  const uint64_t A = L.buf(a), B = L.buf(bb), C = L.buf(c), O = L.zeros(n * 12), F = L.zeros(n * 4);
  L.arg(A).arg(B).arg(C).arg(O).arg(F).arg(n);
  L.run();
  const auto out = L.get<uint16_t>(O, n * 6);
  const auto fout = L.get<float>(F, n);
  EXPECT_EQ(out[0], 0x3c00); // the tie to even
  for (int i = 0; i < n; ++i) {
    const _Float16 x = h(a[i]), y = h(bb[i]), z = h(c[i]);
    EXPECT_EQ(out[i * 6 + 0], b(x + y)) << i;
    EXPECT_EQ(out[i * 6 + 1], b(x * y)) << i;
    // fma: the exact value rounded once (the product is exact in float, the sum in double).
    EXPECT_EQ(out[i * 6 + 2], b(_Float16(double(float(x) * float(y)) + double(z)))) << i;
    EXPECT_EQ(out[i * 6 + 3], uint16_t(a[i] ^ 0x8000)) << i;
    EXPECT_EQ(out[i * 6 + 4], b(x > y ? x : y)) << i;
    // cvt.rz.f16.f32 of 3a: truncation of the f32 value (exact: 3a has at most 13 bits).
    const float t = float(x) * 3.0f;
    _Float16 rz = _Float16(t);
    if (std::fabs(float(rz)) > std::fabs(t)) rz = h(uint16_t(b(rz) - 1));
    EXPECT_EQ(out[i * 6 + 5], b(rz)) << i << " " << t;
    EXPECT_EQ(fout[i], float(x) + (x < y ? 1000.0f : 0.0f)) << i;
  }
}

TEST(PtxEngineHalf, PairsKeepTheirHalvesApart) {
  const int n = 64;
  std::vector<uint32_t> a(n), bb(n);
  for (int i = 0; i < n; ++i) {
    a[i] = uint32_t(b(_Float16(float(i) / 4))) | uint32_t(b(_Float16(-float(i)))) << 16;
    bb[i] = uint32_t(b(_Float16(0.5f))) | uint32_t(b(_Float16(float(i) / 8))) << 16;
  }
  Launch L(halves(), "half2_ops", {1, 1, 1}, {64, 1, 1});
  const uint64_t A = L.buf(a), B = L.buf(bb), O = L.zeros(n * 12);
  L.arg(A).arg(B).arg(O).arg(n);
  L.run();
  const auto out = L.get<uint32_t>(O, n * 3);
  for (int i = 0; i < n; ++i) {
    const _Float16 xl = h(uint16_t(a[i])), xh = h(uint16_t(a[i] >> 16));
    const _Float16 yl = h(uint16_t(bb[i])), yh = h(uint16_t(bb[i] >> 16));
    EXPECT_EQ(out[i * 3 + 0], uint32_t(b(xl + yl)) | uint32_t(b(xh + yh)) << 16) << i;
    EXPECT_EQ(out[i * 3 + 1], uint32_t(b(_Float16(float(xl) * float(yl) + float(xl)))) |
                                  uint32_t(b(_Float16(float(xh) * float(yh) + float(xh)))) << 16)
        << i;
    // __floats2half2_rn(lo, hi): cvt.rn.f16x2.f32 d, hi, lo puts its first source high.
    EXPECT_EQ(out[i * 3 + 2], uint32_t(b(xl)) | uint32_t(b(_Float16(2.5f))) << 16) << i;
  }
}

TEST(PtxEngineHalf, Bf16IsTheF32TopHalfRounded) {
  const int n = 128;
  std::mt19937 rng(5);
  std::vector<uint16_t> a(n), bb(n);
  for (int i = 0; i < n; ++i) {
    a[i] = uint16_t(0x3c00 + rng() % 0x0800); // about 2^-7 .. 2^9
    bb[i] = uint16_t(0xbc00 + rng() % 0x0800);
  }
  auto f = [](uint16_t x) {
    const uint32_t u = uint32_t(x) << 16;
    float v;
    std::memcpy(&v, &u, 4);
    return v;
  };
  auto rn = [](double v) { // to bf16, round to nearest even, from a double
    return gpurf::ptx::half::round(v, gpurf::ptx::half::kBF16, gpurf::ptx::half::Mode::RN);
  };
  Launch L(halves(), "bf16_ops", {1, 1, 1}, {128, 1, 1});
  const uint64_t A = L.buf(a), B = L.buf(bb), O = L.zeros(n * 6);
  L.arg(A).arg(B).arg(O).arg(n);
  L.run();
  const auto out = L.get<uint16_t>(O, n * 3);
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(out[i * 3 + 0], rn(double(f(a[i])) + f(bb[i]))) << i;
    EXPECT_EQ(out[i * 3 + 1], rn(double(f(a[i])) * f(bb[i]) + f(a[i]))) << i;
    // f32 division first (rounded to f32), then cvt.rn.bf16.f32.
    EXPECT_EQ(out[i * 3 + 2], rn(double(f(a[i]) / 3.0f))) << i;
  }
}

TEST(PtxEngineHalf, HandWrittenForms) {
  // setp.f16x2 writes the low half's comparison to p and the high half's to q; min.NaN; the
  // cvt modifiers; f16 to and from integers.
  const std::string text = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<3>;
  .reg .b16 %rs<8>;
  .reg .b32 %r<12>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [out];
  mov.b32 %r1, 0x40003c00;        // {lo 1.0, hi 2.0}
  mov.b32 %r2, 0x3c003e00;        // {lo 1.5, hi 1.0}
  setp.lt.f16x2 %p1|%p2, %r1, %r2; // lo 1 < 1.5: true; hi 2 < 1: false
  selp.u32 %r3, 1, 0, %p1;
  selp.u32 %r4, 1, 0, %p2;
  mov.b16 %rs1, 0x7e00;            // NaN
  mov.b16 %rs2, 0x3c00;
  min.f16 %rs3, %rs1, %rs2;        // the number
  min.NaN.f16 %rs4, %rs1, %rs2;    // the canonical NaN
  mov.b32 %r5, {%rs3, %rs4};
  mov.f32 %f1, 0f477FFFFF;         // 65535.99: past the f16 range
  cvt.rn.satfinite.f16.f32 %rs5, %f1;
  mov.f32 %f2, 0fC0000000;         // -2
  cvt.rn.relu.f16.f32 %rs6, %f2;
  mov.b32 %r6, {%rs5, %rs6};
  cvt.rn.sat.f16.f32 %rs7, %f1;    // clamped to 1.0
  cvt.rni.s32.f16 %r7, 0x4140;     // 2.625 -> 3
  mov.u32 %r8, -70000;
  cvt.rn.f16.s32 %rs1, %r8;        // -inf: past the range
  mov.b32 %r9, {%rs7, %rs1};
  st.global.v4.u32 [%rd1], {%r3, %r4, %r5, %r6};
  st.global.v2.u32 [%rd1+16], {%r7, %r9};
  ret;
}
)";
  const Module m = parse_ptx(text, "t.ptx");
  ASSERT_TRUE(m.refused.empty()) << m.refused.begin()->second;
  Launch L(m, "k", {1, 1, 1}, {1, 1, 1});
  const uint64_t O = L.zeros(24);
  L.arg(O);
  L.run();
  const auto out = L.get<uint32_t>(O, 6);
  EXPECT_EQ(out[0], 1u);
  EXPECT_EQ(out[1], 0u);
  EXPECT_EQ(out[2], 0x7fff3c00u);
  EXPECT_EQ(out[3], 0x00007bffu); // relu(-2) = +0 high, satfinite max finite low
  EXPECT_EQ(out[4], 3u);
  EXPECT_EQ(out[5], 0xfc003c00u);
}

TEST(PtxEngineHalf, TanhAndEx2OnHalves) {
  // What cuda_fp16.h's htanh_approx/h2tanh_approx (sm_75) and cuda_bf16.h's (sm_90) emit, and
  // the ISA's ex2.approx.f16{x2} / ex2.approx.ftz.bf16{x2}: the value correctly rounded, f16
  // subnormals kept, bf16's flushed (.ftz). (Each was refused before: program nn_infer.)
  const std::string text = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .b16 %rs<12>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [out];
  mov.b16 %rs1, 0x3c00;            // 1.0
  tanh.approx.f16 %rs2, %rs1;      // 0.76159 -> 0x3a18
  mov.b16 %rs3, 0x3f80;            // bf16 1.0
  tanh.approx.bf16 %rs4, %rs3;     // -> 0x3f43 (0.76171875)
  mov.b32 %r1, {%rs2, %rs4};
  mov.b32 %r2, 0x7e000000;         // {lo +0, hi NaN}
  tanh.approx.f16x2 %r3, %r2;
  mov.b32 %r4, 0xbc004200;         // {lo 3.0, hi -1.0}
  ex2.approx.f16x2 %r5, %r4;       // {8.0, 0.5}
  mov.b16 %rs5, 0xcb80;            // -15.0
  ex2.approx.f16 %rs6, %rs5;       // 2^-15: an f16 subnormal, kept
  mov.b16 %rs7, 0x0001;            // a bf16 subnormal: flushed, 2^0
  ex2.approx.ftz.bf16 %rs8, %rs7;
  mov.b32 %r6, {%rs6, %rs8};
  mov.b32 %r7, 0xc0004080;         // bf16 {lo 4.0, hi -2.0}
  ex2.approx.ftz.bf16x2 %r8, %r7;  // {16.0, 0.25}
  tanh.approx.bf16x2 %r9, %r7;     // {tanh 4 = 0.99933 -> 1.0, tanh -2 = -0.96403 -> -0.96484375}
  st.global.v4.u32 [%rd1], {%r1, %r3, %r5, %r6};
  st.global.v2.u32 [%rd1+16], {%r8, %r9};
  ret;
}
)";
  const Module m = parse_ptx(text, "t.ptx");
  ASSERT_TRUE(m.refused.empty()) << m.refused.begin()->second;
  Launch L(m, "k", {1, 1, 1}, {32, 1, 1});
  const uint64_t O = L.zeros(24);
  L.arg(O);
  L.run();
  const auto out = L.get<uint32_t>(O, 6);
  EXPECT_EQ(out[0] & 0xffff, b(_Float16(std::tanh(1.0))));
  EXPECT_EQ(out[0] & 0xffff, 0x3a18u);
  EXPECT_EQ(out[0] >> 16, 0x3f43u);
  EXPECT_EQ(out[1], 0x7fff0000u);
  EXPECT_EQ(out[2], 0x38004800u);
  EXPECT_EQ(out[3], 0x3f800200u);
  EXPECT_EQ(out[4], 0x3e804180u);
  EXPECT_EQ(out[5], 0xbf773f80u);
}

TEST(PtxEngineHalf, UnsupportedHalfFormsAreRefusedByName) {
  // No lg2 on halves in the ISA; bf16's ex2 is only the .ftz form.
  const std::string text = ".version 8.0\n.target sm_90\n.address_size 64\n"
                           ".visible .entry k()\n{\n.reg .b16 %rs<3>;\n"
                           "lg2.approx.f16 %rs1, %rs2;\nret;\n}\n"
                           ".visible .entry j()\n{\n.reg .b16 %rs<3>;\n"
                           "ex2.approx.bf16 %rs1, %rs2;\nret;\n}\n";
  const Module m = parse_ptx(text, "t.ptx");
  ASSERT_EQ(m.refused.count("k"), 1u);
  EXPECT_NE(m.refused.at("k").find("t.ptx:7: unsupported PTX instruction 'lg2.approx.f16'"),
            std::string::npos)
      << m.refused.at("k");
  ASSERT_EQ(m.refused.count("j"), 1u);
  EXPECT_NE(
      m.refused.at("j").find("t.ptx:13: unsupported form 'ex2.approx.bf16' (ex2.approx.f16, "),
      std::string::npos)
      << m.refused.at("j");
}
