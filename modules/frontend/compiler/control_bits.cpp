#include "gpurf/modules/frontend/compiler/control_bits.h"

#include <algorithm>
#include <map>

namespace gpurf::compiler {

namespace {

// Predicates live in their own name space: key them apart from the regular registers.
constexpr unsigned kPredKey = 1u << 20;

template <class F> void each_read(const CtrlInst& c, F&& f) {
  for (unsigned r : c.src) f(r);
  for (unsigned p : c.psrc) f(kPredKey + p);
}
template <class F> void each_write(const CtrlInst& c, F&& f) {
  for (unsigned r : c.dst) f(r);
  for (unsigned p : c.pdst) f(kPredKey + p);
}
bool writes(const CtrlInst& c, unsigned r) {
  return std::find(c.dst.begin(), c.dst.end(), r) != c.dst.end();
}

// Listing 4: the next read of the bank's operand slot decides; only the same register there
// hits, and a write of the register before it makes the cached value stale.
bool reuse(const std::vector<CtrlInst>& code, size_t i, unsigned k, unsigned banks) {
  const unsigned r = code[i].src[k];
  if (writes(code[i], r)) return false;
  for (size_t j = i + 1; j < code.size() && !code[j].leader; ++j) {
    const CtrlInst& c = code[j];
    if (k < c.src.size() && c.src[k] % banks == r % banks) return c.src[k] == r;
    if (writes(c, r)) return false;
  }
  return false;
}

// The dependence counters' dataflow state at a point of the program: per register, the
// counters holding an un-waited producer of it (w: RAW/WAW) or an un-waited late reader
// (r: WAR), and per counter the kinds of what it holds (for handing counters out).
struct Guard {
  uint8_t w = 0, r = 0;
  bool operator==(const Guard& o) const { return w == o.w && r == o.r; }
};
struct SbState {
  std::map<unsigned, Guard> regs;
  uint8_t holds[2] = {0, 0}; // counters holding a short / a long producer
  bool operator==(const SbState& o) const {
    return regs == o.regs && holds[0] == o.holds[0] && holds[1] == o.holds[1];
  }
  void merge(const SbState& o) {
    for (auto& [r, g] : o.regs) {
      Guard& m = regs[r];
      m.w |= g.w;
      m.r |= g.r;
    }
    holds[0] |= o.holds[0];
    holds[1] |= o.holds[1];
  }
  // The counters an instruction must wait on: those guarding what it reads and writes.
  uint8_t wait_for(const CtrlInst& c) const {
    uint8_t m = 0;
    auto get = [&](unsigned r) {
      auto it = regs.find(r);
      return it == regs.end() ? Guard{} : it->second;
    };
    each_read(c, [&](unsigned r) { m |= get(r).w; });
    each_write(c, [&](unsigned r) {
      const Guard g = get(r);
      m |= uint8_t(g.w | g.r);
    });
    return m;
  }
  // Counters waited to zero: every producer and reader they held is done.
  void clear(uint8_t m) {
    for (auto it = regs.begin(); it != regs.end();) {
      it->second.w &= uint8_t(~m);
      it->second.r &= uint8_t(~m);
      it = it->second.w || it->second.r ? std::next(it) : regs.erase(it);
    }
    holds[0] &= uint8_t(~m);
    holds[1] &= uint8_t(~m);
  }
};

// Hands out counters in layout order, least recently taken first among equals: a long
// producer takes a free counter (no un-waited producer), else one holding only long ones,
// else any; a short one takes a free counter while more than kLongReserve are free, else one
// holding only short ones, else a free one, else any (the counters of results: SB5 holds
// every rd_sb). Short producers, which no one waits for until their result is read, would
// otherwise take every free counter, and the next global load would share one with them: a
// consumer of a shared load would wait for the global load.
struct SbPicker {
  static constexpr unsigned kLongReserve = 2;
  unsigned counters;
  std::vector<uint64_t> taken; // per counter: when last handed out
  uint64_t clock = 0;
  explicit SbPicker(unsigned n) : counters(n), taken(n, 0) {}
  uint8_t pick(SbState& s, bool is_long) {
    const uint8_t any = uint8_t(s.holds[0] | s.holds[1]);
    const uint8_t other = s.holds[is_long ? 0 : 1];
    unsigned free = 0;
    for (unsigned c = 0; c < counters; ++c) free += !(any >> c & 1);
    const bool free_first = is_long || free > kLongReserve;
    int best = -1;
    int best_rank = 4;
    for (unsigned c = 0; c < counters; ++c) {
      const bool is_free = !(any >> c & 1), same = !is_free && !(other >> c & 1);
      const int rank = is_free ? (free_first ? 0 : 1) : same ? (free_first ? 1 : 0) : 2;
      if (rank < best_rank || (rank == best_rank && taken[c] < taken[unsigned(best)])) {
        best = int(c);
        best_rank = rank;
      }
    }
    taken[unsigned(best)] = ++clock;
    s.holds[is_long ? 1 : 0] |= uint8_t(1u << best);
    return uint8_t(best);
  }
};

} // namespace

std::vector<CtrlBits> control_bits(const std::vector<CtrlInst>& code, const CtrlParams& p) {
  const size_t n = code.size();
  std::vector<CtrlBits> out(n);
  if (n == 0) return out;
  const unsigned kSlots = 3;
  for (size_t i = 0; i < n; ++i)
    for (unsigned k = 0; k < std::min<size_t>(kSlots, code[i].src.size()); ++k)
      if (reuse(code, i, k, p.banks)) out[i].reuse_mask |= uint8_t(1u << k);

  // Blocks: a leader, a given successor or the instruction after a block end starts one.
  const uint8_t all_counters = uint8_t((1u << p.counters) - 1);
  bool cfg = false;
  std::vector<bool> starts(n, false);
  starts[0] = true;
  for (size_t j = 0; j < n; ++j) {
    starts[j] = starts[j] || code[j].leader;
    if (!code[j].has_succ) continue;
    cfg = true;
    if (j + 1 < n) starts[j + 1] = true;
    for (unsigned s : code[j].succ)
      if (s < n) starts[s] = true;
  }
  std::vector<size_t> first; // per block: its first instruction
  std::vector<unsigned> block_of(n, 0);
  for (size_t j = 0; j < n; ++j) {
    if (starts[j]) first.push_back(j);
    block_of[j] = unsigned(first.size() - 1);
  }
  const size_t nb = first.size();
  auto end_of = [&](size_t b) { return b + 1 < nb ? first[b + 1] : n; };
  std::vector<std::vector<unsigned>> preds(nb);
  for (size_t b = 0; b < nb; ++b) {
    const CtrlInst& last = code[end_of(b) - 1];
    std::vector<unsigned> succ;
    if (last.has_succ) {
      for (unsigned s : last.succ)
        if (s < n) succ.push_back(block_of[s]);
    } else if (end_of(b) < n) {
      succ.push_back(unsigned(b + 1));
    }
    if (!cfg) // no CFG given: any block may follow any block's end
      for (size_t s = 1; s < nb; ++s)
        if (code[first[s]].leader) succ.push_back(unsigned(s));
    std::sort(succ.begin(), succ.end());
    succ.erase(std::unique(succ.begin(), succ.end()), succ.end());
    for (unsigned s : succ) preds[s].push_back(unsigned(b));
  }
  // The function's first instruction, the one after a call, and one no path reaches wait
  // for every counter.
  auto waits_all = [&](size_t j) {
    return j == 0 || code[j].after_call || (starts[j] && preds[block_of[j]].empty());
  };

  // Counters a block's last instruction waits for besides its own: at a join, a counter that
  // holds only short producers on one path and a long one on another is waited for at the end
  // of the short path (cheap there), or every consumer of the short ones after the join would
  // wait for the long one (one path reused the counter after a wait the other never made).
  std::vector<uint8_t> end_wait(nb, 0);
  auto wait_of = [&](size_t j, const SbState& s) {
    uint8_t w = waits_all(j) ? all_counters : s.wait_for(code[j]);
    if (j + 1 == n || starts[j + 1]) w |= end_wait[block_of[j]];
    return w;
  };
  // One block from state s (its entry state): the waits, then the counters its
  // variable-latency instructions take (handed out by `pick` when given).
  auto transfer = [&](size_t b, SbState& s, SbPicker* pick) {
    for (size_t j = first[b]; j < end_of(b); ++j) {
      const CtrlInst& c = code[j];
      const uint8_t wait = wait_of(j, s);
      s.clear(wait);
      if (!c.variable) continue;
      if (pick) {
        out[j].wr_sb = out[j].rd_sb = CtrlBits::kNoSb;
        if (!c.dst.empty() || !c.pdst.empty()) out[j].wr_sb = pick->pick(s, c.long_latency);
        if (!c.src.empty() || !c.psrc.empty()) out[j].rd_sb = uint8_t(pick->counters);
      }
      if (out[j].wr_sb != CtrlBits::kNoSb) {
        const uint8_t bit = uint8_t(1u << out[j].wr_sb);
        each_write(c, [&](unsigned r) { s.regs[r].w |= bit; });
        s.holds[c.long_latency ? 1 : 0] |= bit;
      }
      if (out[j].rd_sb != CtrlBits::kNoSb) {
        const uint8_t bit = uint8_t(1u << out[j].rd_sb);
        each_read(c, [&](unsigned r) { s.regs[r].r |= bit; });
        s.holds[0] |= bit;
      }
    }
  };
  // Entry states: counters handed out over a few sweeps in layout order (each seeing the
  // states the previous one left at the loops' heads), then, with the counters fixed, the
  // least fixed point.
  std::vector<SbState> in(nb), outs(nb);
  auto entry = [&](size_t b) {
    SbState s;
    for (unsigned q : preds[b]) s.merge(outs[q]);
    return s;
  };
  // The last counter guards every WAR (rd_sb: sources are read within the read window, so
  // waiting for all of them is cheap); the others guard results. Read guards are waited for
  // only when a register is written, so spread over the counters they would leave none free
  // for the next global load, which would then share one with them.
  const unsigned wr_counters = p.counters > 1 ? p.counters - 1 : 1;
  SbPicker picker(wr_counters);
  std::vector<std::pair<uint8_t, uint8_t>> was;
  for (unsigned sweep = 0; sweep < 8; ++sweep) { // until the counters stop changing
    picker = SbPicker(wr_counters);
    for (size_t b = 0; b < nb; ++b) {
      SbState s = entry(b);
      transfer(b, s, &picker);
      outs[b] = std::move(s);
    }
    std::vector<std::pair<uint8_t, uint8_t>> now;
    for (const CtrlBits& o : out) now.emplace_back(o.wr_sb, o.rd_sb);
    if (now == was) break;
    was = std::move(now);
  }
  // The transfer is not monotone (a larger state waits for more counters and so clears
  // more), so the round-robin passes can cycle for ever (nvcc -G's math library on
  // ampere-modern-wc: a 35-block function never settled). After `kPasses` passes without a
  // fixed point each block's state only grows (the old one merged into the new): a finite
  // lattice, so it ends, with guards that cover every state the cycle went through (waits
  // that are safe, if more than needed). Code that settles within kPasses is unchanged.
  const size_t kPasses = 64 + nb;
  for (bool grew = true; grew;) { // end_wait only grows: at most 6 bits per block
    for (auto& s : outs) s = SbState{};
    size_t passes = 0;
    for (bool changed = true; changed; ++passes) {
      changed = false;
      for (size_t b = 0; b < nb; ++b) {
        SbState s = entry(b);
        transfer(b, s, nullptr);
        if (passes >= kPasses) s.merge(outs[b]);
        if (!(s == outs[b])) {
          outs[b] = std::move(s);
          changed = true;
        }
      }
    }
    grew = false;
    for (size_t b = 0; b < nb; ++b) {
      if (preds[b].size() < 2) continue;
      uint8_t longs = 0;
      for (unsigned q : preds[b]) longs |= outs[q].holds[1];
      for (unsigned q : preds[b]) {
        const uint8_t m =
            uint8_t(outs[q].holds[0] & ~outs[q].holds[1] & longs & ~end_wait[q] & all_counters);
        if (!m) continue;
        end_wait[q] |= m;
        grew = true;
      }
    }
  }
  for (size_t b = 0; b < nb; ++b) in[b] = entry(b);

  // Stall counts and wait masks: t = the earliest issue cycle of each instruction relative
  // to its block's first; `ready` the cycle each fixed-latency result of the block can be
  // consumed.
  std::map<unsigned, long> ready;
  SbState s;
  long t = 0;
  for (size_t j = 0; j < n; ++j) {
    const CtrlInst& c = code[j];
    if (starts[j]) {
      ready.clear();
      s = in[block_of[j]];
      t = 0;
    } else {
      long need = t;
      auto dep = [&](unsigned r) {
        auto it = ready.find(r);
        if (it != ready.end()) need = std::max(need, it->second);
      };
      each_read(c, dep);
      each_write(c, dep);
      if (need > t) {
        out[j - 1].stall = uint8_t(out[j - 1].stall + (need - t));
        t = need;
      }
    }
    const uint8_t wait = wait_of(j, s);
    out[j].wait_mask = wait;
    s.clear(wait);
    auto increments = [&](size_t i) {
      return (out[i].wr_sb != CtrlBits::kNoSb && wait >> out[i].wr_sb & 1) ||
             (out[i].rd_sb != CtrlBits::kNoSb && wait >> out[i].rd_sb & 1);
    };
    if (wait && !starts[j] && increments(j - 1) && out[j - 1].stall < 2) {
      t += 2 - out[j - 1].stall; // incremented the cycle after issue (Sec. 4)
      out[j - 1].stall = 2;
    }
    if (wait && starts[j]) // the ends of the blocks that lead here
      for (unsigned q : preds[block_of[j]]) {
        const size_t e = end_of(q) - 1;
        if (increments(e)) out[e].stall = std::max<uint8_t>(out[e].stall, 2);
      }
    if (c.variable) {
      if (out[j].wr_sb != CtrlBits::kNoSb)
        each_write(c, [&](unsigned r) { s.regs[r].w |= uint8_t(1u << out[j].wr_sb); });
      if (out[j].rd_sb != CtrlBits::kNoSb)
        each_read(c, [&](unsigned r) { s.regs[r].r |= uint8_t(1u << out[j].rd_sb); });
    } else {
      each_write(c, [&](unsigned r) { ready[r] = t + long(c.latency); });
    }
    // The last instruction of a block waits for every fixed-latency result of the block.
    const bool last = j + 1 == n || starts[j + 1];
    if (last) {
      long done = t + out[j].stall;
      for (auto& [r, at] : ready) done = std::max(done, at);
      out[j].stall = uint8_t(std::max<long>(out[j].stall, done - t));
    }
    t += out[j].stall;
  }
  for (CtrlBits& b : out) b.stall = uint8_t(std::min<unsigned>(b.stall, p.max_stall));
  return out;
}

} // namespace gpurf::compiler
