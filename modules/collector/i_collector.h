// Operand collector unit: holds one instruction, requests its source registers from the
// bank arbiter, buffers the operands the crossbar delivers, checks them against the
// functional values and dispatches the instruction to the execution unit.
#pragma once

#include "modules/common/txn.h"
#include "modules/common/unit.h"

namespace gpurf {

class ICollector : public Unit {
public:
  using Registry = gpurf::Registry<ICollector, const UnitContext&>;
  TargetSocket<ICollector> in;          // Issue from the allocator
  TargetSocket<ICollector> from_xbar;   // Read data from the crossbar
  InitSocket<ICollector> to_arb;        // Read requests
  InitSocket<ICollector> to_exec;       // Dispatch
  InitSocket<ICollector> to_alloc;      // Release
  MultiInitSocket<ICollector> to_sched; // OperandsRead, to scheduler k of the sub-core
  InitSocket<ICollector> to_fwd;        // Forward queries to the writeback's result bus
  ICollector(const sc_core::sc_module_name& nm, const UnitContext& c)
      : Unit(nm, c), in("in"), from_xbar("from_xbar"), to_arb("to_arb"), to_exec("to_exec"),
        to_alloc("to_alloc"), to_sched("to_sched"), to_fwd("to_fwd") {
    in.register_b_transport(this, &ICollector::on_issue);
    from_xbar.register_b_transport(this, &ICollector::on_operand);
  }
  // The pipes this collector serves (bit i: Pipe i), set by the builder.
  unsigned pipe_mask = ~0u;
  // Register-read stages with forwarding (fixed_stage); 0: an operand collector.
  virtual unsigned read_stages() const { return 0; }

protected:
  virtual void on_issue(tlm::tlm_generic_payload& gp, sc_core::sc_time& d) = 0;
  virtual void on_operand(tlm::tlm_generic_payload& gp, sc_core::sc_time& d) = 0;
};

} // namespace gpurf
