// set (PTX ISA: "set", and the half-precision "set" nvcc emits for __hlt2, __hlt2_mask,
// __hgeu2 and, on sm_75, bf16 comparisons): every expected value worked out by hand from the
// ISA's text (an integer dtype is all ones or 0; .f32 1.0f or 0.0f; .f16/.bf16 1.0 or 0.0; an
// .f16x2 stype compares each half, a .u32 dtype then getting 0xffff per true half).
#include <gtest/gtest.h>

#include "gpurf/modules/frontend/ptx/parser.h"
#include "tests/unit/ptx_test_util.h"

using namespace gpurf::ptx;

TEST(PtxSet, EveryDestinationAndSourceKindByHand) {
  const std::string ptx = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
.reg .b32 %r<40>;
.reg .b16 %h<4>;
.reg .b64 %rd<4>;
.reg .pred %p<4>;
ld.param.u64 %rd1, [out];
setp.ne.u32 %p1, 0, 0;
setp.eq.u32 %p2, 0, 0;
mov.b32 %r1, 0x40003C00;
mov.b32 %r2, 0x3C004000;
set.lt.f16x2.f16x2 %r10, %r1, %r2;
set.lt.u32.f16x2 %r11, %r1, %r2;
mov.b32 %r3, 0x3C007E00;
mov.b32 %r4, 0x40000000;
set.geu.f16x2.f16x2 %r12, %r3, %r4;
set.ge.f16x2.f16x2 %r13, %r3, %r4;
set.lt.f32.f32 %r14, 0f3F800000, 0f40000000;
set.gt.u32.s32 %r15, -1, 0;
set.hi.u32.u32 %r16, -1, 0;
set.lt.and.u32.f32 %r17, 0f3F800000, 0f40000000, %p1;
set.lt.or.s32.f32 %r18, 0f40000000, 0f3F800000, %p2;
mov.b32 %r5, 0x3F804000;
mov.b32 %r6, 0x40003F80;
set.lt.bf16x2.bf16x2 %r19, %r5, %r6;
set.lt.xor.f32.f32 %r20, 0f3F800000, 0f40000000, !%p1;
set.eq.f16.f32 %h1, 0f3F800000, 0f3F800000;
set.ne.s32.f64 %r21, 0d3FF0000000000000, 0d3FF0000000000000;
set.lt.u16.f16 %h2, %h1, %h1;
st.global.b32 [%rd1], %r10;
st.global.b32 [%rd1+4], %r11;
st.global.b32 [%rd1+8], %r12;
st.global.b32 [%rd1+12], %r13;
st.global.b32 [%rd1+16], %r14;
st.global.b32 [%rd1+20], %r15;
st.global.b32 [%rd1+24], %r16;
st.global.b32 [%rd1+28], %r17;
st.global.b32 [%rd1+32], %r18;
st.global.b32 [%rd1+36], %r19;
st.global.b32 [%rd1+40], %r20;
st.global.b16 [%rd1+44], %h1;
st.global.b16 [%rd1+46], %h2;
st.global.b32 [%rd1+48], %r21;
ret;
}
)";
  const Module m = parse_ptx(ptx, "set.ptx");
  ASSERT_TRUE(m.refused.empty()) << m.refused.begin()->second;
  ptxtest::Launch L(m, "k", {1, 1, 1}, {1, 1, 1});
  const uint64_t o = L.zeros(52);
  L.arg(o);
  L.run();
  const std::vector<uint32_t> r = L.get<uint32_t>(o, 12);
  EXPECT_EQ(r[0], 0x00003c00u);  // lo 1 < 2: 1.0; hi 2 < 1: 0.0
  EXPECT_EQ(r[1], 0x0000ffffu);  // the same as a .u32 mask per half
  EXPECT_EQ(r[2], 0x00003c00u);  // geu: lo NaN >= 0 unordered: true; hi 1 >= 2: false
  EXPECT_EQ(r[3], 0x00000000u);  // ge: an ordered comparison with NaN is false
  EXPECT_EQ(r[4], 0x3f800000u);  // 1 < 2 as .f32: 1.0f
  EXPECT_EQ(r[5], 0x00000000u);  // -1 > 0 signed: false
  EXPECT_EQ(r[6], 0xffffffffu);  // 0xffffffff > 0 unsigned: true
  EXPECT_EQ(r[7], 0x00000000u);  // true and false
  EXPECT_EQ(r[8], 0xffffffffu);  // false or true
  EXPECT_EQ(r[9], 0x3f800000u);  // bf16x2: lo 2 < 1 false; hi 1 < 2 true: 0x3f80 in the high half
  EXPECT_EQ(r[10], 0x00000000u); // true xor !false
  const std::vector<uint16_t> h = L.get<uint16_t>(o + 44, 2);
  EXPECT_EQ(h[0], 0x3c00u);                     // .f16 dtype from .f32 sources: 1.0
  EXPECT_EQ(h[1], 0x0000u);                     // .u16 from .f16: 1 < 1 is false
  EXPECT_EQ(L.get<uint32_t>(o + 48, 1)[0], 0u); // .s32 from .f64: 1 != 1 is false
}

// Forms the ISA does not have are refused per kernel, naming the forms.
TEST(PtxSet, FormsOutsideTheIsaAreRefused) {
  auto refused = [](const std::string& instr) {
    const std::string ptx = ".version 8.0\n.target sm_80\n.address_size 64\n"
                            ".visible .entry k()\n{\n.reg .b32 %r<4>;\n.reg .b16 %h<4>;\n" +
                            instr + "\nret;\n}\n";
    const Module m = parse_ptx(ptx, "bad.ptx");
    return m.refused.count("k") ? m.refused.at("k") : std::string();
  };
  EXPECT_NE(refused("set.lt.u16.f32 %h1, %r1, %r2;").find("set.CmpOp"), std::string::npos);
  EXPECT_NE(refused("set.lt.f32.f16x2 %r1, %r1, %r2;").find("set.CmpOp"), std::string::npos);
  EXPECT_NE(refused("set.lo.f32.f32 %r1, %r1, %r2;").find("set.CmpOp"), std::string::npos);
  EXPECT_EQ(refused("set.lt.u32.f16x2 %r1, %r1, %r2;"), "");
}
