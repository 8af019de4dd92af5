// The protocol checker itself (tests/support/protocol_checker.h): tiny scripted initiators and
// targets, one test per rule class where a deliberately wrong pair must be caught, and legal
// sequences (every shortcut the base protocol allows) that must pass without a violation.
#include <gtest/gtest.h>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <functional>

#include "tests/support/protocol_checker.h"

using gpurf::test::ProtocolChecker;
using namespace sc_core;

namespace {

struct Mm : tlm::tlm_mm_interface {
  unsigned freed = 0;
  void free(tlm::tlm_generic_payload* gp) override {
    gp->reset();
    ++freed;
  }
};

using Nb = std::function<tlm::tlm_sync_enum(tlm::tlm_generic_payload&, tlm::tlm_phase&, sc_time&)>;

// An initiator running `script` in a thread; the backward path answers with `bw` (default:
// TLM_ACCEPTED, phases recorded).
struct Initiator : sc_module {
  SC_HAS_PROCESS(Initiator);
  tlm_utils::simple_initiator_socket<Initiator> socket;
  std::function<void()> script;
  Nb bw;
  std::vector<tlm::tlm_phase> seen;
  unsigned invalidations = 0;
  explicit Initiator(sc_module_name nm) : sc_module(nm), socket("socket") {
    socket.register_nb_transport_bw(this, &Initiator::nb_transport_bw);
    socket.register_invalidate_direct_mem_ptr(this, &Initiator::invalidate);
    SC_THREAD(run);
  }
  void run() {
    if (script) script();
  }
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_time& d) {
    seen.push_back(ph);
    return bw ? bw(gp, ph, d) : tlm::TLM_ACCEPTED;
  }
  void invalidate(sc_dt::uint64, sc_dt::uint64) { ++invalidations; }
  tlm::tlm_sync_enum fw(tlm::tlm_generic_payload& gp, tlm::tlm_phase ph, sc_time d = SC_ZERO_TIME) {
    return socket->nb_transport_fw(gp, ph, d);
  }
};

// A target whose forward path answers with `fw` (default: TLM_ACCEPTED) and that runs
// `script` in a thread (its backward-path calls).
struct Target : sc_module {
  SC_HAS_PROCESS(Target);
  tlm_utils::simple_target_socket<Target> socket;
  std::function<void()> script;
  Nb fw;
  std::function<void(tlm::tlm_generic_payload&, sc_time&)> b;
  std::function<bool(tlm::tlm_generic_payload&, tlm::tlm_dmi&)> dmi;
  std::vector<tlm::tlm_phase> seen;
  unsigned debug_calls = 0;
  explicit Target(sc_module_name nm) : sc_module(nm), socket("socket") {
    socket.register_nb_transport_fw(this, &Target::nb_transport_fw);
    socket.register_b_transport(this, &Target::b_transport);
    socket.register_transport_dbg(this, &Target::transport_dbg);
    socket.register_get_direct_mem_ptr(this, &Target::get_direct_mem_ptr);
    SC_THREAD(run);
  }
  void run() {
    if (script) script();
  }
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_time& d) {
    seen.push_back(ph);
    if (ph == tlm::END_RESP && !fw) return tlm::TLM_COMPLETED;
    return fw ? fw(gp, ph, d) : tlm::TLM_ACCEPTED;
  }
  void b_transport(tlm::tlm_generic_payload& gp, sc_time& d) {
    if (b)
      b(gp, d);
    else
      gp.set_response_status(tlm::TLM_OK_RESPONSE);
  }
  unsigned transport_dbg(tlm::tlm_generic_payload& gp) {
    ++debug_calls;
    return gp.get_data_length();
  }
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& d) {
    return dmi ? dmi(gp, d) : false;
  }
  tlm::tlm_sync_enum bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase ph, sc_time d = SC_ZERO_TIME) {
    return socket->nb_transport_bw(gp, ph, d);
  }
};

