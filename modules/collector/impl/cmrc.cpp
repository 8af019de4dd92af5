// CMRC operand collector (shared/papers/000, Sec. IV-B4/5, Fig. 6): a baseline OCU whose
// reads carry the register's slice mask from the sub-core's mask buffer, whose single
// 128 B write port is four 32 B ports (the arbiter lets operands with disjoint slices enter
// in one cycle), and which unpacks the thread-interleaved, possibly byte-swapped slices into
// 32-bit lane values with sign extension as they are written, before the golden check.
// oc_writes counts physical write-port cycles: operands entering in one cycle are one write.
#include "gpurf/modules/collector/impl/ocu.h"
#include "gpurf/policies/cmrc_format.h"
#include "gpurf/policies/row_tags.h"

namespace gpurf {

class CmrcCollector : public Ocu {
public:
  RegForm read_form() const override { return RegForm::Cmrc; }
  CmrcCollector(sc_core::sc_module_name nm, Params& p, const UnitContext& c)
      : Ocu(nm, p, c), masks_(c.row_tags),
        width_reads_(stats().vector(
            "width_reads", 4, "source registers read, by stored width", "registers",
            {"1B", "2B", "3B", "4B"},
            energy::no_event("CMRC: bank reads by stored width; priced by bank slice_reads"))),
        slice_writes_(stats().scalar(
            "oc_slice_writes", "32 B slices written into the collector", "slices",
            energy::no_event(
                "CMRC: the collector writes in 32 B slices; priced per write by oc_writes"))),
        shared_(stats().scalar(
            "oc_coalesced_operands", "operands that entered in the same write as another",
            "operands",
            energy::no_event(
                "CMRC: operands that entered in another operand's write; no write of their own"))) {
    if (masks_ && c.shape->slices != cmrc::kSlices)
      p.fail("impl", "cmrc needs banks of 4 x 32 B slices (bank.slices: 4), not " +
                         std::to_string(c.shape->slices));
  }

protected:
  unsigned read_mask(const BankLoc& loc, bool high_half) const override {
    const uint8_t w = masks_->get(loc.bank, loc.row);
    if (!high_half) ++width_reads_[cmrc::width_bytes(w) - 1]; // a 64-bit operand counts once
    return cmrc::slice_mask(w, loc.row & 1);
  }

  void on_operand(tlm::tlm_generic_payload& gp, sc_core::sc_time& d) override {
    Txn& t = txn_of(gp);
    Operand& o = ops_[t.operand];
    o.value = cmrc::unpack(gp.get_data_ptr(), t.slice_mask, t.row & 1);
    arrive(o, t, d);
    if (t.companion) // a 64-bit operand's high half: its low half's write (no slice of its own)
      ++hi_halves_;
    else if (o.at != last_write_) {
      ++writes_;
      last_write_ = o.at;
    } else
      ++shared_;
    slice_writes_ += __builtin_popcount(t.slice_mask);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
  }

private:
  RowTags* masks_; // the mask buffer: width mask per bank row
  Stat& width_reads_;
  uint64_t& slice_writes_;
  uint64_t& shared_;
  Cycle last_write_ = kNever;
};

GPURF_REGISTER_UNIT(ICollector, CmrcCollector, "cmrc",
                    "CMRC collector: narrow reads by the mask buffer, 4 x 32 B write ports, "
                    "unpacking and sign extension on write; needs writeback: cmrc");

} // namespace gpurf
