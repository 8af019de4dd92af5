// WIR's reuse-buffer tag (compiler/reuse_key.h): two instructions on the same registers share a
// tag only when they compute the same thing, so every modifier that changes the result is in
// the opcode hash.
#include <gtest/gtest.h>

#include "gpurf/modules/frontend/compiler/constants.h"
#include "gpurf/modules/frontend/compiler/reuse_key.h"
#include "gpurf/modules/frontend/ptx/parser.h"

using namespace gpurf;

namespace {

// The reuse tags of a kernel's instructions, in order.
std::vector<uint32_t> tags(const std::string& body) {
  const std::string text = ".version 8.0\n.target sm_80\n.address_size 64\n"
                           ".visible .entry k()\n{\n.reg .b32 %r<16>;\n.reg .b16 %h<16>;\n"
                           ".reg .f32 %f<4>;\n" +
                           body + "ret;\n}\n";
  const ptx::Module m = ptx::parse_ptx(text, "reuse.ptx");
  EXPECT_TRUE(m.refused.empty()) << m.refused.begin()->second;
  const ptx::Function& f = *m.find_function("k");
  const compiler::ConstantOperands c = compiler::constant_operands(f, false);
  std::vector<uint32_t> out;
  for (const ptx::Instr& in : f.instrs)
    if (in.op != ptx::Op::Ret) out.push_back(compiler::reuse_key(f, in, c).op);
  return out;
}

} // namespace

TEST(CompilerReuseKey, ModifiersThatChangeTheResultChangeTheTag) {
  const auto t = tags("add.u32 %r3, %r1, %r2;\nadd.u32 %r4, %r1, %r2;\n"          // same
                      "vabsdiff4.u32.u32.u32.add %r5, %r1, %r2, %r0;\n"           // 2
                      "vabsdiff4.u32.u32.u32 %r6, %r1, %r2, %r0;\n"               // 3
                      "vmax4.u32.u32.u32 %r7, %r1, %r2, %r0;\n"                   // 4
                      "vmax4.u32.s32.u32 %r8, %r1, %r2, %r0;\n"                   // 5
                      "vmax4.u32.u32.s32 %r9, %r1, %r2, %r0;\n"                   // 6
                      "min.f16 %h3, %h1, %h2;\nmin.NaN.f16 %h4, %h1, %h2;\n"      // 7, 8
                      "cvt.rn.f16.f32 %h5, %f1;\ncvt.rn.relu.f16.f32 %h6, %f1;\n" // 9, 10
                      "cvt.rn.satfinite.f16.f32 %h7, %f1;\n");                    // 11
  ASSERT_EQ(t.size(), 12u);
  for (uint32_t x : t) EXPECT_NE(x, 0u);
  EXPECT_EQ(t[0], t[1]);
  for (size_t i = 2; i < t.size(); ++i)
    for (size_t j = i + 1; j < t.size(); ++j) EXPECT_NE(t[i], t[j]) << i << " and " << j;
}

// The carry flag is an operand the tag does not hold: an instruction that writes it or reads
// it (addc.u32 d, 0, 0 is the carry alone) is never reused.
TEST(CompilerReuseKey, CarryReadersAndWritersAreNotReused) {
  const auto t = tags("add.cc.u32 %r3, %r1, %r2;\naddc.u32 %r4, %r0, %r0;\n"
                      "sub.cc.u32 %r5, %r1, %r2;\nsubc.u32 %r6, %r1, %r2;\n"
                      "mad.lo.cc.u32 %r7, %r1, %r2, %r3;\nmadc.hi.u32 %r8, %r1, %r2, %r3;\n"
                      "add.u32 %r9, %r1, %r2;\n");
  ASSERT_EQ(t.size(), 7u);
  for (size_t i = 0; i < 6; ++i) EXPECT_EQ(t[i], 0u) << i;
  EXPECT_NE(t[6], 0u);
}
