#include "gpurf/modules/scheduler/impl/standard.h"

namespace gpurf {

GPURF_REGISTER_UNIT(IScheduler, StandardScheduler, "standard",
                    "scoreboarded scheduler (RAW/WAW/WAR), one policy-ordered issue per cycle");

} // namespace gpurf
