// Warped-Compression's dummy MOVs (shared/papers/002, Sec. 5.2): a divergent instruction
// cannot update some lanes of a compressed register, so before one writes a register held
// compressed, a MOV with that register as source and destination is inserted ahead of it.
// The MOV reads the compressed form, is decompressed, and writes the register back
// uncompressed; it takes an issue slot, a collector, bank ports and the SP pipe like any
// instruction, and the scoreboard holds the divergent instruction (WAW) until it is written.
// The paper's arbiter detects the case in the register-read stage; gpurf inserts the MOV at
// issue, where the divergence (the SIMT mask of the next instruction) is known without
// executing it, so the divergent instruction need not be replayed. Only the first write of a
// compressed register in a divergent phase needs one: afterwards it is uncompressed.
#pragma once

#include <functional>
#include <memory>
#include <unordered_map>

#include "gpurf/modules/common/unit.h"
#include "gpurf/modules/common/warp_inst.h"
#include "gpurf/modules/frontend/i_frontend.h"
#include "gpurf/policies/reg_mapping.h"
#include "gpurf/policies/row_tags.h"

namespace gpurf {

class DummyMovs {
public:
  // tags(subcore): the sub-core's row tags holding the range indicators; cached(warp, reg):
  // a register file cache in front of the banks holds the whole register, uncompressed, so a
  // divergent write merges there and needs no MOV (docs/combined.md).
  // stall: the MOV's control bits for a scheduler without a scoreboard (the SP pipe's
  // latency, so that the divergent instruction reads its result through the bypass; the
  // MOV waits for every dependence counter, as its register's producer may be a load).
  DummyMovs(const SmShape& shape, std::function<const RowTags*(unsigned)> tags,
            std::function<bool(unsigned, unsigned)> cached = nullptr, unsigned stall = 1)
      : shape_(shape), tags_(std::move(tags)), cached_(std::move(cached)), stall_(stall) {}

  // The MOV to issue for warp slot `warp` before `next` (the front-end's next instruction,
  // divergent or not), or `next` itself.
  const InstInfo* before(unsigned warp, const InstInfo* next, bool divergent);
  bool is_mov(const InstInfo* info) const {
    if (!info) return false;
    const auto it = movs_.find(info->src_reg[0]);
    return it != movs_.end() && it->second.get() == info;
  }
  // Fills the MOV's operands: its register's current value read and written back.
  void fill(WarpInst& out, const LaneValues& value) const;

private:
  const InstInfo* mov_for(unsigned reg);

  const SmShape& shape_;
  std::function<const RowTags*(unsigned)> tags_;
  std::function<bool(unsigned, unsigned)> cached_;
  const unsigned stall_;
  std::unordered_map<unsigned, std::unique_ptr<InstInfo>> movs_; // per register
};

} // namespace gpurf
