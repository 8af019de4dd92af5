// The GPU's memory initiator when `gpu.memory_port: lt` (docs/vp.md): a TLM-2.0 loosely-timed
// base-protocol initiator for targets that may wait in b_transport and that count delays
// from SystemC's time, as IEEE 1666 says.
//
// Inside the GPU a request's delay counts from the issuing SM's cycle (the SMs are threads
// that run up to the global quantum ahead of SystemC's time); the port turns it into a delay
// from sc_time_stamp() for the target, and charges the request the time the target took from
// receiving it to its answer, so a target that waits 100 ns and one that annotates 100 ns
// give the request the same latency. A waiting target leaves SystemC's time ahead of the SM,
// which then runs on without waiting until it is ahead again; its requests meanwhile reach
// the target late in SystemC's time but are not charged the lag (else every request would
// queue behind the previous one's wait: blocking transport cannot overlap requests, which a
// GPU lives on). While the target waits, other SMs run; the shared clock's `now` is restored
// before the cache behind the port goes on.
//
// DMI: after a b_transport whose response allows DMI for an address no region it holds covers
// (for that command), the port asks for a pointer; accesses a granted region covers are then
// copied through it (byte enables and streaming honoured) and charged the region's read or
// write latency, without b_transport. It keeps up to kMaxDmiRegions regions, sorted and
// disjoint (a new grant replaces those it overlaps; beyond the bound the least recently used
// goes); an invalidation drops every region it overlaps.
//
// With a timeout (`gpu.memory_timeout_cycles`), a b_transport that has not returned that many
// cycles of SystemC's time after the call is reported through on_timeout() (a watchdog
// method; the SM's thread stays inside the target's wait).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "gpurf/modules/common/txn.h"
#include "gpurf/modules/common/unit.h"
#include "gpurf/platform/in_flight_writes.h"

namespace gpurf {

class LtPort final : public Unit {
public:
  tlm_utils::simple_target_socket<LtPort> in;     // from the L2 (or the interconnect)
  tlm_utils::simple_initiator_socket<LtPort> out; // to the memory target

  SC_HAS_PROCESS(LtPort);
  // `timeout`: cycles a b_transport may take before on_timeout() (0: never).
  LtPort(sc_core::sc_module_name nm, const UnitContext& c, Cycle timeout = 0);
  // Called with a report (the port, the calls outstanding: address, command, how long) when a
  // b_transport has not returned after the timeout.
  void on_timeout(std::function<void(const std::string&)> f) { on_timeout_ = std::move(f); }

  // A target that grants per page or per buffer gives a region per working set; 16 covers a
  // kernel's buffers and windows, and a lookup stays a short binary search.
  static constexpr size_t kMaxDmiRegions = 16;

private:
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  unsigned transport_dbg(tlm::tlm_generic_payload& gp) { return writes_.debug(gp, *out[0]); }
  bool get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi& dmi);
  void invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end);
  // Performs `gp` through a DMI region if one covers it; false otherwise.
  bool through_dmi(tlm::tlm_generic_payload& gp, sc_core::sc_time& d);
  // b_transport under the timeout's watch.
  void watched_b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  void watch(); // SC_METHOD: the timeout
  // The region that covers [addr, addr + len) and allows `cmd`; nullptr if none.
  struct DmiRegion {
    tlm::tlm_dmi dmi;
    uint64_t last_use; // for dropping the least recently used beyond kMaxDmiRegions
  };
  DmiRegion* dmi_region(uint64_t addr, unsigned len, tlm::tlm_command cmd);
  // Asks the target for a region around `gp`'s address and keeps it.
  void request_dmi(const tlm::tlm_generic_payload& gp);

  std::vector<DmiRegion> dmi_; // sorted by start address, disjoint
  uint64_t dmi_uses_ = 0;
  InFlightWrites writes_; // a write the target may store while it waits
  uint64_t &transactions_, &dmi_accesses_, &dmi_grants_, &dmi_invalidations_, &waited_;
  const Cycle timeout_;
  struct Call {
    const tlm::tlm_generic_payload* gp;
    sc_core::sc_time since;
  };
  std::vector<Call> calls_; // b_transports not returned yet
  sc_core::sc_event watch_;
  bool watching_ = false; // watch_ notified
  std::function<void(const std::string&)> on_timeout_;
};

} // namespace gpurf
