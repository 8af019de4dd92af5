// CMRC's writeback (platform/check/identities.h): every result written has one stored width.
#include "gpurf/platform/check/identities.h"

namespace gpurf {

GPURF_IDENTITIES(cmrc_writeback, identities::impl("writeback", "cmrc")) {
  c.equal("CMRC: results written by stored width = register writes",
          {{"writeback.width_writes + reg64_high_halves",
            c.sum("writeback", "width_writes") + c.sum("writeback", "reg64_high_halves")},
           {"writeback.register_writes", c.sum("writeback", "register_writes")}});
}

} // namespace gpurf
