// WIR's reuse stage (platform/check/identities.h; docs/wir.md): every reuse-buffer miss has a
// cause. Its lookups, hits and misses are held with the writeback's (writeback/impl).
#include "gpurf/platform/check/identities.h"

namespace gpurf {

GPURF_IDENTITIES(wir_reuse, identities::impl("allocator", "wir")) {
  c.equal("WIR: reuse-buffer misses by cause = misses",
          {{"allocator.reuse_miss_kinds", c.sum("allocator", "reuse_miss_kinds")},
           {"allocator.reuse_misses", c.sum("allocator", "reuse_misses")}});
}

} // namespace gpurf
