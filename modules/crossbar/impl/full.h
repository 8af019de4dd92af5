// A full crossbar: any bank to any collector, one transfer per collector port per cycle
// (the arbiter enforces the port limit), fixed latency.
#pragma once

#include "gpurf/modules/crossbar/i_crossbar.h"

namespace gpurf {

class FullCrossbar : public ICrossbar {
public:
  FullCrossbar(sc_core::sc_module_name nm, Params& p, const UnitContext& c)
      : ICrossbar(nm, c),
        latency_(p.get_uint("latency", 0, "extra cycles from bank to collector", 0, 100)),
        transfers_(stats().scalar("transfers", "register transfers to collectors", "transfers",
                                  energy::no_event("transfers; priced per byte by bytes"))),
        bytes_(stats().scalar("bytes", "bytes moved (enabled slices)", "bytes",
                              energy::priced("wire_pj_per_mm_per_128b (or _32b) x wire_mm"))) {}

  unsigned latency() const override { return latency_; }

protected:
  void on_data(int, tlm::tlm_generic_payload& gp, sc_core::sc_time& d) override {
    Txn& t = txn_of(gp);
    const unsigned char* be = gp.get_byte_enable_ptr();
    unsigned n = kRegBytes; // all enabled (one memcmp) is the common case
    if (!bytes_enabled(be)) {
      n = 0;
      for (unsigned i = 0; i < kRegBytes; ++i) n += be[i] == TLM_BYTE_ENABLED;
    }
    ++transfers_;
    bytes_ += n;
    d += clock_->time(latency_);
    to_collector[t.collector]->b_transport(gp, d);
  }

protected:
  const unsigned latency_;
  uint64_t& transfers_;
  uint64_t& bytes_;
};

} // namespace gpurf
