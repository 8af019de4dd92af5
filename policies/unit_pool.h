// A pool of identical pipelined units, each taking one item per cycle (W-C's compressors and
// decompressors): take(from) books the first cycle at or after `from` with a free unit.
#pragma once

#include <map>

#include "gpurf/modules/common/warp_inst.h"

namespace gpurf {

class UnitPool {
public:
  explicit UnitPool(unsigned units) : units_(units) {}
  // The cycle the item gets a unit; cycles before `now` are forgotten (nothing books them).
  Cycle take(Cycle from, Cycle now) {
    for (auto it = used_.begin(); it != used_.end() && it->first < now;) it = used_.erase(it);
    Cycle c = from;
    while (used_[c] >= units_) ++c;
    ++used_[c];
    return c;
  }
  // An instruction's `n` items pass in ceil(n / units) consecutive cycles, all units in each
  // but the last, which takes the rest: books the first such run at or after `from` (only if
  // `book`) and returns its last cycle.
  Cycle take_n(unsigned n, Cycle from, Cycle now, bool book) {
    for (auto it = used_.begin(); it != used_.end() && it->first < now;) it = used_.erase(it);
    const unsigned groups = (n + units_ - 1) / units_;
    auto need = [&](unsigned g) { return g + 1 < groups ? units_ : n - (groups - 1) * units_; };
    auto fits = [&](Cycle c) {
      for (unsigned g = 0; g < groups; ++g) {
        const auto it = used_.find(c + g);
        if (it != used_.end() && it->second + need(g) > units_) return false;
      }
      return true;
    };
    Cycle c = from;
    while (!fits(c)) ++c;
    if (book)
      for (unsigned g = 0; g < groups; ++g) used_[c + g] += need(g);
    return c + groups - 1;
  }
  unsigned units() const { return units_; }

private:
  const unsigned units_;
  std::map<Cycle, unsigned> used_; // units taken per cycle
};

} // namespace gpurf
