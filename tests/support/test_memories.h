// Memories for the memory port's protocol tests (docs/vp.md "Protocol conformance"): an AT
// target that answers in each way the TLM-2.0 base protocol allows, and an LT target that
// annotates or waits. Both hold the low 4 GiB (the GPU's buffers, windows and variables) and
// store or load a request's data when it arrives (BEGIN_REQ, b_transport).
#pragma once

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <random>
#include <unordered_map>
#include <utility>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

namespace gpurf::test {

// [0, 4 GiB) in one calloc'd block (pages untouched until used), so DMI can hand out one
// pointer. copy() honours byte enables and streaming; false when beyond the store.
struct FlatStore {
  static constexpr uint64_t kSize = uint64_t(4) << 30;
  std::unique_ptr<unsigned char, decltype(&std::free)> bytes{
      static_cast<unsigned char*>(std::calloc(kSize, 1)), &std::free};
  bool copy(tlm::tlm_generic_payload& gp) {
    const uint64_t a = gp.get_address();
    const unsigned len = gp.get_data_length();
    unsigned sw = gp.get_streaming_width();
    if (sw == 0 || sw > len) sw = len;
    if (!gp.get_data_ptr() || a + sw > kSize) return false;
    const unsigned char* be = gp.get_byte_enable_ptr();
    const unsigned bl = gp.get_byte_enable_length();
    for (unsigned i = 0; i < len; ++i) {
      if (be && bl && be[i % bl] != TLM_BYTE_ENABLED) continue;
      unsigned char& m = bytes.get()[a + i % sw];
      if (gp.is_write())
        m = gp.get_data_ptr()[i];
      else if (gp.is_read())
        gp.get_data_ptr()[i] = m;
    }
    return true;
  }
};

// An AT target. How it takes BEGIN_REQ (`accept`):
//   kAccepted         TLM_ACCEPTED; END_REQ on the backward path `end_req` later (early: 0;
//                     late: tens of ns, the initiator's next BEGIN_REQ waits for it)
//   kImplied          TLM_ACCEPTED and no END_REQ at all: the BEGIN_RESP implies it
//   kUpdatedEndReq    TLM_UPDATED with END_REQ, delay `end_req`
//   kUpdatedBeginResp TLM_UPDATED with BEGIN_RESP, delay the latency (when the response
//                     channel is free and no response waits; else as kUpdatedEndReq)
//   kCompleted        TLM_COMPLETED, delay END_REQ's plus the latency
// The response (BEGIN_RESP on the backward path, after the END_REQ plus a `latency` drawn per
// transaction, seeded: responses come out of order) waits for the response channel: one
// response phase at a time, ended by END_RESP on the forward path or by the initiator's
// TLM_UPDATED (END_RESP) / TLM_COMPLETED return. With `end_resp_only` the target ends a
// response phase only on END_RESP, as DRAMSys 5.1's arbiter does: an initiator that returns
// TLM_COMPLETED to BEGIN_RESP (legal) then blocks every later response. With `answer` false
// BEGIN_REQ is taken (as `accept` says) and nothing follows: a memory that never answers.
class AtTestMemory : public sc_core::sc_module {
public:
  enum class Accept { kAccepted, kImplied, kUpdatedEndReq, kUpdatedBeginResp, kCompleted };
  struct Range { // uniform in [lo, hi] ns
    unsigned lo = 0, hi = 0;
  };
  struct Options {
    Accept accept = Accept::kAccepted;
    Range end_req{0, 0}, latency{100, 400};
    unsigned seed = 1;
    bool end_resp_only = false;
    bool answer = true;
  };

  tlm_utils::simple_target_socket<AtTestMemory> socket;
  FlatStore store;
  // What happened: requests taken, the most outstanding at once, responses sent in another
  // order than their requests', END_REQs sent, END_RESPs received, BEGIN_RESPs the initiator
  // ended with TLM_UPDATED / TLM_COMPLETED, requests beyond the store (answered with an error).
  uint64_t requests = 0, out_of_order = 0, end_reqs = 0, end_resps = 0, updated_returns = 0,
           completed_returns = 0, bad_addresses = 0;
  unsigned outstanding = 0, max_outstanding = 0;

