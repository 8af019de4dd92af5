// Two-level warp scheduler (Gebhart et al., ISCA'11, Sec. 3.2): the scheduler's warps are
// split into a small active set (`active`, default 8), among which the standard scheduler's
// logic (scoreboard, greedy-then-oldest) picks each cycle, and a pending set. A warp is
// suspended to the pending set when its next instruction consumes the result of a
// long-latency operation (compiler mark InstInfo::consumes_long_latency; `suspend: pending`
// only while that result is still outstanding, `always` as the paper's preemptive policy) and
// when it has no instruction to offer (barrier, exit). Free active slots are refilled
// round-robin from the pending warps that can issue. With a register file cache (`rfc:`), the
// RFC is told of every deactivation (it flushes the warp's entries, live dirty ones to the
// MRF) and activation (results of inactive warps bypass the RFC).
#include "gpurf/modules/rfc/i_rfc.h"
#include "gpurf/modules/scheduler/impl/standard.h"

namespace gpurf {

class TwoLevelScheduler : public StandardScheduler, public IRfcClient {
public:
  enum State { kIssued, kStallPendingReady, kStallNoneReady, kStates };
  enum Why { kLongLatency, kIdle, kWhyKinds };

  TwoLevelScheduler(sc_core::sc_module_name nm, Params& p, const UnitContext& c)
      : StandardScheduler(nm, p, c),
        active_max_(p.get_uint("active", 8, "active warps (inner level) per scheduler", 1, 4096)),
        suspend_always_(p.get_choice("suspend", "pending",
                                     "suspend on a long-latency consumer: pending (its value is "
                                     "still outstanding) or always (preemptive)",
                                     {"pending", "always"}) == "always"),
        to_rfc_("to_rfc"),
        states_(stats().vector("cycles_by_state", kStates, "scheduler cycles by state", "cycles",
                               {"issued", "stalled_pending_ready", "stalled_none_ready"},
                               energy::no_event("cycles"))),
        deactivations_(stats().vector(
            "deactivations", kWhyKinds, "warps moved from the active to the pending set", "warps",
            {"long_latency", "idle"},
            energy::scope("two-level scheduler: a warp moved to the pending set"))),
        activations_(
            stats().scalar("activations", "warps moved into the active set", "warps",
                           energy::scope("two-level scheduler: a warp moved to the active set"))) {
    active_.assign(warps_.size(), false);
    resumed_.assign(warps_.size(), false);
    all_selectable_ = false; // only the active set issues
  }

  RfcNotifySocket& rfc_port() override { return to_rfc_; }
  unsigned active_limit() const override { return active_max_; }

  void tick(Cycle now) override {
    if (first_) { // every warp starts pending: no RFC entries
      first_ = false;
      for (unsigned i = 0; i < warps_.size(); ++i) notify_rfc(Txn::Kind::RfcFlush, i);
    }
    for (unsigned i = 0; i < warps_.size(); ++i)
      if (active_[i] && !ctx_.frontend->peek(warps_[i])) deactivate(i, kIdle);
    refill();
    const uint64_t before = issued_;
    StandardScheduler::tick(now);
    const bool issued = issued_ != before;
    if (!issued && refill()) wake(now + 1); // a warp was suspended and replaced this cycle
    settle_states(now); // cycles slept since the last tick kept the state seen then
    last_state_ = issued ? kIssued : pending_ready() ? kStallPendingReady : kStallNoneReady;
    ++states_[last_state_];
    last_state_tick_ = now;
  }

  void finish() override {
    StandardScheduler::finish();
    settle_states(now());
    last_state_ = kStallNoneReady; // until the next launch's first tick no warp is ready
  }

  void settle(Cycle at) override {
    StandardScheduler::settle(at);
    settle_states(at);
  }

