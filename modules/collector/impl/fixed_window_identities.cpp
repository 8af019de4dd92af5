// The modern core (collector fixed_window, allocator allocate_stage; docs/modern-core.md;
// platform/check/identities.h): every instruction allocated is dispatched, every refusal
// counted on both sides, bank reads and cache hits as the checker saw them; its bypass as the
// standard collector's forwarding.
#include "gpurf/platform/check/identities.h"

namespace gpurf {

GPURF_IDENTITIES(modern_core, identities::impl("collector", "fixed_window")) {
  const EventCounts& e = c.events;
  c.equal("modern core: instructions allocated = dispatched",
          {{"collector.allocated", c.sum_of("collector", "fixed_window", "allocated")},
           {"collector.dispatched", c.sum_of("collector", "fixed_window", "dispatched")},
           {"allocator.allocations", c.sum_of("allocator", "allocate_stage", "allocations")}});
  c.equal("modern core: port conflicts = refused issues",
          {{"collector.port_conflicts", c.sum_of("collector", "fixed_window", "port_conflicts")},
           {"allocator.full", c.sum_of("allocator", "allocate_stage", "full")}});
  c.equal("modern core: bank reads = bank read events",
          {{"collector.bank_reads", c.sum_of("collector", "fixed_window", "bank_reads")},
           {"bank read events", double(e.bank_reads)}});
  c.equal("modern core: register-file cache hits = RFC read events",
          {{"collector.rfc_hits", c.sum_of("collector", "fixed_window", "rfc_hits")},
           {"RFC read events", double(e.rfc_reads)}});
  c.equal("operands forwarded = forwarded arrivals",
          {{"collector.operands_forwarded",
            c.sum_of("collector", "fixed_window", "operands_forwarded")},
           {"forwarded arrival events", double(e.forwarded)}});
}

} // namespace gpurf
