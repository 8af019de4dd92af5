// W-C's power-gated banks (platform/check/identities.h).
#include "gpurf/platform/check/identities.h"

namespace gpurf {

// A gated slice an access finds is woken, as the checker's own model of the valid bits (from
// the bank accesses) has it. With wake_latency 0 a wake-up costs no cycle, the checker has
// nothing to time and keeps no model: bank.wakeups is left unwatched.
GPURF_IDENTITIES(power_gated, identities::impl("bank", "power_gated")) {
  if (c.events.gating)
    c.equal("W-C: slices woken = wake-ups in the checker's gating model",
            {{"bank.wakeups", c.sum_of("bank", "power_gated", "wakeups")},
             {"wake-up events", double(c.events.wakeups)}});
}

} // namespace gpurf
