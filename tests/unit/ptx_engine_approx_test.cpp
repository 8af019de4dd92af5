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