  void dump_state(std::ostream& os) const override {
    os << "  active:";
    for (unsigned i = 0; i < warps_.size(); ++i)
      if (active_[i]) os << " " << warps_[i];
    os << "\n";
    StandardScheduler::dump_state(os);
  }

protected:
  bool selectable(unsigned i) const override { return active_[i]; }

  bool hold(unsigned i, const InstInfo& info, Stall hazard) override {
    if (resumed_[i] || !info.consumes_long_latency) return false;
    if (!suspend_always_ && hazard != kScoreboard) return false;
    resumed_[i] = true; // once reactivated, this instruction issues
    deactivate(i, kLongLatency);
    return true;
  }

  void on_issued(unsigned i, const WarpInst&) override { resumed_[i] = false; }

private:
  // The cycles up to `at` - 1 since the last tick counted in the state seen then.
  // Before the first tick (a hosted SM idling until the first launch) no warp was ready.
  void settle_states(Cycle at) {
    if (at == 0) return;
    const Cycle from = last_state_tick_ == kNever ? 0 : last_state_tick_ + 1;
    if (at > from) states_[last_state_] += at - from;
    last_state_tick_ = last_state_tick_ == kNever ? at - 1 : std::max(last_state_tick_, at - 1);
  }
  // Pending warp i may enter the active set: it has an instruction, and that instruction is
  // not waiting for a long-latency value (unless it was suspended for it already).
  bool can_activate(unsigned i) const {
    const InstInfo* info = ctx_.frontend->peek(warps_[i]);
    if (!info) return false;
    return !(info->consumes_long_latency && check(i, *info) == kScoreboard);
  }

  bool pending_ready() const {
    for (unsigned i = 0; i < warps_.size(); ++i) {
      if (active_[i]) continue;
      const InstInfo* info = ctx_.frontend->peek(warps_[i]);
      if (info && check(i, *info) == kStallKinds) return true;
    }
    return false;
  }

  // Round-robin over the pending warps from the one after the last activated.
  bool refill() {
    bool any = false;
    const unsigned n = unsigned(warps_.size());
    for (unsigned k = 0; k < n && n_active_ < active_max_; ++k) {
      const unsigned i = (rr_ + k) % n;
      if (active_[i] || !can_activate(i)) continue;
      active_[i] = true;
      ++n_active_;
      if (ctx_.probe) ctx_.probe->active(ctx_.subcore, ctx_.index, warps_[i], true, now());
      ++activations_;
      notify_rfc(Txn::Kind::RfcActivate, i);
      rr_ = (i + 1) % n;
      any = true;
    }
    return any;
  }

  void deactivate(unsigned i, Why why) {
    active_[i] = false;
    --n_active_;
    if (ctx_.probe) ctx_.probe->active(ctx_.subcore, ctx_.index, warps_[i], false, now());
    ++deactivations_[why];
    notify_rfc(Txn::Kind::RfcFlush, i);
  }

  void notify_rfc(Txn::Kind k, unsigned i) {
    if (!to_rfc_.size()) return;
    rfc_pkt_.prepare(k);
    rfc_pkt_.txn.warp = warps_[i];
    rfc_pkt_.txn.inst = nullptr;
    to_rfc_[0]->b_transport(rfc_pkt_.gp, rfc_pkt_.delay);
  }

  const unsigned active_max_;
  const bool suspend_always_;
  RfcNotifySocket to_rfc_;
  Stat& states_;
  Stat& deactivations_;
  uint64_t& activations_;
  std::vector<bool> active_, resumed_;
  unsigned n_active_ = 0, rr_ = 0;
  bool first_ = true;
  Cycle last_state_tick_ = kNever;
  State last_state_ = kStallNoneReady;
  Packet rfc_pkt_;
};

GPURF_REGISTER_UNIT(IScheduler, TwoLevelScheduler, "two_level",
                    "two-level scheduler (Gebhart): greedy among `active` warps, suspension on "
                    "long-latency consumers, round-robin refill from the pending warps");

} // namespace gpurf
