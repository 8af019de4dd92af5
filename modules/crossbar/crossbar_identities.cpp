// Every crossbar's bytes against the slices read (platform/check/identities.h).
#include "gpurf/platform/check/identities.h"

namespace gpurf {

GPURF_IDENTITIES(crossbar_bytes, identities::always()) {
  c.equal("crossbar bytes = slices moved x slice bytes",
          {{"crossbar.bytes", c.sum("crossbar", "bytes")},
           {"read slices x slice bytes", double(c.events.bank_slice_reads) * (128.0 / c.slices)}});
}

} // namespace gpurf
