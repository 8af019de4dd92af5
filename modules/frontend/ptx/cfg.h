// Control-flow graph of a PTX Function: basic blocks, successors/predecessors and immediate
// post-dominators (used by the SIMT engine to reconverge divergent branches; usable by passes).
#pragma once

#include <vector>

#include "gpurf/modules/frontend/ptx/ir.h"

namespace gpurf::ptx {

struct BasicBlock {
  unsigned begin = 0, end = 0; // instruction index range [begin, end)
  std::vector<unsigned> succs; // successor block ids (taken target first, then fall-through)
  std::vector<unsigned> preds; // predecessor block ids
  int ipdom = -1;              // immediate post-dominator block id; -1: the virtual exit
  bool exits = false;          // ends with ret/exit (edge to the virtual exit)
};

struct Cfg {
  std::vector<BasicBlock> blocks; // block 0 is the entry block
  std::vector<unsigned> block_of; // instruction index → block id
  // Reconvergence point of a branch at instruction `pc`: the first instruction index of the
  // immediate post-dominator of pc's block, or `npos` (= instruction count) when the paths
  // only meet at the function exit.
  unsigned reconv_pc(unsigned pc) const;
  unsigned n_instrs = 0;
};

// Builds the CFG. Block leaders: instruction 0, every label target, every instruction after a
// bra/ret/exit. A guarded bra has two successors; an unguarded bra one; ret/exit none (exit
// edge); call falls through. Post-dominators are computed on the reverse graph with a virtual
// exit node; blocks that cannot reach an exit (infinite loops) get ipdom -1.
Cfg build_cfg(const Function& f);

} // namespace gpurf::ptx
