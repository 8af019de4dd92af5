// The instruction-stream modes of Gebhart, Malekeh and WIR (ptxas-compiled code): ptxas_like
// allocation, list scheduling and constant operands, checked against ptxas -v and against
// an independent re-derivation of every dependence the scheduler must keep.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "gpurf/modules/frontend/compiler/compile.h"
#include "gpurf/modules/frontend/compiler/ptxas_table.h"
#include "gpurf/modules/frontend/compiler/schedule.h"
#include "gpurf/modules/frontend/compiler/tensor_split.h"
#include "gpurf/modules/frontend/ptx/parser.h"
#include "tests/unit/compiler_test_util.h"

using namespace gpurf;
using namespace gpurf::compiler;

namespace {

std::string ptx_path(const std::string& name) {
  return compilertest::workloads() + "/ptx/" + name + ".ptx";
}

// The kernel as the ptxas_like platforms compile it: constants folded, list-scheduled within
// ptxas's count, allocated by `mode` (ptxas_like: spread over ptxas's count).
struct Compiled {
  ptx::Module m;
  KernelPlan plan;
  unsigned ptxas = 0;
};

Compiled compile_as_ptxas(const std::string& name, RegAllocMode mode = RegAllocMode::PtxasLike,
                          bool schedule = true) {
  Compiled c;
  const auto px = ptxas_info(ptx_path(name), name);
  c.ptxas = px ? px->registers : 0;
  c.m = ptx::parse_ptx_file(ptx_path(name));
  // Tensor instructions as the front-end issues them on these (Turing-shaped) platforms.
  if (has_tensor_split(c.m, {8})) c.m = split_tensor(c.m, {8});
  if (schedule) c.m = schedule_module(c.m, name, {c.ptxas, true});
  CompileOptions o;
  o.alloc.mode = mode;
  o.alloc.target_regs = mode == RegAllocMode::PtxasLike ? c.ptxas : 0;
  o.constant_operands = true;
  c.plan = compile_kernel(c.m, name, o);
  return c;
}

// Same-bank source pairs (bank = register % 2) over every function of the kernel.
unsigned same_bank_pairs(const KernelPlan& k) {
  unsigned n = 0;
  for (const FunctionPlan& p : k.funcs)
    if (p.func) n += same_bank_source_pairs(*p.func, p.liveness, p.regs, 2);
  return n;
}

} // namespace

// The Must-show bar: every suite kernel within +-10% of ptxas -v, and a valid allocation.
TEST(CompilerPtxasLike, SuiteRegisterCountsWithinTenPercentOfPtxas) {
  for (const std::string& name : compilertest::suite()) {
    SCOPED_TRACE(name);
    const Compiled c = compile_as_ptxas(name);
    ASSERT_GT(c.ptxas, 0u) << "no ptxas -v row";
    EXPECT_EQ(verify_kernel(c.plan), "");
    EXPECT_GE(c.plan.regs_per_thread * 10, c.ptxas * 9) << c.plan.regs_per_thread;
    EXPECT_LE(c.plan.regs_per_thread * 10, c.ptxas * 11) << c.plan.regs_per_thread;
  }
}