// Initiator -> checker -> target.
struct Bench {
  Initiator ini{"ini"};
  ProtocolChecker checker{"checker"};
  Target tgt{"tgt"};
  Mm mm;
  unsigned char data[4][8] = {};
  tlm::tlm_generic_payload gp[4];
  Bench() {
    ini.socket.bind(checker.in);
    checker.out.bind(tgt.socket);
    for (unsigned i = 0; i < 4; ++i) {
      gp[i].set_mm(&mm);
      gp[i].acquire(); // the initiator's reference, released in end()
      prepare(i);
    }
  }
  // A fresh READ of 8 bytes at 0x100 * (i + 1) with the response status INCOMPLETE.
  void prepare(unsigned i) {
    gp[i].set_command(tlm::TLM_READ_COMMAND);
    gp[i].set_address(0x100 * (i + 1));
    gp[i].set_data_ptr(data[i]);
    gp[i].set_data_length(8);
    gp[i].set_streaming_width(8);
    gp[i].set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  }
  void end(unsigned i) { gp[i].release(); }
  // Runs the simulation and finishes the checker.
  void run() {
    sc_start();
    checker.finish();
  }
};

tlm::tlm_sync_enum ok(tlm::tlm_generic_payload& gp) {
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
  return tlm::TLM_ACCEPTED;
}

} // namespace

// Every legal way through: the full 4-phase sequence (END_REQ and BEGIN_RESP on the backward
// path, END_RESP on the forward path), TLM_UPDATED with END_REQ and with BEGIN_RESP,
// TLM_COMPLETED at BEGIN_REQ, BEGIN_RESP implying END_REQ, the initiator ending BEGIN_RESP
// with TLM_UPDATED (END_RESP) or TLM_COMPLETED; b_transport, DMI, debug transport and an
// invalidation pass through. No violation.
TEST(ProtocolChecker, LegalSequencesPass) {
  Bench b;
  int step = 0;
  b.tgt.fw = [&](tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_time& d) {
    if (ph != tlm::BEGIN_REQ) return tlm::TLM_COMPLETED;
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    switch (step) {
    case 1:
      ph = tlm::END_REQ;
      d += sc_time(5, SC_NS);
      return tlm::TLM_UPDATED;
    case 2:
      ph = tlm::BEGIN_RESP;
      d += sc_time(5, SC_NS);
      return tlm::TLM_UPDATED;
    case 3:
      d += sc_time(10, SC_NS);
      return tlm::TLM_COMPLETED;
    default:
      return tlm::TLM_ACCEPTED;
    }
  };
  b.tgt.dmi = [](tlm::tlm_generic_payload& gp, tlm::tlm_dmi& d) {
    static unsigned char mem[16];
    d.set_start_address(gp.get_address() & ~0xfull);
    d.set_end_address((gp.get_address() & ~0xfull) + 15);
    d.set_dmi_ptr(mem);
    d.allow_read_write();
    return true;
  };
  b.tgt.script = [&] {
    wait(1, SC_NS); // step 0: END_REQ, then BEGIN_RESP (ACCEPTED), END_RESP comes forward
    b.tgt.bw(b.gp[0], tlm::END_REQ);
    wait(1, SC_NS);
    EXPECT_EQ(b.tgt.bw(b.gp[0], tlm::BEGIN_RESP), tlm::TLM_ACCEPTED);
    wait(50, SC_NS); // 52 ns, step 4: gp[0] (END_REQ returned at 10 ns) gets BEGIN_RESP, and
    b.tgt.bw(b.gp[0], tlm::BEGIN_RESP); // the initiator returns TLM_UPDATED with END_RESP
    wait(10, SC_NS); // 62 ns, step 5: BEGIN_RESP without END_REQ, the initiator completes
    b.tgt.bw(b.gp[1], tlm::BEGIN_RESP);
    b.tgt.socket->invalidate_direct_mem_ptr(0, 0xff);
  };
  b.ini.bw = [&](tlm::tlm_generic_payload&, tlm::tlm_phase& ph, sc_time&) {
    if (ph != tlm::BEGIN_RESP) return tlm::TLM_ACCEPTED;
    if (step == 4) {
      ph = tlm::END_RESP;
      return tlm::TLM_UPDATED;
    }
    return step == 5 ? tlm::TLM_COMPLETED : tlm::TLM_ACCEPTED;
  };
  b.ini.script = [&] {
    b.ini.fw(b.gp[0], tlm::BEGIN_REQ);
    wait(5, SC_NS);
    b.ini.fw(b.gp[0], tlm::END_RESP);
    b.prepare(0);
    step = 1;
    b.ini.fw(b.gp[0], tlm::BEGIN_REQ); // UPDATED END_REQ at +5 ns
    wait(5, SC_NS);
    step = 2;
    b.ini.fw(b.gp[1], tlm::BEGIN_REQ); // UPDATED BEGIN_RESP at +5 ns (gp[0] still waits)
    wait(5, SC_NS);
    b.ini.fw(b.gp[1], tlm::END_RESP);
    wait(5, SC_NS);
    step = 3;
    b.prepare(1);
    b.ini.fw(b.gp[1], tlm::BEGIN_REQ); // COMPLETED
    b.prepare(1);
    wait(30, SC_NS);
    step = 4;
    wait(5, SC_NS);
    step = 5;
    b.ini.fw(b.gp[1], tlm::BEGIN_REQ); // ACCEPTED; BEGIN_RESP implies END_REQ
    // b_transport, debug and DMI.
    tlm::tlm_generic_payload& q = b.gp[2];
    sc_time d(3, SC_NS);
    b.ini.socket->b_transport(q, d);
    q.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    b.ini.socket->transport_dbg(q);
    tlm::tlm_dmi dmi;
    EXPECT_TRUE(b.ini.socket->get_direct_mem_ptr(q, dmi));
    wait(20, SC_NS);
    for (unsigned i = 0; i < 4; ++i) b.end(i);
  };
  b.run();
  EXPECT_EQ(b.checker.violations(), 0u) << b.checker.first();
  EXPECT_EQ(b.checker.transactions, 5u);
  EXPECT_EQ(b.checker.b_calls, 1u);
  EXPECT_EQ(b.tgt.debug_calls, 1u);
  EXPECT_EQ(b.checker.dmi_grants, 1u);
  EXPECT_EQ(b.ini.invalidations, 1u); // forwarded
  EXPECT_EQ(b.mm.freed, 4u);
}

