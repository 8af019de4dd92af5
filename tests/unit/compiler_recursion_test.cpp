// Recursive device functions (compiler/compile.h "Recursion"): a recursive SCC's functions share
// one register window, a call that may re-enter it saves what is live after it and restores it
// after the return (records the front-end issues as local stores and loads), and the stack per
// thread bounds the depth. Hand-written PTX in nvcc's style: direct recursion with a predicate
// live across the calls and divergent depths, mutual recursion through a forward declaration,
// and a recursion deeper than the stack.
#include <cstring>
#include <deque>
#include <memory>

#include <gtest/gtest.h>

#include "gpurf/modules/frontend/compiler/compile.h"
#include "gpurf/modules/frontend/launch.h"
#include "gpurf/modules/frontend/ptx/engine.h"
#include "gpurf/modules/frontend/ptx/parser.h"
#include "gpurf/modules/frontend/ptx_frontend.h"
#include "tests/unit/compiler_test_util.h"

using namespace gpurf;

namespace {

// g(n) = n < 2 ? n : g(n - 1) + g(n - 2) + (n > 5); even(n) = n == 0 || odd(n - 1),
// odd(n) = n != 0 && even(n - 1); sum(n) = n == 0 ? 0 : n + sum(n - 1).
// k(out, n), thread t of CTA c: out[3 (c x ntid + t)] = g(t % 12), ... + 1] = even(t), ... + 2] =
// sum(n + t % 4).
const char* const kPtx = R"(.version 9.0
.target sm_75
.address_size 64

.func (.param .b32 func_retval0) odd(.param .b32 odd_param_0);

.func (.param .b32 func_retval0) g(.param .b32 g_param_0)
{
  .reg .pred %p<3>;
  .reg .b32 %r<10>;
  ld.param.u32 %r1, [g_param_0];
  mov.u32 %r8, %r1;
  setp.lt.s32 %p1, %r1, 2;
  @%p1 bra $L__done;
  setp.gt.s32 %p2, %r1, 5;
  add.s32 %r2, %r1, -1;
  {
  .param .b32 param0;
  st.param.b32 [param0+0], %r2;
  .param .b32 retval0;
  call.uni (retval0), g, (param0);
  ld.param.b32 %r3, [retval0+0];
  }
  add.s32 %r4, %r1, -2;
  {
  .param .b32 param0;
  st.param.b32 [param0+0], %r4;
  .param .b32 retval0;
  call.uni (retval0), g, (param0);
  ld.param.b32 %r5, [retval0+0];
  }
  selp.u32 %r6, 1, 0, %p2;
  add.s32 %r7, %r3, %r5;
  add.s32 %r8, %r7, %r6;
$L__done:
  st.param.b32 [func_retval0+0], %r8;
  ret;
}

.func (.param .b32 func_retval0) even(.param .b32 even_param_0)
{
  .reg .pred %p<2>;
  .reg .b32 %r<5>;
  ld.param.u32 %r1, [even_param_0];
  mov.u32 %r4, 1;
  setp.eq.s32 %p1, %r1, 0;
  @%p1 bra $L__even_done;
  add.s32 %r2, %r1, -1;
  {
  .param .b32 param0;
  st.param.b32 [param0+0], %r2;
  .param .b32 retval0;
  call.uni (retval0), odd, (param0);
  ld.param.b32 %r4, [retval0+0];
  }
$L__even_done:
  st.param.b32 [func_retval0+0], %r4;
  ret;
}

.func (.param .b32 func_retval0) odd(.param .b32 odd_param_0)
{
  .reg .pred %p<2>;
  .reg .b32 %r<5>;
  ld.param.u32 %r1, [odd_param_0];
  mov.u32 %r4, 0;
  setp.eq.s32 %p1, %r1, 0;
  @%p1 bra $L__odd_done;
  add.s32 %r2, %r1, -1;
  {
  .param .b32 param0;
  st.param.b32 [param0+0], %r2;
  .param .b32 retval0;
  call.uni (retval0), even, (param0);
  ld.param.b32 %r4, [retval0+0];
  }
$L__odd_done:
  st.param.b32 [func_retval0+0], %r4;
  ret;
}

.func (.param .b32 func_retval0) sum(.param .b32 sum_param_0)
{
  .reg .pred %p<2>;
  .reg .b32 %r<5>;
  ld.param.u32 %r1, [sum_param_0];
  mov.u32 %r4, 0;
  setp.eq.s32 %p1, %r1, 0;
  @%p1 bra $L__sum_done;
  add.s32 %r2, %r1, -1;
  {
  .param .b32 param0;
  st.param.b32 [param0+0], %r2;
  .param .b32 retval0;
  call.uni (retval0), sum, (param0);
  ld.param.b32 %r3, [retval0+0];
  }
  add.s32 %r4, %r3, %r1;
$L__sum_done:
  st.param.b32 [func_retval0+0], %r4;
  ret;
}

.visible .entry k(.param .u64 k_param_0, .param .u32 k_param_1)
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [k_param_0];
  ld.param.u32 %r10, [k_param_1];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  rem.u32 %r2, %r1, 12;
  mov.u32 %r11, %ctaid.x;
  mov.u32 %r8, %ntid.x;
  mad.lo.s32 %r9, %r11, %r8, %r1;
  mul.lo.s32 %r9, %r9, 3;
  mul.wide.u32 %rd3, %r9, 4;
  add.s64 %rd4, %rd2, %rd3;
  {
  .param .b32 param0;
  st.param.b32 [param0+0], %r2;
  .param .b32 retval0;
  call.uni (retval0), g, (param0);
  ld.param.b32 %r3, [retval0+0];
  }
  st.global.u32 [%rd4], %r3;
  {
  .param .b32 param0;
  st.param.b32 [param0+0], %r1;
  .param .b32 retval0;
  call.uni (retval0), even, (param0);
  ld.param.b32 %r4, [retval0+0];
  }
  st.global.u32 [%rd4+4], %r4;
  and.b32 %r5, %r1, 3;
  add.s32 %r6, %r5, %r10;
  {
  .param .b32 param0;
  st.param.b32 [param0+0], %r6;
  .param .b32 retval0;
  call.uni (retval0), sum, (param0);
  ld.param.b32 %r7, [retval0+0];
  }
  st.global.u32 [%rd4+8], %r7;
  ret;
}
)";

