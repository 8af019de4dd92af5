#include "gpurf/modules/frontend/compiler/compile.h"
#include "gpurf/platform/text.h"

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

namespace {

std::string line_of(const ptx::Module& m, unsigned line) {
  return m.filename + ":" + std::to_string(line);
}

// A call names its callee's parameters in number and size (ptxas refuses any other), found at
// load rather than when a warp first runs it.
void check_call(const ptx::Module& m, const ptx::Function& f, const ptx::Instr& in,
                const ptx::Function& cf) {
  const std::string decl = "'" + cf.name + "' (declared at " + line_of(m, cf.decl_line) + ")";
  auto fail = [&](const std::string& what) {
    throw CompileError(line_of(m, in.ptx_line) + ": call of " + decl + " " + what);
  };
  if (in.src.size() != cf.params.size())
    fail("with " + std::to_string(in.src.size()) + " arguments; it takes " +
         std::to_string(cf.params.size()));
  if (in.dst.size() > cf.ret_params.size())
    fail("expects " + std::to_string(in.dst.size()) + " return values; it has " +
         std::to_string(cf.ret_params.size()));
  // The bytes of a .param argument as declared by the caller (0: not a .param variable).
  auto size_of = [&](const ptx::Operand& o) -> uint64_t {
    if (o.kind != ptx::Operand::Kind::Symbol) return 0;
    if (o.sym.scope == ptx::SymRef::Scope::Local && o.sym.index < f.locals.size() &&
        f.locals[o.sym.index].space == ptx::Space::Param)
      return f.locals[o.sym.index].size;
    if (o.sym.scope == ptx::SymRef::Scope::Param && o.sym.index < f.params.size())
      return f.params[o.sym.index].size;
    return 0;
  };
  auto check_sizes = [&](const std::vector<ptx::Operand>& ops,
                         const std::vector<ptx::Param>& formal, const char* what) {
    for (size_t i = 0; i < ops.size() && i < formal.size(); ++i)
      if (const uint64_t n = size_of(ops[i]); n && n != formal[i].size)
        fail("passes " + std::to_string(n) + " bytes as its " + what + " " + std::to_string(i + 1) +
             " ('" + formal[i].name + "'), which has " + std::to_string(formal[i].size) + " bytes");
  };
  check_sizes(in.src, cf.params, "parameter");
  check_sizes(in.dst, cf.ret_params, "return parameter");
}

// Local memory is a stack of the .local frames along a call path (as the engine places them,
// modules/frontend/ptx/engine.cpp): the deepest path must fit the per-thread limit. Names
// the largest .local declaration on that path.
uint64_t check_local_memory(const ptx::Module& m, const std::vector<std::vector<unsigned>>& callees,
                            const std::vector<unsigned>& post, uint64_t limit) {
  const size_t n = m.functions.size();
  std::vector<uint64_t> frame(n, 0), depth(n, 0);
  std::vector<int> next(n, -1); // the callee on the deepest path
  for (unsigned fi : post) {    // callees first
    uint64_t cur = 0;
    for (const ptx::VarDecl& v : m.functions[fi].locals)
      if (v.space == ptx::Space::Local) {
        const uint64_t a = std::max(1u, v.align);
        cur = (cur + a - 1) / a * a + v.size;
      }
    frame[fi] = (cur + 15) / 16 * 16;
    for (unsigned c : callees[fi])
      if (depth[c] > depth[fi]) depth[fi] = depth[c], next[fi] = int(c);
    depth[fi] += frame[fi];
  }
  const unsigned entry = post.back();
  if (!limit || depth[entry] <= limit) return depth[entry];
  const ptx::VarDecl* big = nullptr;
  const ptx::Function* owner = nullptr;
  std::string path;
  for (int fi = int(entry); fi >= 0; fi = next[size_t(fi)]) {
    const ptx::Function& f = m.functions[size_t(fi)];
    path += (path.empty() ? "" : " -> ") + f.name;
    for (const ptx::VarDecl& v : f.locals)
      if (v.space == ptx::Space::Local && (!big || v.size > big->size)) big = &v, owner = &f;
  }
  throw CompileError(line_of(m, big->line) + ": .local '" + big->name + "' of '" + owner->name +
                     "' (" + std::to_string(big->size) + " bytes): the kernel needs " +
                     std::to_string(depth[entry]) +
                     " bytes of local memory per thread (call path " + path +
                     "), over the limit of " + std::to_string(limit) +
                     " bytes per thread (CUDA's, PtxFrontend::kMaxLocalBytesPerThread); make "
                     "the .local arrays smaller");
}

} // namespace

