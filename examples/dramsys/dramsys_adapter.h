// An adapter between gpurf's memory port (`gpu.memory_port: at`, a TLM-2.0 base-protocol AT
// initiator) and DRAMSys's target socket (`DRAMSys::DRAMSys::tSocket`, a
// multi_passthrough_target_socket). docs/vp.md "A DRAM model: DRAMSys".
//
// What DRAMSys's arbiter (src/libdramsys/DRAMSys/simulation/Arbiter.cpp) asks of an initiator,
// and what the adapter does about it:
// - Every nb_transport_fw returns TLM_ACCEPTED; END_REQ and BEGIN_RESP come on the backward
//   path. The adapter passes requests and END_REQ through unchanged.
// - After BEGIN_RESP the arbiter holds the initiator's response channel until END_RESP arrives
//   on the forward path (or the BEGIN_RESP call returns TLM_UPDATED with END_RESP). A
//   TLM_COMPLETED answer to BEGIN_RESP, which the base protocol allows and gpurf's port gave,
//   is never seen as the end of the response: no further response is sent and the simulation
//   runs on without one. The adapter sends END_RESP on the forward path whenever the GPU
//   completes a response on the return path (COMPLETED, or UPDATED with END_RESP); when the
//   GPU answers TLM_ACCEPTED, its own END_RESP later passes through.
// - It acquires the payload at BEGIN_REQ and releases it at END_RESP: payloads need a memory
//   manager (gpurf's AT port has one).
// - It subtracts simconfig's AddressOffset from the payload's address and does not add it
//   back; the adapter restores the address the GPU sent before the GPU sees the payload again
//   (at BEGIN_RESP, and after a debug transport).
// Debug transport (gpu.start() writes the launch buffers, the AT port reads the bytes of a
// timed write) passes through; DRAMSys answers it only with simconfig "StoreMode": "Store".
// No DMI (DRAMSys offers none) and no b_transport (DRAMSys's blocking path adds no latency).
#pragma once

#include <cstdint>
#include <unordered_map>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "gpurf/platform/gpu.h"

namespace gpurf_dramsys {

struct DramsysAdapter : sc_core::sc_module {
  tlm_utils::simple_target_socket<DramsysAdapter> in;     // bind gpu.memory_port() here
  tlm_utils::simple_initiator_socket<DramsysAdapter> out; // bind to DRAMSys's tSocket
  uint64_t end_resps_sent = 0;                            // END_RESPs the adapter sent for the GPU

  explicit DramsysAdapter(sc_core::sc_module_name nm) : sc_module(nm), in("in"), out("out") {
    in.register_nb_transport_fw(this, &DramsysAdapter::nb_transport_fw);
    in.register_transport_dbg(this, &DramsysAdapter::transport_dbg);
    out.register_nb_transport_bw(this, &DramsysAdapter::nb_transport_bw);
  }

private:
  std::unordered_map<const tlm::tlm_generic_payload*, uint64_t> address_; // as the GPU sent it

  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay) {
    if (phase == tlm::BEGIN_REQ) address_[&gp] = gp.get_address();
    return out->nb_transport_fw(gp, phase, delay);
  }

  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay) {
    if (phase != tlm::BEGIN_RESP) return in->nb_transport_bw(gp, phase, delay); // END_REQ
    const auto it = address_.find(&gp);
    if (it != address_.end()) {
      gp.set_address(it->second);
      address_.erase(it);
    }
    // The GPU may release the payload when it completes the response; DRAMSys still holds a
    // reference (acquired at BEGIN_REQ) until the END_RESP below, so it stays valid.
    const tlm::tlm_sync_enum r = in->nb_transport_bw(gp, phase, delay);
    if (r == tlm::TLM_COMPLETED || (r == tlm::TLM_UPDATED && phase == tlm::END_RESP)) {
      tlm::tlm_phase end = tlm::END_RESP;
      sc_core::sc_time d = sc_core::SC_ZERO_TIME;
      ++end_resps_sent;
      out->nb_transport_fw(gp, end, d); // DRAMSys answers TLM_ACCEPTED
      phase = tlm::BEGIN_RESP;
      return tlm::TLM_ACCEPTED; // the response ends on the forward path, as DRAMSys expects
    }
    return r;
  }

  unsigned transport_dbg(tlm::tlm_generic_payload& gp) {
    const uint64_t a = gp.get_address();
    const unsigned n = out->transport_dbg(gp);
    gp.set_address(a);
    return n;
  }
};

// Starts the GPU's kernel once every socket is bound (DRAMSys's multi_passthrough target socket
// answers the debug transport of gpu.start()'s buffer writes from then on) and stops the
// simulation when the GPU is done (DRAMSys's refresh never stops by itself).
struct StartAndStop : sc_core::sc_module {
  SC_HAS_PROCESS(StartAndStop);
  gpurf::Gpu& gpu;
  StartAndStop(sc_core::sc_module_name nm, gpurf::Gpu& g) : sc_module(nm), gpu(g) {
    SC_THREAD(run);
  }
  void start_of_simulation() override { gpu.start(); }
  void run() {
    wait(gpu.done_event());
    sc_core::sc_stop();
  }
};

} // namespace gpurf_dramsys
