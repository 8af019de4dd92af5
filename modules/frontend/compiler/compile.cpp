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

// Local memory is a stack of frames along a call path (as the engine places them,
// modules/frontend/ptx/engine.cpp): each frame's .local variables, then its save area
// (FunctionPlan::save_bytes). The deepest path, a recursive SCC counted once (its largest
// frame), must fit the per-thread limit. Names the largest .local declaration on that path.
uint64_t check_local_memory(const ptx::Module& m, const KernelPlan& k,
                            const std::vector<std::vector<unsigned>>& callees,
                            const std::vector<std::vector<unsigned>>& sccs,
                            const std::vector<int>& scc_of, uint64_t limit) {
  const size_t n = m.functions.size();
  std::vector<uint64_t> frame(n, 0), depth(sccs.size(), 0);
  std::vector<int> next(sccs.size(), -1);    // the callee SCC on the deepest path
  for (size_t s = 0; s < sccs.size(); ++s) { // callees first
    uint64_t own = 0;
    for (unsigned fi : sccs[s]) {
      uint64_t cur = 0;
      for (const ptx::VarDecl& v : m.functions[fi].locals)
        if (v.space == ptx::Space::Local) {
          const uint64_t a = std::max(1u, v.align);
          cur = (cur + a - 1) / a * a + v.size;
        }
      frame[fi] = (cur + 15) / 16 * 16 + k.funcs[fi].save_bytes;
      own = std::max(own, frame[fi]);
      for (unsigned c : callees[fi]) {
        const size_t cs = size_t(scc_of[c]);
        if (cs != s && depth[cs] > depth[s]) depth[s] = depth[cs], next[s] = int(cs);
      }
    }
    depth[s] += own;
  }
  const size_t entry = sccs.size() - 1;
  if (!limit || depth[entry] <= limit) return depth[entry];
  const ptx::VarDecl* big = nullptr;
  const ptx::Function* owner = nullptr;
  std::string path;
  for (int s = int(entry); s >= 0; s = next[size_t(s)])
    for (unsigned fi : sccs[size_t(s)]) {
      const ptx::Function& f = m.functions[fi];
      path += (path.empty() ? "" : " -> ") + f.name;
      for (const ptx::VarDecl& v : f.locals)
        if (v.space == ptx::Space::Local && (!big || v.size > big->size)) big = &v, owner = &f;
    }
  if (!big) // a save area alone cannot get there (at most 8 + 4 x 65,535 x 2 bytes a frame)
    throw CompileError(m.filename + ": kernel needs " + std::to_string(depth[entry]) +
                       " bytes of local memory per thread (call path " + path + "), over " +
                       std::to_string(limit));
  throw CompileError(line_of(m, big->line) + ": .local '" + big->name + "' of '" + owner->name +
                     "' (" + std::to_string(big->size) + " bytes): the kernel needs " +
                     std::to_string(depth[entry]) +
                     " bytes of local memory per thread (call path " + path +
                     "), over the limit of " + std::to_string(limit) +
                     " bytes per thread (CUDA's, PtxFrontend::kMaxLocalBytesPerThread); make "
                     "the .local arrays smaller");
}