// Spreading: values take registers over the whole range, and a register is written again
// much later than under the lowest-free colouring (so a register-file cache tagged by
// register number sees new values, not in-place overwrites). Bank awareness: fewer same-bank
// source pairs than the bank-unaware colouring of the same code.
TEST(CompilerPtxasLike, SpreadsValuesAndAvoidsSameBankSources) {
  double gap_like = 0, gap_scan = 0;
  unsigned pairs_like = 0, pairs_scan = 0;
  for (const std::string& name : compilertest::suite()) {
    SCOPED_TRACE(name);
    const Compiled like = compile_as_ptxas(name);
    const Compiled scan = compile_as_ptxas(name, RegAllocMode::LinearScan);
    const FunctionPlan& p = *like.plan.plan(*like.plan.entry);
    std::set<unsigned> used;
    unsigned words = 0; // registers the values would fill without reuse
    for (size_t v = 0; v < p.func->regs.size(); ++v)
      if (p.regs.reg[v] >= 0 && !p.func->regs[v].is_pred) {
        words += p.regs.width[v];
        for (unsigned h = 0; h < p.regs.width[v]; ++h) used.insert(p.arch(unsigned(v), h));
      }
    EXPECT_GE(used.size() * 10, std::min(words * 10, p.regs.num_regs * 9u))
        << used.size() << " of " << p.regs.num_regs << " for " << words << " words";
    // Mean distance, in instructions, between consecutive writes of one register.
    auto gap = [](const KernelPlan& k) {
      const FunctionPlan& f = *k.plan(*k.entry);
      std::map<unsigned, unsigned> last;
      double sum = 0;
      unsigned n = 0;
      for (unsigned i = 0; i < f.liveness.ud.size(); ++i)
        for (unsigned v : f.liveness.ud[i].defs) {
          if (f.func->regs[v].is_pred) continue;
          const unsigned r = f.arch(v);
          if (last.count(r)) sum += i - last[r], ++n;
          last[r] = i;
        }
      return n ? sum / n : 0.0;
    };
    gap_like += gap(like.plan);
    gap_scan += gap(scan.plan);
    // An mma reads 5 to 10 registers from the two banks: same-bank pairs are forced whatever
    // the colouring (pigeonhole), so the bank-awareness bar is over the other kernels.
    bool tensor = false;
    for (const ptx::Instr& in : p.func->instrs) tensor |= in.op == ptx::Op::Mma;
    if (!tensor) {
      pairs_like += same_bank_pairs(like.plan);
      pairs_scan += same_bank_pairs(scan.plan);
    }
  }
  EXPECT_GT(gap_like, 1.5 * gap_scan) << gap_like << " vs " << gap_scan;
  EXPECT_LT(pairs_like * 4, pairs_scan * 3) << pairs_like << " vs " << pairs_scan;
}

// An independent legality check of the list scheduler on every suite kernel: per basic
// block the same instructions; every read sees the same producer (the last write of that
// vreg before it in the block, or the block's entry value); the writes of a vreg keep their
// order; instructions with memory effects keep their order, and no memory load crosses one;
// the terminator stays last.
TEST(CompilerSchedule, KeepsEveryDependence) {
  for (const std::string& name : compilertest::suite()) {
    SCOPED_TRACE(name);
    const ptx::Module before = ptx::parse_ptx_file(ptx_path(name));
    const ptx::Module after = schedule_module(before, name, {0, true});
    unsigned moved = 0;
    for (size_t fi = 0; fi < before.functions.size(); ++fi) {
      const ptx::Function& f0 = before.functions[fi];
      const ptx::Function& f1 = after.functions[fi];
      ASSERT_EQ(f0.instrs.size(), f1.instrs.size());
      if (!f0.has_body) continue;
      const ptx::Cfg cfg = ptx::build_cfg(f0);
      for (const ptx::BasicBlock& bb : cfg.blocks) {
        // Identity of an instruction: its PTX line (one instruction per line in nvcc output).
        auto id = [&](const ptx::Function& f, unsigned i) { return f.instrs[i].ptx_line; };
        std::multiset<unsigned> a, b;
        for (unsigned i = bb.begin; i < bb.end; ++i) a.insert(id(f0, i)), b.insert(id(f1, i));
        ASSERT_EQ(a, b);
        ASSERT_EQ(a.size(), std::set<unsigned>(a.begin(), a.end()).size()) << "lines not unique";
        // Per instruction: producer line of each read vreg, order of writes, effect order.
        auto facts = [&](const ptx::Function& f) {
          std::map<std::pair<unsigned, unsigned>, unsigned> producer; // (line, vreg) -> line
          std::map<unsigned, std::vector<unsigned>> writes;           // vreg -> lines
          std::vector<unsigned> effects;                              // lines, in order
          std::map<unsigned, unsigned> last;
          std::vector<unsigned> r, w;
          for (unsigned i = bb.begin; i < bb.end; ++i) {
            const ptx::Instr& in = f.instrs[i];
            ptx::reads_writes(f, in, r, w);
            for (unsigned v : r) producer[{in.ptx_line, v}] = last.count(v) ? last[v] : 0;
            for (unsigned v : w) last[v] = in.ptx_line, writes[v].push_back(in.ptx_line);
            const ptx::OpTraits t = ptx::op_traits(in);
            const bool param_or_const =
                in.space == ptx::Space::Const ||
                (f.is_entry && in.space == ptx::Space::Param && !in.src.empty() &&
                 !in.src[0].has_base_reg && in.src[0].sym.scope == ptx::SymRef::Scope::Param);
            const bool load = (t.is_load || in.op == ptx::Op::Prefetch) && !param_or_const;
            const bool effect = t.is_store || t.is_atomic || t.barrier || t.call || t.ret ||
                                t.exit || t.branch || in.op == ptx::Op::Bar ||
                                in.op == ptx::Op::Membar || in.op == ptx::Op::Fence || in.cc;
            if (effect || load) effects.push_back(in.ptx_line * 2 + (effect ? 1 : 0));
          }
          return std::make_tuple(producer, writes, effects);
        };
        const auto [p0, w0, e0] = facts(f0);
        const auto [p1, w1, e1] = facts(f1);
        EXPECT_EQ(p0, p1) << "a read sees another producer in block at pc " << bb.begin;
        EXPECT_EQ(w0, w1) << "writes of a vreg reordered in block at pc " << bb.begin;
        // Loads may pass each other, never an effect: compare the order of effects and, for
        // each load, the effects before it.
        auto split = [](const std::vector<unsigned>& e) {
          std::vector<unsigned> eff;
          std::map<unsigned, unsigned> effects_before_load;
          for (unsigned x : e)
            if (x & 1)
              eff.push_back(x / 2);
            else
              effects_before_load[x / 2] = unsigned(eff.size());
          return std::make_pair(eff, effects_before_load);
        };
        EXPECT_EQ(split(e0), split(e1)) << "memory order changed in block at pc " << bb.begin;
        const ptx::Instr& term = f0.instrs[bb.end - 1];
        if (term.op == ptx::Op::Bra || term.op == ptx::Op::Ret || term.op == ptx::Op::Exit) {
          EXPECT_EQ(f1.instrs[bb.end - 1].ptx_line, term.ptx_line);
        }
        for (unsigned i = bb.begin; i < bb.end; ++i) moved += id(f0, i) != id(f1, i);
      }
    }
    EXPECT_GT(moved, 0u) << "the scheduler moved nothing";
  }
}

