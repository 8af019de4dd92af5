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
  // `age[i]` orders the scheduler's warp slots by when the warp was launched (smaller =
  // older). Returns the slot indices from the highest to the lowest priority; the policy
  // keeps the order (valid until the next call) and rebuilds it only when its inputs changed.
  virtual const std::vector<unsigned>& prioritize(const std::vector<uint64_t>& age) = 0;
  // The scheduler issued from warps[i].
  virtual void issued(unsigned i) { last_ = i; }
  // A policy that ranks warps by the state of the caching collectors (Malekeh) returns a
  // vector the scheduler fills before every prioritize(): per warp index, whether a CCU
  // holds its registers. Null: the policy does not look.
  virtual std::vector<uint8_t>* ccu_state() { return nullptr; }
  // A count the caller changes whenever an age changes (never 0): the ages are then not
  // compared to see whether they changed. 0 (the default): they are.
  void set_age_stamp(uint64_t s) { age_stamp_ = s; }

protected:
  // Indices into `age` sorted oldest first; re-sorted only when the ages change (then
  // sorts_ counts one more).
  const std::vector<unsigned>& by_age(const std::vector<uint64_t>& age);
  // order_ = `from` with the last issuer moved to the front, the others in their order.
  void last_first(const std::vector<unsigned>& from);
  unsigned last_ = 0;
  uint64_t sorts_ = 0;
  std::vector<unsigned> order_; // what prioritize() returns

private:
  uint64_t age_stamp_ = 0, sorted_stamp_ = 0;
  std::vector<uint64_t> sorted_for_;
  std::vector<unsigned> sorted_;
};

} // namespace gpurf
