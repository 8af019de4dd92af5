// The collector allocator (platform/check/identities.h).
#include "gpurf/platform/check/identities.h"

namespace gpurf {

GPURF_IDENTITIES(allocator, identities::kind("allocator")) {
  c.equal("collector allocations = allocation events",
          {{"allocator.allocations", c.sum("allocator", "allocations")},
           {"allocation events", double(c.events.allocations)}});
}

} // namespace gpurf
