// CMRC's split crossbar (shared/papers/000, Sec. IV-B4, Fig. 6): one narrow crossbar per
// slice; crossbar k links sub-bank k of every bank to the k-th 32 B write port of every
// collector. Transfers to one collector in one cycle may share the crossbars when their
// slices differ (the arbiter grants them; this unit checks it and counts slice transfers).
#include "gpurf/modules/crossbar/impl/full.h"

namespace gpurf {

class SplitCrossbar : public FullCrossbar {
public:
  SplitCrossbar(sc_core::sc_module_name nm, Params& p, const UnitContext& c)
      : FullCrossbar(nm, p, c),
        per_slice_(stats().vector(
            "slice_transfers", 8, "transfers on each slice crossbar", "transfers",
            energy::no_event("the same transfers per slice crossbar; priced per byte by bytes"))) {}

protected:
  void on_data(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& d) override {
    Txn& t = txn_of(gp);
    const unsigned slices = ctx_.shape->slices;
    const unsigned mask = t.slice_mask & ((1u << slices) - 1);
    if (t.collector >= used_.size()) used_.resize(t.collector + 1, {kNever, 0});
    auto& u = used_[t.collector];
    if (u.first != now()) u = {now(), 0};
    if (u.second & mask && !t.companion) // a 64-bit operand's high half rides its low half
      throw std::runtime_error(std::string(name()) + ": two transfers on one 32 B port of " +
                               "collector " + std::to_string(t.collector) + " in cycle " +
                               std::to_string(now()));
    if (!t.companion) u.second |= mask;
    for (unsigned s = 0; s < slices && s < 8; ++s) per_slice_[s] += mask >> s & 1;
    FullCrossbar::on_data(id, gp, d);
  }

private:
  Stat& per_slice_;
  std::vector<std::pair<Cycle, unsigned>> used_; // per collector: cycle, slices taken
};

GPURF_REGISTER_UNIT(ICrossbar, SplitCrossbar, "split",
                    "CMRC: one 32 B crossbar per slice; disjoint slices from two banks reach "
                    "one collector in one cycle");

} // namespace gpurf
