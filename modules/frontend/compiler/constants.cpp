#include "gpurf/modules/frontend/compiler/constants.h"

namespace gpurf::compiler {

namespace {

// The instruction's single written register, or -1.
int single_dst(const ptx::Instr& in) {
  if (in.dst.size() != 1 || !in.dst[0].is_reg()) return -1;
  return int(in.dst[0].reg);
}

} // namespace

bool is_kernel_param_load(const ptx::Function& f, const ptx::Instr& in) {
  if (!f.is_entry || in.op != ptx::Op::Ld || in.space != ptx::Space::Param || in.src.size() != 1)
    return false;
  const ptx::Operand& a = in.src[0];
  return a.kind == ptx::Operand::Kind::Addr && !a.has_base_reg &&
         a.sym.scope == ptx::SymRef::Scope::Param;
}

ConstantOperands constant_operands(const ptx::Function& f, bool enabled) {
  const unsigned nr = unsigned(f.regs.size()), n = unsigned(f.instrs.size());
  ConstantOperands c;
  c.vreg.assign(nr, false);
  c.hidden.assign(n, false);
  if (!enabled) return c;
  // Definitions per vreg: a constant operand has exactly one.
  std::vector<unsigned> defs(nr, 0);
  std::vector<int> def_at(nr, -1);
  std::vector<unsigned> r, w;
  for (unsigned i = 0; i < n; ++i) {
    ptx::reads_writes(f, f.instrs[i], r, w);
    for (unsigned v : w) {
      ++defs[v];
      def_at[v] = int(i);
    }
  }
  auto candidate = [&](unsigned i, int v) {
    const ptx::Instr& in = f.instrs[i];
    return v >= 0 && !f.regs[unsigned(v)].is_pred && defs[unsigned(v)] == 1 && in.guard < 0 &&
           def_at[unsigned(v)] == int(i);
  };
  // Parameters and immediates first, then cvta chains over them (to a fixed point: a cvta may
  // precede its source in the instruction list when a loop carries it).
  for (unsigned i = 0; i < n; ++i) {
    const ptx::Instr& in = f.instrs[i];
    const int v = single_dst(in);
    if (!candidate(i, v)) continue;
    const bool imm_mov =
        in.op == ptx::Op::Mov && in.src.size() == 1 && in.src[0].kind == ptx::Operand::Kind::Imm;
    if (imm_mov || (is_kernel_param_load(f, in) && in.vec == 1))
      c.vreg[unsigned(v)] = c.hidden[i] = true;
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (unsigned i = 0; i < n; ++i) {
      const ptx::Instr& in = f.instrs[i];
      const int v = single_dst(in);
      if (c.hidden[i] || in.op != ptx::Op::Cvta || in.space != ptx::Space::Global ||
          !candidate(i, v) || in.src.size() != 1 || !in.src[0].is_reg() || !c.vreg[in.src[0].reg])
        continue;
      c.vreg[unsigned(v)] = c.hidden[i] = changed = true;
    }
  }
  return c;
}

} // namespace gpurf::compiler