int g(int n) { return n < 2 ? n : g(n - 1) + g(n - 2) + (n > 5); }

struct Memory : IFunctionalMemory {
  ptx::SparseMemory m;
  void read(uint64_t a, void* d, unsigned n) override { m.read(a, d, n); }
  void write(uint64_t a, const void* s, unsigned n) override { m.write(a, s, n); }
};

// The launch of k over `threads` threads with n = `n`, as a launch file beside the PTX.
struct Launch {
  compilertest::TempDir d;
  LaunchSpec spec;
  Launch(unsigned threads, unsigned n) {
    d.write("rec.ptx", kPtx);
    spec = load_launch(d.write(
        "rec.yaml",
        "name: rec\nptx: rec.ptx\nkernel: k\ngrid: [2]\nblock: [" + std::to_string(threads) +
            "]\nbuffers:\n  out: {type: s32, count: " + std::to_string(2 * 3 * threads) +
            ", init: {constant: 0}, output: true}\n"
            "params:\n  - {buffer: out}\n  - {u32: " +
            std::to_string(n) + "}\n"));
  }
};

// Runs the front-end as the timing model would consume it (issue round-robin, retire a few
// instructions later): every source checked against the shadow register file. Returns the
// records issued per opname prefix "st.local" / "ld.local" in `saves` / `restores`.
void run(PtxFrontend& fe, Memory& mem, uint64_t& saves, uint64_t& restores) {
  fe.start(SmLimits::slots(16), 1, mem);
  std::deque<std::unique_ptr<WarpInst>> flight;
  while (!fe.done()) {
    bool progress = false;
    for (unsigned w = 0; w < 16; ++w) {
      const InstInfo* info = fe.peek(w);
      if (!info) continue;
      auto inst = std::make_unique<WarpInst>();
      fe.execute(w, *inst);
      const std::string op = info->opname;
      if (op.rfind("st.local.b32 (save", 0) == 0) {
        ++saves;
        EXPECT_EQ(info->mem, MemKind::Store);
        EXPECT_EQ(info->space, MemSpace::Local);
        EXPECT_EQ(inst->access_bytes, 4u);
      }
      if (op.rfind("ld.local.b32 (restore", 0) == 0) {
        ++restores;
        EXPECT_EQ(info->mem, MemKind::Load);
      }
      flight.push_back(std::move(inst));
      progress = true;
      if (flight.size() > 5) {
        fe.retire(*flight.front());
        flight.pop_front();
      }
    }
    if (!progress) {
      ASSERT_FALSE(flight.empty()) << "deadlock";
      while (!flight.empty()) {
        fe.retire(*flight.front());
        flight.pop_front();
      }
    }
  }
}

} // namespace