KernelPlan compile_kernel(const ptx::Module& m, const std::string& entry,
                          const CompileOptions& opt) {
  KernelPlan k;
  k.module = &m;
  const int ei = m.function_index(entry);
  if (ei < 0 || !m.functions[size_t(ei)].is_entry || !m.functions[size_t(ei)].has_body) {
    throw CompileError(m.no_entry(entry) + "; entries: " + join(m.entry_names()));
  }
  k.entry = &m.functions[size_t(ei)];
  k.funcs.resize(m.functions.size());

  // Call graph from the entry: topological order (callers first), recursion rejected.
  std::vector<int> state(m.functions.size(), 0); // 0 new, 1 on stack, 2 done
  std::vector<unsigned> post;
  std::vector<std::vector<unsigned>> callees(m.functions.size());
  const std::string& file = m.filename;
  auto at = [&](unsigned line) { return file + ":" + std::to_string(line) + ": "; };
  // The calls that lead from the entry to the function being visited (the chain of a message).
  std::vector<std::pair<std::string, unsigned>> chain; // callee, PTX line of its call
  auto chain_text = [&](const std::string& last, unsigned line) {
    std::string t = k.entry->name;
    for (const auto& [name, l] : chain) t += " -> " + name + " (line " + std::to_string(l) + ")";
    return t + " -> " + last + " (line " + std::to_string(line) + ")";
  };
  std::function<void(unsigned)> visit = [&](unsigned fi) {
    state[fi] = 1;
    const ptx::Function& f = m.functions[fi];
    for (const ptx::Instr& in : f.instrs) {
      if (in.op != ptx::Op::Call) continue;
      // A direct call's function, or every function an indirect one can reach.
      for (const int ci : in.callees()) {
        if (ci < 0) continue;
        const unsigned c = unsigned(ci);
        const ptx::Function& cf = m.functions[c];
        if (!cf.has_body) {
          if (ptx::builtin_function(cf.name)) continue; // the engine runs them
          if (in.indirect) continue; // not loaded: a call reaching it stops the engine, saying so
          throw CompileError(at(in.ptx_line) + "call of '" + cf.name + "', which has no body");
        }
        if (!in.indirect) check_call(m, f, in, cf);
        if (state[c] == 1)
          throw CompileError(at(in.ptx_line) + "recursive call " +
                             chain_text(cf.name, in.ptx_line) +
                             ": the register allocator stacks each function's registers above "
                             "its callers' and cannot stack a function above itself; PTX that "
                             "gpurf runs has no recursion");
        if (std::find(callees[fi].begin(), callees[fi].end(), c) == callees[fi].end())
          callees[fi].push_back(c);
        if (state[c] == 0) {
          chain.push_back({cf.name, in.ptx_line});
          visit(c);
          chain.pop_back();
        }
      }
    }
    state[fi] = 2;
    post.push_back(fi);
  };
  visit(unsigned(ei));
  k.local_bytes = check_local_memory(m, callees, post, opt.local_bytes_per_thread);

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
      if (in.op != ptx::Op::Call) continue;
      for (const int c : in.callees()) {
        if (c < 0) continue;
        const FunctionPlan& q = k.funcs[size_t(c)];
        if (q.func && q.base < p.base + p.regs.num_regs)
          return "callee '" + q.func->name + "' range overlaps its caller '" + p.func->name + "'";
      }
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
