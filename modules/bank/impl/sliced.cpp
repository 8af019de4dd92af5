#include "gpurf/modules/bank/impl/sliced.h"

namespace gpurf {

GPURF_REGISTER_UNIT(IBank, SlicedBank, "sliced",
                    "register bank of slices with per-slice ports; holds the register data");

} // namespace gpurf
