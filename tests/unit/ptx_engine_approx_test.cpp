// The f32 division forms against the ISA: div.approx is a * (1/b) with 1/b flushed, so a
// divisor in (2^126, 2^128) gives 0 (NaN for an infinite dividend), as CUDA's __fdividef
// documents; div.full scales its operands and keeps the quotient; div.rn rounds it once.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "gpurf/modules/frontend/ptx/parser.h"
#include "tests/unit/ptx_test_util.h"

using namespace gpurf::ptx;
using ptxtest::Launch;

namespace {

uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

} // namespace

TEST(PtxEngineApprox, DivApproxIsZeroForHugeDivisors) {
  const std::string text = R"(.version 8.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 po)
{
  .reg .b32 %r<2>;
  .reg .f32 %f<8>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [pa];
  ld.param.u64 %rd2, [pb];
  ld.param.u64 %rd3, [po];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd5, %rd1, %rd4;
  add.s64 %rd6, %rd2, %rd4;
  ld.global.f32 %f1, [%rd5];
  ld.global.f32 %f2, [%rd6];
  div.approx.f32 %f3, %f1, %f2;
  div.approx.ftz.f32 %f4, %f1, %f2;
  div.full.f32 %f5, %f1, %f2;
  div.rn.f32 %f6, %f1, %f2;
  mul.wide.u32 %rd7, %r1, 16;
  add.s64 %rd8, %rd3, %rd7;
  st.global.v4.f32 [%rd8], {%f3, %f4, %f5, %f6};
  ret;
}
)";
  const Module m = parse_ptx(text, "div.ptx");
  ASSERT_TRUE(m.refused.empty()) << m.refused.begin()->second;
  const float big = std::ldexp(1.0f, 127), inf = INFINITY;
  std::vector<float> a = {3.0f, -3.0f, inf, 1.0f, 6.0f, 1e30f, 3.0f, 5.0f};
  std::vector<float> b = {big, big, -big, std::ldexp(1.0f, 126), 3.0f, 3e38f, inf, -big};
  Launch L(m, "k", {1, 1, 1}, {8, 1, 1});
  const uint64_t A = L.buf(a), B = L.buf(b), O = L.zeros(8 * 16);
  L.arg(A).arg(B).arg(O);
  L.run();
  const auto out = L.get<uint32_t>(O, 8 * 4);
  auto approx = [&](unsigned l, unsigned k) { return out[l * 4 + k]; };
  for (unsigned k = 0; k < 2; ++k) { // .approx, .approx.ftz
    EXPECT_EQ(approx(0, k), bits(0.0f)) << k;
    EXPECT_EQ(approx(1, k), bits(-0.0f)) << k;
    EXPECT_EQ(approx(2, k), 0x7fffffffu) << k;                  // inf * 0
    EXPECT_EQ(approx(3, k), bits(std::ldexp(1.0f, -126))) << k; // 2^126: 1/b still normal
    EXPECT_EQ(approx(4, k), bits(2.0f)) << k;
    EXPECT_EQ(approx(5, k), bits(0.0f)) << k; // 3e38 > 2^126, where 1e30 / 3e38 is normal
    EXPECT_EQ(approx(6, k), bits(0.0f)) << k; // b = inf: 1/b = 0 anyway
    EXPECT_EQ(approx(7, k), bits(-0.0f)) << k;
  }
  // div.full and div.rn: the quotient (3 * 2^-127 a subnormal, kept).
  EXPECT_EQ(out[0 * 4 + 2], bits(3.0f / big));
  EXPECT_EQ(out[0 * 4 + 3], bits(3.0f / big));
  EXPECT_EQ(out[5 * 4 + 2], bits(1e30f / 3e38f));
  EXPECT_EQ(out[2 * 4 + 3], bits(-inf));
}

