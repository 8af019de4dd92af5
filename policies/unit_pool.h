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
  unsigned units() const { return units_; }

private:
  const unsigned units_;
  std::map<Cycle, unsigned> used_; // units taken per cycle
};

} // namespace gpurf
