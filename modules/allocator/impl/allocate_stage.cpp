// The Allocate stage of current NVIDIA cores (Huerta et al., MICRO'25, Sec. 5.1.1, 5.3):
// no collectors to choose. Every instruction goes to the sub-core's one register-read unit
// (collector `fixed_window`), which reserves its reads' bank ports or refuses the issue when
// they do not fit; the refusal stalls issue this cycle (scheduler collector_refusal: stall).
#include "gpurf/modules/allocator/i_allocator.h"

namespace gpurf {

class AllocateStage : public IAllocator {
public:
  AllocateStage(sc_core::sc_module_name nm, Params&, const UnitContext& c)
      : IAllocator(nm, c),
        taken_(stats().scalar(
            "allocations", "instructions the read unit took", "allocations",
            energy::scope("the instruction handed to the read unit (operand collection)"))),
        full_(stats().scalar("full", "issue attempts refused: the read ports do not fit",
                             "attempts", energy::no_event("refused attempts"))) {
    need({{"collector", "fixed_window"}},
         "reserves bank read ports in the fixed read window of the register-read unit; other "
         "collectors keep instructions until they are released");
  }

protected:
  void on_issue(int, tlm::tlm_generic_payload& gp, sc_core::sc_time& d) override {
    Txn& t = txn_of(gp);
    if (collector_pipes_.size() != 1)
      throw std::runtime_error(std::string(name()) +
                               ": allocator allocate_stage needs one collector per sub-core "
                               "(collector.count = sm.subcores), got " +
                               std::to_string(collector_pipes_.size()));
    to_collector[0]->b_transport(gp, d);
    if (t.busy) {
      ++full_;
      return;
    }
    ++taken_;
    if (ctx_.probe) ctx_.probe->allocated(*t.inst, 0, now());
  }
  void on_release(int, tlm::tlm_generic_payload& gp, sc_core::sc_time&) override {
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
  }

private:
  uint64_t& taken_;
  uint64_t& full_;
};

GPURF_REGISTER_UNIT(IAllocator, AllocateStage, "allocate_stage",
                    "every instruction to the sub-core's fixed_window read unit; refused when "
                    "its reads do not fit (Huerta et al. MICRO'25 Allocate stage)");

} // namespace gpurf
