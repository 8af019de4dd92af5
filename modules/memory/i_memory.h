// The SM's memory port target: a standard TLM-2.0 base-protocol target (blocking and
// non-blocking transport, debug transport, DMI refused), so that any TLM-2.0 memory model (DRAMSys,
// a VP's bus) can replace the built-in one. The L1's `mem` initiator socket binds to `socket`.
#pragma once

#include "gpurf/modules/common/txn.h"
#include "gpurf/modules/common/unit.h"
#include "gpurf/platform/registry.h"

namespace gpurf {

class IMemory : public Unit {
public:
  using Registry = gpurf::Registry<IMemory, const UnitContext&>;
  tlm_utils::simple_target_socket<IMemory> socket; // base protocol; no Txn extension needed
  IMemory(const sc_core::sc_module_name& nm, const UnitContext& c) : Unit(nm, c), socket("socket") {
    socket.register_b_transport(this, &IMemory::b_transport);
    socket.register_transport_dbg(this, &IMemory::transport_dbg);
    socket.register_get_direct_mem_ptr(this, &IMemory::get_direct_mem_ptr);
    socket.register_nb_transport_fw(this, &IMemory::nb_transport_fw);
  }

  // The addresses this memory answers, [base, base + bytes), and the keys that set them
  // (Params::said); bytes 0: any. Checked at load against where gpurf places a launch's
  // buffers, the module's variables and the windows (platform/simulation.cpp).
  struct Window {
    uint64_t base = 0, bytes = 0;
    std::string keys;
  };
  virtual Window window() const { return {}; }
  // Whether b_transport may wait (SystemC wait): the GPU must then call it from threads.
  virtual bool waits_in_transport() const { return false; }
  // Whether a timed write's bytes may reach the store after the request (at the answer): only
  // meaningful where the answer comes later than the call (AT, or an LT target that waits).
  virtual bool stores_late() const { return false; }

protected:
  virtual void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) = 0;
  virtual unsigned transport_dbg(tlm::tlm_generic_payload& gp) = 0;
  // The AT base protocol (gpu.memory_port: at).
  virtual tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload&, tlm::tlm_phase&,
                                             sc_core::sc_time&) {
    SC_REPORT_ERROR(name(), "this memory has no approximately-timed (nb_transport) interface");
    return tlm::TLM_COMPLETED;
  }
  // No DMI by default: every access goes through b_transport so that it is timed.
  virtual bool get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi& dmi) {
    return refuse_dmi(dmi);
  }
};

} // namespace gpurf
