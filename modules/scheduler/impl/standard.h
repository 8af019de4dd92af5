// Scoreboarded warp scheduler: one warp instruction per cycle (issue_width), picked in the
// order of a warp priority policy among warps whose next instruction has no pending RAW,
// WAW or WAR hazard and finds a free collector.
#pragma once
#include <array>
#include <memory>

#include "gpurf/modules/common/inst_pool.h"
#include "gpurf/modules/frontend/i_frontend.h"
#include "gpurf/modules/scheduler/i_scheduler.h"
#include "gpurf/policies/ccu_board.h"
#include "gpurf/policies/warp_policy.h"

namespace gpurf {

class StandardScheduler : public IScheduler {
public:
  enum Stall { kScoreboard, kWar, kCollectorFull, kNoInstruction, kStallKinds };

  StandardScheduler(sc_core::sc_module_name nm, Params& p, const UnitContext& c)
      : IScheduler(nm, c),
        issue_width_(p.get_uint("issue_width", 1, "warp instructions issued per cycle", 1, 8)),
        policy_(WarpPolicy::Registry::create(
            p.get_choice("policy", "gto", "warp priority policy", WarpPolicy::Registry::names()),
            p)),
        stall_on_refusal_(p.get_choice("collector_refusal", "next_warp",
                                       "when the allocator refuses the chosen warp a collector: "
                                       "next_warp (try the next ready warp) or stall (no issue "
                                       "this cycle, Malekeh Fig. 6)",
                                       {"next_warp", "stall"}) == "stall"),
        issued_(stats().scalar(
            "issued", "warp instructions issued", "instructions",
            energy::scope("an issued warp instruction: its fetch (I-cache, instruction buffer), "
                          "decode and issue (scheduler, scoreboard)"))),
        active_cycles_(stats().scalar("active_cycles", "cycles with at least one issue", "cycles",
                                      energy::no_event("cycles"))),
        stalls_(stats().vector(
            "stall_cycles", kStallKinds,
            "cycles without issue (slept ones included), by the reason that held the warps",
            "cycles", {"scoreboard", "war", "collector_full", "no_instruction"},
            energy::no_event("stalls"))) {
    if (policy_->ccu_state())
      need({{"collector", "ccu"}},
           "(policy: malekeh) orders warps by the values Malekeh's caching collectors hold; "
           "without them it models nothing of the design");
    const SmShape& s = *c.shape;
    for (unsigned w = 0; w < s.warps; ++w)
      if (s.subcore_of(w) == c.subcore && s.scheduler_of(w) == c.index) warps_.push_back(w);
    age_.assign(warps_.size(), 0);
    slots_.assign(warps_.size(), WarpSlot{});
    // Data registers, then the predicate registers (index regs_per_thread + p).
    const unsigned regs = s.regs_per_thread + s.preds_per_thread;
    pending_write_.assign(warps_.size(), std::vector<uint8_t>(regs, 0));
    pending_value_.assign(warps_.size(), std::vector<uint8_t>(regs, 0));
    pending_read_.assign(warps_.size(), std::vector<uint8_t>(regs, 0));
    for (unsigned i = 0; i < s.warps; ++i) slot_of_.push_back(~0u);
    for (unsigned i = 0; i < warps_.size(); ++i) {
      slot_of_[warps_[i]] = i;
      all_ |= bit(i);
    }
    wake(0);
  }

