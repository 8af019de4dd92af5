// Port R of Malekeh's caching collector units (shared/papers/001, Sec. III-C, Fig. 4/5):
// every CCU tells the issue scheduler, the CCU allocator and the arbiter (which routes
// results to port D) whose registers its cache table holds and whether any of them has a
// near reuse. One board per SM, written by the CCUs, read by the others; the SM-wide STHLD
// (a per-GPU threshold in the paper; one SM here) and the waiting counter (the paper's
// per-core counter: per SM, or per sub-core as a measured alternative) live beside it.
//
// A table belongs to a warp, not to its slot: it records the slot's generation (how many
// warps had finished in the slot, IFrontend::warps_finished) when it was filled. Once that
// warp's CTA has retired (the count moved on), the table holds dead values: it holds no
// warp's registers and no near values for the readers, and the CCU empties it at its next
// allocation, even to the next warp of the same slot (in the same or a later launch).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "gpurf/modules/frontend/i_frontend.h"
#include "gpurf/policies/sthld.h"

namespace gpurf {

class CcuBoard {
public:
  struct Ccu {
    int warp = -1;     // the warp slot whose registers the table holds; -1: none
    uint64_t gen = 0;  // the slot's warps_finished when the table was filled
    bool near = false; // some entry has a near reuse
  };
  // The front-end that counts finished warps per slot (set by the CCUs and the allocators;
  // null: no table is ever dead).
  void set_frontend(const IFrontend* f) { frontend_ = f; }
  // The slot's current generation.
  uint64_t generation(unsigned warp) const {
    return frontend_ ? frontend_->warps_finished(warp) : 0;
  }
  // The table holds registers of a warp that is still running (or has not started after
  // `gen` was taken): not dead.
  bool live(const Ccu& c) const { return c.warp >= 0 && c.gen == generation(unsigned(c.warp)); }
  // Port R's "holds near values" as the readers see it: only while the table's warp lives.
  bool near(unsigned subcore, unsigned collector) {
    const Ccu& c = at(subcore, collector);
    return c.near && live(c);
  }
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
      if (v[c].warp == int(warp) && live(v[c])) return int(c);
    return -1;
  }
  // Calls f(warp) for every CCU of the sub-core whose table holds a live warp's registers.
  template <class F> void live_tables(unsigned subcore, F&& f) const {
    if (subcore >= sub_.size()) return;
    for (const Ccu& c : sub_[subcore])
      if (live(c)) f(unsigned(c.warp));
  }
  // Calls f(collector) for every CCU of the sub-core holding registers of `warp`.
  template <class F> void holders(unsigned subcore, unsigned warp, F&& f) const {
    if (subcore >= sub_.size()) return;
    const auto& v = sub_[subcore];
    for (unsigned c = 0; c < v.size(); ++c)
      if (v[c].warp == int(warp) && live(v[c])) f(c);
  }
  // The SM's STHLD controller, created by the first allocator that asks (all allocators of
  // a platform have the same parameters).
  Sthld& sthld(const Sthld::Options& o) {
    if (!sthld_) sthld_ = std::make_unique<Sthld>(o);
    return *sthld_;
  }
  Sthld* sthld() const { return sthld_.get(); }
  // The waiting counter of Fig. 6 that sub-core `subcore` uses: one per SM (`per_sm`), or
  // one per sub-core.
  unsigned& counter(unsigned subcore, bool per_sm) {
    const unsigned i = per_sm ? 0 : subcore;
    if (i >= counters_.size()) counters_.resize(i + 1, 0);
    return counters_[i];
  }

private:
  std::vector<std::vector<Ccu>> sub_;
  std::unique_ptr<Sthld> sthld_;
  std::vector<unsigned> counters_;
  const IFrontend* frontend_ = nullptr;
};

} // namespace gpurf
