// Register allocation modes: ptx_virtual (GPGPU-Sim PTX mode) gives every touched PTX virtual
// register its own register, numbered by the number in its name (GPGPU-Sim's bank); linear_scan
// is what it always was.
#include <gtest/gtest.h>

#include "gpurf/modules/frontend/compiler/compile.h"
#include "gpurf/modules/frontend/ptx/parser.h"
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

TEST(CompilerPtxVirtual, NameNumbersClassesPairsAndPredicates) {
  Fixture x;
  const KernelPlan p = compile_kernel(x.m, "k", {{}, RegAllocMode::PtxVirtual});
  EXPECT_EQ(verify_kernel(p), "");
  const FunctionPlan& e = *p.plan(x.k);
  auto reg = [&](const char* n) { return e.regs.reg[unsigned(x.k.find_reg(n))]; };
  // GPGPU-Sim banks by the number in the name: each class (prefix, width) starts on a multiple
  // of 64 in declaration order (%rs, %r, %f, %rd) and NAME<d> sits at base + d.
  EXPECT_EQ(reg("%rs1"), 1);
  EXPECT_EQ(reg("%r1"), 65);
  EXPECT_EQ(reg("%r3"), 67);
  EXPECT_EQ(reg("%r4"), 68);
  EXPECT_EQ(reg("%f1"), 129);
  EXPECT_EQ(reg("%f2"), 130);
  // 64-bit pairs: the low half at base + d too; odd d one plane (64) up so pairs never overlap.
  EXPECT_EQ(reg("%rd2"), 194);
  EXPECT_EQ(reg("%rd1"), 257);
  EXPECT_EQ(reg("%rd3"), 259);
  for (const char* n : {"%r0", "%r2", "%rs0", "%f0", "%rd0", "%p0"}) EXPECT_EQ(reg(n), -1) << n;
  EXPECT_EQ(e.regs.width[unsigned(x.k.find_reg("%rd2"))], 2u);
  EXPECT_EQ(e.regs.num_regs, 261u);
  EXPECT_FALSE(e.regs.aligned_pairs);
  // Predicates in the predicate file, numbered on their own.
  EXPECT_EQ(reg("%p1"), 0);
  EXPECT_EQ(reg("%p2"), 1);
  EXPECT_EQ(e.regs.num_preds, 2u);
  // The callee's range starts on the next multiple of 64: %g1 = r321, %g2 = r322.
  const FunctionPlan& c = *p.plan(x.twice);
  EXPECT_EQ(c.base, 320u);
  EXPECT_EQ(c.arch(unsigned(x.twice.find_reg("%g1"))), 321u);
  EXPECT_EQ(c.arch(unsigned(x.twice.find_reg("%g2"))), 322u);
  EXPECT_EQ(p.regs_per_thread, 323u);
  EXPECT_EQ(p.preds_per_thread, 2u);
  // The values need 1 + 3 + 2 + 3 x 2 + 2 registers without reuse.
  EXPECT_EQ(p.value_regs, 14u);
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

// Every suite kernel: ptx_virtual verifies, never shares a register, keeps GPGPU-Sim's bank
// number (register = the number in the vreg's name, mod 64, for the low half), and needs the
// registers of its touched virtual registers; linear_scan never needs more.
TEST(CompilerPtxVirtual, SuiteKernels) {
  for (const std::string& name : compilertest::suite()) {
    SCOPED_TRACE(name);
    const ptx::Module m = ptx::parse_ptx_file(compilertest::workloads() + "/ptx/" + name + ".ptx");
    const KernelPlan v = compile_kernel(m, name, {{}, RegAllocMode::PtxVirtual});
    EXPECT_EQ(verify_kernel(v), "");
    unsigned words = 0;
    std::vector<int> owner(v.regs_per_thread, -1);
    for (const FunctionPlan& p : v.funcs) {
      if (!p.func) continue;
      for (size_t r = 0; r < p.func->regs.size(); ++r) {
        if (p.regs.reg[r] < 0 || p.func->regs[r].is_pred) continue;
        const std::string& n = p.func->regs[r].name;
        const size_t digit = n.find_first_of("0123456789");
        if (digit != std::string::npos) {
          EXPECT_EQ(p.arch(unsigned(r)) % 64, std::stoul(n.substr(digit)) % 64) << n;
        }
        words += p.regs.width[r];
        for (unsigned h = 0; h < p.regs.width[r]; ++h) {
          EXPECT_EQ(owner[p.arch(unsigned(r), h)], -1) << n;
          owner[p.arch(unsigned(r), h)] = int(r);
        }
      }
    }
    EXPECT_EQ(v.value_regs, words);
    EXPECT_LE(compile_kernel(m, name).regs_per_thread, v.value_regs);
  }
}
