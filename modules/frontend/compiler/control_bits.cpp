#include "gpurf/modules/frontend/compiler/control_bits.h"

#include <algorithm>
#include <map>
#include <set>

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

} // namespace

std::vector<CtrlBits> control_bits(const std::vector<CtrlInst>& code, const CtrlParams& p) {
  const size_t n = code.size();
  std::vector<CtrlBits> out(n);
  const unsigned kSlots = 3;
  for (size_t i = 0; i < n; ++i)
    for (unsigned k = 0; k < std::min<size_t>(kSlots, code[i].src.size()); ++k)
      if (reuse(code, i, k, p.banks)) out[i].reuse_mask |= uint8_t(1u << k);

  // Dependence counters, taken round-robin by the variable-latency instructions in layout
  // order; per register, every counter any producer of it (wmask) or any reader of it that
  // reads late (rmask) uses somewhere in the function: what a block's first use of the
  // register must wait for, whichever path led there.
  const uint8_t all_counters = uint8_t((1u << p.counters) - 1);
  std::map<unsigned, uint8_t> wmask, rmask;
  unsigned next_sb = 0;
  for (size_t j = 0; j < n; ++j) {
    const CtrlInst& c = code[j];
    if (!c.variable) continue;
    if (!c.dst.empty() || !c.pdst.empty()) {
      out[j].wr_sb = uint8_t(next_sb);
      next_sb = (next_sb + 1) % p.counters;
      each_write(c, [&](unsigned r) { wmask[r] |= uint8_t(1u << out[j].wr_sb); });
    }
    if (!c.src.empty() || !c.psrc.empty()) {
      out[j].rd_sb = uint8_t(next_sb);
      next_sb = (next_sb + 1) % p.counters;
      each_read(c, [&](unsigned r) { rmask[r] |= uint8_t(1u << out[j].rd_sb); });
    }
  }

  // Stall counts: t = the earliest issue cycle of each instruction relative to its block's
  // first; `ready` the cycle each fixed-latency result of the block can be consumed.
  std::map<unsigned, long> ready;
  std::map<unsigned, uint8_t> sb_write, sb_read; // register -> counters guarding it (block)
  // Registers whose producers (known_w) or late readers (known_r) from before the block the
  // block has waited for already; all_known: everything before the block is done.
  std::set<unsigned> known_w, known_r;
  bool all_known = false;
  long t = 0;
  for (size_t j = 0; j < n; ++j) {
    const CtrlInst& c = code[j];
    if (c.leader && j > 0) {
      ready.clear();
      sb_write.clear();
      sb_read.clear();
      known_w.clear();
      known_r.clear();
      all_known = false;
      t = 0;
    } else if (j > 0) {
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
    // RAW/WAW on a variable-latency result, WAR on its sources: the block's own producers
    // precisely, those before the block by the function-wide masks. The kernel's (or the
    // function's) first instruction and the one after a call wait for every counter.
    uint8_t wait = 0;
    if (j == 0 || c.after_call) {
      wait = all_counters;
    } else if (c.leader) { // the counters of every register the block uses, at its start
      for (size_t k = j; k < n && (k == j || !code[k].leader); ++k) {
        auto add = [&](const std::map<unsigned, uint8_t>& m, unsigned r) {
          auto it = m.find(r);
          if (it != m.end()) wait |= it->second;
        };
        each_read(code[k], [&](unsigned r) { add(wmask, r); });
        each_write(code[k], [&](unsigned r) {
          add(wmask, r);
          add(rmask, r);
        });
      }
      all_known = true;
    }
    auto raw = [&](unsigned r) {
      if (!all_known && !known_w.count(r)) {
        auto w = wmask.find(r);
        if (w != wmask.end()) wait |= w->second;
      }
      auto it = sb_write.find(r);
      if (it != sb_write.end()) wait |= it->second;
    };
    auto war = [&](unsigned r) {
      if (!all_known && !known_r.count(r)) {
        auto w = rmask.find(r);
        if (w != rmask.end()) wait |= w->second;
      }
      auto it = sb_read.find(r);
      if (it != sb_read.end()) wait |= it->second;
    };
    each_read(c, raw);
    each_write(c, raw);
    each_write(c, war);
    out[j].wait_mask = wait;
    if (wait == all_counters) all_known = true;
    if (!all_known) {
      each_read(c, [&](unsigned r) { known_w.insert(r); });
      each_write(c, [&](unsigned r) {
        known_w.insert(r);
        known_r.insert(r);
      });
    }
    if (wait) { // every register those counters guarded is safe once they are zero
      for (auto* m : {&sb_write, &sb_read})
        for (auto it = m->begin(); it != m->end();)
          it = (it->second &= uint8_t(~wait)) ? std::next(it) : m->erase(it);
      if (j > 0 &&
          ((out[j - 1].wr_sb != CtrlBits::kNoSb && wait >> out[j - 1].wr_sb & 1) ||
           (out[j - 1].rd_sb != CtrlBits::kNoSb && wait >> out[j - 1].rd_sb & 1)) &&
          out[j - 1].stall < 2) {
        t += 2 - out[j - 1].stall; // incremented the cycle after issue (Sec. 4)
        out[j - 1].stall = 2;
      }
    }
    if (c.variable) {
      if (out[j].wr_sb != CtrlBits::kNoSb)
        each_write(c, [&](unsigned r) { sb_write[r] = uint8_t(1u << out[j].wr_sb); });
      if (out[j].rd_sb != CtrlBits::kNoSb)
        each_read(c, [&](unsigned r) { sb_read[r] |= uint8_t(1u << out[j].rd_sb); });
    } else {
      each_write(c, [&](unsigned r) { ready[r] = t + long(c.latency); });
    }
    // The last instruction of a block waits for every fixed-latency result of the block.
    const bool last = j + 1 == n || code[j + 1].leader;
    if (last) {
      long done = t + out[j].stall;
      for (auto& [r, at] : ready) done = std::max(done, at);
      out[j].stall = uint8_t(done - t);
    }
    t += out[j].stall;
  }
  for (CtrlBits& b : out) b.stall = uint8_t(std::min<unsigned>(b.stall, p.max_stall));
  return out;
}

} // namespace gpurf::compiler
