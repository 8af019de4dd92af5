// A pool of identical pipelined units, each taking one item per cycle (W-C's compressors and
// decompressors): take(from) books the first cycle at or after `from` with a free unit.
#pragma once

#include <deque>

#include "gpurf/modules/common/warp_inst.h"

namespace gpurf {

class UnitPool {
public:
  explicit UnitPool(unsigned units) : units_(units) {}
  // The cycle the item gets a unit; cycles before `now` are forgotten (nothing books them).
  Cycle take(Cycle from, Cycle now) {
    forget(now);
    Cycle c = from;
    while (used(c) >= units_) ++c;
    book_at(c, 1);
    return c;
  }
  // An instruction's `n` items pass in ceil(n / units) consecutive cycles, all units in each
  // but the last, which takes the rest: books the first such run at or after `from` (only if
  // `book`) and returns its last cycle.
  Cycle take_n(unsigned n, Cycle from, Cycle now, bool book) {
    forget(now);
    const unsigned groups = (n + units_ - 1) / units_;
    auto need = [&](unsigned g) { return g + 1 < groups ? units_ : n - (groups - 1) * units_; };
    auto fits = [&](Cycle c) {
      for (unsigned g = 0; g < groups; ++g)
        if (used(c + g) + need(g) > units_) return false;
      return true;
    };
    Cycle c = from;
    while (!fits(c)) ++c;
    if (book)
      for (unsigned g = 0; g < groups; ++g) book_at(c + g, need(g));
    return c + groups - 1;
  }
  unsigned units() const { return units_; }

private:
  const unsigned units_;
  // Units taken per cycle from base_ on, the `now` of the latest call (a window, not a map:
  // no allocation per booked cycle). A cycle before base_ is forgotten: nothing can book it.
  void forget(Cycle now) {
    if (now <= base_) return;
    if (now - base_ >= used_.size())
      used_.clear();
    else
      used_.erase(used_.begin(), used_.begin() + long(now - base_));
    base_ = now;
  }
  unsigned used(Cycle c) const {
    return c < base_ || c - base_ >= used_.size() ? 0 : used_[size_t(c - base_)];
  }
  void book_at(Cycle c, unsigned n) {
    if (c < base_) return;
    if (c - base_ >= used_.size()) used_.resize(size_t(c - base_) + 1, 0);
    used_[size_t(c - base_)] += n;
  }
  Cycle base_ = 0;
  std::deque<unsigned> used_;
};

} // namespace gpurf
