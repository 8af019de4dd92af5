#include "gpurf/modules/memory/i_memory.h"

namespace gpurf {

GPURF_UNIT_SLOT(IMemory, "memory", "memory behind the L1 (TLM-2.0 base-protocol target)");

} // namespace gpurf
