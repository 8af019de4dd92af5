#include "gpurf/platform/at_port.h"

#include <algorithm>
#include <cstring>
#include <sstream>

namespace gpurf {

AtPort::AtPort(sc_core::sc_module_name nm, const UnitContext& c, unsigned burst_bytes,
               Cycle timeout)
    : Unit(nm, c), in("in"), out("out"), burst_(burst_bytes), timeout_(timeout),
      requests_(stats().scalar("requests", "requests from the caches", "requests",
                               energy::no_event("the memory prices its accesses"),
                               check::unwatched("protocol: the memory counts what it serves"))),
      transactions_(stats().scalar("transactions", "bursts sent (BEGIN_REQ)", "transactions",
                                   energy::no_event("the memory prices its accesses"),
                                   check::unwatched("protocol: the memory counts what it serves"))),
      backpressure_(stats().scalar("backpressure_waits",
                                   "BEGIN_REQs that waited for the previous END_REQ", "waits",
                                   energy::no_event("waits"), check::unwatched("waits"))),
      errors_(stats().scalar("error_responses", "bursts answered with an error", "responses",
                             energy::no_event("protocol"),
                             check::unwatched("protocol (an error stops the run)"))) {
  in.register_b_transport(this, &AtPort::b_transport);
  in.register_transport_dbg(this, &AtPort::transport_dbg);
  in.register_get_direct_mem_ptr(this, &AtPort::get_direct_mem_ptr);
  out.register_nb_transport_bw(this, &AtPort::nb_transport_bw);
  SC_METHOD(send);
  sensitive << send_;
  dont_initialize();
  SC_METHOD(end_request);
  sensitive << end_request_;
  dont_initialize();
  SC_METHOD(end_response);
  sensitive << end_response_.get_event();
  dont_initialize();
  SC_METHOD(watch);
  sensitive << watch_;
  dont_initialize();
}

void AtPort::end_request() {
  request_phase_ = nullptr;
  send();
}

AtPort::~AtPort() {
  for (auto& p : parts_) {
    p->gp->reset();
    delete p->gp;
  }
}

void AtPort::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  const uint64_t addr = gp.get_address();
  const unsigned len = gp.get_data_length();
  const Cycle at = now() + clock_->cycles(delay);
  auto request = std::make_shared<Pending>();
  auto left = std::make_shared<unsigned>(0);
  auto ready = std::make_shared<Cycle>(at);
  auto error = std::make_shared<std::string>();
  // Naturally aligned power-of-two pieces of at most burst_ bytes.
  for (uint64_t a = addr, end = addr + len; a < end;) {
    unsigned n = burst_;
    while (n > 1 && (a % n || a + n > end)) n /= 2;
    Part* p;
    if (idle_.empty()) {
      parts_.push_back(std::make_unique<Part>());
      p = parts_.back().get();
      p->gp = new tlm::tlm_generic_payload(this);
      owner_[p->gp] = p;
    } else {
      p = idle_.back();
      idle_.pop_back();
    }
    tlm::tlm_generic_payload& q = *p->gp;
    q.acquire();
    q.set_command(gp.get_command());
    q.set_address(a);
    p->data.assign(gp.get_data_ptr() + (a - addr), gp.get_data_ptr() + (a - addr) + n);
    q.set_data_ptr(p->data.data());
    q.set_data_length(n);
    q.set_streaming_width(n);
    q.set_byte_enable_ptr(nullptr);
    q.set_byte_enable_length(0);
    if (const unsigned char* be = gp.get_byte_enable_ptr()) {
      const unsigned bl = gp.get_byte_enable_length();
      p->be.resize(n);
      for (unsigned i = 0; i < n; ++i) p->be[i] = be[(a - addr + i) % bl];
      q.set_byte_enable_ptr(p->be.data());
      q.set_byte_enable_length(n);
    }
    q.set_dmi_allowed(false);
    q.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    p->request = request;
    p->parts_left = left;
    p->ready = ready;
    p->error = error;
    p->send_at = at;
    ++*left;
    queue_.push_back(&q);
    a += n;
  }
  ++requests_;
  ++outstanding_;
  send_.notify(clock_->time(at - now()));
  if (timeout_) watch_.notify(clock_->time(timeout_)); // unless it is due sooner
  // The data the caches need is already in memory (they read it through debug transport);
  // the answer is when.
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
  set_pending(gp, request);
}

AtPort::Part& AtPort::part_of(tlm::tlm_generic_payload& gp) {
  auto it = owner_.find(&gp);
  if (it == owner_.end()) SC_REPORT_FATAL(name(), "a response for a payload the port did not send");
  return *it->second;
}

void AtPort::send() {
  while (!request_phase_ && !queue_.empty()) {
    tlm::tlm_generic_payload& gp = *queue_.front();
    Part& p = part_of(gp);
    if (p.send_at > clock_->cycles(sc_core::sc_time_stamp())) {
      send_.notify(clock_->time(p.send_at) - sc_core::sc_time_stamp());
      return;
    }
    queue_.pop_front();
    ++transactions_;
    tlm::tlm_phase phase = tlm::BEGIN_REQ;
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    request_phase_ = &gp;
    clock_->now = clock_->cycles(sc_core::sc_time_stamp()); // a memory built beside the GPU
    // A write carries the bytes memory holds now (the L2's write-back read them cycles ago, and
    // stores or atomics executed since must not be undone) and keeps them true until answered.
    if (gp.is_write()) writes_.begin(gp, *out[0]);
    switch (out->nb_transport_fw(gp, phase, d)) {
    case tlm::TLM_ACCEPTED: // END_REQ (and BEGIN_RESP) come on the backward path
      break;
    case tlm::TLM_UPDATED:
      if (phase == tlm::END_REQ) {
        end_request_.notify(d); // the channel is free after d
        return;
      } else if (phase == tlm::BEGIN_RESP) {
        request_phase_ = nullptr;
        begin_response(gp, d); // END_RESP at the response's time, not before it
      }
      break;
    case tlm::TLM_COMPLETED:
      request_phase_ = nullptr;
      respond(gp, d);
      break;
    }
  }
  if (request_phase_ && !queue_.empty()) ++backpressure_;
}