  void tick(Cycle now) override {
    account_sleep(now);
    if (std::vector<uint8_t>* held = policy_->ccu_state()) {
      held->assign(warps_.size(), 0); // a warp slot is held if a live CCU table is its
      if (ctx_.ccus)
        ctx_.ccus->live_tables(ctx_.subcore, [&](unsigned w) {
          if (w < slot_of_.size() && slot_of_[w] != ~0u) (*held)[slot_of_[w]] = 1;
        });
    }
    policy_->set_age_stamp(launches_ + 1); // launches_ counts every change of an age
    const std::vector<unsigned>& order = policy_->prioritize(age_);
    unsigned n = 0;
    unsigned saw = 0; // bit r: a warp was held for reason r
    // The front-end's offer_epoch(), read when an idle warp needs it: it changes only in the
    // front-end's calls (peek, execute), after which it is read again.
    uint64_t offer = 0;
    bool offer_read = false;
    auto offer_now = [&] {
      if (!offer_read) offer = ctx_.frontend->offer_epoch(), offer_read = true;
      return offer;
    };
    // A warp the scan would only pass, adding its reason to `saw`, is not visited: one held
    // until an event (held_), or idle while the front-end's offer is the one it was found idle
    // at (idle_at_offer_). Their reasons come from the masks; only the warps in open_ are
    // visited, in order, and the scan ends when none is left. (Two-level: every selectable
    // warp is visited.)
    const bool skip_held = all_selectable_ && warps_.size() <= 64;
    if (skip_held) {
      uint64_t held = 0;
      for (unsigned r = 0; r < kStallKinds; ++r)
        if (held_[r]) {
          saw |= 1u << r;
          held |= held_[r];
        }
      if (idle_at_offer_ && offer_now() == idle_offer_) {
        saw |= 1u << kNoInstruction;
        held |= idle_at_offer_;
      }
      open_ = all_ & ~held;
    }
    // Pipes whose issues the allocator refuses this cycle (Txn::refuses_pipe), and the issues
    // refused so without a transfer each (told at the end in one).
    uint32_t refused_pipes = 0, unsent = 0;
    for (unsigned i : order) {
      if (skip_held) {
        if (!open_) break;
        if (!(open_ >> i & 1)) continue;
        open_ &= ~(uint64_t(1) << i);
        idle_at_offer_ &= ~(uint64_t(1) << i); // visited: its state is found anew
      } else if (!all_selectable_ && !selectable(i))
        continue;
      WarpSlot& ws = slots_[i];
      // A warp found idle or hazard-blocked stays so until an event about it arrives.
      if (ws.blocked != kStallKinds) {
        if (ws.blocked != kNoInstruction || ws.idle_epoch == epoch_) {
          saw |= 1u << ws.blocked;
          continue;
        }
        if (ws.idle_offer && ws.idle_offer == offer_now()) { // peek() would still say none
          saw |= 1u << kNoInstruction;
          ws.idle_epoch = epoch_;
          held_[kNoInstruction] |= bit(i);
          idle_at(i, ws.idle_offer);
          continue;
        }
      }
      const unsigned w = warps_[i];
      const InstInfo* info = ctx_.frontend->peek(w);
      offer_read = false;
      if (!info) {
        saw |= 1u << (ws.blocked = kNoInstruction);
        ws.idle_epoch = epoch_;
        ws.idle_offer = offer_now();
        held_[kNoInstruction] |= bit(i);
        idle_at(i, ws.idle_offer);
        continue;
      }
      ws.blocked = kStallKinds;
      if (ws.fresh) { // first instruction of a newly launched warp: its age
        ws.fresh = false;
        age_[i] = ++launches_;
      }
      const Stall hazard = check(i, *info);
      if (hold(i, *info, hazard)) continue;
      if (hazard != kStallKinds) { // check() names kScoreboard or kWar
        saw |= 1u << (ws.blocked = hazard);
        held_[hazard] |= bit(i);
        continue;
      }
      if (refused_pipes &&
          refused_pipes >> static_cast<unsigned>(ctx_.shape->pipe_for(*info)) & 1) {
        ++unsent;
        saw |= 1u << kCollectorFull;
        if (stall_on_refusal_) break;
        continue;
      }
      WarpInst* inst = ctx_.pool->get();
      inst->info = info;
      inst->warp = w;
      inst->subcore = ctx_.subcore;
      inst->scheduler = ctx_.index;
      inst->value_ready = false;
      pkt_.prepare(Txn::Kind::Issue);
      pkt_.txn.inst = inst;
      to_alloc->b_transport(pkt_.gp, pkt_.delay);
      if (pkt_.txn.busy) {
        ctx_.pool->put(inst);
        saw |= 1u << kCollectorFull;
        if (pkt_.txn.refuses_pipe)
          refused_pipes |= 1u << static_cast<unsigned>(ctx_.shape->pipe_for(*info));
        if (stall_on_refusal_) break;
        continue;
      }
      ctx_.frontend->execute(w, *inst);
      offer_read = false;
      inst->issue_cycle = now;
      if (ctx_.probe) ctx_.probe->issue(*inst, now);
      for_regs(*info, true, [&](unsigned r) { ++pending_read_[i][r]; });
      for_regs(*info, false, [&](unsigned r) {
        ++pending_write_[i][r];
        ++pending_value_[i][r];
      });
      if (info->exit) ws.fresh = true;
      if (info->barrier || info->exit) ctx_.wake_issue();
      policy_->issued(i);
      on_issued(i, *inst);
      ++issued_;
      if (++n == issue_width_) break;
    }
    if (unsent) {
      pkt_.prepare(Txn::Kind::Refused);
      pkt_.txn.inst = nullptr;
      pkt_.txn.skipped = unsent;
      to_alloc->b_transport(pkt_.gp, pkt_.delay);
    }
    last_tick_ = now;
    if (n) {
      ++active_cycles_;
      stalled_ = kStallKinds;
      wake(now + 1);
      return;
    }
    // Nothing issued: blame the most structural reason seen (no warp to look at: no
    // instruction). Every reason is lifted by an event that wakes this scheduler (notify,
    // collector release, launch, barrier), so it sleeps until then; the cycles it sleeps
    // count for the same reason (account_sleep).
    stalled_ = kNoInstruction;
    for (Stall r : {kCollectorFull, kScoreboard, kWar, kNoInstruction})
      if (saw >> r & 1) {
        stalled_ = r;
        break;
      }
    ++stalls_[stalled_];
  }

