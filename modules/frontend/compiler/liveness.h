// Liveness of PTX virtual registers over the CFG (plain C++, no SystemC).
//
// The analysis runs on the CFG of `build_cfg()` augmented with the *SIMT edges* the warp's
// execution order adds: the engine runs a divergent branch's taken side first until it reaches
// the reconvergence point (the branch block's immediate post-dominator P), then the
// fall-through side, then P with the reconverged mask. So every block Y on the taken side that
// jumps to P (or whose lanes exit) is followed in the warp's instruction stream by the
// fall-through block F, and a block on the fall-through side whose lanes exit is followed by P.
// Adding the edges Y -> F (and Y -> P) makes every dynamic warp-level instruction sequence a
// path of the augmented graph, so a value is live wherever the *warp* may still need any lane
// of it. This matters because the timing model holds whole 32-lane registers: a register
// reused on the taken side while a value still waits for the fall-through side would be
// clobbered in the lanes that side reads.
//
// A guarded instruction (`@%p op d, ...`) writes only the lanes whose guard is true: its
// destinations do not kill (the old value survives in the other lanes), unless
// LivenessOptions::guarded_defs_kill is set.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gpurf/modules/frontend/ptx/cfg.h"
#include "gpurf/modules/frontend/ptx/ir.h"

namespace gpurf::compiler {

// A fixed-size set of vreg ids.
class RegSet {
public:
  RegSet() = default;
  explicit RegSet(unsigned n) : n_(n), w_((n + 63) / 64, 0) {}
  unsigned universe() const { return n_; }
  bool test(unsigned i) const { return i < n_ && ((w_[i / 64] >> (i % 64)) & 1); }
  void set(unsigned i) { w_[i / 64] |= uint64_t(1) << (i % 64); }
  void reset(unsigned i) { w_[i / 64] &= ~(uint64_t(1) << (i % 64)); }
  // this |= o; true if this changed.
  bool merge(const RegSet& o);
  unsigned count() const;
  std::vector<unsigned> members() const;
  bool operator==(const RegSet& o) const { return w_ == o.w_; }
  bool operator!=(const RegSet& o) const { return w_ != o.w_; }
  template <class F> void for_each(F f) const {
    for (size_t k = 0; k < w_.size(); ++k)
      for (uint64_t m = w_[k]; m; m &= m - 1) f(unsigned(k * 64 + unsigned(__builtin_ctzll(m))));
  }

private:
  unsigned n_ = 0;
  std::vector<uint64_t> w_;
};

// The vregs one instruction reads and writes (distinct, operand order; predicates included).
struct UseDef {
  std::vector<unsigned> uses, defs;
  bool partial = false; // guarded: the destinations keep their value in lanes not written
};

struct LivenessOptions {
  bool simt_edges = true;         // add the SIMT execution-order edges (see above)
  bool guarded_defs_kill = false; // treat guarded destinations as full definitions
  // Per vreg: a constant operand (constants.h), held in the instruction encoding: no use or
  // definition of it is a register access. Empty: none.
  std::vector<bool> constant;
};

struct Liveness {
  ptx::Cfg cfg;
  // Per block: CFG successors plus SIMT edges (the graph the analysis ran on).
  std::vector<std::vector<unsigned>> succs;
  std::vector<RegSet> block_in, block_out; // per block
  std::vector<RegSet> live_in, live_out;   // per instruction
  std::vector<UseDef> ud;                  // per instruction
  RegSet entry_live_in;                    // read before any write on some path
  unsigned n_regs = 0;

  bool live_before(unsigned pc, unsigned v) const { return live_in[pc].test(v); }
  bool live_after(unsigned pc, unsigned v) const { return live_out[pc].test(v); }
  // True when instruction `pc` reads `v` and that value (register instance) is dead after
  // `pc` on every path: no later instruction reads it before it is redefined.
  bool last_read(unsigned pc, unsigned v) const;
};

UseDef use_def(const ptx::Function& f, const ptx::Instr& in);

Liveness compute_liveness(const ptx::Function& f, const LivenessOptions& opt = {});

// The SIMT edges alone (pairs from -> to, block ids), for tests and documentation.
std::vector<std::pair<unsigned, unsigned>> simt_edges(const ptx::Cfg& cfg, const ptx::Function& f);

} // namespace gpurf::compiler
