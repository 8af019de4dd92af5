// Bank arbiter: per-bank request queues; each cycle grants bank ports, writes first, and
// counts every request it cannot grant by the kind of conflict.
#pragma once

#include "gpurf/modules/common/reg_form.h"
#include "gpurf/modules/common/txn.h"
#include "gpurf/modules/common/unit.h"

namespace gpurf {

class IArbiter : public Unit {
public:
  using Registry = gpurf::Registry<IArbiter, const UnitContext&>;
  MultiTargetSocket<IArbiter> in;    // Read (collectors) and Write (writeback) requests
  MultiInitSocket<IArbiter> to_bank; // to bank b (binding order = bank index)
  InitSocket<IArbiter> to_wb;        // WriteDone
  // Results to collector c's port D (binding order; Malekeh's caching collectors, which the
  // arbiter's write filter feeds or squashes); unused by arbiters without one.
  tlm_utils::multi_passthrough_initiator_socket<IArbiter, 32, tlm::tlm_base_protocol_types, 0,
                                                sc_core::SC_ZERO_OR_MORE_BOUND>
      to_collector;
  IArbiter(const sc_core::sc_module_name& nm, const UnitContext& c)
      : Unit(nm, c), in("in"), to_bank("to_bank"), to_wb("to_wb"), to_collector("to_collector") {
    in.register_b_transport(this, &IArbiter::on_request);
  }

  // The builder declares bank b (binding order): its slices and port structure.
  void add_bank(unsigned slices, bool separate_write_port, unsigned read_ports = 1) {
    banks_.push_back({slices, separate_write_port, read_ports});
  }
  // Operands one collector may receive per cycle on each of its slice ports; 0: no limit
  // (and no bank port limit either: a limit study).
  virtual unsigned collector_ports() const = 0;
  // Offers every result the banks take to the collectors' port D (Malekeh's write filter):
  // caching collectors need it, or a cached register would outlive its overwrite.
  virtual bool feeds_collector_caches() const { return false; }
  // The register form this arbiter decodes (the writeback must store it, or full ones).
  virtual RegForm read_form() const { return RegForm::Full; }
  // The register form this arbiter writes into the banks when it compresses them itself
  // (compressors at the MRF write port, behind a register file cache); Full: as it gets them.
  virtual RegForm stored_form() const { return RegForm::Full; }

protected:
  struct BankPorts {
    unsigned slices;
    bool separate_write_port;
    unsigned read_ports; // reads per slice and cycle (1 with a shared port)
  };
  std::vector<BankPorts> banks_;
  virtual void on_request(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& d) = 0;
};

} // namespace gpurf