  SC_HAS_PROCESS(AtTestMemory);
  AtTestMemory(sc_core::sc_module_name nm, const Options& o)
      : sc_module(nm), socket("socket"), opt_(o), rng_(o.seed) {
    socket.register_nb_transport_fw(this, &AtTestMemory::nb_transport_fw);
    socket.register_transport_dbg(this, &AtTestMemory::transport_dbg);
    SC_METHOD(run);
    sensitive << wake_;
    dont_initialize();
  }

private:
  enum class Kind { kEndReq, kReady };
  using Key = std::pair<sc_core::sc_time, uint64_t>; // time, then arrival order

  sc_core::sc_time draw(const Range& r) {
    return sc_core::sc_time(r.lo + rng_() % (r.hi - r.lo + 1), sc_core::SC_NS);
  }
  void at(const sc_core::sc_time& t, Kind k, tlm::tlm_generic_payload* gp) {
    actions_.emplace(Key{t, next_++}, std::make_pair(k, gp));
    wake_.notify(t - sc_core::sc_time_stamp()); // the earliest pending one wins
  }

  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay) {
    if (phase == tlm::END_RESP) {
      ++end_resps;
      if (response_ == &gp) response_ = nullptr;
      wake_.notify(sc_core::SC_ZERO_TIME); // the next response may begin
      return tlm::TLM_COMPLETED;
    }
    if (phase != tlm::BEGIN_REQ) return tlm::TLM_COMPLETED; // the checker reports it
    ++requests;
    if (!store.copy(gp)) {
      ++bad_addresses;
      gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    } else {
      gp.set_response_status(tlm::TLM_OK_RESPONSE);
    }
    order_[&gp] = requests;
    max_outstanding = std::max(max_outstanding, ++outstanding);
    const sc_core::sc_time begin = sc_core::sc_time_stamp() + delay;
    const sc_core::sc_time end_req =
        opt_.accept == Accept::kImplied ? sc_core::SC_ZERO_TIME : draw(opt_.end_req);
    const sc_core::sc_time latency = draw(opt_.latency);
    if (!opt_.answer) {
      if (opt_.accept == Accept::kUpdatedEndReq) {
        phase = tlm::END_REQ;
        delay += end_req;
        return tlm::TLM_UPDATED;
      }
      return tlm::TLM_ACCEPTED;
    }
    switch (opt_.accept) {
    case Accept::kAccepted:
      at(begin + end_req, Kind::kEndReq, &gp);
      at(begin + end_req + latency, Kind::kReady, &gp);
      return tlm::TLM_ACCEPTED;
    case Accept::kImplied:
      at(begin + latency, Kind::kReady, &gp);
      return tlm::TLM_ACCEPTED;
    case Accept::kUpdatedBeginResp:
      if (!response_ && ready_.empty() && !pending_ready()) {
        response_ = &gp; // the response channel is this one's from now until END_RESP
        responded(gp);
        phase = tlm::BEGIN_RESP;
        delay += latency;
        return tlm::TLM_UPDATED;
      }
      [[fallthrough]];
    case Accept::kUpdatedEndReq:
      at(begin + end_req + latency, Kind::kReady, &gp);
      phase = tlm::END_REQ;
      delay += end_req;
      return tlm::TLM_UPDATED;
    case Accept::kCompleted:
      responded(gp);
      delay += end_req + latency;
      return tlm::TLM_COMPLETED;
    }
    return tlm::TLM_COMPLETED;
  }

  bool pending_ready() const {
    for (const auto& [k, a] : actions_)
      if (a.first == Kind::kReady) return true;
    return false;
  }
  void responded(tlm::tlm_generic_payload& gp) {
    --outstanding;
    const uint64_t n = order_[&gp];
    order_.erase(&gp);
    if (n < last_answered_) ++out_of_order;
    last_answered_ = std::max(last_answered_, n);
  }

