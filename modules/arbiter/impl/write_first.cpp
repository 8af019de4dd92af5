#include "gpurf/modules/arbiter/impl/write_first.h"

namespace gpurf {

GPURF_REGISTER_UNIT(IArbiter, WriteFirstArbiter, "write_first",
                    "per-bank FIFO queues, writes before reads, slice ports, conflicts by kind");

} // namespace gpurf
