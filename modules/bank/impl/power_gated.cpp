// Warped-Compression's bank power gating (shared/papers/002, Sec. 5.3, Fig. 10): each slice of
// a gpurf bank is one of the paper's 16 B register banks, with a valid bit per entry. A write
// sets the valid bits of the slices its stored form uses and clears those of the others (a
// compressed register no longer needs them), and the rows of a warp whose CTA has finished are
// cleared; a slice with no valid entry is gated. An access
// to a gated slice wakes it: the access waits `wake_latency` cycles (Table 2: 10), and so does
// any access to it until it is awake. Writes are latched at the bank and retire on time (the
// paper gives no write stall). Rows start invalid: every slice starts gated.
#include "gpurf/modules/bank/impl/sliced.h"

namespace gpurf {

class PowerGatedBank : public SlicedBank {
public:
  PowerGatedBank(sc_core::sc_module_name nm, Params& p, const UnitContext& c)
      : SlicedBank(nm, p, c),
        wake_(p.get_uint("wake_latency", 10, "cycles a gated slice takes to wake (Table 2)", 0,
                         1000)),
        gated_(stats().vector("gated_cycles", slices_, "cycles each slice was power gated",
                              "cycles", energy::leakage("reduces bank_leakage_mw's slice-cycles"),
                              check::open_gap("W-C: leakage time base of power gating; the checker "
                                              "models wake-ups, not gated slice-cycles"))),
        wakeups_(stats().scalar("wakeups", "slices woken up by an access", "wakeups",
                                energy::no_event("W-C: the paper prices no wake-up energy"))),
        valid_(size_t(entries_) * slices_, false), count_(slices_, 0), gated_since_(slices_, 0),
        awake_at_(slices_, 0) {}

  unsigned wake_latency() const override { return wake_; }
  void reserve_rows(unsigned rows) override {
    SlicedBank::reserve_rows(rows);
    if (size_t(rows) * slices_ > valid_.size()) valid_.resize(size_t(rows) * slices_, false);
  }

  void release_row(unsigned row) override {
    for (unsigned s = 0; s < slices_; ++s) {
      const size_t k = size_t(row) * slices_ + s;
      if (k >= valid_.size() || !valid_[k]) continue;
      valid_[k] = false;
      if (--count_[s] == 0) gated_since_[s] = std::max(now(), awake_at_[s]);
    }
  }

  void finish() override {
    for (unsigned s = 0; s < slices_; ++s) settle(s);
  }

protected:
  unsigned on_slices(unsigned row, unsigned mask, bool read) override {
    Cycle ready = now();
    for (unsigned s = 0; s < slices_; ++s) {
      if (!(mask >> s & 1)) continue;
      if (gated(s)) { // wake it
        settle(s);
        awake_at_[s] = now() + wake_;
        ++wakeups_;
      }
      ready = std::max(ready, awake_at_[s]);
    }
    if (!read)
      for (unsigned s = 0; s < slices_; ++s) {
        const size_t k = size_t(row) * slices_ + s;
        const bool use = mask >> s & 1;
        if (use == valid_[k]) continue;
        valid_[k] = use;
        count_[s] += use ? 1 : -1;
      }
    // A slice left without a valid entry gates again once awake.
    for (unsigned s = 0; s < slices_; ++s)
      if (!count_[s] && gated_since_[s] < std::max(now(), awake_at_[s]) && !gated(s))
        gated_since_[s] = std::max(now(), awake_at_[s]);
    return unsigned(ready - now());
  }

private:
  bool gated(unsigned s) const { return !count_[s] && awake_at_[s] <= now(); }
  // Adds the gated time of slice s up to now.
  void settle(unsigned s) {
    if (count_[s] || now() <= gated_since_[s]) return;
    gated_[s] += now() - gated_since_[s];
    gated_since_[s] = now();
  }

  const unsigned wake_;
  Stat& gated_;
  uint64_t& wakeups_;
  std::vector<bool> valid_;        // per row and slice
  std::vector<unsigned> count_;    // per slice: valid entries
  std::vector<Cycle> gated_since_; // per slice with no valid entry: when it gated
  std::vector<Cycle> awake_at_;    // per slice: when its last wake-up ends
};

GPURF_REGISTER_UNIT(IBank, PowerGatedBank, "power_gated",
                    "Warped-Compression: sliced bank with per-entry valid bits, slices with no "
                    "valid entry power gated, wake-up latency on access");

} // namespace gpurf
