#include "gpurf/modules/l2/i_l2.h"

namespace gpurf {

GPURF_UNIT_SLOT(IL2, "l2", "L2 cache between the L1 and the SM's memory port");

// No L2: the SM binds the L1 straight to the memory port. The section's other keys are
// ignored, so -p l2.impl=none switches a platform's L2 off.
static const bool gpurf_registered_none =
    IL2::Registry::add("none", "no L2: the L1's misses and writes go straight to the memory port",
                       [](Params& p, const UnitContext&) {
                         p.accept_unused();
                         return std::unique_ptr<IL2>();
                       });

IL2::IL2(const sc_core::sc_module_name& nm, const UnitContext& c)
    : Unit(nm, c), in("in"), mem("mem") {
  in.register_b_transport(this, &IL2::b_transport);
  in.register_transport_dbg(this, &IL2::transport_dbg);
  in.register_get_direct_mem_ptr(this, &IL2::get_direct_mem_ptr);
}

bool IL2::get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi& dmi) {
  return refuse_dmi(dmi);
}

} // namespace gpurf
