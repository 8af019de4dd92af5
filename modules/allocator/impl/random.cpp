// Allocates a free collector serving the instruction's pipe, chosen uniformly at random
// (Malekeh Sec. II: "a random free OCU"); seeded, so runs stay deterministic.
#include <random>

#include "modules/allocator/impl/pool.h"

namespace gpurf {

class RandomAllocator : public CollectorPool {
public:
  RandomAllocator(sc_core::sc_module_name nm, Params& p, const UnitContext& c)
      : CollectorPool(nm, c),
        rng_(p.get_uint("seed", 1, "seed of the choice (the same seed, the same run)", 0)) {}

protected:
  int choose(unsigned pipe_bit) override {
    free_.clear();
    for (unsigned i = 0; i < collectors(); ++i)
      if (eligible(i, pipe_bit)) free_.push_back(i);
    if (free_.empty()) return -1;
    return int(free_[std::uniform_int_distribution<size_t>(0, free_.size() - 1)(rng_)]);
  }

private:
  std::mt19937 rng_;
  std::vector<unsigned> free_;
};

GPURF_REGISTER_UNIT(IAllocator, RandomAllocator, "random",
                    "a free collector serving the pipe, uniformly at random (seeded)");

} // namespace gpurf
