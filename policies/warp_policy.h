// Warp priority of a scheduler: the order in which it tries its warps each cycle.
#pragma once

#include <cstdint>
#include <vector>

#include "platform/registry.h"

namespace gpurf {

class WarpPolicy {
public:
  using Registry = gpurf::Registry<WarpPolicy>;
  virtual ~WarpPolicy() = default;
  // `warps` holds the scheduler's warp slots; `age[i]` orders them by when the warp was
  // launched (smaller = older). Writes into `order` the indices into `warps`, from the
  // highest to the lowest priority.
  virtual void prioritize(const std::vector<uint64_t>& age, std::vector<unsigned>& order) = 0;
  // The scheduler issued from warps[i].
  virtual void issued(unsigned i) { last_ = i; }

protected:
  unsigned last_ = 0;
};

} // namespace gpurf
