// The L2 (platform/check/identities.h): it takes what the L1 sends to its memory port (line
// fills, one per miss; write-throughs; atomics), and every line a read covers is a hit, a
// miss or an MSHR merge.
#include "gpurf/platform/check/identities.h"

namespace gpurf {

GPURF_IDENTITIES(l2, identities::kind("l2")) {
  c.equal("L2 requests = L1 misses + write-throughs + atomics",
          {{"l2.reads + writes + atomics",
            c.sum("l2", "reads") + c.sum("l2", "writes") + c.sum("l2", "atomics")},
           {"l1.misses + writes + atomics",
            c.sum("l1", "misses") + c.sum("l1", "writes") + c.sum("l1", "atomics")}});
  c.equal("L2 line reads = hits + misses + MSHR merges",
          {{"l2.line_reads", c.sum("l2", "line_reads")},
           {"l2.hits + misses + mshr_merges",
            c.sum("l2", "hits") + c.sum("l2", "misses") + c.sum("l2", "mshr_merges")}});
}

} // namespace gpurf
