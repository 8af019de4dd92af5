// Operand collector unit: holds one instruction, requests its source registers from the
// bank arbiter, buffers the operands the crossbar delivers, checks them against the
// functional values and dispatches the instruction to the execution unit.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "gpurf/modules/common/reg_form.h"
#include "gpurf/modules/common/txn.h"
#include "gpurf/modules/common/unit.h"

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
  TargetSocket<ICollector> from_wb;     // Results granted a bank write (Malekeh's port D)
  ICollector(const sc_core::sc_module_name& nm, const UnitContext& c)
      : Unit(nm, c), in("in"), from_xbar("from_xbar"), to_arb("to_arb"), to_exec("to_exec"),
        to_alloc("to_alloc"), to_sched("to_sched"), to_fwd("to_fwd"), from_wb("from_wb") {
    in.register_b_transport(this, &ICollector::on_issue);
    from_xbar.register_b_transport(this, &ICollector::on_operand);
    from_wb.register_b_transport(this, &ICollector::on_result);
  }
  // The pipes this collector serves (bit i: Pipe i), set by the builder.
  unsigned pipe_mask = ~0u;
  // Instructions one collector holds at once (fixed_window: every one of its sub-core's).
  virtual unsigned capacity() const { return 1; }
  // Register-read stages with forwarding (fixed_stage); 0: an operand collector.
  virtual unsigned read_stages() const { return 0; }
  // A caching collector (Malekeh's CCU): cycles from allocation to a hit's operand; 0: none.
  virtual unsigned cache_hit_latency() const { return 0; }
  // A register-file cache the read stage looks up itself (fixed_window): its reads per cycle
  // (0: none) and the cycles from a hit's read to its operand, for the timing checker.
  struct OperandCache {
    unsigned read_ports = 0, hit_latency = 0;
  };
  virtual OperandCache operand_cache() const { return {}; }
  // Read ports per bank the stage reserves for its reads (fixed_window); the banks must have
  // as many. 0: the stage takes what the arbiter grants.
  virtual unsigned bank_read_ports() const { return 0; }
  // Cycles from a bank read to its operand at the collector (bank, crossbar and a
  // decompression stage), told by the builder once the read path is built: a read stage that
  // dispatches at a fixed cycle (fixed_window) ends its window that much after its last read.
  virtual void set_read_latency(unsigned /*cycles*/) {}
  // A decompression stage between the collector and the pipe (W-C, ICrossbar::dispatch_stage):
  // given `compressed` operands leaving at `now`, the cycle the pipe gets the instruction
  // (booked if the last argument is true). A collector that supports it keeps `stage` and
  // returns true.
  using DispatchStage = std::function<Cycle(unsigned compressed, Cycle now, bool book)>;
  virtual bool set_dispatch_stage(DispatchStage /*stage*/) { return false; }
  // The collectors of its sub-core, itself among them, told by the builder once all are
  // built: a read stage that keeps a warp's reads in issue order (fixed_stage) asks the others.
  virtual void set_peers(const std::vector<std::unique_ptr<ICollector>>& /*all*/) {}
  // The register form this collector decodes (the writeback must store it, or full ones).
  virtual RegForm read_form() const { return RegForm::Full; }
  // The sub-core's wire UnitContext::wake_dispatch: a pipe that refused a dispatch until it
  // says so may take one now. A collector asleep on such a refusal retries.
  virtual void dispatch_event() {}

protected:
  virtual void on_issue(tlm::tlm_generic_payload& gp, sc_core::sc_time& d) = 0;
  virtual void on_operand(tlm::tlm_generic_payload& gp, sc_core::sc_time& d) = 0;
  // A result written to the banks, offered to a caching collector (CcuWrite); a collector
  // that caches nothing is never sent one.
  virtual void on_result(tlm::tlm_generic_payload& gp, sc_core::sc_time&) {
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
  }
};

} // namespace gpurf
