// Port R of Malekeh's caching collector units (shared/papers/001, Sec. III-C, Fig. 4/5):
// every CCU tells the issue scheduler, the CCU allocator and the arbiter (which routes
// results to port D) whose registers its cache table holds and whether any of them has a
// near reuse. One board per SM, written by the CCUs, read by the others; the SM-wide STHLD
// (a per-GPU threshold in the paper; one SM here) lives beside it.
#pragma once

#include <memory>
#include <vector>

#include "gpurf/policies/sthld.h"

namespace gpurf {

class CcuBoard {
public:
  struct Ccu {
    int warp = -1;     // the warp whose registers the table holds; -1: none
    bool near = false; // some entry has a near reuse
  };
  Ccu& at(unsigned subcore, unsigned collector) {
    if (subcore >= sub_.size()) sub_.resize(subcore + 1);
    auto& v = sub_[subcore];
    if (collector >= v.size()) v.resize(collector + 1);
    return v[collector];
  }
  // The CCU of the sub-core holding registers of `warp`, or -1 (Malekeh's allocation keeps
  // a warp's data in one CCU at most; the first is taken otherwise).
  int holder(unsigned subcore, unsigned warp) const {
    if (subcore >= sub_.size()) return -1;
    const auto& v = sub_[subcore];
    for (unsigned c = 0; c < v.size(); ++c)
      if (v[c].warp == int(warp)) return int(c);
    return -1;
  }
  // Calls f(collector) for every CCU of the sub-core holding registers of `warp`.
  template <class F> void holders(unsigned subcore, unsigned warp, F&& f) const {
    if (subcore >= sub_.size()) return;
    const auto& v = sub_[subcore];
    for (unsigned c = 0; c < v.size(); ++c)
      if (v[c].warp == int(warp)) f(c);
  }
  // The SM's STHLD controller, created by the first allocator that asks (all allocators of
  // a platform have the same parameters).
  Sthld& sthld(const Sthld::Options& o) {
    if (!sthld_) sthld_ = std::make_unique<Sthld>(o);
    return *sthld_;
  }
  Sthld* sthld() const { return sthld_.get(); }

private:
  std::vector<std::vector<Ccu>> sub_;
  std::unique_ptr<Sthld> sthld_;
};

} // namespace gpurf
