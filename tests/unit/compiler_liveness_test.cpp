// Liveness, last-read hints, SIMT edges and long-latency marks on small hand-written kernels.
#include <gtest/gtest.h>

#include "gpurf/modules/frontend/compiler/compile.h"
#include "gpurf/modules/frontend/ptx/parser.h"

using namespace gpurf;
using namespace gpurf::compiler;

namespace {

const char* kHeader = ".version 7.0\n.target sm_75\n.address_size 64\n";

// if (tid < n) r4 = tid + n; else { r3 = tid + 1; r4 = r3 * r3; }  out[tid] = r4
const char* kDiamond = R"(
.visible .entry diamond(.param .u64 p0, .param .u32 p1)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [p0];
  ld.param.u32 %r1, [p1];
  mov.u32 %r2, %tid.x;
  setp.lt.u32 %p1, %r2, %r1;
  @%p1 bra THEN;
  add.s32 %r3, %r2, 1;
  mul.lo.s32 %r4, %r3, %r3;
  bra.uni JOIN;
THEN:
  add.s32 %r4, %r2, %r1;
JOIN:
  mul.wide.u32 %rd2, %r2, 4;
  add.s64 %rd2, %rd1, %rd2;
  st.global.u32 [%rd2], %r4;
  ret;
}
)";

// sum = 0; for (i = 0; i < n; ++i) sum += a[i]; a[0] = sum
const char* kLoop = R"(
.visible .entry loop(.param .u64 p0, .param .u32 p1)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p0];
  ld.param.u32 %r1, [p1];
  mov.u32 %r2, 0;
  mov.f32 %f1, 0f00000000;
LOOP:
  mul.wide.u32 %rd2, %r2, 4;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.f32 %f2, [%rd3];
  add.f32 %f1, %f1, %f2;
  add.s32 %r2, %r2, 1;
  setp.lt.u32 %p1, %r2, %r1;
  @%p1 bra LOOP;
  st.global.f32 [%rd1], %f1;
  ret;
}
)";

// r5 is computed before a divergent branch and read only on the fall-through side, which the
// warp runs *after* the taken side: the taken side's r6 must not reuse r5's register.
const char* kSimt = R"(
.visible .entry simt(.param .u64 p0)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [p0];
  mov.u32 %r2, %tid.x;
  setp.lt.u32 %p1, %r2, 16;
  add.s32 %r5, %r2, 7;
  @%p1 bra TAKEN;
  st.global.u32 [%rd1], %r5;
  bra.uni JOIN;
TAKEN:
  mul.lo.s32 %r6, %r2, 3;
  st.global.u32 [%rd1+4], %r6;
JOIN:
  ret;
}
)";

struct Fixture {
  ptx::Module m;
  const ptx::Function* f;
  explicit Fixture(const char* body, const char* name) {
    m = ptx::parse_ptx(std::string(kHeader) + body, std::string(name) + ".ptx");
    f = m.find_function(name);
  }
  unsigned reg(const char* n) const { return unsigned(f->find_reg(n)); }
};

} // namespace

TEST(CompilerLiveness, DiamondLiveSetsAndLastReads) {
  Fixture x(kDiamond, "diamond");
  const Liveness lv = compute_liveness(*x.f);
  ASSERT_EQ(lv.cfg.blocks.size(), 4u);
  const unsigned r1 = x.reg("%r1"), r2 = x.reg("%r2"), r3 = x.reg("%r3"), r4 = x.reg("%r4");
  const unsigned rd1 = x.reg("%rd1"), rd2 = x.reg("%rd2");
  EXPECT_EQ(lv.entry_live_in.count(), 0u);
  // pc 4 is the branch: r1 (read on the taken side), r2, rd1 live across it.
  EXPECT_TRUE(lv.live_after(4, r1));
  EXPECT_TRUE(lv.live_after(4, r2));
  EXPECT_TRUE(lv.live_after(4, rd1));
  // Else side (pc 5..7) runs after the taken side: r1 is dead there; r4 (written by the taken
  // side) is dead too, as the else side writes it again (whole register) before any read.
  EXPECT_FALSE(lv.live_before(5, r1));
  EXPECT_FALSE(lv.live_before(5, r4));
  EXPECT_TRUE(lv.live_after(6, r4));
  EXPECT_TRUE(lv.live_after(5, r3));
  EXPECT_FALSE(lv.live_after(6, r3));
  EXPECT_TRUE(lv.last_read(6, r3));
  EXPECT_FALSE(lv.last_read(8, r2)); // still read at the join
  EXPECT_TRUE(lv.last_read(8, r1));
  EXPECT_TRUE(lv.last_read(9, r2));
  EXPECT_TRUE(lv.last_read(10, rd1));
  EXPECT_TRUE(lv.last_read(10, rd2)); // read and redefined: that instance dies
  EXPECT_TRUE(lv.last_read(11, r4));
  EXPECT_FALSE(lv.last_read(11, r3)); // not read there at all
  // r2 is live on both sides; the edge THEN -> else keeps it live at the end of THEN anyway.
  EXPECT_TRUE(lv.block_out[lv.cfg.block_of[8]].test(r2));
  // The only SIMT edge: the taken side (THEN) is followed by the fall-through side.
  const auto edges = simt_edges(lv.cfg, *x.f);
  ASSERT_EQ(edges.size(), 1u);
  EXPECT_EQ(lv.cfg.blocks[edges[0].first].begin, 8u);
  EXPECT_EQ(lv.cfg.blocks[edges[0].second].begin, 5u);
}

