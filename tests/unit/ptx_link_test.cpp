// Linking separately compiled units' PTX (nvcc -rdc=true): link.h's rules, and the linked
// module run by the engine, so that each call reaches the function the rules say.
#include <gtest/gtest.h>

#include "gpurf/modules/frontend/ptx/link.h"
#include "ptx_test_util.h"

using namespace gpurf::ptx;

namespace {

const char* kHeader = ".version 8.0\n.target sm_75\n.address_size 64\n";

// Unit 0: the kernel; calls scale (unit 1), twice (.weak, in both), its own internal `bump`,
// reads `bias` (unit 1's .global) and `table` (unit 1's .const), and has a string constant.
const std::string kMain = std::string(kHeader) + R"(
.file 1 "main.cu"
.extern .func (.param .b32 r) scale(.param .b32 x);
.extern .global .align 4 .u32 bias;
.extern .const .align 4 .b8 table[8];
.global .align 1 .b8 $str[3] = {104, 105, 0};
.weak .func (.param .b32 r) twice(.param .b32 x)
{
  .reg .b32 %r<3>;
  ld.param.u32 %r1, [x];
  add.s32 %r2, %r1, %r1;
  st.param.b32 [r], %r2;
  ret;
}
.func (.param .b32 r) bump(.param .b32 x)
{
  .reg .b32 %r<3>;
  ld.param.u32 %r1, [x];
  add.s32 %r2, %r1, 1;
  st.param.b32 [r], %r2;
  ret;
}
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<6>;
  .loc 1 7 3
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  { .param .b32 a; .param .b32 b; st.param.b32 [a], %r1;
    call.uni (b), scale, (a); ld.param.b32 %r2, [b]; }
  { .param .b32 a; .param .b32 b; st.param.b32 [a], %r2;
    call.uni (b), twice, (a); ld.param.b32 %r3, [b]; }
  { .param .b32 a; .param .b32 b; st.param.b32 [a], %r3;
    call.uni (b), bump, (a); ld.param.b32 %r4, [b]; }
  ld.global.u32 %r5, [bias];
  add.s32 %r6, %r4, %r5;
  and.b32 %r7, %r1, 1;
  mul.wide.u32 %rd2, %r7, 4;
  mov.u64 %rd3, table;
  add.s64 %rd4, %rd3, %rd2;
  ld.const.u32 %r8, [%rd4];
  add.s32 %r9, %r6, %r8;
  mov.u64 %rd5, $str;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd1, %rd1, %rd2;
  st.global.u32 [%rd1], %r9;
  ret;
}
.section .debug_str { $L__info_string0: .b8 107,0 }
)";

// Unit 1: defines scale (which calls its own internal `bump`: x * 10 - 1), twice again, bias and
// table, and its own string constant.
const std::string kLib = std::string(kHeader) + R"(
.file 1 "lib.cu"
.global .align 1 .b8 $str[4] = {108, 105, 98, 0};
.visible .global .align 4 .u32 bias = 1000;
.visible .const .align 4 .b8 table[8] = {5, 0, 0, 0, 7, 0, 0, 0};
.weak .func (.param .b32 r) twice(.param .b32 x)
{
  .reg .b32 %r<3>;
  ld.param.u32 %r1, [x];
  add.s32 %r2, %r1, %r1;
  st.param.b32 [r], %r2;
  ret;
}
.func (.param .b32 r) bump(.param .b32 x)
{
  .reg .b32 %r<3>;
  ld.param.u32 %r1, [x];
  sub.s32 %r2, %r1, 1;
  st.param.b32 [r], %r2;
  ret;
}
.visible .func (.param .b32 r) scale(.param .b32 x)
{
  .reg .b32 %r<4>;
  .loc 1 3 1
  ld.param.u32 %r1, [x];
  mul.lo.s32 %r2, %r1, 10;
  { .param .b32 a; .param .b32 b; st.param.b32 [a], %r2;
    call.uni (b), bump, (a); ld.param.b32 %r3, [b]; }
  st.param.b32 [r], %r3;
  ret;
}
)";

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

} // namespace

TEST(PtxLink, ResolvedCallsReachTheRightFunctions) {
  const std::string linked = link_ptx({{kMain, "main"}, {kLib, "lib"}});
  const Module m = parse_ptx(linked, "linked");
  ptxtest::Launch l(m, "k", {1, 1, 1}, {8, 1, 1});
  const uint64_t out = l.zeros(8 * 4);
  l.arg(out).run();
  const std::vector<uint32_t> got = l.get<uint32_t>(out, 8);
  for (uint32_t t = 0; t < 8; ++t) // bump_main(twice(bump_lib(10 t))) + bias + table[t & 1]
    EXPECT_EQ(got[t], 2 * (10 * t - 1) + 1 + 1000 + (t & 1 ? 7 : 5)) << "thread " << t;
}