// Phase sequence: END_RESP before BEGIN_RESP, a target's phase on the forward path, END_REQ
// twice, a phase for a transaction not in flight, and a transaction left unfinished.
TEST(ProtocolChecker, CatchesPhaseSequenceErrors) {
  Bench b;
  b.ini.script = [&] {
    b.ini.fw(b.gp[0], tlm::BEGIN_REQ);
    b.ini.fw(b.gp[0], tlm::END_RESP);   // before BEGIN_RESP
    b.ini.fw(b.gp[0], tlm::BEGIN_RESP); // the target's phase
    wait(10, SC_NS);
  };
  b.tgt.script = [&] {
    wait(1, SC_NS);
    b.tgt.bw(b.gp[0], tlm::END_REQ);
    b.tgt.bw(b.gp[0], tlm::END_REQ);    // twice
    b.tgt.bw(b.gp[1], tlm::BEGIN_RESP); // never began
  };
  b.run(); // gp[0] never ends: finish() reports it
  EXPECT_EQ(b.checker.violations(ProtocolChecker::kPhase), 5u) << b.checker.first();
  EXPECT_EQ(b.checker.violations(), 5u) << b.checker.first();
}

// Request exclusion (BEGIN_REQ before the previous END_REQ) and response exclusion (BEGIN_RESP
// before the previous END_RESP).
TEST(ProtocolChecker, CatchesExclusionErrors) {
  Bench b;
  b.tgt.fw = [](tlm::tlm_generic_payload& gp, tlm::tlm_phase&, sc_time&) { return ok(gp); };
  b.ini.script = [&] {
    b.ini.fw(b.gp[0], tlm::BEGIN_REQ);
    b.ini.fw(b.gp[1], tlm::BEGIN_REQ); // no END_REQ for gp[0] yet
    wait(10, SC_NS);
    b.ini.fw(b.gp[0], tlm::END_RESP);
    b.ini.fw(b.gp[1], tlm::END_RESP);
    b.end(0);
    b.end(1);
  };
  b.tgt.script = [&] {
    wait(1, SC_NS);
    b.tgt.bw(b.gp[0], tlm::BEGIN_RESP);
    b.tgt.bw(b.gp[1], tlm::BEGIN_RESP); // gp[0]'s response phase is still open
  };
  b.run();
  EXPECT_EQ(b.checker.violations(ProtocolChecker::kExclusion), 2u) << b.checker.first();
  EXPECT_EQ(b.checker.violations(), 2u) << b.checker.first();
}

