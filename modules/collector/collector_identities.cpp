// Every collector's operands against the reads that brought them (platform/check/identities.h).
// The designs' ways of filling a collector besides a bank read (CMRC's coalesced operands,
// Malekeh's CCU hits) are terms of the one identity; zero where the design is absent.
#include "gpurf/platform/check/identities.h"

namespace gpurf {

// frontend.reg64: one_operand: 64-bit operands' high halves, entering with their low half
// (the collectors that carry them: ocu and cmrc).
static double reg64(IdentityCheck& c) {
  return c.sum_of("collector", "ocu", "reg64_high_halves") +
         c.sum_of("collector", "cmrc", "reg64_high_halves");
}

GPURF_IDENTITIES(collector_operands, identities::always()) {
  const EventCounts& e = c.events;
  c.equal(
      "operands into collectors = operands read",
      {{"collector.oc_writes + oc_coalesced_operands + reg64_high_halves + ccu_hits",
        c.sum("collector", "oc_writes") + c.sum_of("collector", "cmrc", "oc_coalesced_operands") +
            reg64(c) + c.sum_of("collector", "ccu", "ccu_hits")},
       {"arrival events", double(e.arrivals)},
       {"bank reads + RFC hits + CCU hits", double(e.bank_reads + e.rfc_reads + e.ccu_reads)}});
}

// (The modern core's read stage requests nothing: its own block, impl/fixed_window.)
GPURF_IDENTITIES(collector_requests, identities::kind("collector")) {
  if (c.has("collector", "fixed_window")) return;
  c.equal("operands requested from the register file = operands that came from it",
          {{"collector.reads_requested", c.sum("collector", "reads_requested")},
           {"collector.oc_writes + oc_coalesced_operands + reg64_high_halves",
            c.sum("collector", "oc_writes") +
                c.sum_of("collector", "cmrc", "oc_coalesced_operands") + reg64(c)}});
}

// frontend.reg64: one_operand: every high half that entered a collector with its low half,
// and every one written with its low half, took no port of its own.
GPURF_IDENTITIES(reg64_halves, identities::always()) {
  c.equal("64-bit high halves read with their low half",
          {{"collector.reg64_high_halves", reg64(c)},
           {"companion read events", double(c.events.companion_reads)}});
  double written = 0;
  for (const char* impl : {"priority", "cmrc"})
    written += c.sum_of("writeback", impl, "reg64_high_halves");
  c.equal("64-bit high halves written with their low half",
          {{"writeback.reg64_high_halves", written},
           {"companion write events", double(c.events.companion_writes)}});
}

} // namespace gpurf
