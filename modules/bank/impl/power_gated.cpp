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
        valid_(entries_, 0), count_(slices_, 0), empty_((1u << slices_) - 1),
        gated_since_(slices_, 0), awake_at_(slices_, 0) {}

  unsigned wake_latency() const override { return wake_; }
  void reserve_rows(unsigned rows) override {
    SlicedBank::reserve_rows(rows);
    if (rows > valid_.size()) valid_.resize(rows, 0);
  }

  void release_row(unsigned row) override {
    if (row >= valid_.size()) return;
    for (unsigned m = valid_[row]; m; m &= m - 1) {
      const unsigned s = unsigned(__builtin_ctz(m));
      if (--count_[s] == 0) {
        empty_ |= 1u << s;
        gated_since_[s] = std::max(now(), awake_at_[s]);
      }
    }
    valid_[row] = 0;
  }

  void finish() override {
    for (unsigned s = 0; s < slices_; ++s) settle(s);
  }

protected:
  unsigned on_slices(unsigned row, unsigned mask, bool read) override {
    // Slices as bit masks (at most 8): only the accessed, changed and empty ones are visited.
    const Cycle t = now();
    Cycle ready = t;
    for (unsigned m = mask; m; m &= m - 1) {
      const unsigned s = unsigned(__builtin_ctz(m));
      if (gated(s)) { // wake it
        settle(s);
        awake_at_[s] = t + wake_;
        ++wakeups_;
      }
      ready = std::max(ready, awake_at_[s]);
    }
    if (!read) {
      if (row >= valid_.size()) valid_.resize(size_t(row) + 1, 0);
      for (unsigned m = (valid_[row] ^ mask); m; m &= m - 1) {
        const unsigned s = unsigned(__builtin_ctz(m));
        const bool use = mask >> s & 1;
        count_[s] += use ? 1 : -1;
        if (use)
          empty_ &= ~(1u << s);
        else if (!count_[s])
          empty_ |= 1u << s;
      }
      valid_[row] = uint8_t(mask);
    }
    // A slice left without a valid entry gates again once awake.
    for (unsigned m = empty_; m; m &= m - 1) {
      const unsigned s = unsigned(__builtin_ctz(m));
      if (gated_since_[s] < std::max(t, awake_at_[s]) && !gated(s))
        gated_since_[s] = std::max(t, awake_at_[s]);
    }
    return unsigned(ready - t);
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
  std::vector<uint8_t> valid_;     // per row: its valid slices
  std::vector<unsigned> count_;    // per slice: valid entries
  unsigned empty_;                 // the slices with no valid entry (count_ 0)
  std::vector<Cycle> gated_since_; // per slice with no valid entry: when it gated
  std::vector<Cycle> awake_at_;    // per slice: when its last wake-up ends
};

GPURF_REGISTER_UNIT(IBank, PowerGatedBank, "power_gated",
                    "Warped-Compression: sliced bank with per-entry valid bits, slices with no "
                    "valid entry power gated, wake-up latency on access");

} // namespace gpurf
