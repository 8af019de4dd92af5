// The L1 (platform/check/identities.h): it takes what the LSUs send, and every line a read
// covers is a hit, a miss or an MSHR merge.
#include "gpurf/platform/check/identities.h"

namespace gpurf {

GPURF_IDENTITIES(l1, identities::always()) {
  c.equal("L1 requests = LSU segments",
          {{"l1.reads + writes + atomics",
            c.sum("l1", "reads") + c.sum("l1", "writes") + c.sum("l1", "atomics")},
           {"lsu.segments", c.sum("lsu", "segments")}});
  c.equal("L1 line reads = hits + misses + MSHR merges",
          {{"l1.line_reads", c.sum("l1", "line_reads")},
           {"l1.hits + misses + mshr_merges",
            c.sum("l1", "hits") + c.sum("l1", "misses") + c.sum("l1", "mshr_merges")}});
}

} // namespace gpurf
