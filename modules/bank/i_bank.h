// Register bank: rows of 128 B warp registers split over slices, each with its own ports.
// A READ or WRITE payload addresses row * 128; the byte enables carry the slice mask.
// Reads are forwarded with their data to the crossbar.
#pragma once

#include "gpurf/modules/common/txn.h"
#include "gpurf/modules/common/unit.h"

namespace gpurf {

class IBank : public Unit {
public:
  using Registry = gpurf::Registry<IBank, const UnitContext&>;
  TargetSocket<IBank> in; // from the arbiter
  InitSocket<IBank> out;  // read data to the crossbar
  IBank(const sc_core::sc_module_name& nm, const UnitContext& c)
      : Unit(nm, c), in("in"), out("out") {
    in.register_b_transport(this, &IBank::on_access);
  }
  virtual unsigned slices() const = 0;
  virtual unsigned rows() const = 0;
  // Storage for `rows` rows although the bank has rows() (GPGPU-Sim PTX mode: occupancy counts
  // ptxas's registers while every PTX virtual register keeps its own number, so the
  // simulated values need more rows than the hardware has; docs/frontend.md).
  virtual void reserve_rows(unsigned rows) = 0;
  // Row `row` back to what it held before any write (zeros, version tag 0): a functional
  // reset that no port sees and no statistic counts (a CTA's registers start at 0,
  // docs/frontend.md).
  virtual void reset_row(unsigned row) = 0;
  // Port structure per slice: true for separate read and write ports, false for one shared.
  virtual bool separate_write_port() const = 0;
  // Reads a slice can serve per cycle (its read ports; 1 with a shared port).
  virtual unsigned read_ports() const { return 1; }
  virtual unsigned latency() const = 0;
  // Power gating (Warped-Compression): cycles a gated slice takes to wake up; 0: never gated.
  virtual unsigned wake_latency() const { return 0; }
  // Row `row` holds no live register any more (its warp's CTA finished): power gating
  // clears its valid bits.
  virtual void release_row(unsigned) {}

protected:
  virtual void on_access(tlm::tlm_generic_payload& gp, sc_core::sc_time& d) = 0;
};

} // namespace gpurf
