// CMRC writeback (shared/papers/000, Sec. IV-B1/2/5/6): detects each result's width (a sign
// check of bytes 1..3 over all 32 lanes -> a 3-bit mask, byte 0 always stored), records it
// in the sub-core's mask buffer, and writes only the slices that width needs, in the
// thread-interleaved format, byte-swapped (left-aligned) in odd bank rows.
// Divergence, which the paper leaves open (Sec. IV-B6): a divergent instruction writes its
// active lanes only (lane write enables), so the inactive lanes keep their stored bytes.
// When the result fits the register's stored width it is written at that width (every lane
// stays representable, mask unchanged); when it is wider, the inactive lanes' upper bytes
// are not stored, so it is written full width (mask 111) with every lane's value, the
// inactive lanes' old ones included (no read charged for them); see docs/cmrc.md.
#include "gpurf/modules/writeback/impl/priority.h"
#include "gpurf/policies/cmrc_format.h"
#include "gpurf/policies/row_tags.h"

namespace gpurf {

class CmrcWriteback : public PriorityWriteback {
public:
  RegForm stored_form() const override { return RegForm::Cmrc; }
  CmrcWriteback(sc_core::sc_module_name nm, Params& p, const UnitContext& c)
      : PriorityWriteback(nm, p, c), masks_(c.row_tags),
        warp_sign_(p.get_choice("width_detect", "per_lane",
                                "how a result's width is found (Sec. IV-B5): per_lane (each "
                                "lane's sign-extension width, the widest lane) or warp_sign "
                                "(the literal warp-wide OR / NAND reductions: lanes of mixed "
                                "signs keep all 4 bytes); an experiment, docs/cmrc.md",
                                {"per_lane", "warp_sign"}) == "warp_sign"),
        low_half_(p.get_choice("reg64_width", "whole_value",
                               "frontend.reg64: one_operand: the width of a 64-bit operand: "
                               "whole_value (narrow only when its high half is its low half's "
                               "sign extension) or low_half (its low half's width, the high half "
                               "ignored: the most pairing any reading allows; an experiment, "
                               "docs/cmrc.md)",
                               {"whole_value", "low_half"}) == "low_half"),
        width_writes_(stats().vector(
            "width_writes", 4, "registers written, by stored width", "registers",
            {"1B", "2B", "3B", "4B"},
            energy::no_event(
                "CMRC: register writes by stored width; priced by bank slice_writes"))),
        divergent_(stats().scalar(
            "divergent_full_writes",
            "divergent results written full width though narrower: wider than the register's "
            "stored width, whose inactive lanes lack the upper bytes",
            "registers", energy::no_event("CMRC: register writes; priced by bank slice_writes"),
            check::unwatched("CMRC: the part of width_writes stored whole"))) {
    if (masks_ && c.shape->slices != cmrc::kSlices)
      p.fail("impl", "cmrc needs banks of 4 x 32 B slices (bank.slices: 4), not " +
                         std::to_string(c.shape->slices));
  }

protected:
  WriteAction prepare_write(Txn& t) override {
    const LaneValues& v = t.inst->dst[t.operand].value;
    uint8_t w = warp_sign_ ? cmrc::width_mask_warp_sign(v) : cmrc::width_mask(v);
    // frontend.reg64: one_operand: a 64-bit value is one operand, stored at the width of the
    // whole value (docs/cmrc.md, "64-bit registers as one operand"): narrow only when its
    // high half is the sign extension of its low half in every lane; else full width.
    const InstInfo& info = *t.inst->info;
    const bool hi = info.dst_is_hi(t.operand);
    if (!hi && !low_half_ && t.operand + 1u < t.inst->n_dst && info.dst_is_hi(t.operand + 1u)) {
      const LaneValues& h = t.inst->dst[t.operand + 1u].value;
      for (unsigned l = 0; l < kWarpSize && w != 7; ++l)
        if (h[l] != uint32_t(int32_t(v[l]) >> 31)) w = 7;
    }
    if (t.inst->divergent() && w != 7) {
      // The inactive lanes' values fit the stored width (the invariant of every write), so
      // `w` (all lanes) fits it exactly when the active lanes' results do.
      const uint8_t stored = masks_->get(t.bank, t.row) & 7u;
      if (cmrc::width_bytes(w) <= cmrc::width_bytes(stored))
        w = stored;
      else {
        ++divergent_;
        w = 7;
      }
    }
    masks_->set(t.bank, t.row, w & 7u);
    if (!hi) ++width_writes_[cmrc::width_bytes(w) - 1]; // a 64-bit operand counts once
    const bool odd = t.row & 1;
    unsigned char* buf = write_buffer();
    cmrc::pack(v, odd, buf);
    t.data = buf;
    t.slice_mask = cmrc::slice_mask(w, odd);
    return WriteAction::Send;
  }

private:
  RowTags* masks_; // the mask buffer: width mask per bank row
  const bool warp_sign_;
  const bool low_half_; // a 64-bit operand's width: its low half's (reg64_width: low_half)
  Stat& width_writes_;
  uint64_t& divergent_;
};

GPURF_REGISTER_UNIT(IWriteback, CmrcWriteback, "cmrc",
                    "CMRC writeback: width detection, mask buffer, thread-interleaved packing "
                    "with byte swap in odd rows, narrow writes; needs collector: cmrc");

} // namespace gpurf