// The point of the pass: long-latency loads issue earlier. Summed over the suite, the
// instructions between a global load and the first read of its result grow.
TEST(CompilerSchedule, HoistsLongLatencyLoads) {
  auto distance = [](const ptx::Module& m) {
    unsigned long sum = 0;
    for (const ptx::Function& f : m.functions) {
      if (!f.has_body) continue;
      const ptx::Cfg cfg = ptx::build_cfg(f);
      std::vector<unsigned> r, w;
      for (const ptx::BasicBlock& bb : cfg.blocks)
        for (unsigned i = bb.begin; i < bb.end; ++i) {
          if (!ptx::op_traits(f.instrs[i]).long_latency) continue;
          ptx::reads_writes(f, f.instrs[i], r, w);
          const std::set<unsigned> dst(w.begin(), w.end());
          for (unsigned j = i + 1; j < bb.end; ++j) {
            ptx::reads_writes(f, f.instrs[j], r, w);
            if (std::any_of(r.begin(), r.end(), [&](unsigned v) { return dst.count(v); })) {
              sum += j - i;
              break;
            }
          }
        }
    }
    return sum;
  };
  unsigned long before = 0, after = 0;
  for (const std::string& name : compilertest::suite()) {
    const ptx::Module m = ptx::parse_ptx_file(ptx_path(name));
    before += distance(m);
    after += distance(schedule_module(m, name, {0, true}));
  }
  EXPECT_GT(after, before + before / 4) << after << " vs " << before;
}

