// A TLM-2.0 base-protocol checker (docs/vp.md "Protocol conformance"), written for gpurf's tests
// from the rules of IEEE 1666-2011 clause 15 (Debian's SystemC ships none): a pass-through
// module placed between an initiator (gpurf's memory port) and a target. Every call goes
// through unchanged; on the way the checker follows each transaction and counts what breaks
// the base protocol:
//
// - nb_transport (AT): the phase sequence BEGIN_REQ, END_REQ, BEGIN_RESP, END_RESP with its
//   shortcuts (BEGIN_RESP implies END_REQ; TLM_UPDATED carrying END_REQ or BEGIN_RESP to
//   BEGIN_REQ and END_RESP to BEGIN_RESP; TLM_COMPLETED ends the transaction at any phase and
//   its phase argument is ignored), the initiator's phases only on the forward path and the
//   target's only on the backward path; TLM_ACCEPTED leaves phase and delay as they were;
//   request and response exclusion (one transaction in its request phase and one in its
//   response phase at a time on the socket); no BEGIN_REQ for a payload already in flight;
//   memory management (a memory manager on every payload, a reference count above 0 while in
//   flight, and every payload released once its transaction ended: finish()); the response
//   status INCOMPLETE at BEGIN_REQ and set at BEGIN_RESP or completion; command, address,
//   data pointer and length, byte enables and streaming width unchanged over the transaction
//   (the checker sits next to the target: no interconnect behind it rewrites addresses);
//   data pointer and length present; the time of each phase (SystemC's time plus the delay)
//   never before the previous one's.
// - b_transport (LT): the response status INCOMPLETE on the way in and set on the way out,
//   attributes unchanged, and the call ending no earlier than it began (time plus delay on
//   return at least time plus delay on the call: a target may consume the delay by waiting,
//   never give back more than it waited).
// - DMI: get_direct_mem_ptr asked for a read or a write (not IGNORE) of a payload not in
//   flight; the region returned (granted or refused) contains the address, a granted one has
//   a pointer and some access; invalidations are forwarded to the initiator, start <= end.
// - transport_dbg: passed through.
//
// A violation is reported with SC_REPORT_ERROR (message type kMsgType, displayed rather than
// thrown, so that a run goes on and every violation is counted) naming the rule, the
// transaction (command, address, length) and the phase; violations() counts them, first() is
// the first. Tests assert zero after calling finish() while the initiator's payloads exist.
#pragma once

#include <array>
#include <cstdint>
#include <sstream>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

namespace gpurf::test {

class ProtocolChecker : public sc_core::sc_module {
public:
  // The rule classes violations are counted by.
  enum Rule {
    kPhase,      // a phase out of sequence, on the wrong path, or a transaction never ended
    kExclusion,  // request or response exclusion
    kReturn,     // a return code (or the phase / delay it carries) not legal for the phase
    kInFlight,   // BEGIN_REQ (or b_transport, DMI) with a payload already in flight
    kMemory,     // no memory manager, reference count 0 in flight, never released
    kStatus,     // response status not INCOMPLETE on the way in / INCOMPLETE on the way out
    kAttributes, // an attribute changed during the transaction
    kData,       // no data pointer, zero length, byte enables without a length
    kTiming,     // a phase (or a b_transport's return) earlier than the one before
    kDmi,        // get_direct_mem_ptr / invalidate_direct_mem_ptr
    kRules
  };
  static const char* rule_name(Rule r) {
    static const char* names[kRules] = {"phase sequence",
                                        "request/response exclusion",
                                        "return code",
                                        "payload in flight",
                                        "memory management",
                                        "response status",
                                        "attributes",
                                        "data",
                                        "timing",
                                        "DMI"};
    return names[r];
  }
  static constexpr const char* kMsgType = "gpurf/tlm_protocol";

  tlm_utils::simple_target_socket<ProtocolChecker> in;     // from the initiator
  tlm_utils::simple_initiator_socket<ProtocolChecker> out; // to the target

  // What went through (for tests that want to see the traffic was there).
  uint64_t transactions = 0, b_calls = 0, dmi_requests = 0, dmi_grants = 0, invalidations = 0,
           debug_calls = 0, end_resps = 0, completed_early = 0;
  size_t max_in_flight = 0;

