// CMRC's split crossbar (platform/check/identities.h): one transfer per slice read.
#include "gpurf/platform/check/identities.h"

namespace gpurf {

GPURF_IDENTITIES(split_crossbar, identities::impl("crossbar", "split")) {
  c.equal("slice crossbar transfers = slices read",
          {{"crossbar.slice_transfers", c.sum("crossbar", "slice_transfers")},
           {"granted read slices", double(c.events.bank_slice_reads)}});
}

} // namespace gpurf