// The register budget bounds the pressure the scheduler creates: the most 32-bit data
// registers live at once never exceed the budget unless nvcc's order already did.
TEST(CompilerSchedule, StaysWithinTheRegisterBudget) {
  auto max_live = [](const ptx::Function& f) {
    LivenessOptions lo;
    lo.constant = constant_operands(f).vreg;
    const Liveness lv = compute_liveness(f, lo);
    unsigned most = 0;
    for (const RegSet& s : lv.live_in) {
      unsigned n = 0;
      s.for_each([&](unsigned v) { n += reg_width(f.regs[v]); });
      most = std::max(most, n);
    }
    return most;
  };
  for (const std::string& name : compilertest::suite()) {
    SCOPED_TRACE(name);
    ptx::Module m = ptx::parse_ptx_file(ptx_path(name));
    if (has_tensor_split(m, {8})) m = split_tensor(m, {8}); // what the front-end schedules
    const unsigned budget = ptxas_info(ptx_path(name), name)->registers;
    const ptx::Module s = schedule_module(m, name, {budget, true});
    for (size_t fi = 0; fi < m.functions.size(); ++fi) {
      if (!m.functions[fi].is_entry || !m.functions[fi].has_body) continue;
      EXPECT_LE(max_live(s.functions[fi]), std::max(budget, max_live(m.functions[fi])));
    }
  }
}

// Kernel parameters, immediates and cvta of either become constant operands only when written
// once, unguarded; a .func's parameters arrive in registers.
TEST(CompilerConstants, ParametersImmediatesAndTheirCvta) {
  const char* ptx = R"(.version 7.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 pa, .param .u32 pn)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [pa];
  ld.param.u32 %r1, [pn];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r2, 7;
  mov.u32 %r3, 1;
  mov.u32 %r3, 2;
  mov.u32 %r4, %tid.x;
  setp.lt.u32 %p1, %r4, %r1;
  @%p1 mov.u32 %r5, 3;
  add.s32 %r6, %r4, %r2;
  add.s32 %r6, %r6, %r3;
  add.s32 %r6, %r6, %r5;
  st.global.u32 [%rd2], %r6;
  ret;
}
)";
  const ptx::Module m = ptx::parse_ptx(ptx, "c.ptx");
  const ptx::Function& f = *m.find_function("k");
  const ConstantOperands c = constant_operands(f);
  auto constant = [&](const char* n) { return bool(c.vreg[unsigned(f.find_reg(n))]); };
  EXPECT_TRUE(constant("%rd1"));
  EXPECT_TRUE(constant("%r1"));
  EXPECT_TRUE(constant("%rd2")); // cvta.to.global of a parameter
  EXPECT_TRUE(constant("%r2"));
  EXPECT_FALSE(constant("%r3")); // written twice
  EXPECT_FALSE(constant("%r4")); // special register: S2R needs a register
  EXPECT_FALSE(constant("%r5")); // guarded
  EXPECT_FALSE(constant("%r6"));
  unsigned hidden = 0;
  for (bool h : c.hidden) hidden += h;
  EXPECT_EQ(hidden, 4u);
  // Constant operands take no register and are no sources.
  CompileOptions with;
  with.constant_operands = true;
  const KernelPlan a = compile_kernel(m, "k"), b = compile_kernel(m, "k", with);
  EXPECT_EQ(verify_kernel(b), "");
  EXPECT_LT(b.regs_per_thread, a.regs_per_thread);
  const FunctionPlan& p = *b.plan(f);
  for (const UseDef& u : p.liveness.ud)
    for (unsigned v : u.uses) EXPECT_FALSE(c.vreg[v]) << f.regs[v].name;
}

// The ptxas -v table: found beside the PTX or one folder up, a missing kernel is absent, a
// malformed row names the file, the line and the expected format.
TEST(CompilerPtxasTable, LookupAndErrors) {
  EXPECT_EQ(ptxas_info(ptx_path("sgemm"), "sgemm")->registers, 39u);
  EXPECT_FALSE(ptxas_info(ptx_path("sgemm"), "no_such_kernel"));
  compilertest::TempDir d;
  const std::string ptx = d.write("k.ptx", "");
  EXPECT_FALSE(ptxas_info(ptx, "k"));
  d.write("ptxas-registers.txt", "# kernel registers shared stack spill\nk 12 0 0 0\n");
  EXPECT_EQ(ptxas_info(ptx, "k")->registers, 12u);
  d.write("ptxas-registers.txt", "# header\nk 12 zero 0 0\n");
  try {
    ptxas_info(ptx, "k");
    FAIL() << "expected a CompileError";
  } catch (const CompileError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("ptxas-registers.txt:2"), std::string::npos) << msg;
    EXPECT_NE(msg.find("k 12 zero 0 0"), std::string::npos) << msg;
    EXPECT_NE(msg.find("KERNEL REGISTERS SHARED STACK SPILL"), std::string::npos) << msg;
  }
}
