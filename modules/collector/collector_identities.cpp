// Every collector's operands against the reads that brought them (platform/check/identities.h).
// The designs' ways of filling a collector besides a bank read (CMRC's coalesced operands,
// Malekeh's CCU hits) are terms of the one identity; zero where the design is absent.
#include "gpurf/platform/check/identities.h"

namespace gpurf {

GPURF_IDENTITIES(collector_operands, identities::always()) {
  const EventCounts& e = c.events;
  c.equal(
      "operands into collectors = operands read",
      {{"collector.oc_writes + oc_coalesced_operands + ccu_hits",
        c.sum("collector", "oc_writes") + c.sum_of("collector", "cmrc", "oc_coalesced_operands") +
            c.sum_of("collector", "ccu", "ccu_hits")},
       {"arrival events", double(e.arrivals)},
       {"bank reads + RFC hits + CCU hits", double(e.bank_reads + e.rfc_reads + e.ccu_reads)}});
}

// (The modern core's read stage requests nothing: its own block, impl/fixed_window.)
GPURF_IDENTITIES(collector_requests, identities::kind("collector")) {
  if (c.has("collector", "fixed_window")) return;
  c.equal(
      "operands requested from the register file = operands that came from it",
      {{"collector.reads_requested", c.sum("collector", "reads_requested")},
       {"collector.oc_writes + oc_coalesced_operands",
        c.sum("collector", "oc_writes") + c.sum_of("collector", "cmrc", "oc_coalesced_operands")}});
}

} // namespace gpurf
