// Register file cache (Gebhart et al., ISCA'11): a filter in front of the main register file
// (MRF = arbiter + banks + crossbar). The builder places it only when the platform has an
// `rfc:` section:
//
//   collectors --Read--> rfc.in --miss--> arbiter --> banks --> crossbar --> rfc.from_xbar
//                         |  hit (tag check + 1 cycle)                          |
//                         +--------------------> rfc.to_collector <------------+
//   writeback --Write--> rfc.in --allocate (1 write port) / bypass / evictions--> arbiter
//   arbiter --WriteDone--> rfc.write_done --(results, not evictions)--> writeback
//   schedulers --RfcFlush/RfcActivate--> rfc.in (a two-level scheduler's active set)
//
// Statistic names are fixed by configs/energy/gebhart.yaml: rfc.reads, rfc.writes.
#pragma once

#include "gpurf/modules/common/txn.h"
#include "gpurf/modules/common/unit.h"

namespace gpurf {

class IRfc : public Unit {
public:
  using Registry = gpurf::Registry<IRfc, const UnitContext&>;
  MultiTargetSocket<IRfc> in;         // Read (collectors), Write (writeback), RfcFlush/RfcActivate
  InitSocket<IRfc> to_arb;            // MRF reads (misses) and writes (bypass, write-backs)
  TargetSocket<IRfc> write_done;      // WriteDone from the arbiter
  InitSocket<IRfc> to_wb;             // WriteDone of results, to the writeback
  MultiTargetSocket<IRfc> from_xbar;  // MRF read data (from the crossbar, per collector)
  MultiInitSocket<IRfc> to_collector; // operands to collector c (binding order)
  IRfc(const sc_core::sc_module_name& nm, const UnitContext& c)
      : Unit(nm, c), in("in"), to_arb("to_arb"), write_done("write_done"), to_wb("to_wb"),
        from_xbar("from_xbar"), to_collector("to_collector") {
    in.register_b_transport(this, &IRfc::on_request);
    write_done.register_b_transport(this, &IRfc::on_write_done);
    from_xbar.register_b_transport(this, &IRfc::on_data);
  }
  // Configuration the timing checker holds the RFC to.
  struct Timing {
    unsigned read_ports = 0, write_ports = 0, tag_latency = 0, hit_latency = 0;
  };
  virtual Timing timing() const = 0;
  // Whether the banks' copy of warp's register `reg` is not its current value: the cache
  // holds the value (a whole register: a divergent write merges here), or dropped it as dead
  // (never read again). W-C's dummy MOVs (platform/dummy_movs.h) skip such registers.
  virtual bool bank_copy_stale(unsigned warp, unsigned reg) const { return false; }

protected:
  virtual void on_request(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& d) = 0;
  virtual void on_write_done(tlm::tlm_generic_payload& gp, sc_core::sc_time& d) = 0;
  virtual void on_data(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& d) = 0;
};

// A unit that tells the RFC about its active warps (a two-level scheduler). The builder binds
// the port to the RFC's `in` when the platform has one; unbound otherwise.
using RfcNotifySocket =
    tlm_utils::multi_passthrough_initiator_socket<Unit, 32, tlm::tlm_base_protocol_types, 1,
                                                  sc_core::SC_ZERO_OR_MORE_BOUND>;
class IRfcClient {
public:
  virtual ~IRfcClient() = default;
  virtual RfcNotifySocket& rfc_port() = 0;
};

} // namespace gpurf
