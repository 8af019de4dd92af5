#include "gpurf/modules/allocator/impl/random.h"

namespace gpurf {

GPURF_REGISTER_UNIT(IAllocator, RandomAllocator, "random",
                    "a free collector serving the pipe, uniformly at random (seeded)");

} // namespace gpurf
