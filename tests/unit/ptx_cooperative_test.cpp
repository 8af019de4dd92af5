// The PTX that CUDA 13's grid.sync() compiles to (cooperative_groups/details/sync.h, see
// docs/programs.md "Cooperative launches"): %envreg1:%envreg2 (the driver's grid workspace),
// trap, and the release/acquire barrier on the workspace's word, run by the functional engine
// with every CTA resident.
#include <gtest/gtest.h>

#include "gpurf/modules/frontend/ptx/engine.h"
#include "gpurf/modules/frontend/ptx/parser.h"

using namespace gpurf::ptx;

namespace {

// Each CTA's thread 0 stores its CTA id into out[ctaid], then the grid barrier as nvcc emits
// it (bar.sync; thread 0 adds 1, CTA 0 adds 0x80000001 - CTAs; spin with ld.acquire until bit
// 31 flips; bar.sync), then every thread of the CTA reads the next CTA's entry into got[].
// Without a workspace (%envreg1:%envreg2 = 0) it traps first.
const char* kGridSync = R"(
.version 9.0
.target sm_75
.address_size 64
.visible .entry neighbours(.param .u64 out, .param .u64 got)
{
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [got];
  mov.u32 %r1, %envreg2;
  cvt.u64.u32 %rd3, %r1;
  mov.u32 %r2, %envreg1;
  cvt.u64.u32 %rd4, %r2;
  bfi.b64 %rd5, %rd4, %rd3, 32, 32;
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %tid.x;
  mov.u32 %r5, %nctaid.x;
  mul.wide.u32 %rd6, %r3, 4;
  add.s64 %rd7, %rd1, %rd6;
  setp.ne.s32 %p1, %r4, 0;
  @%p1 bra SKIP;
  st.global.u32 [%rd7], %r3;
SKIP:
  setp.ne.s64 %p2, %rd5, 0;
  @%p2 bra HAVE;
  trap;
HAVE:
  barrier.sync 0;
  @%p1 bra WAITED;
  add.s64 %rd8, %rd5, 4;
  setp.eq.s32 %p3, %r3, 0;
  mov.u32 %r6, -2147483647;
  sub.s32 %r7, %r6, %r5;
  selp.b32 %r8, %r7, 1, %p3;
  atom.add.release.gpu.u32 %r9, [%rd8], %r8;
SPIN:
  ld.acquire.gpu.u32 %r10, [%rd8];
  xor.b32 %r11, %r10, %r9;
  setp.gt.s32 %p3, %r11, -1;
  @%p3 bra SPIN;
WAITED:
  barrier.sync 0;
  add.s32 %r12, %r3, 1;
  rem.u32 %r13, %r12, %r5;
  mul.wide.u32 %rd9, %r13, 4;
  add.s64 %rd10, %rd1, %rd9;
  ld.global.u32 %r14, [%rd10];
  mad.lo.s32 %r15, %r3, 64, %r4;
  mul.wide.u32 %rd11, %r15, 4;
  add.s64 %rd11, %rd2, %rd11;
  st.global.u32 [%rd11], %r14;
  ret;
}
)";

const Module& module() {
  static const Module m = parse_ptx(kGridSync, "grid_sync.ptx");
  return m;
}

constexpr unsigned kCtas = 5, kThreads = 64;
constexpr uint64_t kOut = 0x1000, kGot = 0x2000, kWorkspace = 0x4000;

// Every CTA resident at once, warps round-robin one instruction at a time (as the timed
// model interleaves them); returns the instructions executed.
uint64_t run_resident(Kernel& k) {
  std::vector<unsigned> warps;
  for (unsigned c = 0; c < k.num_ctas(); ++c)
    for (unsigned w : k.cta_warps(k.launch_cta(c))) warps.push_back(w);
  for (bool stepped = true; stepped;) {
    stepped = false;
    for (unsigned w : warps)
      if (k.peek(w).state == Peek::State::Ready) {
        StepResult r;
        k.step(w, r);
        stepped = true;
      }
  }
  return k.instructions_executed();
}

std::vector<uint8_t> params() {
  ParamPacker p(Kernel::find_entry(module(), "neighbours"));
  p.set(0, kOut).set(1, kGot);
  return p.bytes();
}

} // namespace

TEST(PtxCooperative, ParsesEnvregAndTrap) {
  const Function& f = Kernel::find_entry(module(), "neighbours");
  unsigned envregs = 0, traps = 0, strong = 0;
  for (const Instr& in : f.instrs) {
    traps += in.op == Op::Trap;
    strong += in.op == Op::Ld && in.is_volatile; // ld.acquire: never reused
    for (const Operand& o : in.src)
      envregs += o.kind == Operand::Kind::Special && o.sreg == SReg::Envreg;
  }
  EXPECT_EQ(envregs, 2u);
  EXPECT_EQ(traps, 1u);
  EXPECT_EQ(strong, 1u);
  // %envreg32 does not exist: the function that names it is refused (the module loads).
  const Module bad = parse_ptx(".version 9.0\n.target sm_75\n.address_size 64\n.visible .entry "
                               "k()\n{\n  .reg .b32 %r<2>;\n  mov.u32 %r1, %envreg32;\n  ret;\n}\n",
                               "bad.ptx");
  ASSERT_EQ(bad.refused.count("k"), 1u);
  EXPECT_NE(bad.refused.at("k").find("%envreg32"), std::string::npos) << bad.refused.at("k");
}

TEST(PtxCooperative, GridBarrierOrdersEveryCta) {
  SparseMemory mem;
  const uint32_t ws[2] = {8, 0};
  mem.write(kWorkspace, ws, sizeof ws);
  LaunchConfig cfg;
  cfg.grid = Dim3(kCtas);
  cfg.block = Dim3(kThreads);
  cfg.envreg[1] = uint32_t(kWorkspace >> 32);
  cfg.envreg[2] = uint32_t(kWorkspace);
  Kernel k(module(), "neighbours", cfg, params(), mem);
  EXPECT_GT(run_resident(k), 0u);
  // Every thread read the next CTA's id, stored before that CTA arrived at the barrier.
  const auto got = mem.read_vec<uint32_t>(kGot, kCtas * kThreads);
  for (unsigned c = 0; c < kCtas; ++c)
    for (unsigned t = 0; t < kThreads; ++t)
      ASSERT_EQ(got[c * kThreads + t], (c + 1) % kCtas) << "CTA " << c << " thread " << t;
  // The barrier's word: every CTA's add, 0x80000000 in all (bit 31 flipped, low bits clear).
  EXPECT_EQ(mem.read_vec<uint32_t>(kWorkspace, 2)[1], 0x80000000u);
}

TEST(PtxCooperative, NoWorkspaceTraps) {
  SparseMemory mem;
  LaunchConfig cfg;
  cfg.grid = Dim3(kCtas);
  cfg.block = Dim3(kThreads);
  Kernel k(module(), "neighbours", cfg, params(), mem);
  try {
    run_resident(k);
    FAIL() << "no trap";
  } catch (const RuntimeError& e) {
    const std::string m = e.what();
    // Warp 0 is behind (its thread 0 stores first): warp 1's first lane traps first.
    EXPECT_NE(m.find("kernel 'neighbours', CTA (0,0,0), warp 1, thread 32"), std::string::npos)
        << m;
    EXPECT_NE(m.find("grid_sync.ptx:28 'trap'"), std::string::npos) << m;
    EXPECT_NE(m.find("trap: the kernel aborted"), std::string::npos) << m;
  }
}
