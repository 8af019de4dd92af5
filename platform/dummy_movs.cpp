#include "gpurf/platform/dummy_movs.h"

#include <algorithm>

#include "gpurf/policies/wc_tags.h"

namespace gpurf {

const InstInfo* DummyMovs::before(unsigned warp, const InstInfo* next, bool divergent) {
  if (!next || !divergent) return next;
  const RowTags* tags = tags_(shape_.subcore_of(warp));
  for (unsigned k = 0; tags && k < next->n_dst; ++k) {
    if (cached_ && cached_(warp, next->dst_reg[k])) continue;
    const BankLoc loc = shape_.mapping->map(shape_.local_warp(warp), next->dst_reg[k]);
    if (wc_choice(tags->get(loc.bank, loc.row)) != bdi::Choice::Uncompressed)
      return mov_for(next->dst_reg[k]);
  }
  return next;
}

const InstInfo* DummyMovs::mov_for(unsigned reg) {
  std::unique_ptr<InstInfo>& m = movs_[reg];
  if (!m) {
    m = std::make_unique<InstInfo>();
    m->pc = 0;
    m->ptx_line = 0; // hand-built
    m->opname = "mov (W-C decompress)";
    m->pipe = Pipe::SP;
    m->op_class = OpClass::Move;
    m->n_src = m->n_dst = 1;
    m->src_reg[0] = m->dst_reg[0] = uint16_t(reg);
    m->stall = uint8_t(std::min(stall_, 15u));
    m->wait_mask = 0x3f;
  }
  return m.get();
}

void DummyMovs::fill(WarpInst& out, const LaneValues& value) const {
  out.active_mask = out.thread_mask = 0xffffffffu;
  out.injected = true;
  out.cta = 0; // no CTA bookkeeping: the front-end never sees a MOV
  out.n_src = out.n_dst = 1;
  out.src[0] = RegOperand{};
  out.src[0].reg = out.info->src_reg[0];
  out.src[0].value = value;
  out.dst[0] = out.src[0];
  out.access_bytes = 0;
  out.addr.fill(0);
}

} // namespace gpurf
