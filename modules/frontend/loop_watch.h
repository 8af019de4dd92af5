// Spin loops: a kernel that can never end is stopped with a message instead of running to
// sm.max_cycles (hours). When for a long stretch no warp has stored, run an atomic, passed a
// barrier or exited, the front-end samples each warp's state at its branches (pc, active
// lanes, every register and predicate: a hash); execution is deterministic and memory
// unchanged, so a warp whose sampled state recurs loops forever, and when the last samples
// of every warp are all recurrences nothing can change any more. A sampled subsequence of a
// periodic one is periodic, so sampling every kSample-th branch still finds the repeat.
// A loop that reads %clock or makes any other register change never repeats: it runs on.
// Plain C++.
#pragma once

#include <cstdint>
#include <unordered_set>
#include <vector>

namespace gpurf {

class LoopWatch {
public:
  static constexpr uint64_t kQuiet = 1u << 20; // warp instructions without progress first
  static constexpr unsigned kSample = 64;      // a warp's branches between samples
  static constexpr unsigned kRepeats = 1024;   // consecutive recurring samples: stuck

  // Every executed warp instruction; `progress`: a store, atomic, barrier or exit.
  void executed(bool progress) {
    if (!progress) {
      ++quiet_;
      return;
    }
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
  // Warp instructions since the last progress.
  uint64_t quiet() const { return quiet_; }

private:
  uint64_t quiet_ = 0;
  unsigned repeats_ = 0;
  std::vector<uint64_t> branches_;
  std::unordered_set<uint64_t> seen_;
};

} // namespace gpurf