  void run() {
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    while (!actions_.empty() && actions_.begin()->first.first <= now) {
      auto [kind, gp] = actions_.begin()->second;
      actions_.erase(actions_.begin());
      if (kind == Kind::kReady) {
        ready_.push_back(gp);
        continue;
      }
      ++end_reqs;
      tlm::tlm_phase ph = tlm::END_REQ;
      sc_core::sc_time d = sc_core::SC_ZERO_TIME;
      socket->nb_transport_bw(*gp, ph, d);
    }
    while (!response_ && !ready_.empty()) {
      tlm::tlm_generic_payload& gp = *ready_.front();
      ready_.pop_front();
      responded(gp);
      response_ = &gp;
      tlm::tlm_phase ph = tlm::BEGIN_RESP;
      sc_core::sc_time d = sc_core::SC_ZERO_TIME;
      const tlm::tlm_sync_enum r = socket->nb_transport_bw(gp, ph, d);
      if (r == tlm::TLM_UPDATED && ph == tlm::END_RESP) {
        ++updated_returns;
        if (!opt_.end_resp_only) response_ = nullptr;
      } else if (r == tlm::TLM_COMPLETED) {
        ++completed_returns;
        if (!opt_.end_resp_only) response_ = nullptr;
      }
    }
    if (!actions_.empty()) wake_.notify(actions_.begin()->first.first - now);
  }

  unsigned transport_dbg(tlm::tlm_generic_payload& gp) {
    return store.copy(gp) ? gp.get_data_length() : 0;
  }

  const Options opt_;
  std::mt19937 rng_;
  std::map<Key, std::pair<Kind, tlm::tlm_generic_payload*>> actions_;
  std::deque<tlm::tlm_generic_payload*> ready_;  // responses due, waiting for the channel
  tlm::tlm_generic_payload* response_ = nullptr; // in its response phase
  std::unordered_map<const tlm::tlm_generic_payload*, uint64_t> order_;
  uint64_t next_ = 0, last_answered_ = 0;
  sc_core::sc_event wake_;
};

// An LT target: b_transport annotates a latency drawn per request (seeded) or, with `wait`,
// waits it and returns a zero delay; with `answer` false it waits for ever (a memory that
// never answers).
class LtTestMemory : public sc_core::sc_module {
public:
  struct Options {
    unsigned latency_lo = 100, latency_hi = 400; // ns
    bool wait = false;
    bool answer = true;
    unsigned seed = 1;
  };
  tlm_utils::simple_target_socket<LtTestMemory> socket;
  FlatStore store;
  uint64_t requests = 0, waits = 0, bad_addresses = 0;

  LtTestMemory(sc_core::sc_module_name nm, const Options& o)
      : sc_module(nm), socket("socket"), opt_(o), rng_(o.seed) {
    socket.register_b_transport(this, &LtTestMemory::b_transport);
    socket.register_transport_dbg(this, &LtTestMemory::transport_dbg);
  }

private:
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
    ++requests;
    if (!store.copy(gp)) {
      ++bad_addresses;
      gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    } else {
      gp.set_response_status(tlm::TLM_OK_RESPONSE);
    }
    if (!opt_.answer) sc_core::wait(never_);
    const sc_core::sc_time lat(opt_.latency_lo + rng_() % (opt_.latency_hi - opt_.latency_lo + 1),
                               sc_core::SC_NS);
    if (opt_.wait) {
      ++waits;
      sc_core::wait(delay + lat);
      delay = sc_core::SC_ZERO_TIME;
    } else {
      delay += lat;
    }
  }
  unsigned transport_dbg(tlm::tlm_generic_payload& gp) {
    return store.copy(gp) ? gp.get_data_length() : 0;
  }

  const Options opt_;
  std::mt19937 rng_;
  sc_core::sc_event never_;
};

} // namespace gpurf::test
