#include "gpurf/modules/frontend/compiler/long_latency.h"

#include <algorithm>

namespace gpurf::compiler {

bool LongLatency::reads_pending(unsigned pc, unsigned v) const {
  return std::find(srcs[pc].begin(), srcs[pc].end(), v) != srcs[pc].end();
}

bool produces_long_latency(const ptx::Instr& in) {
  using ptx::Op;
  using ptx::Space;
  const bool far =
      in.space == Space::Global || in.space == Space::Local || in.space == Space::Generic;
  switch (in.op) {
  case Op::Ld:
  case Op::Ldu:
  case Op::Tex:
  case Op::Tld4:
  case Op::Suld:
    return far;
  case Op::Wmma:
    return in.tensor.wmma == 'l' && far;
  case Op::Atom: // an mbarrier wait may suspend the thread until the phase completes
    return (in.space != Space::Shared || in.atom == ptx::AtomOp::MbarTestWait ||
            in.atom == ptx::AtomOp::MbarTestWaitParity) &&
           !in.dst.empty();
  default:
    return false;
  }
}

LongLatency mark_long_latency(const ptx::Function& f, const Liveness& lv) {
  const unsigned n = unsigned(f.instrs.size());
  const unsigned nr = unsigned(f.regs.size());
  LongLatency ll;
  ll.produces.assign(n, false);
  ll.consumes.assign(n, false);
  ll.srcs.assign(n, {});
  for (unsigned i = 0; i < n; ++i) ll.produces[i] = produces_long_latency(f.instrs[i]);

  auto transfer = [&](unsigned i, RegSet& pend, bool record) {
    const UseDef& u = lv.ud[i];
    for (unsigned s : u.uses)
      if (pend.test(s)) {
        if (record) {
          ll.consumes[i] = true;
          ll.srcs[i].push_back(s);
        }
        pend.reset(s);
      }
    // A predicate is pending too: an mbarrier wait's result is one, and the branch that spins
    // on it must suspend the warp (else a two-level scheduler's active set fills with spinners
    // while the warps that would complete the phase wait in the pending set).
    for (unsigned d : u.defs) {
      if (ll.produces[i])
        pend.set(d);
      else if (!u.partial)
        pend.reset(d);
    }
  };

  const ptx::Cfg& cfg = lv.cfg;
  const unsigned nb = unsigned(cfg.blocks.size());
  std::vector<std::vector<unsigned>> preds(nb);
  for (unsigned b = 0; b < nb; ++b)
    for (unsigned s : lv.succs[b]) preds[s].push_back(b);
  std::vector<RegSet> out(nb, RegSet(nr));
  bool changed = true;
  while (changed) {
    changed = false;
    for (unsigned b = 0; b < nb; ++b) {
      RegSet cur(nr);
      for (unsigned p : preds[b]) cur.merge(out[p]);
      for (unsigned i = cfg.blocks[b].begin; i < cfg.blocks[b].end; ++i) transfer(i, cur, false);
      if (cur != out[b]) {
        out[b] = std::move(cur);
        changed = true;
      }
    }
  }
  for (unsigned b = 0; b < nb; ++b) {
    RegSet cur(nr);
    for (unsigned p : preds[b]) cur.merge(out[p]);
    for (unsigned i = cfg.blocks[b].begin; i < cfg.blocks[b].end; ++i) transfer(i, cur, true);
  }
  return ll;
}

} // namespace gpurf::compiler