// Return codes: TLM_UPDATED with END_RESP to BEGIN_REQ, TLM_ACCEPTED with a changed phase or
// delay, TLM_UPDATED to BEGIN_RESP with a phase other than END_RESP, TLM_UPDATED to END_REQ.
TEST(ProtocolChecker, CatchesIllegalReturnCodes) {
  Bench b;
  int n = 0;
  b.tgt.fw = [&](tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_time& d) {
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    if (ph != tlm::BEGIN_REQ) return tlm::TLM_COMPLETED;
    switch (n++) {
    case 0:
      ph = tlm::END_RESP;
      return tlm::TLM_UPDATED; // not legal for BEGIN_REQ
    case 1:
      ph = tlm::END_REQ;
      return tlm::TLM_ACCEPTED; // ACCEPTED changes nothing
    case 2:
      d += sc_time(1, SC_NS);
      return tlm::TLM_ACCEPTED;
    default:
      return tlm::TLM_ACCEPTED;
    }
  };
  b.ini.bw = [&](tlm::tlm_generic_payload&, tlm::tlm_phase& ph, sc_time&) {
    if (ph == tlm::BEGIN_RESP) ph = tlm::BEGIN_REQ; // not END_RESP
    return tlm::TLM_UPDATED;
  };
  b.ini.script = [&] {
    b.ini.fw(b.gp[0], tlm::BEGIN_REQ);
    wait(5, SC_NS);
    b.ini.fw(b.gp[1], tlm::BEGIN_REQ);
    wait(5, SC_NS);
    b.ini.fw(b.gp[2], tlm::BEGIN_REQ);
    wait(5, SC_NS);
    b.ini.fw(b.gp[3], tlm::BEGIN_REQ);
    wait(5, SC_NS);
    for (unsigned i = 0; i < 4; ++i) b.end(i);
  };
  b.tgt.script = [&] {
    wait(16, SC_NS);
    b.tgt.bw(b.gp[3], tlm::END_REQ);    // UPDATED: nothing is legal
    b.tgt.bw(b.gp[3], tlm::BEGIN_RESP); // UPDATED with BEGIN_REQ
  };
  b.run();
  EXPECT_EQ(b.checker.violations(ProtocolChecker::kReturn), 5u) << b.checker.first();
}

// BEGIN_REQ with a payload whose transaction is still in flight.
TEST(ProtocolChecker, CatchesAPayloadReusedInFlight) {
  Bench b;
  b.tgt.fw = [](tlm::tlm_generic_payload&, tlm::tlm_phase& ph, sc_time&) {
    if (ph != tlm::BEGIN_REQ) return tlm::TLM_COMPLETED;
    ph = tlm::END_REQ;
    return tlm::TLM_UPDATED;
  };
  b.ini.script = [&] {
    b.ini.fw(b.gp[0], tlm::BEGIN_REQ);
    wait(1, SC_NS);
    b.ini.fw(b.gp[0], tlm::BEGIN_REQ); // the request channel is free, the payload is not
    b.end(0);
  };
  b.run();
  EXPECT_EQ(b.checker.violations(ProtocolChecker::kInFlight), 1u) << b.checker.first();
}

