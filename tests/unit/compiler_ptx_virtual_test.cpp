// Register allocation modes: ptx_virtual (GPGPU-Sim PTX mode) numbers every touched PTX virtual
// register in declaration order with no reuse; linear_scan is what it always was.
#include <gtest/gtest.h>

#include "modules/frontend/compiler/compile.h"
#include "modules/frontend/ptx/parser.h"
#include "tests/unit/compiler_test_util.h"

using namespace gpurf;
using namespace gpurf::compiler;

namespace {

// out[tid] = tid < n ? twice(a[tid]) : tid. %r0, %rd0, %f0 are declared, never touched (as in
// nvcc output); %r3 after %r1 leaves %r2 untouched too; the lone .b16 makes the first 64-bit
// register start on an odd count.
const char* kPtx = R"(.version 7.0
.target sm_75
.address_size 64
.func (.param .b32 ret) twice(.param .b32 x)
{
  .reg .f32 %g<3>;
  ld.param.f32 %g1, [x];
  add.f32 %g2, %g1, %g1;
  st.param.f32 [ret+0], %g2;
  ret;
}
.visible .entry k(.param .u64 pa, .param .u32 pn)
{
  .reg .pred %p<3>;
  .reg .b16 %rs<2>;
  .reg .b32 %r<5>;
  .reg .f32 %f<3>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [pa];
  ld.param.u32 %r1, [pn];
  mov.u32 %r3, %tid.x;
  cvt.u16.u32 %rs1, %r3;
  cvt.u32.u16 %r4, %rs1;
  setp.ge.u32 %p1, %r3, %r1;
  setp.eq.u32 %p2, %r4, 0;
  mul.wide.u32 %rd2, %r3, 4;
  add.s64 %rd3, %rd1, %rd2;
  @%p1 bra DONE;
  ld.global.f32 %f1, [%rd3];
  {
  .param .b32 param0;
  st.param.f32 [param0+0], %f1;
  .param .b32 retval0;
  call.uni (retval0), twice, (param0);
  ld.param.f32 %f2, [retval0+0];
  }
  @%p2 st.global.f32 [%rd3], %f2;
DONE:
  ret;
}
)";

struct Fixture {
  ptx::Module m = ptx::parse_ptx(kPtx, "pv.ptx");
  const ptx::Function& k = *m.find_function("k");
  const ptx::Function& twice = *m.find_function("twice");
};

} // namespace

TEST(CompilerPtxVirtual, ModeNames) {
  EXPECT_EQ(regalloc_mode("linear_scan"), RegAllocMode::LinearScan);
  EXPECT_EQ(regalloc_mode("ptx_virtual"), RegAllocMode::PtxVirtual);
  EXPECT_THROW(regalloc_mode("ptxas"), std::invalid_argument);
}

TEST(CompilerPtxVirtual, DeclarationOrderPairsAndPredicates) {
  Fixture x;
  const KernelPlan p = compile_kernel(x.m, "k", {{}, RegAllocMode::PtxVirtual});
  EXPECT_EQ(verify_kernel(p), "");
  const FunctionPlan& e = *p.plan(x.k);
  auto reg = [&](const char* n) { return e.regs.reg[unsigned(x.k.find_reg(n))]; };
  // Data registers in declaration order, untouched ones skipped: rs1 r1 r3 r4 f1 f2, then the
  // pairs from the next even register: rd1 = r6:r7, rd2 = r8:r9, rd3 = r10:r11.
  EXPECT_EQ(reg("%rs1"), 0);
  EXPECT_EQ(reg("%r1"), 1);
  EXPECT_EQ(reg("%r3"), 2);
  EXPECT_EQ(reg("%r4"), 3);
  EXPECT_EQ(reg("%f1"), 4);
  EXPECT_EQ(reg("%f2"), 5);
  EXPECT_EQ(reg("%rd1"), 6);
  EXPECT_EQ(reg("%rd2"), 8);
  EXPECT_EQ(reg("%rd3"), 10);
  for (const char* n : {"%r0", "%r2", "%rs0", "%f0", "%rd0", "%p0"}) EXPECT_EQ(reg(n), -1) << n;
  EXPECT_EQ(e.regs.width[unsigned(x.k.find_reg("%rd2"))], 2u);
  EXPECT_EQ(e.regs.num_regs, 12u);
  // Predicates in the predicate file, numbered on their own.
  EXPECT_EQ(reg("%p1"), 0);
  EXPECT_EQ(reg("%p2"), 1);
  EXPECT_EQ(e.regs.num_preds, 2u);
  // The callee's registers follow the caller's: %g1 = r12, %g2 = r13.
  const FunctionPlan& c = *p.plan(x.twice);
  EXPECT_EQ(c.base, 12u);
  EXPECT_EQ(c.arch(unsigned(x.twice.find_reg("%g1"))), 12u);
  EXPECT_EQ(c.arch(unsigned(x.twice.find_reg("%g2"))), 13u);
  EXPECT_EQ(p.regs_per_thread, 14u);
  EXPECT_EQ(p.preds_per_thread, 2u);
}

TEST(CompilerPtxVirtual, LinearScanIsTheDefaultAndReuses) {
  Fixture x;
  const KernelPlan d = compile_kernel(x.m, "k");
  const KernelPlan l = compile_kernel(x.m, "k", {{}, RegAllocMode::LinearScan});
  EXPECT_EQ(verify_kernel(l), "");
  EXPECT_EQ(describe_plan(d, true), describe_plan(l, true));
  // %r1 dies at the setp; later values take its register.
  EXPECT_LT(l.regs_per_thread, 14u);
}

// Every suite kernel: ptx_virtual verifies, never shares a register, and needs exactly the
// registers of its touched virtual registers (plus pair alignment: at most one hole per pair);
// linear_scan never needs more.
TEST(CompilerPtxVirtual, SuiteKernels) {
  for (const std::string& name : compilertest::suite()) {
    SCOPED_TRACE(name);
    const ptx::Module m = ptx::parse_ptx_file(compilertest::workloads() + "/ptx/" + name + ".ptx");
    const KernelPlan v = compile_kernel(m, name, {{}, RegAllocMode::PtxVirtual});
    EXPECT_EQ(verify_kernel(v), "");
    unsigned words = 0;
    for (const FunctionPlan& p : v.funcs) {
      if (!p.func) continue;
      std::vector<int> owner(p.regs.num_regs, -1);
      unsigned mine = 0;
      for (size_t r = 0; r < p.func->regs.size(); ++r) {
        if (p.regs.reg[r] < 0 || p.func->regs[r].is_pred) continue;
        mine += p.regs.width[r];
        for (unsigned h = 0; h < p.regs.width[r]; ++h) {
          EXPECT_EQ(owner[unsigned(p.regs.reg[r]) + h], -1) << p.func->regs[r].name;
          owner[unsigned(p.regs.reg[r]) + h] = int(r);
        }
      }
      EXPECT_GE(p.regs.num_regs, mine);
      EXPECT_LE(p.regs.num_regs, mine + mine / 2);
      words += p.regs.num_regs;
    }
    // The suite's calls are one level deep from the entry: the callee's range follows it.
    EXPECT_EQ(v.regs_per_thread, words);
    EXPECT_LE(compile_kernel(m, name).regs_per_thread, v.regs_per_thread);
  }
}
