// Long-latency producer/consumer marks, for a two-level warp scheduler.
//
// Producers: loads (ld/ldu) from global, local or generic memory, atomics outside shared
// memory that return a value, and mbarrier waits (their predicate: the thread may sleep there). A
// value they write stays *pending* until an instruction reads it; that first consumer is marked
// `consumes` (a two-level scheduler moves the warp to its pending pool before issuing it). Forward
// may-analysis over the CFG with the SIMT edges of the liveness: a vreg is pending at a point if
// some path from a producer reaches it without a read or a full redefinition. Reading any pending
// vreg consumes it (whether or not the read's lanes were the ones loaded). Constant-space loads are
// not long-latency (constant cache); shared-memory accesses are not either.
#pragma once

#include <vector>

#include "gpurf/modules/frontend/compiler/liveness.h"

namespace gpurf::compiler {

struct LongLatency {
  std::vector<bool> produces;              // per instruction
  std::vector<bool> consumes;              // per instruction
  std::vector<std::vector<unsigned>> srcs; // per instruction: the pending vregs it reads
  bool reads_pending(unsigned pc, unsigned v) const;
};

bool produces_long_latency(const ptx::Instr& in);

LongLatency mark_long_latency(const ptx::Function& f, const Liveness& lv);

} // namespace gpurf::compiler
