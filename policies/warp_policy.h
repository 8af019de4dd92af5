// Warp priority of a scheduler: the order in which it tries its warps each cycle.
#pragma once

#include <cstdint>
#include <vector>

#include "gpurf/platform/registry.h"

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
  // A policy that ranks warps by the state of the caching collectors (Malekeh) returns a
  // vector the scheduler fills before every prioritize(): per warp index, whether a CCU
  // holds its registers. Null: the policy does not look.
  virtual std::vector<uint8_t>* ccu_state() { return nullptr; }

protected:
  // Indices into `age` sorted oldest first; re-sorted only when the ages change.
  const std::vector<unsigned>& by_age(const std::vector<uint64_t>& age);
  unsigned last_ = 0;

private:
  std::vector<uint64_t> sorted_for_;
  std::vector<unsigned> sorted_;
};

} // namespace gpurf
