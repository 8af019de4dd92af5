#include "gpurf/modules/lsu/i_lsu.h"

namespace gpurf {

GPURF_UNIT_SLOT(ILsu, "lsu", "load/store unit (MEM pipe) of a sub-core");

} // namespace gpurf