// An indirect call runs again for the lanes of each other target once the first target's
// lanes return (the engine serialises a warp's targets): its address is still read after it,
// so it is no last read there (a register-file cache that drops dead values kept it).
TEST(CompilerLiveness, IndirectCallAddressLivesAcrossTheCall) {
  const char* text = R"(
.func (.param .b32 r) twice(.param .b32 x)
{
  .reg .b32 %r<3>;
  ld.param.u32 %r1, [x];
  shl.b32 %r2, %r1, 1;
  st.param.b32 [r], %r2;
  ret;
}
.visible .entry icall(.param .u64 p0)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [p0];
  mov.u32 %r1, %tid.x;
  mov.u64 %rd2, twice;
  {
  .param .b32 p;
  st.param.b32 [p], %r1;
  .param .b32 r;
  proto : .callprototype (.param .b32 _) _ (.param .b32 _);
  call (r), %rd2, (p), proto;
  ld.param.b32 %r2, [r];
  }
  st.global.u32 [%rd1], %r2;
  ret;
}
)";
  Fixture x(text, "icall");
  const Liveness lv = compute_liveness(*x.f);
  const unsigned rd2 = x.reg("%rd2");
  unsigned call = 0;
  while (x.f->instrs[call].op != ptx::Op::Call) ++call;
  EXPECT_TRUE(lv.live_after(call, rd2));
  EXPECT_FALSE(lv.last_read(call, rd2));
  EXPECT_FALSE(lv.live_after(call + 1, rd2)); // dead once the call is done
}

TEST(CompilerLiveness, LoopCarriedValues) {
  Fixture x(kLoop, "loop");
  const Liveness lv = compute_liveness(*x.f);
  const unsigned r1 = x.reg("%r1"), r2 = x.reg("%r2"), f1 = x.reg("%f1"), f2 = x.reg("%f2");
  const unsigned rd1 = x.reg("%rd1"), rd2 = x.reg("%rd2"), rd3 = x.reg("%rd3");
  for (unsigned v : {r1, r2, f1, rd1}) {
    EXPECT_TRUE(lv.live_before(4, v)) << x.f->regs[v].name; // loop header
    EXPECT_TRUE(lv.live_after(10, v) || v == r2) << x.f->regs[v].name;
  }
  EXPECT_FALSE(lv.live_before(4, f2));
  EXPECT_FALSE(lv.live_before(4, rd2));
  EXPECT_TRUE(lv.last_read(5, rd2));
  EXPECT_FALSE(lv.last_read(5, rd1)); // next iteration and the store read it
  EXPECT_TRUE(lv.last_read(6, rd3));
  EXPECT_TRUE(lv.last_read(7, f2));
  EXPECT_TRUE(lv.last_read(7, f1)); // read and redefined
  EXPECT_FALSE(lv.last_read(4, r2));
  EXPECT_TRUE(lv.last_read(8, r2));
  EXPECT_TRUE(lv.last_read(11, f1));
  EXPECT_TRUE(lv.last_read(11, rd1));
  EXPECT_FALSE(lv.live_after(11, rd1));
  // Long latency: the global load produces, its first reader consumes.
  const LongLatency ll = mark_long_latency(*x.f, lv);
  for (unsigned i = 0; i < x.f->instrs.size(); ++i) {
    EXPECT_EQ(ll.produces[i], i == 6) << i;
    EXPECT_EQ(ll.consumes[i], i == 7) << i;
  }
  EXPECT_TRUE(ll.reads_pending(7, f2));
  EXPECT_FALSE(ll.reads_pending(7, f1));
}

