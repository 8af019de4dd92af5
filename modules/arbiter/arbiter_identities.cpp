// Every arbiter's grants against the checker's events (platform/check/identities.h).
#include "gpurf/platform/check/identities.h"

namespace gpurf {

GPURF_IDENTITIES(arbiter, identities::always()) {
  c.equal("verify-reads granted = verify-read events",
          {{"arbiter.verify_reads_granted", c.sum("arbiter", "verify_reads_granted")},
           {"verify-read events", double(c.events.verify_reads)}});
  c.equal("physical bank accesses = port cycles used",
          {{"arbiter.bank_accesses", c.sum("arbiter", "bank_accesses")},
           {"port cycles seen", double(c.events.bank_port_cycles)}});
}

} // namespace gpurf
