#include "gpurf/platform/lt_port.h"

#include <algorithm>
#include <cstring>
#include <sstream>

namespace gpurf {

LtPort::LtPort(sc_core::sc_module_name nm, const UnitContext& c, Cycle timeout)
    : Unit(nm, c), in("in"), out("out"),
      transactions_(stats().scalar("transactions", "b_transport calls to the target", "calls",
                                   energy::no_event("the memory prices its accesses"),
                                   check::unwatched("protocol: the memory counts what it serves"))),
      dmi_accesses_(stats().scalar("dmi_accesses", "accesses done through a DMI pointer",
                                   "accesses", energy::no_event("the memory prices its accesses"),
                                   check::unwatched("protocol"))),
      dmi_grants_(stats().scalar("dmi_grants", "DMI regions the target granted", "regions",
                                 energy::no_event("protocol"), check::unwatched("protocol"))),
      dmi_invalidations_(stats().scalar("dmi_invalidations", "DMI regions the target invalidated",
                                        "regions", energy::no_event("protocol"),
                                        check::unwatched("protocol"))),
      waited_(stats().scalar("waited_cycles", "SystemC time the target waited inside b_transport",
                             "cycles", energy::no_event("waits"), check::unwatched("waits"))),
      timeout_(timeout) {
  if (timeout_) {
    in.register_b_transport(this, &LtPort::watched_b_transport);
    SC_METHOD(watch);
    sensitive << watch_;
    dont_initialize();
  } else {
    in.register_b_transport(this, &LtPort::b_transport);
  }
  in.register_transport_dbg(this, &LtPort::transport_dbg);
  in.register_get_direct_mem_ptr(this, &LtPort::get_direct_mem_ptr);
  out.register_invalidate_direct_mem_ptr(this, &LtPort::invalidate_direct_mem_ptr);
}

void LtPort::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  const Cycle me = clock_->now; // the issuing SM's cycle
  const sc_core::sc_time at = clock_->time(me) + delay, t0 = sc_core::sc_time_stamp();
  sc_core::sc_time d = at > t0 ? at - t0 : sc_core::SC_ZERO_TIME;
  // Other SMs run while a target waits: the write's bytes stay true until it returns.
  if (gp.is_write()) writes_.begin(gp, *out[0]);
  if (!through_dmi(gp, d)) {
    ++transactions_;
    clock_->now = clock_->cycles(t0); // a memory built beside the GPU counts from SystemC's time
    out->b_transport(gp, d);
    waited_ += clock_->cycles(sc_core::sc_time_stamp() - t0);
    clock_->now = me; // other SMs ran while the target waited
    if (gp.is_response_ok() && gp.is_dmi_allowed() &&
        !dmi_region(gp.get_address(), 1, gp.get_command()))
      request_dmi(gp);
  }
  // The request's latency is the time the target took from receiving it (at max(at, t0)) to
  // its answer, whether it waited or annotated; it counts from the SM's cycle, so a request
  // that reaches the target after SystemC's time has passed it (the SM is behind, having
  // waited for an earlier one) is not charged the lag.
  if (gp.is_write()) writes_.end(gp, *out[0]);
  const sc_core::sc_time done = sc_core::sc_time_stamp() + d, from = std::max(at, t0);
  if (done > from) delay += done - from;
}

void LtPort::watched_b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  calls_.push_back({&gp, sc_core::sc_time_stamp()});
  // One timed check at a time, not one per call (a cancelled one would stay in SystemC's
  // queue of timed events until its time): watch() looks again while calls come.
  if (!watching_) watch_.notify(clock_->time(timeout_));
  watching_ = true;
  b_transport(gp, delay);
  calls_.erase(
      std::find_if(calls_.begin(), calls_.end(), [&](const Call& c) { return c.gp == &gp; }));
}

void LtPort::watch() {
  watching_ = false;
  if (calls_.empty()) return; // the next call arms it again
  const sc_core::sc_time now = sc_core::sc_time_stamp(), bound = clock_->time(timeout_);
  const Call& oldest = calls_.front();
  if (now < oldest.since + bound) { // not yet
    watch_.notify(oldest.since + bound - now);
    watching_ = true;
    return;
  }
  std::ostringstream os;
  os << name() << ": no answer from the memory for " << timeout_
     << " cycles (gpu.memory_timeout_cycles): " << calls_.size()
     << (calls_.size() == 1 ? " b_transport call" : " b_transport calls")
     << " outstanding at cycle " << clock_->cycles(now) << "; the oldest:";
  const size_t shown = std::min<size_t>(calls_.size(), 4);
  for (size_t i = 0; i < shown; ++i) {
    const tlm::tlm_generic_payload& gp = *calls_[i].gp;
    os << (i ? ";" : "") << " " << (gp.is_write() ? "WRITE" : "READ") << " of "
       << gp.get_data_length() << " bytes at 0x" << std::hex << gp.get_address() << std::dec
       << " (inside b_transport) for " << clock_->cycles(now - calls_[i].since) << " cycles";
  }
  if (calls_.size() > shown) os << "; and " << calls_.size() - shown << " more";
  if (on_timeout_)
    on_timeout_(os.str());
  else
    SC_REPORT_ERROR(name(), os.str().c_str());
}

