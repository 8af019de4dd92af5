// Allocates the next free collector serving the instruction's pipe, round robin from the
// one allocated last (GPGPU-Sim's operand collector allocation).
#pragma once

#include "gpurf/modules/allocator/impl/pool.h"

namespace gpurf {

class RoundRobinAllocator : public CollectorPool {
public:
  RoundRobinAllocator(sc_core::sc_module_name nm, Params&, const UnitContext& c)
      : CollectorPool(nm, c) {}

protected:
  int choose(const WarpInst&, unsigned pipe_bit) override {
    const unsigned n = collectors();
    if (n <= kMaskable) { // the first eligible after last_, wrapping: a scan of the mask
      const uint64_t m = eligible_mask(pipe_bit);
      if (!m) return -1;
      const uint64_t after = last_ + 1 < 64 ? m & (~uint64_t(0) << (last_ + 1)) : 0;
      return int(last_ = unsigned(__builtin_ctzll(after ? after : m)));
    }
    for (unsigned k = 0; k < n; ++k) {
      const unsigned i = (last_ + 1 + k) % n;
      if (eligible(i, pipe_bit)) return int(last_ = i);
    }
    return -1;
  }

private:
  unsigned last_ = 0;
};

} // namespace gpurf
