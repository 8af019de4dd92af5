#include "gpurf/modules/frontend/compiler/compile.h"

#include <algorithm>
#include <functional>
#include <sstream>

namespace gpurf::compiler {

const FunctionPlan* KernelPlan::plan(const ptx::Function& f) const {
  if (!module) return nullptr;
  for (size_t i = 0; i < module->functions.size(); ++i)
    if (&module->functions[i] == &f) return funcs[i].func ? &funcs[i] : nullptr;
  return nullptr;
}

KernelPlan compile_kernel(const ptx::Module& m, const std::string& entry,
                          const CompileOptions& opt) {
  KernelPlan k;
  k.module = &m;
  const int ei = m.function_index(entry);
  if (ei < 0 || !m.functions[size_t(ei)].is_entry || !m.functions[size_t(ei)].has_body) {
    std::string names;
    for (const auto& n : m.entry_names()) names += (names.empty() ? "" : ", ") + n;
    throw CompileError("unknown kernel '" + entry + "'; entries: " + names);
  }
  k.entry = &m.functions[size_t(ei)];
  k.funcs.resize(m.functions.size());

  // Call graph from the entry: topological order (callers first), recursion rejected.
  std::vector<int> state(m.functions.size(), 0); // 0 new, 1 on stack, 2 done
  std::vector<unsigned> post;
  std::vector<std::vector<unsigned>> callees(m.functions.size());
  std::function<void(unsigned, const std::string&)> visit = [&](unsigned fi,
                                                                const std::string& chain) {
    state[fi] = 1;
    const ptx::Function& f = m.functions[fi];
    for (const ptx::Instr& in : f.instrs) {
      if (in.op != ptx::Op::Call || in.callee < 0) continue;
      const unsigned c = unsigned(in.callee);
      const ptx::Function& cf = m.functions[c];
      if (!cf.has_body) {
        if (cf.name == "vprintf" || cf.name == "__assertfail") continue; // the engine runs them
        throw CompileError(m.filename + ":" + std::to_string(in.ptx_line) + ": call of '" +
                           cf.name + "', which has no body");
      }
      if (state[c] == 1)
        throw CompileError(m.filename + ":" + std::to_string(in.ptx_line) + ": recursive call " +
                           chain + " -> " + cf.name + " (not supported by the register allocator)");
      if (std::find(callees[fi].begin(), callees[fi].end(), c) == callees[fi].end())
        callees[fi].push_back(c);
      if (state[c] == 0) visit(c, chain + " -> " + cf.name);
    }
    state[fi] = 2;
    post.push_back(fi);
  };
  visit(unsigned(ei), k.entry->name);

  std::vector<unsigned> stack(m.functions.size(), 0);
  for (unsigned fi : post) {
    FunctionPlan& p = k.funcs[fi];
    p.func = &m.functions[fi];
    p.constants = constant_operands(*p.func, opt.constant_operands);
    LivenessOptions lo = opt.liveness;
    if (opt.constant_operands) lo.constant = p.constants.vreg;
    p.liveness = compute_liveness(*p.func, lo);
    // Registers stacked above this function by its callees (allocated first: postorder).
    unsigned above = 0;
    for (unsigned c : callees[fi]) above = std::max(above, stack[c]);
    AllocOptions ao = opt.alloc;
    // ptxas's count covers the whole kernel: the entry gets what its callees leave.
    ao.target_regs = p.func == k.entry && ao.target_regs > above ? ao.target_regs - above : 0;
    p.regs = allocate_registers(*p.func, p.liveness, ao);
    stack[fi] = p.regs.num_regs + above;
    p.long_latency = mark_long_latency(*p.func, p.liveness);
    p.rfc = rfc_hints(*p.func, p.liveness, p.long_latency);
  }
  // Bases in topological order (reverse postorder: callers before callees).
  unsigned regs = 0, preds = 0;
  for (auto it = post.rbegin(); it != post.rend(); ++it) {
    FunctionPlan& p = k.funcs[*it];
    for (unsigned c : callees[*it]) {
      FunctionPlan& q = k.funcs[c];
      unsigned next = p.base + p.regs.num_regs;
      if (opt.alloc.mode == RegAllocMode::PtxVirtual) next = ptx_virtual_start(next);
      q.base = std::max(q.base, next);
      q.pred_base = std::max(q.pred_base, p.pred_base + p.regs.num_preds);
    }
    regs = std::max(regs, p.base + p.regs.num_regs);
    preds = std::max(preds, p.pred_base + p.regs.num_preds);
  }
  k.regs_per_thread = std::max(1u, regs);
  for (const FunctionPlan& p : k.funcs)
    if (p.func)
      for (size_t v = 0; v < p.func->regs.size(); ++v)
        if (p.regs.reg[v] >= 0 && !p.func->regs[v].is_pred) k.value_regs += p.regs.width[v];
  k.preds_per_thread = preds;
  return k;
}

std::string verify_kernel(const KernelPlan& k) {
  for (const FunctionPlan& p : k.funcs) {
    if (!p.func) continue;
    std::string e = verify_allocation(*p.func, p.liveness, p.regs);
    if (!e.empty()) return e;
    if (p.base + p.regs.num_regs > k.regs_per_thread)
      return "'" + p.func->name + "' uses registers beyond regs_per_thread";
    for (const ptx::Instr& in : p.func->instrs) {
      if (in.op != ptx::Op::Call || in.callee < 0) continue;
      const FunctionPlan& q = k.funcs[size_t(in.callee)];
      if (q.func && q.base < p.base + p.regs.num_regs)
        return "callee '" + q.func->name + "' range overlaps its caller '" + p.func->name + "'";
    }
  }
  return "";
}

std::string describe_plan(const KernelPlan& k, bool with_map) {
  std::ostringstream o;
  o << "kernel " << (k.entry ? k.entry->name : "?") << ": " << k.regs_per_thread << " registers, "
    << k.preds_per_thread << " predicates per thread\n";
  for (const FunctionPlan& p : k.funcs) {
    if (!p.func) continue;
    unsigned data = 0, wide = 0, pr = 0;
    for (size_t v = 0; v < p.func->regs.size(); ++v) {
      if (p.regs.reg[v] < 0) continue;
      if (p.func->regs[v].is_pred)
        ++pr;
      else
        (p.regs.width[v] == 2 ? wide : data) += 1;
    }
    o << "  " << (p.func->is_entry ? ".entry " : ".func ") << p.func->name << ": r" << p.base
      << "..r" << (p.base + p.regs.num_regs) - (p.regs.num_regs ? 1 : 0) << " (" << p.regs.num_regs
      << " registers for " << data << " 32-bit and " << wide
      << " 64-bit vregs, order: " << p.regs.order << "), " << p.regs.num_preds << " predicates for "
      << pr << " vregs\n";
    if (!with_map) continue;
    for (size_t v = 0; v < p.func->regs.size(); ++v) {
      if (p.regs.reg[v] < 0) continue;
      o << "    " << p.func->regs[v].name << " -> ";
      if (p.func->regs[v].is_pred)
        o << "p" << p.pred_base + unsigned(p.regs.reg[v]);
      else if (p.regs.width[v] == 2)
        o << "r" << p.arch(unsigned(v)) << ":r" << p.arch(unsigned(v), 1);
      else
        o << "r" << p.arch(unsigned(v));
      o << "\n";
    }
  }
  return o.str();
}

} // namespace gpurf::compiler
