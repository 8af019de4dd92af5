#include "gpurf/modules/frontend/compiler/schedule.h"

#include <algorithm>
#include <stdexcept>

#include "gpurf/modules/frontend/compiler/constants.h"
#include "gpurf/modules/frontend/compiler/liveness.h"
#include "gpurf/modules/frontend/compiler/mode_names.h"
#include "gpurf/modules/frontend/compiler/regalloc.h"

namespace gpurf::compiler {

namespace {

// Ordered with every other such instruction; no load crosses it.
bool ordered(const ptx::Instr& in) {
  const ptx::OpTraits t = ptx::op_traits(in);
  if (t.is_store || t.is_atomic || t.barrier || t.call || t.ret || t.exit || t.branch) return true;
  switch (in.op) {
  case ptx::Op::Bar:
  case ptx::Op::Membar:
  case ptx::Op::Fence:
  case ptx::Op::Nanosleep:
  case ptx::Op::Griddepcontrol: // the dependent grid's loads stay after its wait
  case ptx::Op::Trap:           // nothing after it may run before it
  case ptx::Op::CpAsync:        // writes shared memory, in its group's order
  case ptx::Op::CpAsyncCommit:
  case ptx::Op::CpAsyncWait:
  case ptx::Op::Addc:
  case ptx::Op::Subc:
  case ptx::Op::Madc:
    return true;
  default:
    break;
  }
  if (in.cc) return true;
  for (const ptx::Operand& o : in.src)
    if (o.kind == ptx::Operand::Kind::Special &&
        (o.sreg == ptx::SReg::Clock || o.sreg == ptx::SReg::Clock64 ||
         o.sreg == ptx::SReg::Globaltimer))
      return true;
  return false;
}

// A load some ordered instruction may write (not a kernel parameter or constant).
bool memory_load(const ptx::Function& f, const ptx::Instr& in) {
  const ptx::OpTraits t = ptx::op_traits(in);
  if (!t.is_load && in.op != ptx::Op::Prefetch) return false;
  return in.space != ptx::Space::Const && !is_kernel_param_load(f, in);
}

unsigned latency(const ptx::Instr& in, bool hidden) {
  if (hidden) return 0;
  const ptx::OpTraits t = ptx::op_traits(in);
  if (t.is_load) return t.long_latency ? 200 : 20;
  if (t.pipe == Pipe::SFU) return 16;
  if (t.pipe == Pipe::DP) return 8;
  return 4;
}

bool terminator(const ptx::Instr& in) {
  return in.op == ptx::Op::Bra || in.op == ptx::Op::Ret || in.op == ptx::Op::Exit;
}

void schedule_block(ptx::Function& f, const Liveness& lv, const ConstantOperands& c, unsigned b,
                    unsigned budget) {
  const ptx::BasicBlock& bb = lv.cfg.blocks[b];
  const unsigned lo = bb.begin, n = bb.end - bb.begin;
  if (n < 3) return;
  // Dependence DAG (predecessor counts and successor lists, block-local indices).
  std::vector<std::vector<unsigned>> succ(n);
  std::vector<unsigned> npred(n, 0);
  auto edge = [&](unsigned from, unsigned to) {
    if (from == to) return;
    if (std::find(succ[from].begin(), succ[from].end(), to) != succ[from].end()) return;
    succ[from].push_back(to);
    ++npred[to];
  };
  const unsigned nr = unsigned(f.regs.size());
  std::vector<int> last_def(nr, -1);
  std::vector<std::vector<unsigned>> reads_since(nr);
  int last_ordered = -1;
  std::vector<unsigned> loads_since;
  std::vector<unsigned> r, w;
  const bool has_term = terminator(f.instrs[bb.end - 1]);
  for (unsigned i = 0; i < n; ++i) {
    const ptx::Instr& in = f.instrs[lo + i];
    ptx::reads_writes(f, in, r, w);
    for (unsigned v : r)
      if (last_def[v] >= 0) edge(unsigned(last_def[v]), i);
    for (unsigned v : w) {
      if (last_def[v] >= 0) edge(unsigned(last_def[v]), i);
      for (unsigned u : reads_since[v]) edge(u, i);
    }
    for (unsigned v : r) reads_since[v].push_back(i);
    for (unsigned v : w) {
      last_def[v] = int(i);
      reads_since[v].clear();
    }
    if (ordered(in)) {
      if (last_ordered >= 0) edge(unsigned(last_ordered), i);
      for (unsigned l : loads_since) edge(l, i);
      loads_since.clear();
      last_ordered = int(i);
    } else if (memory_load(f, in)) {
      if (last_ordered >= 0) edge(unsigned(last_ordered), i);
      loads_since.push_back(i);
    }
    if (has_term && i == n - 1)
      for (unsigned k = 0; k + 1 < n; ++k) edge(k, i);
  }
  // Latency-weighted height (successors have larger indices: one backward sweep).
  std::vector<unsigned> height(n, 0);
  for (unsigned i = n; i-- > 0;) {
    unsigned h = 0;
    for (unsigned s : succ[i]) h = std::max(h, height[s]);
    height[i] = h + latency(f.instrs[lo + i], c.hidden[lo + i]);
  }
  // Register pressure (32-bit data registers; constant operands excluded).
  std::vector<unsigned> remaining(nr, 0);
  for (unsigned i = 0; i < n; ++i)
    for (unsigned v : lv.ud[lo + i].uses) ++remaining[v];
  std::vector<bool> live(nr, false);
  unsigned pressure = 0;
  auto width = [&](unsigned v) { return f.regs[v].is_pred ? 0u : reg_width(f.regs[v]); };
  lv.block_in[b].for_each([&](unsigned v) {
    live[v] = true;
    pressure += width(v);
  });
  const RegSet& out = lv.block_out[b];
  auto dies = [&](unsigned v, const UseDef& u) {
    return remaining[v] == 1 && !out.test(v) &&
           std::find(u.defs.begin(), u.defs.end(), v) == u.defs.end();
  };
  auto delta = [&](unsigned i) {
    const UseDef& u = lv.ud[lo + i];
    int d = 0;
    for (unsigned v : u.defs)
      if (!live[v]) d += int(width(v));
    for (unsigned v : u.uses)
      if (live[v] && dies(v, u)) d -= int(width(v));
    return d;
  };
  std::vector<unsigned> ready, order;
  for (unsigned i = 0; i < n; ++i)
    if (npred[i] == 0) ready.push_back(i);
  while (!ready.empty()) {
    size_t pick = 0;
    bool pick_fits = false;
    int pick_delta = 0;
    for (size_t k = 0; k < ready.size(); ++k) {
      const unsigned i = ready[k];
      const int d = delta(i);
      const bool fits = int(pressure) + std::max(d, 0) <= int(budget);
      const unsigned p = ready[pick];
      bool better;
      if (k == 0)
        better = true;
      else if (fits != pick_fits)
        better = fits;
      else if (!fits && d != pick_delta)
        better = d < pick_delta;
      else
        better = height[i] != height[p] ? height[i] > height[p] : i < p;
      if (better) pick = k, pick_fits = fits, pick_delta = d;
    }
    const unsigned i = ready[pick];
    ready.erase(ready.begin() + long(pick));
    order.push_back(i);
    const UseDef& u = lv.ud[lo + i];
    for (unsigned v : u.uses) {
      if (live[v] && dies(v, u)) {
        live[v] = false;
        pressure -= width(v);
      }
      --remaining[v];
    }
    for (unsigned v : u.defs) {
      if (!live[v]) pressure += width(v);
      live[v] = true;
      if (remaining[v] == 0 && !out.test(v)) { // a dead definition frees its register at once
        live[v] = false;
        pressure -= width(v);
      }
    }
    for (unsigned s : succ[i])
      if (--npred[s] == 0) ready.push_back(s);
  }
  if (order.size() != n) throw std::logic_error("schedule: dependence cycle in '" + f.name + "'");
  std::vector<ptx::Instr> block(f.instrs.begin() + lo, f.instrs.begin() + lo + n);
  for (unsigned k = 0; k < n; ++k) f.instrs[lo + k] = std::move(block[order[k]]);
}

} // namespace

const std::vector<std::string>& schedule_names() {
  static const std::vector<std::string> names = {"none", "list"};
  return names;
}

Schedule schedule_mode(const std::string& name) {
  return mode_from_name<Schedule>(schedule_names(), name, "schedule");
}

void schedule_function(ptx::Function& f, unsigned budget, bool constant_operands) {
  if (!f.has_body || f.instrs.empty()) return;
  const ConstantOperands c = compiler::constant_operands(f, constant_operands);
  LivenessOptions lo;
  if (constant_operands) lo.constant = c.vreg;
  const Liveness lv = compute_liveness(f, lo);
  if (budget == 0) budget = allocate_registers(f, lv).num_regs;
  for (unsigned b = 0; b < lv.cfg.blocks.size(); ++b) schedule_block(f, lv, c, b, budget);
}

ptx::Module schedule_module(const ptx::Module& m, const std::string& entry,
                            const ScheduleOptions& opt) {
  ptx::Module s = m;
  for (ptx::Function& f : s.functions)
    schedule_function(f, f.name == entry ? opt.entry_budget : 0, opt.constant_operands);
  return s;
}

} // namespace gpurf::compiler
