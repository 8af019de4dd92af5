// A memory for the cache replay tests (mem_l1_replay_test, mem_l2_replay_test): the whole
// 64-bit address space, a fixed latency, and a record of every request with the cycle it
// was sent in, as the reference models (reference_l1.h, reference_l2.h) describe them.
// Bytes never written read as a pattern of their address.
#pragma once

#include <unordered_map>
#include <vector>

#include "gpurf/modules/common/txn.h"
#include "gpurf/modules/common/unit.h"
#include "tests/support/reference_l1.h"

namespace gpurf::test {

struct RecordingMem : sc_core::sc_module {
  tlm_utils::simple_target_socket<RecordingMem> sock;
  SimClock* clock;
  uint64_t latency;
  std::unordered_map<uint64_t, unsigned char> written; // other bytes read as a pattern
  std::vector<RefMemReq> seen;

  RecordingMem(sc_core::sc_module_name nm, SimClock* c, uint64_t lat)
      : sc_module(nm), sock("sock"), clock(c), latency(lat) {
    sock.register_b_transport(this, &RecordingMem::b_transport);
    sock.register_transport_dbg(this, &RecordingMem::transport_dbg);
  }
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& d) {
    seen.push_back(
        {gp.is_write(), gp.get_address(), gp.get_data_length(), clock->now + clock->cycles(d)});
    transport_dbg(gp);
    d += clock->time(latency);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
  }
  unsigned transport_dbg(tlm::tlm_generic_payload& gp) {
    const unsigned char* be = gp.get_byte_enable_ptr();
    for (unsigned i = 0; i < gp.get_data_length(); ++i) {
      if (be && be[i % gp.get_byte_enable_length()] != TLM_BYTE_ENABLED) continue;
      const uint64_t a = gp.get_address() + i;
      if (gp.is_write()) {
        written[a] = gp.get_data_ptr()[i];
      } else {
        auto it = written.find(a);
        gp.get_data_ptr()[i] =
            it != written.end() ? it->second : static_cast<unsigned char>(a * 131 + (a >> 40));
      }
    }
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    return gp.get_data_length();
  }
};

} // namespace gpurf::test