TEST(CompilerRecursion, OneWindowPerRecursiveScc) {
  const ptx::Module m = ptx::parse_ptx(kPtx, "rec.ptx");
  for (const compiler::RegAllocMode mode :
       {compiler::RegAllocMode::LinearScan, compiler::RegAllocMode::PtxVirtual,
        compiler::RegAllocMode::PtxasLike}) {
    compiler::CompileOptions o;
    o.alloc.mode = mode;
    const compiler::KernelPlan k = compiler::compile_kernel(m, "k", o);
    EXPECT_TRUE(k.recursive);
    EXPECT_EQ(compiler::verify_kernel(k), "");
    const auto& fg = k.funcs[size_t(m.function_index("g"))];
    const auto& fe = k.funcs[size_t(m.function_index("even"))];
    const auto& fo = k.funcs[size_t(m.function_index("odd"))];
    const auto& fs = k.funcs[size_t(m.function_index("sum"))];
    const auto& fk = k.funcs[size_t(m.function_index("k"))];
    EXPECT_EQ(fk.scc, -1); // the kernel is no part of a cycle
    // even and odd: one SCC, one window; g and sum each their own.
    EXPECT_GE(fe.scc, 0);
    EXPECT_EQ(fe.scc, fo.scc);
    EXPECT_EQ(fe.base, fo.base);
    EXPECT_GE(fg.scc, 0);
    EXPECT_NE(fg.scc, fe.scc);
    EXPECT_NE(fs.scc, fg.scc);
    // Above the kernel's registers (its values live across its calls).
    EXPECT_GE(fg.base, fk.base + fk.regs.num_regs);
    // g's first call saves n (%r1) and the predicate %p2, the second the first's result
    // (%r3) and %p2: two words each.
    const ptx::Function& gf = *fg.func;
    std::vector<std::vector<std::string>> sites;
    for (unsigned i = 0; i < gf.instrs.size(); ++i) {
      if (fg.saves[i].empty()) continue;
      sites.emplace_back();
      for (unsigned v : fg.saves[i]) sites.back().push_back(gf.regs[v].name);
    }
    ASSERT_EQ(sites.size(), 2u);
    EXPECT_EQ(sites[0], (std::vector<std::string>{"%r1", "%p2"}));
    EXPECT_EQ(sites[1], (std::vector<std::string>{"%r3", "%p2"}));
    // 8 bytes of return address + 2 words, 16-byte aligned.
    EXPECT_EQ(fg.save_bytes, 16u);
    // even's call: nothing is live after it but the result: nothing saved; still a frame.
    for (const auto& sv : fe.saves) EXPECT_TRUE(sv.empty());
    EXPECT_EQ(fe.save_bytes, 16u);
  }
}

