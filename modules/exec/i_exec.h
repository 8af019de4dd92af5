// Dispatch and execution pipes (SP, INT, DP, SFU, TENSOR; MEM is forwarded to the LSU).
#pragma once

#include "gpurf/modules/common/txn.h"
#include "gpurf/modules/common/unit.h"

namespace gpurf {

class IExec : public Unit {
public:
  using Registry = gpurf::Registry<IExec, const UnitContext&>;
  MultiTargetSocket<IExec> in; // Dispatch from the collectors; busy if no unit is free
  InitSocket<IExec> to_lsu;    // MEM instructions
  InitSocket<IExec> to_wb;     // Complete, with the pipe latency as delay
  IExec(const sc_core::sc_module_name& nm, const UnitContext& c)
      : Unit(nm, c), in("in"), to_lsu("to_lsu"), to_wb("to_wb") {
    in.register_b_transport(this, &IExec::on_dispatch);
  }

  // Units configured for pipe p (0: its instructions fold onto SP). MEM is the LSU's.
  virtual unsigned units(Pipe p) const = 0;
  // Result latency and initiation interval of pipe p's units (not MEM).
  struct Timing {
    unsigned latency = 0, ii = 1;
  };
  virtual Timing timing(Pipe p) const = 0;
  // What the platform sets for latency class c (exec.classes): the pipe it runs on (-1: the
  // one the front-end chose, InstInfo::pipe) and its latency and ii (0: the executing pipe's).
  struct ClassTiming {
    int pipe = -1;
    unsigned latency = 0, ii = 0;
  };
  virtual ClassTiming class_timing(OpClass c) const = 0;

protected:
  virtual void on_dispatch(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& d) = 0;
};

} // namespace gpurf