// An mbarrier wait's predicate is a long-latency value: the branch spinning on it consumes it
// (a two-level scheduler suspends the spinner; on a shared-memory barrier the phase is
// completed by warps that may be in its pending set).
TEST(CompilerLiveness, MbarrierWaitPredicateIsLongLatency) {
  Fixture x(R"(
.visible .entry spin(.param .u64 p0)
{
  .reg .pred %p<2>;
  .reg .b64 %rd<3>;
  .shared .align 8 .b64 bar;
  mov.u64 %rd1, bar;
  mbarrier.arrive.shared.b64 %rd2, [%rd1];
WAIT:
  mbarrier.try_wait.shared.b64 %p1, [%rd1], %rd2;
  @!%p1 bra WAIT;
  ret;
}
)",
            "spin");
  const LongLatency ll = mark_long_latency(*x.f, compute_liveness(*x.f));
  for (unsigned i = 0; i < x.f->instrs.size(); ++i) {
    EXPECT_EQ(ll.produces[i], i == 2) << i;
    EXPECT_EQ(ll.consumes[i], i == 3) << i;
  }
  EXPECT_TRUE(ll.reads_pending(3, x.reg("%p1")));
}

TEST(CompilerLiveness, SimtEdgesSeparateRegisters) {
  Fixture x(kSimt, "simt");
  const unsigned r5 = x.reg("%r5"), r6 = x.reg("%r6");
  const Liveness lv = compute_liveness(*x.f);
  const auto g = interference(*x.f, lv);
  EXPECT_NE(std::find(g[r5].begin(), g[r5].end(), r6), g[r5].end());
  const RegAssignment a = allocate_registers(*x.f, lv);
  EXPECT_NE(a.reg[r5], a.reg[r6]);
  EXPECT_EQ(verify_allocation(*x.f, lv, a), "");
  // Scalar liveness would let them share (what a CPU compiler does).
  LivenessOptions scalar;
  scalar.simt_edges = false;
  const Liveness ls = compute_liveness(*x.f, scalar);
  const auto gs = interference(*x.f, ls);
  EXPECT_EQ(std::find(gs[r5].begin(), gs[r5].end(), r6), gs[r5].end());
}

TEST(CompilerRegalloc, SmallKernelsAllocateAndVerify) {
  for (auto [body, name] : {std::pair{kDiamond, "diamond"}, {kLoop, "loop"}, {kSimt, "simt"}}) {
    Fixture x(body, name);
    const KernelPlan k = compile_kernel(x.m, name);
    EXPECT_EQ(verify_kernel(k), "") << name;
    const FunctionPlan& p = *k.plan(*x.f);
    for (size_t v = 0; v < x.f->regs.size(); ++v) {
      if (p.regs.reg[v] < 0) continue;
      if (x.f->regs[v].width_bits == 64) {
        EXPECT_EQ(p.regs.width[v], 2u);
        EXPECT_EQ(p.regs.reg[v] % 2, 0) << x.f->regs[v].name;
      }
    }
    std::cout << describe_plan(k, true);
  }
  // The loop kernel: rd1 (pair), r1, r2, f1 live across the loop plus the temporaries.
  Fixture x(kLoop, "loop");
  EXPECT_LE(compile_kernel(x.m, "loop").regs_per_thread, 9u);
}

TEST(CompilerRegalloc, VerifierCatchesConflicts) {
  Fixture x(kLoop, "loop");
  const Liveness lv = compute_liveness(*x.f);
  RegAssignment a = allocate_registers(*x.f, lv);
  ASSERT_EQ(verify_allocation(*x.f, lv, a), "");
  // Put r1 (live through the loop) onto f1's register.
  a.reg[x.reg("%r1")] = a.reg[x.reg("%f1")];
  EXPECT_NE(verify_allocation(*x.f, lv, a).find("live at the same time"), std::string::npos);
  a = allocate_registers(*x.f, lv);
  a.reg[x.reg("%rd1")] |= 1; // misaligned pair
  EXPECT_NE(verify_allocation(*x.f, lv, a), "");
}

TEST(CompilerRegalloc, GuardedDefinitionDoesNotKill) {
  const char* body = R"(
.visible .entry g(.param .u64 p0)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [p0];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, 5;
  setp.lt.u32 %p1, %r1, 3;
  @%p1 mov.u32 %r2, 9;
  st.global.u32 [%rd1], %r2;
  ret;
}
)";
  Fixture x(body, "g");
  const Liveness lv = compute_liveness(*x.f);
  EXPECT_TRUE(lv.live_before(4, x.reg("%r2"))); // the lanes with !p keep 5
  LivenessOptions o;
  o.guarded_defs_kill = true;
  EXPECT_FALSE(compute_liveness(*x.f, o).live_before(4, x.reg("%r2")));
}
