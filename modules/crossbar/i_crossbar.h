// Crossbar from the banks to the operand collectors.
#pragma once

#include "gpurf/modules/common/txn.h"
#include "gpurf/modules/common/unit.h"

namespace gpurf {

class ICrossbar : public Unit {
public:
  using Registry = gpurf::Registry<ICrossbar, const UnitContext&>;
  MultiTargetSocket<ICrossbar> in;         // from bank b
  MultiInitSocket<ICrossbar> to_collector; // to collector c (binding order)
  ICrossbar(const sc_core::sc_module_name& nm, const UnitContext& c)
      : Unit(nm, c), in("in"), to_collector("to_collector") {
    in.register_b_transport(this, &ICrossbar::on_data);
  }
  // Cycles a transfer adds on its way from the bank to the collector.
  virtual unsigned latency() const = 0;
  // A decompression stage (Warped-Compression): its cycles, and the units that each take one
  // compressed register per cycle (0: no decompressors). `at_dispatch`: the stage sits between
  // the collector and the execution pipe (the collector is freed at dispatch and the pipe gets
  // the instruction `latency` cycles later, dispatch_stage); else between the crossbar and the
  // collector (each compressed operand reaches the collector `latency` cycles later).
  struct Decompression {
    unsigned latency = 0, units = 0;
    bool at_dispatch = false;
  };
  virtual Decompression decompression() const { return {}; }
  // The decompression stage at dispatch: an instruction leaving its collector at `now` with
  // `compressed` compressed operands takes that many units in one cycle, the first at or after
  // `now` with enough free, and enters its pipe `latency` cycles after it; returns that cycle
  // (`now` without compressed operands). `book`: false only asks (the pipe may refuse).
  virtual Cycle dispatch_stage(unsigned compressed, Cycle now, bool book) { return now; }

protected:
  virtual void on_data(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& d) = 0;
};

} // namespace gpurf