  // End of a launch: the cycles slept since the last tick. Until the next launch's first tick
  // (an application's, a host's) the scheduler has no instruction to issue.
  void finish() override {
    settle(now());
    stalled_ = kNoInstruction;
  }

  // The cycles slept up to `at` - 1 counted now; the next tick counts only those after.
  void settle(Cycle at) override {
    account_sleep(at);
    if (at > 0) last_tick_ = last_tick_ == kNever ? at - 1 : std::max(last_tick_, at - 1);
  }

  void dump_state(std::ostream& os) const override {
    for (unsigned i = 0; i < warps_.size(); ++i) {
      os << "  warp " << warps_[i] << ": " << ctx_.frontend->describe_warp(warps_[i]);
      os << "; pending writes:";
      for (unsigned r = 0; r < pending_write_[i].size(); ++r)
        if (pending_write_[i][r]) os << " " << reg_name(r);
      os << "; pending reads:";
      for (unsigned r = 0; r < pending_read_[i].size(); ++r)
        if (pending_read_[i][r]) os << " " << reg_name(r);
      os << "\n";
    }
  }

  unsigned issue_width() const override { return issue_width_; }

protected:
  // A scoreboard index as the register it stands for (rN, or pN for predicates).
  std::string reg_name(unsigned r) const {
    const unsigned n = ctx_.shape->regs_per_thread;
    return r < n ? "r" + std::to_string(r) : "p" + std::to_string(r - n);
  }

  void on_notify(int, tlm::tlm_generic_payload& gp, sc_core::sc_time&) override {
    Txn& t = txn_of(gp);
    const InstInfo& info = *t.inst->info;
    const unsigned i = slot_of_[t.inst->warp];
    const unsigned pbase = ctx_.shape->regs_per_thread;
    switch (t.kind) {
    case Txn::Kind::OperandsRead:
      for_regs(info, true, [&](unsigned r) { --pending_read_[i][r]; });
      break;
    case Txn::Kind::ValueReady: // data results forwardable; predicates wait for the write
      for (unsigned k = 0; k < info.n_dst; ++k) --pending_value_[i][info.dst_reg[k]];
      break;
    default: // Written
      for_regs(info, false, [&](unsigned r) {
        --pending_write_[i][r];
        if (!t.inst->value_ready || r >= pbase) --pending_value_[i][r];
      });
    }
    release(i);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    wake(now());
  }

  void issue_event() override {
    ++epoch_;                                        // idle warps are looked at again
    open_ |= held_[kNoInstruction] | idle_at_offer_; // also in the scan under way (an exit's)
    held_[kNoInstruction] = 0;
    wake(now() + 1);
  }

  // Warp slot i may issue again (an event about it): looked at in the next scan, or in the
  // scan under way if it has not passed it yet.
  void release(unsigned i) {
    slots_[i].blocked = kStallKinds;
    const uint64_t b = bit(i);
    for (uint64_t& m : held_) m &= ~b;
    idle_at_offer_ &= ~b;
    open_ |= b;
  }

  // Warp slot i was found idle at the front-end's offer `offer` (0: untracked).
  void idle_at(unsigned i, uint64_t offer) {
    if (!offer) return;
    if (offer != idle_offer_) { // a newer offer: the warps idle at the older one may not be
      idle_offer_ = offer;
      idle_at_offer_ = 0;
    }
    idle_at_offer_ |= bit(i);
  }