  explicit ProtocolChecker(sc_core::sc_module_name nm) : sc_module(nm), in("in"), out("out") {
    in.register_nb_transport_fw(this, &ProtocolChecker::nb_transport_fw);
    in.register_b_transport(this, &ProtocolChecker::b_transport);
    in.register_transport_dbg(this, &ProtocolChecker::transport_dbg);
    in.register_get_direct_mem_ptr(this, &ProtocolChecker::get_direct_mem_ptr);
    out.register_nb_transport_bw(this, &ProtocolChecker::nb_transport_bw);
    out.register_invalidate_direct_mem_ptr(this, &ProtocolChecker::invalidate_direct_mem_ptr);
    sc_core::sc_report_handler::set_actions(kMsgType, sc_core::SC_ERROR, sc_core::SC_DISPLAY);
  }

  uint64_t violations() const { return total_; }
  uint64_t violations(Rule r) const { return counts_[r]; }
  const std::string& first() const { return first_; }

  // The end of a run: every transaction ended and every payload that carried one was
  // released (its reference count back to 0). Call it while those payloads exist.
  void finish() {
    for (auto& [gp, t] : txns_)
      violation(kPhase, *gp, state_name(t.state), "the transaction never ended");
    txns_.clear();
    request_ = response_ = nullptr;
    for (tlm::tlm_generic_payload* gp : ended_)
      if (gp->has_mm() && gp->get_ref_count() != 0)
        violation(kMemory, *gp, "end",
                  "the payload was never released after its transaction ended (reference "
                  "count " +
                      std::to_string(gp->get_ref_count()) + ")");
    ended_.clear();
  }

private:
  enum class State { Req, EndReq, Resp };
  static const char* state_name(State s) {
    return s == State::Req ? "BEGIN_REQ" : s == State::EndReq ? "END_REQ" : "BEGIN_RESP";
  }
  struct Attrs {
    tlm::tlm_command cmd;
    uint64_t addr;
    unsigned char* data;
    unsigned len;
    unsigned char* be;
    unsigned be_len;
    unsigned sw;
    explicit Attrs(const tlm::tlm_generic_payload& gp)
        : cmd(gp.get_command()), addr(gp.get_address()), data(gp.get_data_ptr()),
          len(gp.get_data_length()), be(gp.get_byte_enable_ptr()),
          be_len(gp.get_byte_enable_length()), sw(gp.get_streaming_width()) {}
    std::string differs(const tlm::tlm_generic_payload& gp) const {
      if (cmd != gp.get_command()) return "the command";
      if (addr != gp.get_address()) return "the address";
      if (data != gp.get_data_ptr()) return "the data pointer";
      if (len != gp.get_data_length()) return "the data length";
      if (be != gp.get_byte_enable_ptr() || be_len != gp.get_byte_enable_length())
        return "the byte enables";
      if (sw != gp.get_streaming_width()) return "the streaming width";
      return "";
    }
  };
  struct Txn {
    State state;
    Attrs attrs;
    sc_core::sc_time at; // the time of the last phase
  };

  static const char* command(const tlm::tlm_generic_payload& gp) {
    return gp.is_read() ? "READ" : gp.is_write() ? "WRITE" : "IGNORE";
  }

  void violation(Rule r, const tlm::tlm_generic_payload& gp, const std::string& phase,
                 const std::string& what) {
    ++counts_[r];
    std::ostringstream os;
    os << name() << ": " << rule_name(r) << ": " << what << " (" << command(gp) << " of "
       << gp.get_data_length() << " bytes at 0x" << std::hex << gp.get_address() << std::dec
       << ", phase " << phase << ", " << sc_core::sc_time_stamp() << ")";
    if (total_++ == 0) first_ = os.str();
    if (total_ <= kReported) SC_REPORT_ERROR(kMsgType, os.str().c_str());
  }

