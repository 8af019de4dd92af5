// Warped-Compression bank arbiter (shared/papers/002, Sec. 4, 5): holds the 2-bit compression
// range indicator of every warp register (the sub-core's row tags, set by the writeback) and
// reads it with each read request, in parallel with arbitration: the read asks only for the
// 16 B banks (slices) of the register's cluster that hold its stored form, lowest first:
// <4,0> 1, <4,1> 3, <4,2> 5, uncompressed 8. Rows never written read uncompressed (zeros).
#include "gpurf/modules/arbiter/impl/write_first.h"
#include "gpurf/policies/bdi.h"
#include "gpurf/policies/row_tags.h"
#include "gpurf/policies/wc_tags.h"

namespace gpurf {

class WcArbiter : public WriteFirstArbiter {
public:
  RegForm read_form() const override { return RegForm::Bdi; }
  WcArbiter(sc_core::sc_module_name nm, Params& p, const UnitContext& c)
      : WriteFirstArbiter(nm, p, c), tags_(c.row_tags),
        forms_(stats().vector(
            "read_forms", 4, "register reads, by the stored form read", "reads",
            {"b4d0", "b4d1", "b4d2", "uncompressed"},
            energy::no_event("W-C: register reads by stored form; priced by bank slice_reads"))) {
    if (tags_ && c.shape->slices != 8)
      p.fail("impl", "warped_compression needs banks of 8 x 16 B slices (bank.slices: 8), not " +
                         std::to_string(c.shape->slices));
  }

protected:
  void on_request(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& d) override {
    Txn& t = txn_of(gp);
    if (t.kind == Txn::Kind::Read) {
      const bdi::Choice c = wc_choice(tags_->get(t.bank, t.row));
      t.slice_mask = (1u << bdi::slices(c)) - 1;
      ++forms_[unsigned(c)];
    }
    WriteFirstArbiter::on_request(id, gp, d);
  }

private:
  RowTags* tags_;
  Stat& forms_;
};

GPURF_REGISTER_UNIT(IArbiter, WcArbiter, "warped_compression",
                    "Warped-Compression arbiter: compression range indicators, reads of the "
                    "stored form's slices only; needs writeback: warped_compression");

} // namespace gpurf
