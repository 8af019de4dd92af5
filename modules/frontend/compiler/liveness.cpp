#include "gpurf/modules/frontend/compiler/liveness.h"

#include <algorithm>

namespace gpurf::compiler {

bool RegSet::merge(const RegSet& o) {
  bool changed = false;
  for (size_t k = 0; k < w_.size() && k < o.w_.size(); ++k) {
    const uint64_t v = w_[k] | o.w_[k];
    changed |= v != w_[k];
    w_[k] = v;
  }
  return changed;
}

unsigned RegSet::count() const {
  unsigned c = 0;
  for (uint64_t w : w_) c += unsigned(__builtin_popcountll(w));
  return c;
}

std::vector<unsigned> RegSet::members() const {
  std::vector<unsigned> m;
  for_each([&](unsigned i) { m.push_back(i); });
  return m;
}

bool Liveness::last_read(unsigned pc, unsigned v) const {
  const UseDef& u = ud[pc];
  if (std::find(u.uses.begin(), u.uses.end(), v) == u.uses.end()) return false;
  if (!live_out[pc].test(v)) return true;
  // Redefined here (whole register): the value read is not the one live afterwards.
  return !u.partial && std::find(u.defs.begin(), u.defs.end(), v) != u.defs.end();
}

UseDef use_def(const ptx::Function& f, const ptx::Instr& in) {
  UseDef u;
  std::vector<unsigned> r, w;
  ptx::reads_writes(f, in, r, w);
  for (unsigned x : r)
    if (std::find(u.uses.begin(), u.uses.end(), x) == u.uses.end()) u.uses.push_back(x);
  for (unsigned x : w)
    if (std::find(u.defs.begin(), u.defs.end(), x) == u.defs.end()) u.defs.push_back(x);
  u.partial = in.guard >= 0;
  return u;
}

namespace {

// Blocks reachable from `from` without entering `stop` (-1: no stop), `from` included.
std::vector<bool> reach(const ptx::Cfg& cfg, unsigned from, int stop) {
  std::vector<bool> seen(cfg.blocks.size(), false);
  if (int(from) == stop) return seen;
  std::vector<unsigned> work{from};
  seen[from] = true;
  while (!work.empty()) {
    unsigned b = work.back();
    work.pop_back();
    for (unsigned s : cfg.blocks[b].succs)
      if (int(s) != stop && !seen[s]) {
        seen[s] = true;
        work.push_back(s);
      }
  }
  return seen;
}

} // namespace

std::vector<std::pair<unsigned, unsigned>> simt_edges(const ptx::Cfg& cfg, const ptx::Function& f) {
  std::vector<std::pair<unsigned, unsigned>> edges;
  const unsigned nb = unsigned(cfg.blocks.size());
  for (unsigned b = 0; b < nb; ++b) {
    const ptx::BasicBlock& bb = cfg.blocks[b];
    const ptx::Instr& last = f.instrs[bb.end - 1];
    if (last.op != ptx::Op::Bra || last.guard < 0 || bb.succs.size() != 2) continue;
    const unsigned t = bb.succs[0], fall = bb.succs[1]; // taken first (cfg.h)
    const int p = bb.ipdom;
    const std::vector<bool> rt = reach(cfg, t, p), rf = reach(cfg, fall, p);
    for (unsigned y = 0; y < nb; ++y) {
      const ptx::BasicBlock& yb = cfg.blocks[y];
      const bool to_p =
          p >= 0 && std::find(yb.succs.begin(), yb.succs.end(), unsigned(p)) != yb.succs.end();
      // The taken side reaches P (or exits): the fall-through side runs next.
      if (rt[y] && (to_p || yb.exits) && int(fall) != p) edges.push_back({y, fall});
      // The fall-through side's lanes exit: the reconverged entry at P runs next.
      if (rf[y] && yb.exits && p >= 0) edges.push_back({y, unsigned(p)});
    }
  }
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  return edges;
}

Liveness compute_liveness(const ptx::Function& f, const LivenessOptions& opt) {
  Liveness lv;
  lv.cfg = ptx::build_cfg(f);
  const unsigned n = unsigned(f.instrs.size());
  const unsigned nr = unsigned(f.regs.size());
  lv.n_regs = nr;
  lv.ud.resize(n);
  for (unsigned i = 0; i < n; ++i) {
    UseDef& u = lv.ud[i];
    u = use_def(f, f.instrs[i]);
    if (opt.guarded_defs_kill) u.partial = false;
    if (!opt.constant.empty()) {
      auto is_const = [&](unsigned v) { return opt.constant[v]; };
      u.uses.erase(std::remove_if(u.uses.begin(), u.uses.end(), is_const), u.uses.end());
      u.defs.erase(std::remove_if(u.defs.begin(), u.defs.end(), is_const), u.defs.end());
    }
  }
  const unsigned nb = unsigned(lv.cfg.blocks.size());
  lv.succs.resize(nb);
  for (unsigned b = 0; b < nb; ++b) lv.succs[b] = lv.cfg.blocks[b].succs;
  if (opt.simt_edges)
    for (auto [from, to] : simt_edges(lv.cfg, f))
      if (std::find(lv.succs[from].begin(), lv.succs[from].end(), to) == lv.succs[from].end())
        lv.succs[from].push_back(to);

  // Block transfer functions: in = gen | (out - kill).
  std::vector<RegSet> gen(nb, RegSet(nr)), kill(nb, RegSet(nr));
  for (unsigned b = 0; b < nb; ++b) {
    const ptx::BasicBlock& bb = lv.cfg.blocks[b];
    for (unsigned i = bb.end; i-- > bb.begin;) {
      const UseDef& u = lv.ud[i];
      if (!u.partial)
        for (unsigned d : u.defs) {
          kill[b].set(d);
          gen[b].reset(d);
        }
      for (unsigned s : u.uses) gen[b].set(s);
    }
  }
  lv.block_in.assign(nb, RegSet(nr));
  lv.block_out.assign(nb, RegSet(nr));
  // Iterate to a fixed point, blocks in reverse order (most PTX flows forward).
  bool changed = true;
  while (changed) {
    changed = false;
    for (unsigned b = nb; b-- > 0;) {
      RegSet out(nr);
      for (unsigned s : lv.succs[b]) out.merge(lv.block_in[s]);
      RegSet in = out;
      kill[b].for_each([&](unsigned r) { in.reset(r); });
      in.merge(gen[b]);
      if (out != lv.block_out[b]) lv.block_out[b] = out;
      if (in != lv.block_in[b]) {
        lv.block_in[b] = std::move(in);
        changed = true;
      }
    }
  }
  // Per instruction.
  lv.live_in.assign(n, RegSet(nr));
  lv.live_out.assign(n, RegSet(nr));
  for (unsigned b = 0; b < nb; ++b) {
    const ptx::BasicBlock& bb = lv.cfg.blocks[b];
    RegSet cur = lv.block_out[b];
    for (unsigned i = bb.end; i-- > bb.begin;) {
      const UseDef& u = lv.ud[i];
      // An indirect call runs again for the lanes of each other target once the first
      // target's lanes return (the engine serialises a warp's distinct targets): what it
      // reads stays live across it.
      if (f.instrs[i].op == ptx::Op::Call && f.instrs[i].indirect)
        for (unsigned s : u.uses) cur.set(s);
      lv.live_out[i] = cur;
      if (!u.partial)
        for (unsigned d : u.defs) cur.reset(d);
      for (unsigned s : u.uses) cur.set(s);
      lv.live_in[i] = cur;
    }
  }
  lv.entry_live_in = nb ? lv.block_in[0] : RegSet(nr);
  return lv;
}

} // namespace gpurf::compiler