// Memory management: no memory manager, a reference count of 0 in flight, a payload never
// released after its transaction.
TEST(ProtocolChecker, CatchesMemoryManagementErrors) {
  Bench b;
  tlm::tlm_generic_payload plain; // no mm
  unsigned char bytes[8];
  plain.set_command(tlm::TLM_WRITE_COMMAND);
  plain.set_data_ptr(bytes);
  plain.set_data_length(8);
  b.tgt.fw = [](tlm::tlm_generic_payload& gp, tlm::tlm_phase&, sc_time&) {
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    return tlm::TLM_COMPLETED;
  };
  b.ini.script = [&] {
    b.ini.fw(plain, tlm::BEGIN_REQ);
    wait(1, SC_NS);
    b.end(1); // released before its transaction: count 0
    b.ini.fw(b.gp[1], tlm::BEGIN_REQ);
    wait(1, SC_NS);
    b.ini.fw(b.gp[0], tlm::BEGIN_REQ); // completed, and never released
  };
  b.run();
  EXPECT_EQ(b.checker.violations(ProtocolChecker::kMemory), 3u) << b.checker.first();
  EXPECT_EQ(b.checker.violations(), 3u) << b.checker.first();
}

// Response status: BEGIN_REQ with a status already set, BEGIN_RESP and TLM_COMPLETED with
// INCOMPLETE, b_transport called with a status set and returning INCOMPLETE.
TEST(ProtocolChecker, CatchesResponseStatusErrors) {
  Bench b;
  int n = 0;
  b.tgt.fw = [&](tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_time&) {
    if (ph != tlm::BEGIN_REQ) return tlm::TLM_COMPLETED;
    if (n++ == 0) {
      gp.set_response_status(tlm::TLM_OK_RESPONSE);
      return tlm::TLM_COMPLETED;
    }
    return n == 2 ? tlm::TLM_COMPLETED : tlm::TLM_ACCEPTED; // status left INCOMPLETE
  };
  b.tgt.b = [](tlm::tlm_generic_payload& gp, sc_time&) { // answers INCOMPLETE
    gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  };
  b.ini.script = [&] {
    b.gp[0].set_response_status(tlm::TLM_OK_RESPONSE); // not reset
    b.ini.fw(b.gp[0], tlm::BEGIN_REQ);
    b.ini.fw(b.gp[1], tlm::BEGIN_REQ); // COMPLETED, INCOMPLETE
    b.ini.fw(b.gp[2], tlm::BEGIN_REQ); // ACCEPTED
    wait(5, SC_NS);
    b.ini.fw(b.gp[2], tlm::END_RESP);
    b.gp[3].set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
    sc_time d = SC_ZERO_TIME;
    b.ini.socket->b_transport(b.gp[3], d); // called with a status, returns INCOMPLETE
    for (unsigned i = 0; i < 4; ++i) b.end(i);
  };
  b.tgt.script = [&] {
    wait(1, SC_NS);
    b.tgt.bw(b.gp[2], tlm::BEGIN_RESP); // INCOMPLETE
  };
  b.run();
  EXPECT_EQ(b.checker.violations(ProtocolChecker::kStatus), 5u) << b.checker.first();
  EXPECT_EQ(b.checker.violations(), 5u) << b.checker.first();
}

// Attributes: the target changes the address between phases, and the command in b_transport.
TEST(ProtocolChecker, CatchesChangedAttributes) {
  Bench b;
  b.tgt.b = [](tlm::tlm_generic_payload& gp, sc_time&) {
    gp.set_command(tlm::TLM_WRITE_COMMAND);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
  };
  b.ini.script = [&] {
    b.ini.fw(b.gp[0], tlm::BEGIN_REQ);
    wait(5, SC_NS);
    b.ini.fw(b.gp[0], tlm::END_RESP);
    sc_time d = SC_ZERO_TIME;
    b.ini.socket->b_transport(b.gp[1], d);
    b.end(0);
    b.end(1);
  };
  b.tgt.script = [&] {
    wait(1, SC_NS);
    b.gp[0].set_address(0x4000);
    b.gp[0].set_response_status(tlm::TLM_OK_RESPONSE);
    b.tgt.bw(b.gp[0], tlm::BEGIN_RESP);
  };
  b.run();
  EXPECT_EQ(b.checker.violations(ProtocolChecker::kAttributes), 3u) << b.checker.first();
  EXPECT_EQ(b.checker.violations(), 3u) << b.checker.first();
}

