// The L2 cache between the SM's L1 and its memory port. Both sides are plain TLM-2.0
// base-protocol sockets: `in` takes the L1's line fills, write-throughs and atomics (an
// atomic's READ carries the LSU's Txn, which a base-protocol target may ignore), `mem` is
// the SM's memory port, so any TLM-2.0 memory can be bound behind it. Debug transport is
// forwarded; DMI is refused so that every access is seen.
//
// `impl: none` (or no `l2:` section) builds no L2: the L1's socket is the memory port.
#pragma once

#include "gpurf/modules/common/txn.h"
#include "gpurf/modules/common/unit.h"
#include "gpurf/platform/registry.h"

namespace gpurf {

class IL2 : public Unit {
public:
  using Registry = gpurf::Registry<IL2, const UnitContext&>;
  tlm_utils::simple_target_socket<IL2> in;     // from the L1 (base protocol)
  tlm_utils::simple_initiator_socket<IL2> mem; // to the memory (base protocol)

  IL2(const sc_core::sc_module_name& nm, const UnitContext& c);

protected:
  virtual void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) = 0;

private:
  unsigned transport_dbg(tlm::tlm_generic_payload& gp) { return mem->transport_dbg(gp); }
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi);
};

} // namespace gpurf
