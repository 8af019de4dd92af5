// Kernels that cannot end are stopped with a message instead of running to sm.max_cycles.
//
// Spin loops. When for a long stretch no warp has stored, run an atomic, passed a barrier or
// exited, memory is constant, and the front-end samples each warp's state at its branches (pc,
// active lanes and its *control registers*: a hash). A control register is one a branch
// depends on: the registers and predicates that flow, through any chain of instructions
// (addresses of loads included), into a branch's operands (control_registers() below, one
// flow-insensitive pass over the kernel, so a superset). The other registers (accumulators,
// values only stored) can never change where a warp goes, so a loop whose control state
// recurs loops forever however its sums change: a loop whose counter increment or `setp` is
// gone is found, not only one whose every register repeats. When the last samples of every
// warp are all recurrences, nothing can change any more. A sampled subsequence of a periodic
// one is periodic, so sampling every kSample-th branch still finds the repeat. A loop that
// reads %clock into its condition never repeats: the progress bound ends it.
//
// Progress bound. A kernel in which no warp stores to global memory, runs an atomic, passes a
// barrier or exits for `bound` warp instructions per SM (frontend.progress_bound) is stopped:
// the backstop for loops whose control state changes without end (a counter that wraps only
// after 2^32 iterations, a debug build keeping its variables in local memory). Per SM, so that
// a legitimately long first wave of CTAs on a GPU of many SMs is not taken for one.
// Plain C++.
#pragma once

#include <cstdint>
#include <unordered_set>
#include <vector>

#include "gpurf/modules/common/warp_inst.h"

namespace gpurf {

// Per register and per predicate (regs then preds): true when a branch depends on it.
inline std::vector<bool> control_registers(const std::vector<InstInfo>& code, unsigned regs,
                                           unsigned preds) {
  std::vector<bool> control(regs + preds, false);
  auto mark = [&](unsigned i, bool& changed) {
    if (i < control.size() && !control[i]) control[i] = changed = true;
  };
  // A branch's operands, then every input of an instruction that writes a control register
  // (its guard included), until nothing changes: at most one pass per dependence level.
  bool changed = true;
  for (bool first = true; changed; first = false) {
    changed = false;
    for (const InstInfo& i : code) {
      bool feeds = first && i.op_class == OpClass::Control;
      for (unsigned k = 0; k < i.n_dst && !feeds; ++k)
        feeds = i.dst_reg[k] < regs && control[i.dst_reg[k]];
      for (unsigned k = 0; k < i.n_pdst && !feeds; ++k)
        feeds = i.pdst_reg[k] < preds && control[regs + i.pdst_reg[k]];
      if (!feeds) continue;
      for (unsigned k = 0; k < i.n_src; ++k) mark(i.src_reg[k], changed);
      for (unsigned k = 0; k < i.n_psrc; ++k) mark(regs + i.psrc_reg[k], changed);
    }
  }
  return control;
}

class LoopWatch {
public:
  static constexpr uint64_t kQuiet = 1u << 18; // warp instructions without progress first
  static constexpr unsigned kSample = 64;      // a warp's branches between samples
  static constexpr unsigned kRepeats = 256;    // consecutive recurring samples: stuck

  enum class Progress { None, Private, Global };
  // What an executed instruction does: Global for a global (or generic) store or atomic, a
  // barrier or an exit; Private for a shared, local or param store or a shared atomic (memory
  // changed, but not where the kernel's result goes: a loop bumping a shared counter for ever
  // meets the progress bound); None otherwise.
  static Progress progress_of(const InstInfo& i) {
    if (i.barrier || i.exit) return Progress::Global;
    if (i.mem != MemKind::Store && i.mem != MemKind::Atomic) return Progress::None;
    const bool own = i.space == MemSpace::Shared || i.space == MemSpace::Local ||
                     i.space == MemSpace::Param; // a call's arguments
    return own ? Progress::Private : Progress::Global;
  }

  explicit LoopWatch(uint64_t bound = 0) : bound_(bound) {}

  // Every executed warp instruction.
  void executed(Progress p) {
    if (p == Progress::None) {
      ++quiet_;
      ++since_global_;
      return;
    }
    if (p == Progress::Global)
      since_global_ = 0;
    else
      ++since_global_;
    quiet_ = 0;
    repeats_ = 0;
    seen_.clear();
  }
  // A branch of warp slot `warp`: whether to sample its state now.
  bool sample(unsigned warp) {
    if (quiet_ < kQuiet) return false;
    if (warp >= branches_.size()) branches_.resize(warp + 1, 0);
    return ++branches_[warp] % kSample == 0;
  }
  // A sampled state of warp slot `warp`: true when the kernel can never end.
  bool stuck(unsigned warp, uint64_t state) {
    const uint64_t key = state ^ (uint64_t(warp) + 1) * 0x9e3779b97f4a7c15ull;
    repeats_ = seen_.insert(key).second ? 0 : repeats_ + 1;
    return repeats_ >= kRepeats;
  }
  // Past the progress bound (never with bound 0).
  bool over_bound() const { return bound_ && since_global_ >= bound_ * sms_; }
  void set_sms(unsigned sms) { sms_ = sms ? sms : 1; }
  // Warp instructions since the last progress of any kind / of the Global kind.
  uint64_t quiet() const { return quiet_; }
  uint64_t since_global() const { return since_global_; }
  uint64_t bound() const { return bound_; }

private:
  uint64_t bound_ = 0, sms_ = 1;
  uint64_t quiet_ = 0, since_global_ = 0;
  unsigned repeats_ = 0;
  std::vector<uint64_t> branches_;
  std::unordered_set<uint64_t> seen_;
};

} // namespace gpurf
