// Allocates a free collector serving the instruction's pipe, chosen uniformly at random
// (Malekeh Sec. II: "a random free OCU"); seeded, so runs stay deterministic.
#pragma once
#include <random>

#include "gpurf/modules/allocator/impl/pool.h"

namespace gpurf {

class RandomAllocator : public CollectorPool {
public:
  RandomAllocator(sc_core::sc_module_name nm, Params& p, const UnitContext& c)
      : CollectorPool(nm, c),
        rng_(p.get_uint("seed", 1, "seed of the choice (the same seed, the same run)", 0,
                        UINT32_MAX)) {}

protected:
  int choose(const WarpInst&, unsigned pipe_bit) override {
    return pick(free_of(pipe_bit, [](unsigned) { return true; }));
  }
  // The eligible collectors for `pipe_bit` that `keep` accepts.
  template <class F> const std::vector<unsigned>& free_of(unsigned pipe_bit, F&& keep) {
    free_.clear();
    for (unsigned i = 0; i < collectors(); ++i)
      if (eligible(i, pipe_bit) && keep(i)) free_.push_back(i);
    return free_;
  }
  // One of `set` uniformly at random; -1 if it is empty.
  int pick(const std::vector<unsigned>& set) {
    if (set.empty()) return -1;
    return int(set[std::uniform_int_distribution<size_t>(0, set.size() - 1)(rng_)]);
  }

private:
  std::mt19937 rng_;
  std::vector<unsigned> free_;
};

} // namespace gpurf
