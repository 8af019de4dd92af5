#include "gpurf/modules/frontend/ptx/cfg.h"

#include <algorithm>
#include <functional>

namespace gpurf::ptx {

unsigned Cfg::reconv_pc(unsigned pc) const {
  if (pc >= block_of.size()) return n_instrs;
  int p = blocks[block_of[pc]].ipdom;
  return p < 0 ? n_instrs : blocks[size_t(p)].begin;
}

Cfg build_cfg(const Function& f) {
  Cfg g;
  const unsigned n = unsigned(f.instrs.size());
  g.n_instrs = n;
  g.block_of.assign(n, 0);
  if (n == 0) return g;

  std::vector<bool> leader(n + 1, false);
  leader[0] = true;
  for (unsigned i = 0; i < n; ++i) {
    const Instr& in = f.instrs[i];
    if (in.op == Op::Bra || in.op == Op::Ret || in.op == Op::Exit) leader[i + 1] = true;
    if (in.op == Op::Bra)
      for (const auto& o : in.src)
        if (o.kind == Operand::Kind::Label && o.label <= n) leader[o.label] = true;
  }
  for (const auto& kv : f.labels)
    if (kv.second <= n) leader[kv.second] = true;

  for (unsigned i = 0; i < n; ++i) {
    if (leader[i]) {
      if (!g.blocks.empty()) g.blocks.back().end = i;
      g.blocks.push_back(BasicBlock{});
      g.blocks.back().begin = i;
    }
    g.block_of[i] = unsigned(g.blocks.size() - 1);
  }
  g.blocks.back().end = n;
  const unsigned nb = unsigned(g.blocks.size());

  for (unsigned b = 0; b < nb; ++b) {
    BasicBlock& bb = g.blocks[b];
    const Instr& last = f.instrs[bb.end - 1];
    bool fall = true;
    if (last.op == Op::Bra) {
      for (const auto& o : last.src)
        if (o.kind == Operand::Kind::Label) {
          if (o.label < n)
            bb.succs.push_back(g.block_of[o.label]);
          else
            bb.exits = true; // branch to the end of the function
        }
      fall = last.guard >= 0;
    } else if (last.op == Op::Ret || last.op == Op::Exit) {
      bb.exits = true;
      fall = last.guard >= 0;
    }
    if (fall) {
      if (bb.end < n) {
        unsigned s = g.block_of[bb.end];
        if (std::find(bb.succs.begin(), bb.succs.end(), s) == bb.succs.end()) bb.succs.push_back(s);
      } else {
        bb.exits = true; // falls off the end of the function
      }
    }
  }
  for (unsigned b = 0; b < nb; ++b)
    for (unsigned s : g.blocks[b].succs) g.blocks[s].preds.push_back(b);

  // Post-dominators: dominators of the reverse graph rooted at the virtual exit node `nb`
  // (Cooper, Harvey & Kennedy).
  const unsigned exitn = nb;
  auto rsuccs = [&](unsigned v, std::vector<unsigned>& out) {
    out.clear();
    if (v == exitn) {
      for (unsigned b = 0; b < nb; ++b)
        if (g.blocks[b].exits) out.push_back(b);
    } else {
      out = g.blocks[v].preds;
    }
  };
  std::vector<int> po_num(nb + 1, -1);
  std::vector<unsigned> order; // postorder
  {
    std::vector<bool> seen(nb + 1, false);
    std::vector<std::pair<unsigned, size_t>> stack;
    std::vector<std::vector<unsigned>> adj(nb + 1);
    for (unsigned v = 0; v <= nb; ++v) rsuccs(v, adj[v]);
    stack.push_back({exitn, 0});
    seen[exitn] = true;
    while (!stack.empty()) {
      auto& top = stack.back();
      if (top.second < adj[top.first].size()) {
        unsigned w = adj[top.first][top.second++];
        if (!seen[w]) {
          seen[w] = true;
          stack.push_back({w, 0});
        }
      } else {
        po_num[top.first] = int(order.size());
        order.push_back(top.first);
        stack.pop_back();
      }
    }
  }
  std::vector<int> idom(nb + 1, -1);
  idom[exitn] = int(exitn);
  auto intersect = [&](int a, int b) {
    while (a != b) {
      while (po_num[size_t(a)] < po_num[size_t(b)]) a = idom[size_t(a)];
      while (po_num[size_t(b)] < po_num[size_t(a)]) b = idom[size_t(b)];
    }
    return a;
  };
  bool changed = true;
  while (changed) {
    changed = false;
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      unsigned v = *it;
      if (v == exitn) continue;
      // predecessors in the reverse graph = successors in the forward graph (+exit)
      int nd = -1;
      auto consider = [&](unsigned p) {
        if (po_num[p] < 0 || idom[p] < 0) return;
        nd = nd < 0 ? int(p) : intersect(int(p), nd);
      };
      for (unsigned s : g.blocks[v].succs) consider(s);
      if (g.blocks[v].exits) consider(exitn);
      if (nd >= 0 && idom[v] != nd) {
        idom[v] = nd;
        changed = true;
      }
    }
  }
  for (unsigned b = 0; b < nb; ++b)
    g.blocks[b].ipdom = (idom[b] < 0 || unsigned(idom[b]) == exitn) ? -1 : idom[b];
  return g;
}

} // namespace gpurf::ptx
