// The register-file cache (platform/check/identities.h; docs/gebhart.md): hits, lookups,
// results allocated or bypassed, and the MRF writes it makes. Without an RFC the SM's own
// block holds every result to one bank write (platform/sm_identities.cpp).
#include "gpurf/platform/check/identities.h"

namespace gpurf {

GPURF_IDENTITIES(rfc, identities::kind("rfc")) {
  const EventCounts& e = c.events;
  c.equal("RFC hits = RFC read events",
          {{"rfc.reads", c.sum("rfc", "reads")}, {"RFC read events", double(e.rfc_reads)}});
  c.equal("RFC lookups = hits + misses",
          {{"rfc.reads + rfc.misses", c.sum("rfc", "reads") + c.sum("rfc", "misses")},
           {"operands read", double(e.bank_reads + e.rfc_reads)}});
  c.equal("RFC results = allocated + bypassed",
          {{"rfc.results", c.sum("rfc", "results")},
           {"RFC result writes + rfc.bypass", double(e.rfc_writes) + c.sum("rfc", "bypass")},
           {"writeback.register_writes", c.sum("writeback", "register_writes")}});
  c.equal("MRF writes = bank writes", {{"rfc.mrf_writes", c.sum("rfc", "mrf_writes")},
                                       {"bank write events", double(e.bank_writes)}});
  c.equal("RFC write-backs = bank writes of cached values",
          {{"rfc.writebacks", c.sum("rfc", "writebacks")},
           {"copy write events", double(e.bank_copy_writes)}});
  // Gebhart Sec. 3.1: every result not bypassed is allocated; with allocate_sources the MRF
  // operands passing by are copied in too.
  c.equal("RFC writes = results allocated + source operands copied",
          {{"rfc.writes", c.sum("rfc", "writes")},
           {"RFC result write events + RFC fill events", double(e.rfc_writes + e.rfc_fills)}});
}

} // namespace gpurf
