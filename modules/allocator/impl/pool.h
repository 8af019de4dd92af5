// What every collector allocator shares: which collectors are busy, the statistics, and the
// hand-over to the chosen collector. An implementation only chooses (choose()): among the
// free collectors serving the instruction's pipe, or none (busy: the scheduler counts a
// collector stall).
#pragma once
#include <algorithm>
#include <vector>

#include "gpurf/modules/allocator/i_allocator.h"

namespace gpurf {

class CollectorPool : public IAllocator {
public:
  CollectorPool(sc_core::sc_module_name nm, const UnitContext& c)
      : IAllocator(nm, c),
        allocations_(stats().scalar("allocations", "collectors allocated", "allocations",
                                    energy::scope("collector allocation: the instruction written "
                                                  "into a collector (operand collection)"))),
        full_(stats().scalar("full", "issue attempts refused: no free collector for the pipe",
                             "attempts", energy::no_event("refused attempts"),
                             check::unwatched("refused allocation attempts (stalls)"))),
        occupancy_(stats().scalar("occupied_collector_cycles",
                                  "sum over cycles of allocated collectors", "collector-cycles",
                                  energy::no_event("occupancy"),
                                  check::unwatched("occupancy: collector-cycles bound"))) {}

  void finish() override { settle(now()); }
  void settle(Cycle at) override {
    if (at <= since_) return; // an event of a later cycle counted already (AT memory)
    occupancy_ += in_use_ * (at - since_);
    since_ = at;
  }

  void dump_state(std::ostream& os) const override {
    os << "  collectors busy:";
    for (unsigned i = 0; i < grown_; ++i) os << (is_free(i) ? " 0" : " 1");
    os << "\n";
  }

  void observables(std::vector<Observable>& o) override {
    o.push_back({"in_use", [this] { return uint64_t(in_use_); }});
  }

protected:
  // Collector i may take an instruction of pipe bit `pipe_bit`.
  bool eligible(unsigned i, unsigned pipe_bit) const {
    return is_free(i) && (collector_pipes_[i] & pipe_bit);
  }
  // The eligible collectors as a mask, bit i for collector i (pools of at most 64 collectors).
  static constexpr unsigned kMaskable = 64;
  uint64_t eligible_mask(unsigned pipe_bit) const {
    uint64_t m = 0;
    for (unsigned b = pipe_bit; b; b &= b - 1) m |= pipe_masks_[unsigned(__builtin_ctz(b))];
    return m & free_[0];
  }
  // The collector to allocate to `inst` (eligible), or -1 if none is.
  virtual int choose(const WarpInst& inst, unsigned pipe_bit) = 0;

  // Whether choose() refuses only when no collector is eligible, and a refusal changes nothing
  // but `full` (no random draw, no statistic of its own): then a refusal holds for every
  // instruction of the pipe until a release (Txn::refuses_pipe).
  virtual bool plain_refusals() const { return true; }

  void on_issue(int, tlm::tlm_generic_payload& gp, sc_core::sc_time& d) override {
    Txn& t = txn_of(gp);
    if (t.kind == Txn::Kind::Refused) return void(full_ += t.skipped);
    if (bind(gp, t, d)) return;
    t.busy = true;
    t.refuses_pipe = pipe_wide_refusal_;
  }

  // Binds the instruction of `gp` (an Issue) to a collector chosen by choose(); false if none.
  bool bind(tlm::tlm_generic_payload& gp, sc_core::sc_time& d) { return bind(gp, txn_of(gp), d); }
  bool bind(tlm::tlm_generic_payload& gp, Txn& t, sc_core::sc_time& d) {
    if (grown_ != collector_pipes_.size()) grow();
    const unsigned pb = pipe_bit(*t.inst);
    const int i = choose(*t.inst, pb);
    if (i < 0) {
      ++full_;
      pipe_wide_refusal_ = plain_ && collectors() <= kMaskable && !eligible_mask(pb);
      return false;
    }
    settle(now());
    set_free(unsigned(i), false);
    ++in_use_;
    ++allocations_;
    if (ctx_.probe) ctx_.probe->allocated(*t.inst, unsigned(i), now());
    to_collector[unsigned(i)]->b_transport(gp, d);
    return true;
  }

  void on_release(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time&) override {
    settle(now());
    set_free(unsigned(id), true);
    --in_use_;
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    ctx_.wake_issue();
  }

  unsigned collectors() const { return unsigned(collector_pipes_.size()); }
  // The pipe bit of `inst` (what choose() is given).
  unsigned pipe_bit(const WarpInst& inst) const {
    return 1u << static_cast<unsigned>(ctx_.shape->pipe_for(*inst.info));
  }

private:
  bool is_free(unsigned i) const { return free_[i / 64] >> (i % 64) & 1; }
  void set_free(unsigned i, bool f) {
    const uint64_t b = uint64_t(1) << (i % 64);
    free_[i / 64] = f ? free_[i / 64] | b : free_[i / 64] & ~b;
  }
  // The collectors were added (elaboration): all free, and the masks of eligible_mask().
  void grow() {
    plain_ = plain_refusals();
    const size_t n = collector_pipes_.size();
    free_.assign(std::max<size_t>(1, (n + 63) / 64), 0);
    pipe_masks_.assign(32, 0);
    for (unsigned i = 0; i < n; ++i) {
      set_free(i, true);
      for (unsigned p = 0; p < 32; ++p)
        if (i < kMaskable && collector_pipes_[i] >> p & 1) pipe_masks_[p] |= uint64_t(1) << i;
    }
    grown_ = n;
  }
  size_t grown_ = 0;                 // collectors the masks were built for
  bool plain_ = false;               // plain_refusals(), read once the collectors are known
  bool pipe_wide_refusal_ = false;   // the last refusal holds for its pipe (Txn::refuses_pipe)
  std::vector<uint64_t> free_;       // bit i % 64 of word i / 64: collector i is free
  std::vector<uint64_t> pipe_masks_; // per pipe: the collectors 0-63 serving it
  unsigned in_use_ = 0;
  Cycle since_ = 0; // occupancy is integrated up to here (whenever it changes: no per-cycle work)
  uint64_t& allocations_;
  uint64_t& full_;
  uint64_t& occupancy_;
};

} // namespace gpurf