// Data: no data pointer, length 0, byte enables without a length.
TEST(ProtocolChecker, CatchesMissingData) {
  Bench b;
  b.tgt.fw = [](tlm::tlm_generic_payload& gp, tlm::tlm_phase&, sc_time&) {
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    return tlm::TLM_COMPLETED;
  };
  unsigned char be[1] = {0xff};
  b.ini.script = [&] {
    b.gp[0].set_data_ptr(nullptr);
    b.ini.fw(b.gp[0], tlm::BEGIN_REQ);
    b.gp[1].set_data_length(0);
    b.ini.fw(b.gp[1], tlm::BEGIN_REQ);
    b.gp[2].set_byte_enable_ptr(be);
    b.gp[2].set_byte_enable_length(0);
    b.ini.fw(b.gp[2], tlm::BEGIN_REQ);
    for (unsigned i = 0; i < 4; ++i) b.end(i);
  };
  b.run();
  EXPECT_EQ(b.checker.violations(ProtocolChecker::kData), 3u) << b.checker.first();
  EXPECT_EQ(b.checker.violations(), 3u) << b.checker.first();
}

// Timing: END_RESP timed before the BEGIN_RESP it ends (the BEGIN_RESP was returned with a
// delay), and a b_transport that returns before it was called (a delay given back without
// waiting).
TEST(ProtocolChecker, CatchesPhasesBackInTime) {
  Bench b;
  b.tgt.fw = [](tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph, sc_time& d) {
    if (ph != tlm::BEGIN_REQ) return tlm::TLM_COMPLETED;
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    ph = tlm::BEGIN_RESP;
    d += sc_time(10, SC_NS);
    return tlm::TLM_UPDATED;
  };
  b.tgt.b = [](tlm::tlm_generic_payload& gp, sc_time& d) {
    d = SC_ZERO_TIME; // no wait
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
  };
  b.ini.script = [&] {
    b.ini.fw(b.gp[0], tlm::BEGIN_REQ);
    b.ini.fw(b.gp[0], tlm::END_RESP); // at 0 ns: before the BEGIN_RESP at 10 ns
    sc_time d(5, SC_NS);
    b.ini.socket->b_transport(b.gp[1], d);
    b.end(0);
    b.end(1);
  };
  b.run();
  EXPECT_EQ(b.checker.violations(ProtocolChecker::kTiming), 2u) << b.checker.first();
  EXPECT_EQ(b.checker.violations(), 2u) << b.checker.first();
}

// DMI: asked for with IGNORE, a region that does not contain the address, a grant without a
// pointer; an invalidation that ends before it starts (still forwarded).
TEST(ProtocolChecker, CatchesDmiErrors) {
  Bench b;
  b.tgt.dmi = [](tlm::tlm_generic_payload&, tlm::tlm_dmi& d) {
    d.set_start_address(0x1000);
    d.set_end_address(0x1fff);
    d.allow_read();
    return true; // no pointer, and 0x100 is not in the region
  };
  b.tgt.script = [&] {
    wait(1, SC_NS);
    b.tgt.socket->invalidate_direct_mem_ptr(0x200, 0x100);
  };
  b.ini.script = [&] {
    tlm::tlm_dmi d;
    b.gp[0].set_command(tlm::TLM_IGNORE_COMMAND);
    b.ini.socket->get_direct_mem_ptr(b.gp[0], d);
    for (unsigned i = 0; i < 4; ++i) b.end(i);
  };
  b.run();
  EXPECT_EQ(b.checker.violations(ProtocolChecker::kDmi), 4u) << b.checker.first();
  EXPECT_EQ(b.checker.violations(), 4u) << b.checker.first();
  EXPECT_EQ(b.ini.invalidations, 1u);
}
