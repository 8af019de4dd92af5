// Register-file-cache hints of Gebhart et al. (ISCA'11) per instruction and destination vreg
// (plain C++, no SystemC), from the liveness and the long-latency marks:
//   * dead: the value written is never read (no write-back from the RFC needed);
//   * unread_before_suspend: no read of the value can happen before the warp's next
//     deactivation point, an instruction that consumes a long-latency result (Sec. 5.3: such
//     results bypass the RFC to the MRF);
//   * evict_first: no read before the next long-latency operation, a producer (load) or a
//     consumer (Sec. 5.3: the RFC evicts such values first).
// Backward may-analyses over the CFG with the SIMT edges: "read soon" sets, killed at full
// redefinitions and at the deactivation (resp. long-latency) points; a consumer's own reads
// happen after the deactivation, a producer's own reads before its operation.
#pragma once

#include <vector>

#include "gpurf/modules/frontend/compiler/liveness.h"
#include "gpurf/modules/frontend/compiler/long_latency.h"

namespace gpurf::compiler {

struct RfcHints {
  // Per instruction, per distinct defined vreg (UseDef::defs order).
  std::vector<std::vector<bool>> dead, unread_before_suspend, evict_first;
  // Vregs whose registers may be read before written on kernel entry: their values (and those
  // of any vreg sharing their registers) must never be dropped as dead.
  RegSet entry_live;
};

RfcHints rfc_hints(const ptx::Function& f, const Liveness& lv, const LongLatency& ll);

} // namespace gpurf::compiler