  // Hooks for variants (two-level): whether warp slot i may be considered this cycle; whether
  // it must not issue `info` (after the hazard check); called after it issued `inst`.
  virtual bool selectable(unsigned) const { return true; }
  bool all_selectable_ = true; // a variant that overrides selectable() sets it false
  virtual bool hold(unsigned, const InstInfo&, Stall) { return false; }
  virtual void on_issued(unsigned, const WarpInst&) {}

  // Calls f(index) for every scoreboard entry `info` reads (sources) or writes: its data
  // registers and its predicate registers.
  template <class F> void for_regs(const InstInfo& info, bool sources, F&& f) const {
    const unsigned pbase = ctx_.shape->regs_per_thread;
    if (sources) {
      for (unsigned k = 0; k < info.n_src; ++k) f(info.src_reg[k]);
      for (unsigned k = 0; k < info.n_psrc; ++k) f(pbase + info.psrc_reg[k]);
    } else {
      for (unsigned k = 0; k < info.n_dst; ++k) f(info.dst_reg[k]);
      for (unsigned k = 0; k < info.n_pdst; ++k) f(pbase + info.pdst_reg[k]);
    }
  }

  // The hazard holding `info` back, or kStallKinds if it may issue. RAW: a source's value
  // is not available yet; WAW: a destination's older write is not granted yet (with
  // forwarding: its value is not, and the writeback keeps the writes in order).
  virtual Stall check(unsigned i, const InstInfo& info) const {
    const auto& pw = ctx_.shape->forward_stages ? pending_value_[i] : pending_write_[i];
    const auto& pv = pending_value_[i];
    const auto& pr = pending_read_[i];
    bool raw = false, war = false;
    for_regs(info, true, [&](unsigned r) { raw |= pv[r] != 0; });
    for_regs(info, false, [&](unsigned r) {
      raw |= pw[r] != 0;
      war |= pr[r] != 0;
    });
    return raw ? kScoreboard : war ? kWar : kStallKinds;
  }

  const unsigned issue_width_;
  std::unique_ptr<WarpPolicy> policy_;
  const bool stall_on_refusal_;
  std::vector<unsigned> warps_, slot_of_;
  std::vector<uint64_t> age_;
  // Per warp slot, together (the scan of every tick reads them).
  struct WarpSlot {
    Stall blocked = kStallKinds; // why it cannot issue until an event, or kStallKinds
    bool fresh = true;           // no instruction issued since its launch (age not set)
    uint64_t idle_epoch = 0;     // when it was found idle; issue events end that
    uint64_t idle_offer = 0;     // the front-end's offer_epoch() then (0: not tracked)
  };
  std::vector<WarpSlot> slots_;
  uint64_t epoch_ = 1;
  // Slot masks (slots 0-63; more slots: empty, and every slot is visited): held_[r], the
  // warps held for reason r until an event (blocked == r; kNoInstruction: found idle in this
  // epoch); open_, the warps the scan under way has still to visit; all_, every slot.
  static uint64_t bit(unsigned i) { return i < 64 ? uint64_t(1) << i : 0; }
  std::array<uint64_t, kStallKinds> held_{};
  uint64_t open_ = 0, all_ = 0;
  // The warps found idle (blocked == kNoInstruction) at offer idle_offer_, the latest offer
  // one was found idle at: while the front-end's offer is still that one, peek() would say
  // none for each (the front-end changes its offer whenever a warp may have an instruction).
  uint64_t idle_at_offer_ = 0, idle_offer_ = 0;
  // Per warp and scoreboard index: writes not granted (WAW), values not available to a new
  // reader (RAW: until the write, or until ValueReady with forwarding), reads not done (WAR).
  std::vector<std::vector<uint8_t>> pending_write_, pending_value_, pending_read_;
  uint64_t launches_ = 0;
  // Cycles between the last tick and `now` were slept for the reason of that tick.
  // Before the first tick there was no instruction: a hosted SM idles from cycle 0 until the
  // host launches a kernel, and those cycles are the SM's too.
  void account_sleep(Cycle now) {
    const Cycle from = last_tick_ == kNever ? 0 : last_tick_ + 1; // first cycle not counted
    if (now > from && stalled_ != kStallKinds) stalls_[stalled_] += now - from;
  }
  Cycle last_tick_ = kNever;
  Stall stalled_ = kNoInstruction; // why the last tick issued nothing (kStallKinds: it issued)
  Packet pkt_;
  uint64_t& issued_;
  uint64_t& active_cycles_;
  Stat& stalls_;
};

} // namespace gpurf
