// Writeback: takes completed instructions, writes their results through the arbiter into
// the banks (limited write ports, priority between pipes), releases the scoreboard and
// retires the instruction.
#pragma once

#include "gpurf/modules/common/reg_form.h"
#include "gpurf/modules/common/txn.h"
#include "gpurf/modules/common/unit.h"

namespace gpurf {

class IWriteback : public Unit {
public:
  using Registry = gpurf::Registry<IWriteback, const UnitContext&>;
  MultiTargetSocket<IWriteback> in;      // Complete from the exec unit and the LSU
  TargetSocket<IWriteback> write_done;   // WriteDone from the arbiter
  InitSocket<IWriteback> to_arb;         // Write requests
  MultiInitSocket<IWriteback> to_sched;  // Written/ValueReady, to scheduler k of the sub-core
  MultiTargetSocket<IWriteback> forward; // Forward queries from the collectors
  IWriteback(const sc_core::sc_module_name& nm, const UnitContext& c)
      : Unit(nm, c), in("in"), write_done("write_done"), to_arb("to_arb"), to_sched("to_sched"),
        forward("forward") {
    in.register_b_transport(this, &IWriteback::on_complete);
    write_done.register_b_transport(this, &IWriteback::on_write_done);
    forward.register_b_transport(this, &IWriteback::on_forward);
  }
  // Cycles every result spends between ready and its first write request (Warped-
  // Compression's compression stage); 0 in the baseline.
  virtual unsigned write_stage() const { return 0; }
  // The form registers are stored in (Warped-Compression's BDI: a divergent instruction then
  // needs its compressed destinations decompressed first, the SM's dummy MOVs).
  virtual RegForm stored_form() const { return RegForm::Full; }
  // Whether destinations are renamed to physical registers (WIR): the banks then hold
  // physical registers, and a destination may take a register holding its value unwritten.
  virtual bool renames() const { return false; }

protected:
  // Forward query for (txn.warp, txn.reg): the youngest instruction whose result for it is
  // known (completed) and not yet retired. Found: txn.version = its sequence number, the
  // data pointer at its 128 B value, the delay = until it is ready; else txn.busy.
  virtual void on_forward(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& d) = 0;
  virtual void on_complete(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& d) = 0;
  virtual void on_write_done(tlm::tlm_generic_payload& gp, sc_core::sc_time& d) = 0;
};

} // namespace gpurf