TEST(PtxLink, DeclarationsBecomePrototypesAndDuplicatesGo) {
  const std::string linked = link_ptx({{kMain, "main"}, {kLib, "lib"}});
  // ptxas refuses an .extern declaration of a function the module defines: a prototype with
  // the definition's linkage instead, before its first use.
  EXPECT_EQ(count(linked, ".extern .func"), 0u) << linked;
  EXPECT_LT(linked.find(".visible .func (.param .b32 r) scale(.param .b32 x);"),
            linked.find("call.uni (b), scale"))
      << linked;
  // The weak function once; each unit's `bump` and `$str` its own.
  EXPECT_EQ(count(linked, ".weak .func (.param .b32 r) twice"), 1u) << linked;
  EXPECT_EQ(count(linked, "bump$u0(.param"), 1u) << linked;
  EXPECT_EQ(count(linked, "bump$u1(.param"), 1u) << linked;
  EXPECT_EQ(count(linked, "$str$u0["), 1u) << linked;
  EXPECT_EQ(count(linked, "$str$u1["), 1u) << linked;
  // A variable's definition where it is first declared (PTX declares before use).
  EXPECT_EQ(count(linked, "bias"), 2u) << linked; // the definition and the load
  EXPECT_LT(linked.find(".visible .global .align 4 .u32 bias = 1000;"), linked.find("[bias]"));
  // Debug information is per unit (file numbers, labels): gone.
  EXPECT_EQ(linked.find(".loc"), std::string::npos) << linked;
  EXPECT_EQ(linked.find(".file"), std::string::npos) << linked;
  EXPECT_EQ(linked.find(".section"), std::string::npos) << linked;
  EXPECT_EQ(count(linked, ".version"), 1u);
}

TEST(PtxLink, OneUnitIsUnchanged) { EXPECT_EQ(link_ptx({{kLib, "lib"}}), kLib); }

TEST(PtxLink, HighestVersionAndTarget) {
  std::string newer = kLib;
  newer.replace(newer.find("8.0"), 3, "8.5");
  newer.replace(newer.find("sm_75"), 5, "sm_80");
  const std::string linked = link_ptx({{kMain, "main"}, {newer, "lib"}});
  EXPECT_NE(linked.find(".version 8.5\n.target sm_80\n"), std::string::npos) << linked;
}

TEST(PtxLink, SymbolDefinedTwiceNamesBothUnits) {
  try {
    link_ptx({{kLib, "first.cu"}, {kLib, "second.cu"}});
    FAIL() << "two definitions of 'bias' linked";
  } catch (const ParseError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("second.cu:"), std::string::npos) << msg;
    EXPECT_NE(msg.find("in first.cu line"), std::string::npos) << msg;
    EXPECT_NE(msg.find("defines each non-weak symbol once"), std::string::npos) << msg;
  }
}

TEST(PtxLink, AddressSizesMustAgree) {
  std::string narrow = kLib;
  narrow.replace(narrow.find(".address_size 64"), 16, ".address_size 32");
  EXPECT_THROW(link_ptx({{kMain, "main"}, {narrow, "lib"}}), ParseError);
}

TEST(PtxLink, UndefinedExternsStayOnce) {
  // vprintf and dynamic shared memory: declared in each unit, defined in none.
  const std::string decl = std::string(kHeader) +
                           ".extern .func (.param .b32 r) vprintf(.param .b64 f, .param .b64 a);\n"
                           ".extern .shared .align 16 .b8 smem[];\n";
  const std::string linked = link_ptx({{decl, "a"}, {decl, "b"}});
  EXPECT_EQ(count(linked, "vprintf"), 1u) << linked;
  EXPECT_EQ(count(linked, "smem"), 1u) << linked;
  EXPECT_NO_THROW(parse_ptx(linked, "linked"));
}

TEST(PtxLink, DeclarationAfterDefinitionKeepsTheDefinition) {
  const Module m = parse_ptx(std::string(kHeader) + ".visible .global .align 4 .u32 bias = 1000;\n"
                                                    ".extern .global .align 4 .u32 bias;\n",
                             "redeclared");
  ASSERT_GE(m.var_index("bias"), 0);
  EXPECT_FALSE(m.vars[size_t(m.var_index("bias"))].is_extern);
}
