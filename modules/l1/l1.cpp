#include "gpurf/modules/l1/i_l1.h"

#include <sstream>

namespace gpurf {

GPURF_UNIT_SLOT(IL1, "l1", "L1 data cache between the LSUs and the memory");

IL1::IL1(const sc_core::sc_module_name& nm, const UnitContext& c)
    : Unit(nm, c), in("in"), mem("mem") {
  in.register_b_transport(this, &IL1::b_transport);
  in.register_transport_dbg(this, &IL1::transport_dbg);
  in.register_get_direct_mem_ptr(this, &IL1::get_direct_mem_ptr);
}

unsigned IL1::transport_dbg(int, tlm::tlm_generic_payload& gp) { return mem->transport_dbg(gp); }

bool IL1::get_direct_mem_ptr(int, tlm::tlm_generic_payload&, tlm::tlm_dmi& dmi) {
  return refuse_dmi(dmi);
}

unsigned IL1::debug_access(tlm::tlm_command cmd, uint64_t addr, void* buf, unsigned len) {
  tlm::tlm_generic_payload& gp = dbg_gp_; // reused: the functional path runs per lane
  gp.set_command(cmd);
  gp.set_address(addr);
  gp.set_data_ptr(static_cast<unsigned char*>(buf));
  gp.set_data_length(len);
  gp.set_streaming_width(len);
  const unsigned n = mem->transport_dbg(gp);
  if (n != len) {
    std::ostringstream os;
    os << "functional memory " << (cmd == tlm::TLM_READ_COMMAND ? "read" : "write") << " of " << len
       << " bytes at 0x" << std::hex << addr << " is outside the memory";
    throw WorkloadError(os.str());
  }
  return n;
}

void IL1::debug_read(uint64_t addr, void* dst, unsigned len) {
  if (len) debug_access(tlm::TLM_READ_COMMAND, addr, dst, len);
}

void IL1::debug_write(uint64_t addr, const void* src, unsigned len) {
  if (len) debug_access(tlm::TLM_WRITE_COMMAND, addr, const_cast<void*>(src), len);
}

} // namespace gpurf
