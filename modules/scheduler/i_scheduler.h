// Warp scheduler: owns a subset of the SM's warps, their scoreboard and instruction buffer;
// each cycle picks a ready warp and issues its next instruction to the collector allocator.
#pragma once

#include "gpurf/modules/common/txn.h"
#include "gpurf/modules/common/unit.h"

namespace gpurf {

class IScheduler : public Unit {
public:
  using Registry = gpurf::Registry<IScheduler, const UnitContext&>;
  InitSocket<IScheduler> to_alloc;      // Issue
  MultiTargetSocket<IScheduler> notify; // OperandsRead (collectors), Written (writeback)
  IScheduler(const sc_core::sc_module_name& nm, const UnitContext& c)
      : Unit(nm, c), to_alloc("to_alloc"), notify("notify") {
    notify.register_b_transport(this, &IScheduler::on_notify);
  }

  // Something outside the scheduler may have unblocked issue (a CTA launched, a barrier
  // released, a collector freed): look at every warp again next cycle.
  virtual void issue_event() { wake(now() + 1); }

  // Configuration the timing checker holds the scheduler to.
  virtual unsigned issue_width() const = 0;
  // Warps allowed in the active set at once (two-level); 0: no such limit.
  virtual unsigned active_limit() const { return 0; }
  // Dependences kept by compiler-set control bits, not checked at issue (docs/modern-core.md):
  // the timing checker then holds every operand to its value at the read instead.
  virtual bool software_dependences() const { return false; }

protected:
  virtual void on_notify(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& d) = 0;
};

} // namespace gpurf
