#include "gpurf/platform/in_flight_writes.h"

#include <algorithm>
#include <cstring>

namespace gpurf {

void InFlightWrites::overlap(Write& w, uint64_t addr, unsigned len, unsigned char* buf,
                             bool to_write) {
  const uint64_t lo = std::max(addr, w.addr), hi = std::min(addr + len, w.addr + w.len);
  if (lo >= hi) return;
  unsigned char* in_write = w.data + (lo - w.addr);
  unsigned char* in_buf = buf + (lo - addr);
  if (to_write) {
    std::memcpy(in_write, in_buf, hi - lo);
    w.changed = true;
  } else {
    std::memcpy(in_buf, in_write, hi - lo);
  }
}

unsigned InFlightWrites::debug(tlm::tlm_generic_payload& gp, Socket& target) {
  const unsigned n = target.transport_dbg(gp);
  if (writes_.empty() || !gp.get_data_ptr() || gp.is_read() == gp.is_write()) return n;
  for (Write& w : writes_) overlap(w, gp.get_address(), n, gp.get_data_ptr(), gp.is_write());
  return n;
}

void InFlightWrites::begin(tlm::tlm_generic_payload& gp, Socket& target) {
  const uint64_t addr = gp.get_address();
  const unsigned len = gp.get_data_length();
  tlm::tlm_generic_payload truth;
  truth.set_command(tlm::TLM_READ_COMMAND);
  truth.set_address(addr);
  truth.set_data_ptr(gp.get_data_ptr());
  truth.set_data_length(len);
  truth.set_streaming_width(len);
  debug(truth, target);
  writes_.push_back({&gp, addr, len, gp.get_data_ptr(), false});
}

void InFlightWrites::end(const tlm::tlm_generic_payload& gp, Socket& target) {
  auto it =
      std::find_if(writes_.begin(), writes_.end(), [&](const Write& w) { return w.gp == &gp; });
  if (it == writes_.end()) return;
  const Write w = *it;
  writes_.erase(it);
  if (!w.changed) return;
  tlm::tlm_generic_payload fix;
  fix.set_command(tlm::TLM_WRITE_COMMAND);
  fix.set_address(w.addr);
  fix.set_data_ptr(w.data);
  fix.set_data_length(w.len);
  fix.set_streaming_width(w.len);
  target.transport_dbg(fix);
}

} // namespace gpurf
