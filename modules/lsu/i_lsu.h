// The MEM pipe of one sub-core: takes memory instructions from the exec unit, turns them
// into L1 accesses (global/local) or a shared-memory bank schedule, and hands the finished
// instruction to the writeback with the cycles until its result is ready as the delay.
#pragma once

#include "gpurf/modules/common/txn.h"
#include "gpurf/modules/common/unit.h"
#include "gpurf/platform/registry.h"

namespace gpurf {

class ILsu : public Unit {
public:
  using Registry = gpurf::Registry<ILsu, const UnitContext&>;
  TargetSocket<ILsu> in;  // Dispatch (Txn inst) from the exec unit; busy: retry (Txn::retry_at)
  InitSocket<ILsu> to_l1; // READ/WRITE accesses (Txn inst rides along) to the L1
  InitSocket<ILsu> to_wb; // Complete (Txn inst), delay = cycles until the result is ready
  ILsu(const sc_core::sc_module_name& nm, const UnitContext& c)
      : Unit(nm, c), in("in"), to_l1("to_l1"), to_wb("to_wb") {
    in.register_b_transport(this, &ILsu::on_dispatch);
  }
  // Configuration the timing checker holds the MEM pipe to: cycles from dispatch to the
  // L1/shared port (a result is never ready earlier) and between two accepted instructions.
  struct Timing {
    unsigned latency = 0, ii = 1;
  };
  virtual Timing timing() const = 0;

protected:
  virtual void on_dispatch(tlm::tlm_generic_payload& gp, sc_core::sc_time& d) = 0;
};

} // namespace gpurf
