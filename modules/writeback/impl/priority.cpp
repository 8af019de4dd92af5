#include "gpurf/modules/writeback/impl/priority.h"

namespace gpurf {

GPURF_REGISTER_UNIT(IWriteback, PriorityWriteback, "priority",
                    "register write ports shared by the pipes in a priority order");

} // namespace gpurf
