#include "gpurf/modules/frontend/compiler/rfc_hints.h"

namespace gpurf::compiler {

namespace {

// Backward "read before the next stop" analysis. stop_before[i]: the warp leaves the RFC
// before instruction i (its reads do not count); stop_after[i]: after i's reads.
std::vector<RegSet> read_soon_out(const ptx::Function& f, const Liveness& lv,
                                  const std::vector<bool>& stop_before,
                                  const std::vector<bool>& stop_after) {
  const unsigned n = unsigned(f.instrs.size()), nr = lv.n_regs;
  const ptx::Cfg& cfg = lv.cfg;
  const unsigned nb = unsigned(cfg.blocks.size());
  auto transfer = [&](unsigned i, RegSet& cur) { // cur: out -> in
    if (stop_before[i]) return void(cur = RegSet(nr));
    if (stop_after[i]) cur = RegSet(nr);
    const UseDef& u = lv.ud[i];
    if (!u.partial && !stop_after[i])
      for (unsigned d : u.defs) cur.reset(d);
    for (unsigned s : u.uses) cur.set(s);
  };
  std::vector<RegSet> in(nb, RegSet(nr));
  bool changed = true;
  while (changed) {
    changed = false;
    for (unsigned b = nb; b-- > 0;) {
      RegSet cur(nr);
      for (unsigned s : lv.succs[b]) cur.merge(in[s]);
      for (unsigned i = cfg.blocks[b].end; i-- > cfg.blocks[b].begin;) transfer(i, cur);
      if (cur != in[b]) {
        in[b] = std::move(cur);
        changed = true;
      }
    }
  }
  std::vector<RegSet> out(n, RegSet(nr));
  for (unsigned b = 0; b < nb; ++b) {
    RegSet cur(nr);
    for (unsigned s : lv.succs[b]) cur.merge(in[s]);
    for (unsigned i = cfg.blocks[b].end; i-- > cfg.blocks[b].begin;) {
      out[i] = cur;
      transfer(i, cur);
    }
  }
  return out;
}

} // namespace

RfcHints rfc_hints(const ptx::Function& f, const Liveness& lv, const LongLatency& ll) {
  const unsigned n = unsigned(f.instrs.size());
  RfcHints h;
  h.entry_live = lv.entry_live_in;
  const std::vector<bool> none(n, false);
  const std::vector<RegSet> soon = read_soon_out(f, lv, ll.consumes, none);
  const std::vector<RegSet> before_ll = read_soon_out(f, lv, ll.consumes, ll.produces);
  h.dead.resize(n);
  h.unread_before_suspend.resize(n);
  h.evict_first.resize(n);
  for (unsigned i = 0; i < n; ++i)
    for (unsigned v : lv.ud[i].defs) {
      h.dead[i].push_back(!lv.live_out[i].test(v));
      h.unread_before_suspend[i].push_back(!soon[i].test(v));
      h.evict_first[i].push_back(!before_ll[i].test(v));
    }
  return h;
}

} // namespace gpurf::compiler
