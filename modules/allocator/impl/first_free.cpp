// Allocates the free collector with the lowest index that serves the instruction's pipe (a
// priority encoder over the free collectors).
#include "gpurf/modules/allocator/impl/pool.h"

namespace gpurf {

class FirstFreeAllocator : public CollectorPool {
public:
  FirstFreeAllocator(sc_core::sc_module_name nm, Params&, const UnitContext& c)
      : CollectorPool(nm, c) {}

protected:
  int choose(const WarpInst&, unsigned pipe_bit) override {
    for (unsigned i = 0; i < collectors(); ++i)
      if (eligible(i, pipe_bit)) return int(i);
    return -1;
  }
};

GPURF_REGISTER_UNIT(IAllocator, FirstFreeAllocator, "first_free",
                    "the free collector with the lowest index serving the pipe");

} // namespace gpurf