// Tarjan's strongly connected components of the call graph reachable from `root`, callees
// before callers (each component after every component it calls).
std::vector<std::vector<unsigned>> call_sccs(const std::vector<std::vector<unsigned>>& callees,
                                             unsigned root) {
  const size_t n = callees.size();
  std::vector<int> index(n, -1), low(n, 0);
  std::vector<bool> on(n, false);
  std::vector<unsigned> stack;
  std::vector<std::vector<unsigned>> out;
  int counter = 0;
  std::function<void(unsigned)> visit = [&](unsigned v) {
    index[v] = low[v] = counter++;
    stack.push_back(v);
    on[v] = true;
    for (unsigned w : callees[v]) {
      if (index[w] < 0) {
        visit(w);
        low[v] = std::min(low[v], low[w]);
      } else if (on[w]) {
        low[v] = std::min(low[v], index[w]);
      }
    }
    if (low[v] != index[v]) return;
    out.emplace_back();
    unsigned w;
    do {
      w = stack.back();
      stack.pop_back();
      on[w] = false;
      out.back().push_back(w);
    } while (w != v);
    std::sort(out.back().begin(), out.back().end()); // module order: deterministic
  };
  visit(root);
  return out;
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

  // Call graph from the entry; calls checked against their callees.
  const size_t nf = m.functions.size();
  std::vector<std::vector<unsigned>> callees(nf);
  std::vector<bool> reached(nf, false);
  const std::string& file = m.filename;
  auto at = [&](unsigned line) { return file + ":" + std::to_string(line) + ": "; };
  std::function<void(unsigned)> visit = [&](unsigned fi) {
    reached[fi] = true;
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
        if (std::find(callees[fi].begin(), callees[fi].end(), c) == callees[fi].end())
          callees[fi].push_back(c);
        if (!reached[c]) visit(c);
      }
    }
  };
  visit(unsigned(ei));
  // Strongly connected components, callees first; a component with a cycle is recursive.
  const std::vector<std::vector<unsigned>> sccs = call_sccs(callees, unsigned(ei));
  std::vector<int> scc_of(nf, -1);
  std::vector<bool> cyclic(sccs.size(), false);
  for (size_t s = 0; s < sccs.size(); ++s)
    for (unsigned fi : sccs[s]) {
      scc_of[fi] = int(s);
      cyclic[s] = cyclic[s] || sccs[s].size() > 1 ||
                  std::find(callees[fi].begin(), callees[fi].end(), fi) != callees[fi].end();
    }

  std::vector<unsigned> stack(sccs.size(), 0); // registers of an SCC's window and above it
  for (size_t s = 0; s < sccs.size(); ++s) {
    // Registers stacked above the window by its callees outside it (allocated first).
    unsigned above = 0, window = 0;
    for (unsigned fi : sccs[s])
      for (unsigned c : callees[fi])
        if (size_t(scc_of[c]) != s) above = std::max(above, stack[size_t(scc_of[c])]);
    for (unsigned fi : sccs[s]) {
      FunctionPlan& p = k.funcs[fi];
      p.func = &m.functions[fi];
      p.scc = cyclic[s] ? int(s) : -1;
      p.constants = constant_operands(*p.func, opt.constant_operands);
      LivenessOptions lo = opt.liveness;
      if (opt.constant_operands) lo.constant = p.constants.vreg;
      p.liveness = compute_liveness(*p.func, lo);
      AllocOptions ao = opt.alloc;
      // ptxas's count covers the whole kernel: the entry gets what its callees leave.
      ao.target_regs = p.func == k.entry && ao.target_regs > above ? ao.target_regs - above : 0;
      p.regs = allocate_registers(*p.func, p.liveness, ao);
      window = std::max(window, p.regs.num_regs);
      p.long_latency = mark_long_latency(*p.func, p.liveness);
      p.rfc = rfc_hints(*p.func, p.liveness, p.long_latency);
    }
    stack[s] = window + above;
    if (!cyclic[s]) continue;
    k.recursive = true;
    // Calls that may re-enter the window save what is live after them: the data vregs in
    // register order, then the predicates (packed into one word per kMaxPred, as P2R does).
    for (unsigned fi : sccs[s]) {
      FunctionPlan& p = k.funcs[fi];
      const ptx::Function& f = *p.func;
      p.saves.assign(f.instrs.size(), {});
      unsigned most = 0;
      for (unsigned i = 0; i < f.instrs.size(); ++i) {
        const ptx::Instr& in = f.instrs[i];
        if (in.op != ptx::Op::Call) continue;
        bool reenters = false;
        for (const int c : in.callees()) reenters |= c >= 0 && scc_of[size_t(c)] == int(s);
        if (!reenters) continue;
        std::vector<unsigned> data, preds;
        p.liveness.live_out[i].for_each([&](unsigned v) {
          if (p.regs.reg[v] >= 0) (f.regs[v].is_pred ? preds : data).push_back(v);
        });
        std::stable_sort(data.begin(), data.end(),
                         [&](unsigned a, unsigned b) { return p.regs.reg[a] < p.regs.reg[b]; });
        unsigned words = unsigned(preds.size() + 3) / 4;
        for (unsigned v : data) words += reg_width(f.regs[v]);
        most = std::max(most, words);
        data.insert(data.end(), preds.begin(), preds.end());
        p.saves[i] = std::move(data);
      }
      p.save_bytes = (8 + 4 * most + 15) / 16 * 16; // the return address and the words
    }
  }
  k.local_bytes = check_local_memory(m, k, callees, sccs, scc_of, opt.local_bytes_per_thread);

  // Bases, callers before callees (an SCC's members share their window's base).
  unsigned regs = 0, preds = 0;
  for (size_t s = sccs.size(); s-- > 0;) {
    unsigned base = 0, pred_base = 0;
    for (unsigned fi : sccs[s]) {
      base = std::max(base, k.funcs[fi].base);
      pred_base = std::max(pred_base, k.funcs[fi].pred_base);
    }
    for (unsigned fi : sccs[s]) {
      FunctionPlan& p = k.funcs[fi];
      p.base = base;
      p.pred_base = pred_base;
      for (unsigned c : callees[fi]) {
        if (size_t(scc_of[c]) == s) continue;
        FunctionPlan& q = k.funcs[c];
        unsigned next = p.base + p.regs.num_regs;
        if (opt.alloc.mode == RegAllocMode::PtxVirtual) next = ptx_virtual_start(next);
        q.base = std::max(q.base, next);
        q.pred_base = std::max(q.pred_base, p.pred_base + p.regs.num_preds);
      }
      regs = std::max(regs, p.base + p.regs.num_regs);
      preds = std::max(preds, p.pred_base + p.regs.num_preds);
    }
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
    for (unsigned i = 0; i < p.func->instrs.size(); ++i) {
      const ptx::Instr& in = p.func->instrs[i];
      if (in.op != ptx::Op::Call) continue;
      bool reenters = false;
      for (const int c : in.callees()) {
        if (c < 0) continue;
        const FunctionPlan& q = k.funcs[size_t(c)];
        if (q.func && p.scc >= 0 && q.scc == p.scc) {
          reenters = true;
          if (q.base != p.base) return "'" + q.func->name + "' is outside its SCC's window";
        } else if (q.func && q.base < p.base + p.regs.num_regs) {
          return "callee '" + q.func->name + "' range overlaps its caller '" + p.func->name + "'";
        }
      }
      if (!reenters) continue;
      // The callee may overwrite any register of the window: all that is live must be saved.
      const std::vector<unsigned>& sv = p.saves[i];
      std::string missing;
      p.liveness.live_out[i].for_each([&](unsigned v) {
        if (p.regs.reg[v] >= 0 && missing.empty() && std::find(sv.begin(), sv.end(), v) == sv.end())
          missing = p.func->regs[v].name;
      });
      if (!missing.empty())
        return "'" + p.func->name + "': " + missing +
               " is live across the recursive call at line " + std::to_string(in.ptx_line) +
               " and not saved";
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
      << pr << " vregs";
    if (p.scc >= 0) {
      o << "; recursive (SCC " << p.scc << "), " << p.save_bytes << " bytes of stack per frame";
    }
    o << "\n";
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
