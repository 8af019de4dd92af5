// What travels between units inside the SM. Every link is a TLM-2.0 socket carrying a
// tlm_generic_payload; the gpurf-specific part rides in the Txn extension. Register data
// uses the payload's data pointer (128 B) and its byte enables (the slice mask).
#pragma once

#include <array>
#include <cstring>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "gpurf/modules/common/warp_inst.h"

namespace gpurf {

constexpr uint64_t kMixedVersion = ~uint64_t(0);

struct Txn : tlm::tlm_extension<Txn> {
  enum class Kind : uint8_t {
    Issue,        // scheduler -> collector allocator: bind a collector to `inst`
    Read,         // collector -> arbiter -> bank -> crossbar -> collector: one source register
    Write,        // writeback -> arbiter -> bank: one destination register
    WriteDone,    // arbiter -> writeback: the write reached the bank
    Dispatch,     // collector -> exec -> pipe: operands complete
    Complete,     // pipe -> writeback: result ready after the pipe latency (the delay)
    Announce,     // LSU -> writeback: a result the memory answers later (AT) takes its place
                  // among the results now, as a Complete would; Answered says when it is ready
    Answered,     // LSU -> writeback: the announced result is ready after the delay
    ResultSlot,   // pipe -> writeback: would a Complete be taken now? (busy: no)
    OperandsRead, // collector -> scheduler: sources have left the banks (WAR release)
    Written,      // writeback -> scheduler: destinations written (scoreboard release)
    ValueReady,   // writeback -> scheduler: data results forwardable to a dependent issued now
    Forward,      // collector -> writeback: is the producer of (warp, reg) still in flight?
    Release,      // collector -> allocator: the collector is free again
    Refused,      // scheduler -> allocator: `skipped` more issues of this cycle that an
                  // earlier answer with refuses_pipe refused, counted as if each was sent
    RfcFlush,     // scheduler -> RFC: warp `warp` leaves the active set (flush its entries)
    RfcActivate,  // scheduler -> RFC: warp `warp` enters the active set
    VerifyRead,   // writeback -> arbiter -> bank: WIR's verify-read of physical register `row`
                  // against the result at `data` (compared in the register file, Fig. 7)
    VerifyDone,   // arbiter -> writeback: the verify-read's outcome (busy: mismatch)
    CcuWrite,     // arbiter -> caching collector (Malekeh port D): a result the bank took;
                  // busy set by the arbiter: squashed (far), only the tag reaches the CCU
  };
  Kind kind = Kind::Issue;
  bool busy = false; // set by a target that cannot take the transfer this cycle; retry
  // With busy: the earliest cycle a retry can succeed, if the target knows it (its unit frees
  // then), or kNever: not before the target fires its wire (UnitContext::wake_dispatch); 0:
  // unknown, retry next cycle. An initiator that sleeps until then instead of retrying every
  // cycle tells the target, at its next attempt, how many it skipped (each would have been
  // refused), so the refusals both count are those of a retry every cycle.
  Cycle retry_at = 0;
  uint32_t skipped = 0;
  // With busy, from a collector allocator: every Issue of an instruction of this one's pipe is
  // refused until a collector is released (whichever warp it is), and a refusal changes
  // nothing but the count of refusals: the scheduler asks no more this cycle (Kind::Refused).
  bool refuses_pipe = false;
  WarpInst* inst = nullptr;
  // Register access
  uint32_t warp = 0;
  uint16_t reg = 0;
  uint16_t bank = 0;      // logical bank within the sub-core
  uint32_t row = 0;       // entry within the bank
  uint8_t slice_mask = 0; // slices touched (bit i: slice i)
  uint16_t collector = 0; // destination collector of a read
  uint8_t operand = 0;    // source/destination slot in `inst`
  // Version tag of the value: writes carry the producer's sequence number into the storage;
  // reads come back with the tag the storage holds (kMixedVersion: slices of different
  // writes). `from` says which storage delivered a read.
  uint64_t version = 0;
  Store from = Store::Bank;
  // Write data (128 B, the bank's byte layout); null: the destination's lane values as they
  // are (inst->dst[operand].value). Set by writebacks that store a packed format (CMRC).
  unsigned char* data = nullptr;
  // frontend.reg64: one_operand. A request that carries the high half of its 64-bit operand
  // (operand + 1): the arbiter accesses that half's row in the same port cycle (`hi`), and
  // the half's own access is a `companion`: no port, no collector write of its own.
  struct Hi {
    bool on = false;
    uint16_t reg = 0, bank = 0;
    uint32_t row = 0;
    uint8_t slice_mask = 0;
    unsigned char* data = nullptr; // write data in the bank's layout (null: lane values)
  } hi;
  bool companion = false;

  tlm::tlm_extension_base* clone() const override { return new Txn(*this); }
  void copy_from(const tlm::tlm_extension_base& e) override { *this = static_cast<const Txn&>(e); }
};

// A reusable payload with its Txn, for synchronous internal transfers (b_transport).
struct Packet {
  tlm::tlm_generic_payload gp;
  Txn txn;
  sc_core::sc_time delay;
  Packet() { gp.set_extension(&txn); }
  ~Packet() { gp.clear_extension(&txn); }
  Packet(const Packet&) = delete;
  // Resets command, status, delay and the busy flag before a new transfer.
  void prepare(Txn::Kind k, tlm::tlm_command cmd = tlm::TLM_IGNORE_COMMAND) {
    txn.kind = k;
    txn.busy = false;
    txn.retry_at = 0;
    txn.skipped = 0;
    txn.refuses_pipe = false;
    txn.data = nullptr;
    txn.hi.on = false;
    txn.companion = false;
    txn.from = Store::Bank;
    txn.version = 0; // writes must stamp it (the checker refuses a write without one)
    gp.set_command(cmd);
    gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    delay = sc_core::SC_ZERO_TIME;
  }
};

// A register's 128 byte enables all set (TLM_BYTE_ENABLED): the common case, which units
// recognise with one memcmp before they look at single bytes.
inline const std::array<unsigned char, kRegBytes> kAllBytesEnabled = [] {
  std::array<unsigned char, kRegBytes> a;
  a.fill(TLM_BYTE_ENABLED);
  return a;
}();
// No byte enables, or the first n (<= kRegBytes) all set.
inline bool bytes_enabled(const unsigned char* be, unsigned n = kRegBytes) {
  return !be || std::memcmp(be, kAllBytesEnabled.data(), n) == 0;
}

inline Txn& txn_of(tlm::tlm_generic_payload& gp) {
  Txn* t = nullptr;
  gp.get_extension(t);
  sc_assert(t);
  return *t;
}

// Socket types used inside the SM (the memory socket is a plain base-protocol socket).
template <class M> using InitSocket = tlm_utils::simple_initiator_socket<M>;
template <class M> using TargetSocket = tlm_utils::simple_target_socket<M>;
template <class M> using MultiInitSocket = tlm_utils::multi_passthrough_initiator_socket<M>;
template <class M> using MultiTargetSocket = tlm_utils::multi_passthrough_target_socket<M>;

// A DMI request refused for the whole address space: the caches, the interconnect and the
// memory ports must see (and time) every access. Returns false, get_direct_mem_ptr's answer.
inline bool refuse_dmi(tlm::tlm_dmi& dmi) {
  dmi.set_start_address(0);
  dmi.set_end_address(~sc_dt::uint64(0));
  dmi.allow_none();
  return false;
}

} // namespace gpurf
