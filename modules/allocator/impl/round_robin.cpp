#include "gpurf/modules/allocator/impl/round_robin.h"

namespace gpurf {

GPURF_REGISTER_UNIT(IAllocator, RoundRobinAllocator, "round_robin",
                    "next free collector serving the pipe, round robin");

} // namespace gpurf
