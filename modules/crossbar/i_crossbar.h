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
  // A decompression stage after the crossbar (Warped-Compression): its cycles, and the units
  // that each take one compressed register per cycle (0: no decompressors).
  struct Decompression {
    unsigned latency = 0, units = 0;
  };
  virtual Decompression decompression() const { return {}; }

protected:
  virtual void on_data(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& d) = 0;
};

} // namespace gpurf