  void check_mm(const tlm::tlm_generic_payload& gp, const std::string& phase) {
    if (!gp.has_mm())
      violation(kMemory, gp, phase, "a payload without a memory manager on nb_transport");
    else if (gp.get_ref_count() <= 0)
      violation(kMemory, gp, phase,
                "the payload is in flight with reference count 0 (never "
                "acquired, or released too early)");
  }
  void check_data(const tlm::tlm_generic_payload& gp, const std::string& phase) {
    if (gp.is_read() || gp.is_write()) {
      if (!gp.get_data_ptr()) violation(kData, gp, phase, "no data pointer");
      if (!gp.get_data_length()) violation(kData, gp, phase, "data length 0");
    }
    if (gp.get_byte_enable_ptr() && !gp.get_byte_enable_length())
      violation(kData, gp, phase, "a byte-enable pointer with byte-enable length 0");
  }
  // The phase at `t` follows the transaction's last one; the attributes are unchanged.
  void check_txn(Txn& t, const tlm::tlm_generic_payload& gp, const std::string& phase,
                 const sc_core::sc_time& at) {
    if (const std::string d = t.attrs.differs(gp); !d.empty())
      violation(kAttributes, gp, phase, d + " changed during the transaction");
    if (at < t.at)
      violation(kTiming, gp, phase,
                "the phase is at " + at.to_string() + ", before the previous phase's " +
                    t.at.to_string());
    else
      t.at = at;
  }
  void ended(tlm::tlm_generic_payload& gp) {
    txns_.erase(&gp);
    if (request_ == &gp) request_ = nullptr;
    if (response_ == &gp) response_ = nullptr;
    ended_.insert(&gp);
  }
  // BEGIN_RESP of `gp` (on the backward path, or returned with TLM_UPDATED to BEGIN_REQ).
  void begin_response(Txn& t, tlm::tlm_generic_payload& gp) {
    if (t.state == State::Resp) {
      violation(kPhase, gp, "BEGIN_RESP", "a second BEGIN_RESP");
      return;
    }
    if (request_ == &gp) request_ = nullptr; // BEGIN_RESP implies END_REQ
    if (response_ && response_ != &gp)
      violation(kExclusion, gp, "BEGIN_RESP",
                "BEGIN_RESP while the transaction at 0x" + hex(response_->get_address()) +
                    " is in its response phase (no END_RESP yet)");
    if (gp.get_response_status() == tlm::TLM_INCOMPLETE_RESPONSE)
      violation(kStatus, gp, "BEGIN_RESP", "BEGIN_RESP with the response status INCOMPLETE");
    t.state = State::Resp;
    response_ = &gp;
  }
  static std::string hex(uint64_t v) {
    std::ostringstream os;
    os << std::hex << v;
    return os.str();
  }
  Txn* find(tlm::tlm_generic_payload& gp) {
    auto it = txns_.find(&gp);
    return it == txns_.end() ? nullptr : &it->second;
  }

  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay) {
    const tlm::tlm_phase ph = phase;
    const sc_core::sc_time d0 = delay, at = sc_core::sc_time_stamp() + delay;
    const std::string pn = ph.get_name();
    check_mm(gp, pn);
    Txn* t = find(gp);
    if (ph == tlm::BEGIN_REQ) {
      if (t) {
        violation(kInFlight, gp, pn,
                  std::string("BEGIN_REQ for a payload whose transaction is still in flight "
                              "(last phase ") +
                      state_name(t->state) + ")");
      } else {
        if (request_)
          violation(kExclusion, gp, pn,
                    "BEGIN_REQ while the transaction at 0x" + hex(request_->get_address()) +
                        " is in its request phase (no END_REQ or BEGIN_RESP yet)");
        if (gp.get_response_status() != tlm::TLM_INCOMPLETE_RESPONSE)
          violation(kStatus, gp, pn,
                    "BEGIN_REQ with the response status " + gp.get_response_string() +
                        " (must be INCOMPLETE)");
        check_data(gp, pn);
        t = &txns_.emplace(&gp, Txn{State::Req, Attrs(gp), at}).first->second;
        request_ = &gp;
        ++transactions;
        max_in_flight = std::max(max_in_flight, txns_.size());
      }
    } else if (ph == tlm::END_RESP) {
      if (!t)
        violation(kPhase, gp, pn, "END_RESP for a transaction not in flight");
      else if (t->state != State::Resp)
        violation(kPhase, gp, pn,
                  std::string("END_RESP before BEGIN_RESP (last phase ") + state_name(t->state) +
                      ")");
      else {
        check_txn(*t, gp, pn, at);
        ++end_resps;
        ended(gp);
      }
      t = nullptr;
    } else if (ph == tlm::END_REQ || ph == tlm::BEGIN_RESP) {
      violation(kPhase, gp, pn, pn + " on the forward path (it is the target's phase)");
      t = nullptr;
    } else {
      violation(kPhase, gp, pn, "a phase that is not the base protocol's");
      t = nullptr;
    }
    const tlm::tlm_sync_enum r = out->nb_transport_fw(gp, phase, delay);
    if (ph == tlm::END_RESP && r == tlm::TLM_UPDATED)
      violation(kReturn, gp, pn, "TLM_UPDATED returned to END_RESP");
    if (!t) return r; // not a BEGIN_REQ that started a transaction
    t = find(gp);     // the target may have ended it on the backward path meanwhile
    if (!t) return r;
    const sc_core::sc_time ret = sc_core::sc_time_stamp() + delay;
    switch (r) {
    case tlm::TLM_ACCEPTED:
      if (phase != ph)
        violation(kReturn, gp, pn,
                  std::string("TLM_ACCEPTED with the phase changed to ") + phase.get_name());
      if (delay != d0) violation(kReturn, gp, pn, "TLM_ACCEPTED with the delay changed");
      break;
    case tlm::TLM_UPDATED:
      if (t->state != State::Req) break; // moved on re-entrantly; judged there
      if (phase == tlm::END_REQ) {
        check_txn(*t, gp, "END_REQ (returned)", ret);
        t->state = State::EndReq;
        if (request_ == &gp) request_ = nullptr;
      } else if (phase == tlm::BEGIN_RESP) {
        check_txn(*t, gp, "BEGIN_RESP (returned)", ret);
        begin_response(*t, gp);
      } else {
        violation(kReturn, gp, pn,
                  std::string("TLM_UPDATED to BEGIN_REQ with phase ") + phase.get_name() +
                      " (END_REQ or BEGIN_RESP are legal)");
      }
      break;
    case tlm::TLM_COMPLETED:
      check_txn(*t, gp, "completed", ret);
      if (gp.get_response_status() == tlm::TLM_INCOMPLETE_RESPONSE)
        violation(kStatus, gp, pn, "TLM_COMPLETED with the response status INCOMPLETE");
      ++completed_early;
      ended(gp);
      break;
    }
    return r;
  }

  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay) {
    const tlm::tlm_phase ph = phase;
    const sc_core::sc_time d0 = delay, at = sc_core::sc_time_stamp() + delay;
    const std::string pn = ph.get_name();
    check_mm(gp, pn);
    Txn* t = find(gp);
    if (ph == tlm::BEGIN_REQ || ph == tlm::END_RESP) {
      violation(kPhase, gp, pn, pn + " on the backward path (it is the initiator's phase)");
      t = nullptr;
    } else if (ph != tlm::END_REQ && ph != tlm::BEGIN_RESP) {
      violation(kPhase, gp, pn, "a phase that is not the base protocol's");
      t = nullptr;
    } else if (!t) {
      violation(kPhase, gp, pn, pn + " for a transaction not in flight");
    } else {
      check_txn(*t, gp, pn, at);
      if (ph == tlm::END_REQ) {
        if (t->state != State::Req)
          violation(kPhase, gp, pn,
                    std::string("END_REQ after ") + state_name(t->state) +
                        " (one END_REQ, before BEGIN_RESP)");
        else {
          t->state = State::EndReq;
          if (request_ == &gp) request_ = nullptr;
        }
      } else {
        begin_response(*t, gp);
      }
    }
    const tlm::tlm_sync_enum r = in->nb_transport_bw(gp, phase, delay);
    if (!t || !(t = find(gp))) return r;
    const sc_core::sc_time ret = sc_core::sc_time_stamp() + delay;
    switch (r) {
    case tlm::TLM_ACCEPTED:
      if (phase != ph)
        violation(kReturn, gp, pn,
                  std::string("TLM_ACCEPTED with the phase changed to ") + phase.get_name());
      if (delay != d0) violation(kReturn, gp, pn, "TLM_ACCEPTED with the delay changed");
      break;
    case tlm::TLM_UPDATED:
      if (ph == tlm::BEGIN_RESP && phase == tlm::END_RESP) {
        check_txn(*t, gp, "END_RESP (returned)", ret);
        ++end_resps;
        ended(gp);
      } else {
        violation(kReturn, gp, pn,
                  std::string("TLM_UPDATED to ") + pn + " with phase " + phase.get_name() +
                      (ph == tlm::BEGIN_RESP ? " (END_RESP is legal)" : " (nothing is legal)"));
      }
      break;
    case tlm::TLM_COMPLETED:
      check_txn(*t, gp, "completed", ret);
      ended(gp);
      break;
    }
    return r;
  }

  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
    ++b_calls;
    const sc_core::sc_time at = sc_core::sc_time_stamp() + delay;
    if (txns_.count(&gp))
      violation(kInFlight, gp, "b_transport",
                "b_transport with a payload in an nb_transport "
                "transaction");
    if (gp.get_response_status() != tlm::TLM_INCOMPLETE_RESPONSE)
      violation(kStatus, gp, "b_transport",
                "b_transport called with the response status " + gp.get_response_string() +
                    " (must be INCOMPLETE)");
    check_data(gp, "b_transport");
    const Attrs attrs(gp);
    out->b_transport(gp, delay);
    if (const std::string d = attrs.differs(gp); !d.empty())
      violation(kAttributes, gp, "b_transport return", d + " changed by the target");
    if (gp.get_response_status() == tlm::TLM_INCOMPLETE_RESPONSE)
      violation(kStatus, gp, "b_transport return",
                "b_transport returned with the response status INCOMPLETE");
    if (sc_core::sc_time_stamp() + delay < at)
      violation(kTiming, gp, "b_transport return",
                "returned at " + (sc_core::sc_time_stamp() + delay).to_string() +
                    ", before it was called (" + at.to_string() + ")");
  }

  unsigned transport_dbg(tlm::tlm_generic_payload& gp) {
    ++debug_calls;
    return out->transport_dbg(gp);
  }

  bool get_direct_mem_ptr(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi) {
    ++dmi_requests;
    if (!gp.is_read() && !gp.is_write())
      violation(kDmi, gp, "get_direct_mem_ptr", "DMI asked for neither a read nor a write");
    if (txns_.count(&gp))
      violation(kInFlight, gp, "get_direct_mem_ptr",
                "get_direct_mem_ptr with a payload in an nb_transport transaction");
    const uint64_t addr = gp.get_address();
    const bool granted = out->get_direct_mem_ptr(gp, dmi);
    if (dmi.get_start_address() > dmi.get_end_address())
      violation(kDmi, gp, "get_direct_mem_ptr", "a DMI region that ends before it starts");
    else if (addr < dmi.get_start_address() || addr > dmi.get_end_address())
      violation(kDmi, gp, "get_direct_mem_ptr",
                "the DMI region [0x" + hex(dmi.get_start_address()) + ", 0x" +
                    hex(dmi.get_end_address()) + "] does not contain the address");
    if (granted) {
      ++dmi_grants;
      if (!dmi.get_dmi_ptr())
        violation(kDmi, gp, "get_direct_mem_ptr", "DMI granted without a pointer");
      if (!dmi.is_read_allowed() && !dmi.is_write_allowed())
        violation(kDmi, gp, "get_direct_mem_ptr", "DMI granted with no access allowed");
    }
    return granted;
  }

  void invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end) {
    ++invalidations;
    if (start > end) {
      tlm::tlm_generic_payload none;
      none.set_address(start);
      violation(kDmi, none, "invalidate_direct_mem_ptr",
                "an invalidation range that ends (0x" + hex(end) + ") before it starts");
    }
    in->invalidate_direct_mem_ptr(start, end);
  }

  static constexpr uint64_t kReported = 20; // messages shown; all are counted
  std::unordered_map<tlm::tlm_generic_payload*, Txn> txns_;
  std::unordered_set<tlm::tlm_generic_payload*> ended_; // released? (finish)
  tlm::tlm_generic_payload* request_ = nullptr;         // in its request phase
  tlm::tlm_generic_payload* response_ = nullptr;        // in its response phase
  std::array<uint64_t, kRules> counts_{};
  uint64_t total_ = 0;
  std::string first_;
};

} // namespace gpurf::test
