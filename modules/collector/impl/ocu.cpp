#include "gpurf/modules/collector/impl/ocu.h"

namespace gpurf {

GPURF_REGISTER_UNIT(ICollector, Ocu, "ocu",
                    "baseline operand collector: distinct sources read once, src_slots in "
                    "flight, golden check at dispatch");

} // namespace gpurf