TEST(CompilerRecursion, RunsAndChecksEveryOperand) {
  const unsigned threads = 48, n = 20; // even(47): 48 frames of 16 bytes in the 1 KiB stack
  Launch l(threads, n);
  PtxFrontend fe(l.spec);
  Memory mem;
  uint64_t saves = 0, restores = 0;
  run(fe, mem, saves, restores);
  EXPECT_GT(saves, 0u);
  EXPECT_EQ(saves, restores);
  EXPECT_EQ(fe.issued(), fe.retired());
  EXPECT_GT(fe.operands_checked(), 0u);
  const std::vector<uint8_t> b = fe.buffer_contents(0);
  std::vector<int32_t> out(b.size() / 4);
  std::memcpy(out.data(), b.data(), b.size());
  for (unsigned c = 0; c < 2; ++c)
    for (unsigned t = 0; t < threads; ++t) {
      const int32_t* o = &out[3 * (c * threads + t)];
      EXPECT_EQ(o[0], g(int(t % 12))) << t;
      EXPECT_EQ(o[1], t % 2 == 0 ? 1 : 0) << t;
      const unsigned s = n + t % 4;
      EXPECT_EQ(o[2], int32_t(s * (s + 1) / 2)) << t;
    }
}

TEST(CompilerRecursion, DeeperThanTheStackStops) {
  // sum's frame is 16 bytes (return address + n), the kernel's 0: CUDA's default 1 KiB stack
  // holds 64 frames; sum(80) needs 81.
  Launch l(32, 80);
  PtxFrontend fe(l.spec);
  Memory mem;
  uint64_t saves = 0, restores = 0;
  try {
    run(fe, mem, saves, restores);
    FAIL() << "a recursion deeper than the stack ran";
  } catch (const WorkloadError& e) {
    const std::string w = e.what();
    EXPECT_NE(w.find("stack overflow: the call of 'sum' at call depth 65"), std::string::npos) << w;
    EXPECT_NE(w.find("(frames: k, sum x 65)"), std::string::npos) << w;
    EXPECT_NE(w.find("over the limit of 1024 bytes"), std::string::npos) << w;
    EXPECT_NE(w.find("cudaLimitStackSize"), std::string::npos) << w;
  }
}

TEST(CompilerRecursion, EngineBoundsTheStack) {
  // The engine alone: each frame of sum reserves its save area; the local limit stops it.
  const ptx::Module m = ptx::parse_ptx(kPtx, "rec.ptx");
  const compiler::KernelPlan k = compiler::compile_kernel(m, "k");
  ptx::LaunchConfig cfg;
  cfg.grid = {1};
  cfg.block = {32};
  cfg.local_bytes_per_thread = 512;
  cfg.max_call_depth = 1000;
  for (const auto& p : k.funcs) cfg.save_bytes.push_back(p.save_bytes);
  ptx::SparseMemory mem;
  const uint64_t out = mem.alloc(32 * 12);
  for (const uint32_t n : {20u, 40u}) {
    ptx::ParamPacker pk(ptx::Kernel::find_entry(m, "k"));
    pk.set(0, out).set(1, n);
    if (n == 20) { // 24 frames of 16 bytes (sum(23)) fit in 512
      EXPECT_NO_THROW(ptx::run_functional(m, "k", cfg, pk.bytes(), mem));
      EXPECT_EQ(mem.read_vec<int32_t>(out + 8, 1)[0], 210);
      continue;
    }
    try {
      ptx::run_functional(m, "k", cfg, pk.bytes(), mem);
      FAIL() << "sum(40) ran in 512 bytes of stack";
    } catch (const ptx::RuntimeError& e) {
      EXPECT_NE(std::string(e.what()).find("stack overflow: the call of 'sum' at call depth 33"),
                std::string::npos)
          << e.what();
    }
  }
}
