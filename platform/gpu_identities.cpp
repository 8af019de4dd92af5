// Identities of the parts several SMs share (platform/check/identities.h): the interconnect
// carries what the L1s send, and the GPU's counts are its SMs'.
#include "gpurf/platform/check/identities.h"

#include <algorithm>

#include "gpurf/platform/stats.h"

namespace gpurf {

// The SMs' memory traffic crosses the interconnect: every request the L1s send to their
// memory side (a fill per miss, write-throughs, atomics), with its bytes.
GPURF_IDENTITIES(interconnect, identities::kind("interconnect")) {
  c.equal("interconnect requests = L1 misses + writes + atomics",
          {{"interconnect.requests", c.sum("interconnect", "requests")},
           {"l1.misses + writes + atomics",
            c.sum("l1", "misses") + c.sum("l1", "writes") + c.sum("l1", "atomics")}});
  c.equal("interconnect bytes = bytes the L1s read and wrote",
          {{"interconnect.bytes", c.sum("interconnect", "bytes")},
           {"l1.bytes_from_memory + bytes_to_memory",
            c.sum("l1", "bytes_from_memory") + c.sum("l1", "bytes_to_memory")}});
}

// Several SMs: the GPU's counts are its SMs'.
GPURF_IDENTITIES(gpu, identities::kind("gpu")) {
  double last = 0;
  for (auto it = c.stats.begin(); it != c.stats.end(); ++it)
    if (it.value().is_object() && it.key().find('.') == std::string::npos &&
        group_of_kind(it.key(), "sm"))
      last = std::max(last, c.read_at("sm", it.key(), it.value(), "cycles"));
  c.equal("GPU cycles = the last SM's cycles",
          {{"gpu.cycles", c.sum("gpu", "cycles")}, {"max sm.cycles", last}});
  c.equal("GPU warp instructions = the SMs' warp instructions",
          {{"gpu.warp_instructions", c.sum("gpu", "warp_instructions")},
           {"sm.warp_instructions", c.sum("sm", "warp_instructions")}});
}

} // namespace gpurf
