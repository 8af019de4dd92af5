// Malekeh's caching collectors (platform/check/identities.h; docs/malekeh.md): every source
// operand a CT hit or a bank read; the results the arbiter offers are written, lose port D or
// meet a locked entry; warp changes seen alike by the CCUs and the checker.
#include "gpurf/platform/check/identities.h"

namespace gpurf {

GPURF_IDENTITIES(malekeh, identities::impl("collector", "ccu")) {
  const EventCounts& e = c.events;
  c.equal("Malekeh: source operands = CCU hits + bank reads requested",
          {{"collector.source_operands", c.sum_of("collector", "ccu", "source_operands")},
           {"collector.ccu_hits + reads_requested",
            c.sum_of("collector", "ccu", "ccu_hits") + c.sum("collector", "reads_requested")}});
  c.equal("Malekeh: CCU hits = CCU hit events",
          {{"collector.ccu_hits", c.sum_of("collector", "ccu", "ccu_hits")},
           {"CCU hit events", double(e.ccu_reads)}});
  c.equal("Malekeh: CCU writes = near results cached = CCU write events",
          {{"collector.ccu_writes", c.sum_of("collector", "ccu", "ccu_writes")},
           {"arbiter.ccu_near_results - ccu_write_port_lost - ccu_write_locked",
            c.sum_of("arbiter", "malekeh", "ccu_near_results") -
                c.sum_of("collector", "ccu", "ccu_write_port_lost") -
                c.sum_of("collector", "ccu", "ccu_write_locked")},
           {"CCU write events", double(e.ccu_writes)}});
  c.equal("Malekeh: far results squashed = squashed results seen by the CCUs",
          {{"arbiter.ccu_squashed_results", c.sum_of("arbiter", "malekeh", "ccu_squashed_results")},
           {"collector.ccu_writes_squashed", c.sum_of("collector", "ccu", "ccu_writes_squashed")}});
  c.equal("Malekeh: warp changes (each flushes once) = warp changes seen",
          {{"collector.ccu_warp_changes", c.sum_of("collector", "ccu", "ccu_warp_changes")},
           {"allocation events to another warp", double(e.ccu_warp_changes)}});
}

} // namespace gpurf