// The approximate f32 forms keep subnormal inputs and results unless .ftz (the ISA, sm_20+:
// "By default, subnormal numbers are supported"): __expf of -130, __logf of a subnormal
// probability, rsqrtf of a subnormal. (They were flushed without .ftz before: lg2 of 2^-140
// gave -inf, ex2 of -130 gave 0.)
TEST(PtxEngineApprox, SubnormalsStayWithoutFtz) {
  const std::string text = R"(.version 8.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 po)
{
  .reg .f32 %f<24>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [po];
  mov.f32 %f1, 0fC3020000;           // -130
  ex2.approx.f32 %f2, %f1;           // 2^-130
  ex2.approx.ftz.f32 %f3, %f1;       // 0
  mov.f32 %f4, 0f00000200;           // 2^-140
  lg2.approx.f32 %f5, %f4;           // -140
  lg2.approx.ftz.f32 %f6, %f4;       // -inf
  rsqrt.approx.f32 %f7, %f4;         // 2^70
  sqrt.approx.f32 %f8, %f4;          // 2^-70
  mov.f32 %f9, 0f7F000000;           // 2^127
  rcp.approx.f32 %f10, %f9;          // 2^-127
  rcp.approx.ftz.f32 %f11, %f9;      // 0
  sin.approx.f32 %f12, %f4;          // 2^-140
  sin.approx.ftz.f32 %f13, %f4;      // 0
  mov.f32 %f14, 0f40000000;          // 2
  div.approx.f32 %f15, %f4, %f14;    // 2^-141
  div.approx.ftz.f32 %f16, %f4, %f14; // 0
  div.full.f32 %f17, %f4, %f14;      // 2^-141
  st.global.v4.f32 [%rd1], {%f2, %f3, %f5, %f6};
  st.global.v4.f32 [%rd1+16], {%f7, %f8, %f10, %f11};
  st.global.v4.f32 [%rd1+32], {%f12, %f13, %f15, %f16};
  st.global.f32 [%rd1+48], %f17;
  ret;
}
)";
  const Module m = parse_ptx(text, "sub.ptx");
  ASSERT_TRUE(m.refused.empty()) << m.refused.begin()->second;
  Launch L(m, "k", {1, 1, 1}, {1, 1, 1});
  const uint64_t O = L.zeros(64);
  L.arg(O);
  L.run();
  const auto out = L.get<uint32_t>(O, 13);
  EXPECT_EQ(out[0], bits(std::ldexp(1.0f, -130)));
  EXPECT_EQ(out[1], bits(0.0f));
  EXPECT_EQ(out[2], bits(-140.0f));
  EXPECT_EQ(out[3], bits(-INFINITY));
  EXPECT_EQ(out[4], bits(std::ldexp(1.0f, 70)));
  EXPECT_EQ(out[5], bits(std::ldexp(1.0f, -70)));
  EXPECT_EQ(out[6], bits(std::ldexp(1.0f, -127)));
  EXPECT_EQ(out[7], bits(0.0f));
  EXPECT_EQ(out[8], bits(std::ldexp(1.0f, -140)));
  EXPECT_EQ(out[9], bits(0.0f));
  EXPECT_EQ(out[10], bits(std::ldexp(1.0f, -141)));
  EXPECT_EQ(out[11], bits(0.0f));
  EXPECT_EQ(out[12], bits(std::ldexp(1.0f, -141)));
}

// rcp.approx.ftz.f64 and rsqrt.approx.ftz.f64, the seeds of CUDA's double math library: the
// upper word of a in, the upper word of d out, its lower word zero (the ISA's semantics);
// subnormals flushed (+Inf), a NaN the canonical 0x7fffffff00000000. rsqrt.approx.f64 (no
// .ftz) is a full-width approximation.
TEST(PtxEngineApprox, F64SeedsKeepTheUpperWordOnly) {
  const std::string text = R"(.version 8.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 po)
{
  .reg .f64 %fd<12>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [po];
  mov.b64 %fd1, 0x4008000000000001;  // 3 + 1 ulp: its lower word is ignored
  rcp.approx.ftz.f64 %fd2, %fd1;
  mov.b64 %fd3, 0x4010000000000000;  // 4
  rsqrt.approx.ftz.f64 %fd4, %fd3;
  mov.b64 %fd5, 0x0000000000000001;  // the smallest subnormal: flushed
  rsqrt.approx.ftz.f64 %fd6, %fd5;
  mov.b64 %fd7, 0x7ff8000000000123;  // a NaN
  rcp.approx.ftz.f64 %fd8, %fd7;
  mov.b64 %fd9, 0x4008000000000000;  // 3
  rsqrt.approx.f64 %fd10, %fd9;
  rsqrt.approx.ftz.f64 %fd11, %fd9;
  st.global.v2.f64 [%rd1], {%fd2, %fd4};
  st.global.v2.f64 [%rd1+16], {%fd6, %fd8};
  st.global.v2.f64 [%rd1+32], {%fd10, %fd11};
  ret;
}
)";
  const Module m = parse_ptx(text, "seed.ptx");
  ASSERT_TRUE(m.refused.empty()) << m.refused.begin()->second;
  Launch L(m, "k", {1, 1, 1}, {1, 1, 1});
  const uint64_t O = L.zeros(48);
  L.arg(O);
  L.run();
  const auto out = L.get<uint64_t>(O, 6);
  auto bits64 = [](double d) {
    uint64_t u;
    std::memcpy(&u, &d, 8);
    return u;
  };
  EXPECT_EQ(out[0], 0x3fd5555500000000ull); // 1/3 = 0x3fd5555555555555, its upper word
  EXPECT_EQ(out[1], 0x3fe0000000000000ull); // 0.5
  EXPECT_EQ(out[2], 0x7ff0000000000000ull); // +Inf
  EXPECT_EQ(out[3], 0x7fffffff00000000ull);
  EXPECT_EQ(out[4], bits64(1.0 / std::sqrt(3.0)));
  EXPECT_EQ(out[5], bits64(1.0 / std::sqrt(3.0)) & 0xffffffff00000000ull);
}