tlm::tlm_sync_enum AtPort::nb_transport_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase,
                                           sc_core::sc_time& delay) {
  if (phase == tlm::END_REQ) {
    end_request_.notify(delay);
    return tlm::TLM_ACCEPTED;
  }
  if (phase == tlm::BEGIN_RESP) {
    if (request_phase_ == &gp) end_request_.notify(delay); // BEGIN_RESP implies its END_REQ
    begin_response(gp, delay);
    // END_RESP follows on the forward path: a DRAM model's arbiter may hold its response
    // channel until then (TLM_COMPLETED here is legal, but DRAMSys 5.1 waits for END_RESP).
    return tlm::TLM_ACCEPTED;
  }
  SC_REPORT_ERROR(name(), "unexpected phase on the backward path");
  return tlm::TLM_ACCEPTED;
}

void AtPort::respond(tlm::tlm_generic_payload& gp, const sc_core::sc_time& delay) {
  Part& p = part_of(gp);
  const Cycle c = clock_->cycles(sc_core::sc_time_stamp() + delay);
  *p.ready = std::max(*p.ready, c);
  if (!gp.is_response_ok() && p.error->empty()) {
    ++errors_;
    std::ostringstream os;
    os << name() << ": memory " << (gp.is_write() ? "WRITE" : "READ") << " of "
       << gp.get_data_length() << " bytes at 0x" << std::hex << gp.get_address()
       << " failed: " << gp.get_response_string();
    *p.error = os.str();
  }
  PendingPtr request = p.request;
  const bool last = --*p.parts_left == 0;
  const Cycle ready = *p.ready;
  const std::string error = *p.error;
  if (gp.is_write()) writes_.end(gp, *out[0]);
  gp.release(); // back to the pool (free())
  if (!last) return;
  --outstanding_;
  request->complete(ready, error);
  response_.notify(sc_core::SC_ZERO_TIME);
}

void AtPort::begin_response(tlm::tlm_generic_payload& gp, const sc_core::sc_time& delay) {
  gp.acquire(); // held until END_RESP (respond() drops the request's reference)
  part_of(gp).responded = true;
  respond(gp, delay); // the response's cycle is the BEGIN_RESP's
  end_response_.notify(gp, delay);
}

void AtPort::end_response() {
  while (tlm::tlm_generic_payload* gp = end_response_.get_next_transaction()) {
    tlm::tlm_phase phase = tlm::END_RESP;
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    out->nb_transport_fw(*gp, phase, d); // TLM_COMPLETED (or TLM_ACCEPTED): either way it is over
    gp->release();
  }
}

void AtPort::free(tlm::tlm_generic_payload* gp) {
  Part& p = part_of(*gp);
  gp->reset(); // no extension survives into the next use
  p.request.reset();
  p.responded = false;
  idle_.push_back(&p);
  if (idle_.size() == parts_.size()) watch_.cancel(); // nothing left to wait for
}

void AtPort::watch() {
  const Cycle now = clock_->cycles(sc_core::sc_time_stamp());
  std::vector<const Part*> waiting; // every payload not back in the pool
  for (const auto& p : parts_)
    if (p->gp->get_ref_count() > 0) waiting.push_back(p.get());
  if (waiting.empty()) return;
  std::stable_sort(waiting.begin(), waiting.end(),
                   [](const Part* a, const Part* b) { return a->send_at < b->send_at; });
  const Cycle oldest = waiting.front()->send_at;
  if (now < oldest + timeout_) { // not yet: look again when the oldest reaches the bound
    watch_.notify(clock_->time(oldest + timeout_ - now));
    return;
  }
  std::ostringstream os;
  os << name() << ": no answer from the memory for " << timeout_
     << " cycles (gpu.memory_timeout_cycles): " << waiting.size()
     << (waiting.size() == 1 ? " transaction" : " transactions") << " outstanding at cycle " << now
     << "; the oldest:";
  const size_t shown = std::min<size_t>(waiting.size(), 4);
  for (size_t i = 0; i < shown; ++i) {
    const Part& p = *waiting[i];
    const tlm::tlm_generic_payload& gp = *p.gp;
    const char* phase = "END_REQ received, no BEGIN_RESP";
    if (request_phase_ == p.gp)
      phase = "BEGIN_REQ sent, no END_REQ";
    else if (std::find(queue_.begin(), queue_.end(), p.gp) != queue_.end())
      phase = "BEGIN_REQ not sent yet: the request channel is busy";
    else if (p.responded)
      phase = "BEGIN_RESP received, END_RESP not sent yet";
    os << (i ? ";" : "") << " " << (gp.is_write() ? "WRITE" : "READ") << " of "
       << gp.get_data_length() << " bytes at 0x" << std::hex << gp.get_address() << std::dec << " ("
       << phase << ") for " << (now > p.send_at ? now - p.send_at : 0) << " cycles";
  }
  if (waiting.size() > shown) os << "; and " << waiting.size() - shown << " more";
  if (on_timeout_)
    on_timeout_(os.str());
  else
    SC_REPORT_ERROR(name(), os.str().c_str());
}

bool AtPort::get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi& dmi) {
  return refuse_dmi(dmi);
}

} // namespace gpurf
