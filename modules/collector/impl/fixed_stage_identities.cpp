// The fixed-stage register read (platform/check/identities.h): its forwarding.
#include "gpurf/platform/check/identities.h"

namespace gpurf {

GPURF_IDENTITIES(fixed_stage, identities::impl("collector", "fixed_stage")) {
  c.equal(
      "operands forwarded = forwarded arrivals",
      {{"collector.operands_forwarded", c.sum_of("collector", "fixed_stage", "operands_forwarded")},
       {"forwarded arrival events", double(c.events.forwarded)}});
}

} // namespace gpurf
