// The SM's L1 data cache: shared by the sub-cores' LSUs (one binding of `in` each), backed
// by the memory through `mem`, a plain TLM-2.0 base-protocol initiator socket.
//
// It is also the SM's functional memory (IFunctionalMemory): read()/write() go to the
// memory's debug transport through `mem`, untimed, so that the front-end's functional
// execution and the timing model see the same bytes as any memory bound to `mem`.
#pragma once

#include "gpurf/modules/common/txn.h"
#include "gpurf/modules/common/unit.h"
#include "gpurf/modules/frontend/i_frontend.h"
#include "gpurf/platform/registry.h"

namespace gpurf {

class IL1 : public Unit, public IFunctionalMemory {
public:
  using Registry = gpurf::Registry<IL1, const UnitContext&>;
  // Accesses from the LSUs (READ/WRITE, base protocol; the Txn extension, when present,
  // carries `inst` and takes `busy` when no MSHR is free). Debug transport is forwarded.
  MultiTargetSocket<IL1> in;
  tlm_utils::simple_initiator_socket<IL1> mem; // to the memory (base protocol)

  IL1(const sc_core::sc_module_name& nm, const UnitContext& c);

  // Untimed access through the memory's debug transport; throws WorkloadError when the
  // memory does not cover [addr, addr + len).
  void debug_read(uint64_t addr, void* dst, unsigned len);
  void debug_write(uint64_t addr, const void* src, unsigned len);
  void read(uint64_t addr, void* dst, unsigned len) override { debug_read(addr, dst, len); }
  void write(uint64_t addr, const void* src, unsigned len) override { debug_write(addr, src, len); }

protected:
  virtual void b_transport(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) = 0;
  // Forwards to the memory's debug transport.
  virtual unsigned transport_dbg(int id, tlm::tlm_generic_payload& gp);
  virtual bool get_direct_mem_ptr(int id, tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi);

private:
  unsigned debug_access(tlm::tlm_command cmd, uint64_t addr, void* buf, unsigned len);
  tlm::tlm_generic_payload dbg_gp_;
};

} // namespace gpurf
