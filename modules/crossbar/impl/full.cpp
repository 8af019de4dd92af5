#include "gpurf/modules/crossbar/impl/full.h"

namespace gpurf {

GPURF_REGISTER_UNIT(ICrossbar, FullCrossbar, "full", "full bank-to-collector crossbar");

} // namespace gpurf