LtPort::DmiRegion* LtPort::dmi_region(uint64_t addr, unsigned len, tlm::tlm_command cmd) {
  if (cmd == tlm::TLM_IGNORE_COMMAND || !len) return nullptr;
  // The last region starting at or below addr is the only one that can cover it.
  auto it = std::upper_bound(dmi_.begin(), dmi_.end(), addr, [](uint64_t a, const DmiRegion& r) {
    return a < r.dmi.get_start_address();
  });
  if (it == dmi_.begin()) return nullptr;
  DmiRegion& r = *--it;
  const bool write = cmd == tlm::TLM_WRITE_COMMAND;
  if (addr + (len - 1) < addr || addr + (len - 1) > r.dmi.get_end_address() ||
      !(write ? r.dmi.is_write_allowed() : r.dmi.is_read_allowed()))
    return nullptr;
  return &r;
}

void LtPort::request_dmi(const tlm::tlm_generic_payload& gp) {
  tlm::tlm_generic_payload q;
  q.set_command(gp.get_command());
  q.set_address(gp.get_address());
  tlm::tlm_dmi dmi;
  if (!out->get_direct_mem_ptr(q, dmi) || !dmi.get_dmi_ptr() ||
      dmi.get_end_address() < dmi.get_start_address() ||
      (!dmi.is_read_allowed() && !dmi.is_write_allowed()))
    return;
  ++dmi_grants_;
  // The target's latest word on a range wins: drop what the new region overlaps.
  const uint64_t lo = dmi.get_start_address(), hi = dmi.get_end_address();
  dmi_.erase(std::remove_if(dmi_.begin(), dmi_.end(),
                            [&](const DmiRegion& r) {
                              return r.dmi.get_start_address() <= hi &&
                                     r.dmi.get_end_address() >= lo;
                            }),
             dmi_.end());
  if (dmi_.size() >= kMaxDmiRegions)
    dmi_.erase(
        std::min_element(dmi_.begin(), dmi_.end(), [](const DmiRegion& a, const DmiRegion& b) {
          return a.last_use < b.last_use;
        }));
  const auto at =
      std::lower_bound(dmi_.begin(), dmi_.end(), lo, [](const DmiRegion& r, uint64_t a) {
        return r.dmi.get_start_address() < a;
      });
  dmi_.insert(at, DmiRegion{dmi, ++dmi_uses_});
}

bool LtPort::through_dmi(tlm::tlm_generic_payload& gp, sc_core::sc_time& d) {
  const tlm::tlm_command cmd = gp.get_command();
  const uint64_t addr = gp.get_address();
  const unsigned len = gp.get_data_length();
  unsigned sw = gp.get_streaming_width();
  if (sw == 0 || sw > len) sw = len;
  const bool write = cmd == tlm::TLM_WRITE_COMMAND;
  DmiRegion* r = gp.get_data_ptr() ? dmi_region(addr, sw, cmd) : nullptr;
  if (!r) return false;
  const tlm::tlm_dmi& dmi = r->dmi;
  unsigned char* mem = dmi.get_dmi_ptr() + (addr - dmi.get_start_address());
  unsigned char* data = gp.get_data_ptr();
  const unsigned char* be = gp.get_byte_enable_ptr();
  const unsigned be_len = gp.get_byte_enable_length();
  if (be && !be_len) return false; // a malformed request: let the target answer it
  for (unsigned i = 0; i < len; ++i) {
    if (be && be[i % be_len] != TLM_BYTE_ENABLED) continue;
    if (write)
      mem[i % sw] = data[i];
    else
      data[i] = mem[i % sw];
  }
  d += write ? dmi.get_write_latency() : dmi.get_read_latency();
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
  r->last_use = ++dmi_uses_;
  ++dmi_accesses_;
  return true;
}

// The caches behind the port must see every access: no DMI through the GPU.
bool LtPort::get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi& dmi) {
  return refuse_dmi(dmi);
}

void LtPort::invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end) {
  const size_t before = dmi_.size();
  dmi_.erase(std::remove_if(dmi_.begin(), dmi_.end(),
                            [&](const DmiRegion& r) {
                              return r.dmi.get_start_address() <= end &&
                                     r.dmi.get_end_address() >= start;
                            }),
             dmi_.end());
  dmi_invalidations_ += before - dmi_.size();
}

} // namespace gpurf
