// The GPU's memory initiator when `gpu.memory_port: at` (docs/vp.md): the TLM-2.0 base
// protocol's approximately-timed 4-phase handshake with the memory target.
//
// The L2 (or, without one, the interconnect) hands each request over in an SM's cycle; the
// port answers it as pending (modules/common/pending.h) and sends it out: split into
// naturally aligned power-of-two bursts of at most `gpu.burst_bytes`, each a payload from the
// port's memory manager (acquired, reset before reuse, no gpurf extension on it), BEGIN_REQ
// at the request's cycle, one request phase at a time (the next BEGIN_REQ waits for END_REQ:
// backpressure), as many transactions outstanding as the caches make. At BEGIN_RESP (or a
// TLM_COMPLETED / TLM_UPDATED return) the part is done; when every part of a request is, its
// Pending completes with the cycle of the last response, and the L1/L2 MSHRs waiting on it
// complete and wake the units waiting on them. An error response fails the request: the
// instruction that waits on it stops its SM with the response named.
//
// A BEGIN_RESP on the backward path is answered TLM_ACCEPTED and ended with END_RESP on the
// forward path at the response's time (a delta later), as DRAM models' arbiters expect; the
// port holds a reference on the payload until then and releases it after END_RESP. With a
// timeout (`gpu.memory_timeout_cycles`), a transaction outstanding longer than that is
// reported through on_timeout() with the oldest ones listed, instead of the GPU waiting
// silently.
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <tlm_utils/peq_with_get.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "gpurf/modules/common/pending.h"
#include "gpurf/modules/common/txn.h"
#include "gpurf/modules/common/unit.h"
#include "gpurf/platform/in_flight_writes.h"

namespace gpurf {

class AtPort final : public Unit, private tlm::tlm_mm_interface {
public:
  SC_HAS_PROCESS(AtPort);
  tlm_utils::simple_target_socket<AtPort> in;     // from the L2 (or the interconnect)
  tlm_utils::simple_initiator_socket<AtPort> out; // to the memory target

  // `timeout`: cycles a transaction may wait on the memory before on_timeout() (0: never).
  AtPort(sc_core::sc_module_name nm, const UnitContext& c, unsigned burst_bytes, Cycle timeout = 0);
  ~AtPort() override;
  // Notified when a response arrived (the SMs look at their units again).
  const sc_core::sc_event& response_event() const { return response_; }
  // Requests whose responses have not all arrived.
  size_t outstanding() const { return outstanding_; }
  // Called with a report (the port, how many are outstanding, the oldest ones: address,
  // command, phase, how long) when a transaction has waited longer than the timeout.
  void on_timeout(std::function<void(const std::string&)> f) { on_timeout_ = std::move(f); }

private:
  struct Part {
    tlm::tlm_generic_payload* gp = nullptr;
    std::vector<unsigned char> data, be;
    PendingPtr request; // the whole request's
    std::shared_ptr<unsigned> parts_left;
    std::shared_ptr<Cycle> ready;
    std::shared_ptr<std::string> error;
    Cycle send_at = 0;
    bool responded = false; // BEGIN_RESP received (END_RESP pending until released)
  };

  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  unsigned transport_dbg(tlm::tlm_generic_payload& gp) { return writes_.debug(gp, *out[0]); }
  bool get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi& dmi);
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  void send();        // SC_METHOD: the next BEGIN_REQs, while the request channel is free
  void end_request(); // SC_METHOD: END_REQ arrived (at its annotated time): the channel is free
  void respond(tlm::tlm_generic_payload& gp, const sc_core::sc_time& delay); // a part is done
  // BEGIN_RESP of `gp` at `delay`: the part is done; END_RESP follows at that time.
  void begin_response(tlm::tlm_generic_payload& gp, const sc_core::sc_time& delay);
  void end_response(); // SC_METHOD: END_RESP on the forward path, then the payload is released
  void watch();        // SC_METHOD: the timeout
  Part& part_of(tlm::tlm_generic_payload& gp);
  void free(tlm::tlm_generic_payload* gp) override; // tlm_mm_interface

  const unsigned burst_;
  std::deque<tlm::tlm_generic_payload*> queue_; // waiting for BEGIN_REQ, in order
  std::vector<std::unique_ptr<Part>> parts_;    // every payload the port owns
  std::vector<Part*> idle_;                     // released ones
  // The transaction in its request phase (BEGIN_REQ sent, END_REQ not yet seen), or null.
  const tlm::tlm_generic_payload* request_phase_ = nullptr;
  size_t outstanding_ = 0;
  std::unordered_map<const tlm::tlm_generic_payload*, Part*> owner_;
  InFlightWrites writes_; // the writes sent and not yet answered
  sc_core::sc_event send_, end_request_, response_;
  tlm_utils::peq_with_get<tlm::tlm_generic_payload> end_response_{"end_responses"};
  const Cycle timeout_;
  sc_core::sc_event watch_;
  std::function<void(const std::string&)> on_timeout_;
  uint64_t &requests_, &transactions_, &backpressure_, &errors_;
};

} // namespace gpurf
