// Malekeh's CCU allocation (shared/papers/001, Sec. IV-B2/3, Fig. 6): a warp whose registers
// a CCU holds gets that CCU when it is free and none otherwise (a warp's data lives in one
// CCU: no coherence needed); another warp gets a random free CCU holding only far values, and
// when every free CCU holds near values it waits while the counter is below the SM's STHLD
// (the counter counts the refusals; the paper's per-core counter is one per SM, shared by
// the sub-cores' allocators), then takes a random free CCU and resets the counter. A table
// of a warp whose CTA has retired is empty for these rules (policies/ccu_board.h). A warp
// refused because its holder is busy does not stall the issue stage: the scheduler goes on
// to the next warp (the warp cannot issue, like a warp with a hazard); waiting for STHLD
// does (docs/malekeh.md). STHLD is fixed or set by the dynamic algorithm (policies/sthld.h)
// from the SM's IPC over intervals. `ccus: private` is Malekeh_PR (Sec. VI-B): every warp has
// its own CCU.
#include "gpurf/modules/allocator/impl/random.h"
#include "gpurf/policies/ccu_board.h"

namespace gpurf {

class MalekehAllocator : public RandomAllocator {
public:
  enum Refusal { kHolderBusy, kAllBusy, kSthldWait, kRefusals };

  MalekehAllocator(sc_core::sc_module_name nm, Params& p, const UnitContext& c)
      : RandomAllocator(nm, p, c), board_(c.ccus),
        private_(p.get_choice("ccus", "shared",
                              "shared (time-shared by the warps, Fig. 6) or private (one CCU per "
                              "warp, Malekeh_PR: warp w of the sub-core uses CCU w mod count)",
                              {"shared", "private"}) == "private"),
        per_sm_(p.get_choice("sthld_counter", "sm",
                             "the waiting counter of Fig. 6: sm (the paper's per-core counter, "
                             "shared by the sub-cores) or subcore (one per sub-core)",
                             {"sm", "subcore"}) == "sm"),
        refusals_(stats().vector(
            "refusals", kRefusals, "allocations refused, by reason", "attempts",
            {"holder_busy", "all_busy", "sthld_wait"},
            energy::no_event("Malekeh: refused attempts by reason"),
            check::unwatched("Malekeh: refused allocation attempts by reason (stalls)"))) {
    need({{"collector", "ccu"}},
         "allocates Malekeh's caching collectors by the values they hold (Fig. 6); without "
         "them it models nothing of the design");
    Sthld::Options o;
    o.dynamic = p.get_choice("sthld_policy", "dynamic",
                             "STHLD: dynamic (the six-state algorithm, docs/malekeh.md) or "
                             "static (always `sthld`)",
                             {"dynamic", "static"}) == "dynamic";
    o.initial =
        p.get_uint("sthld", 0, "STHLD: the static value, or the dynamic one's start", 0, 1u << 20);
    o.step = p.get_uint("sthld_step", 1, "dynamic STHLD: the delta of one move", 1, 1u << 16);
    o.max = p.get_uint("sthld_max", 64, "dynamic STHLD: the largest value", 0, 1u << 20);
    o.small = p.get_double("sthld_small", 0.02,
                           "dynamic STHLD: a relative IPC change below this is small", 0, 10);
    o.interval =
        p.get_uint("sthld_interval", 10000, "dynamic STHLD: cycles per interval", 1, 1u << 30);
    if (board_) {
      sthld_ = &board_->sthld(o);
      board_->set_frontend(c.frontend); // which tables hold a finished warp's values
    }
    stats().formula("sthld_final", "STHLD at the end of the run", "attempts",
                    [this] { return sthld_ ? double(sthld_->current()) : 0.0; });
    stats().formula("sthld_mean", "STHLD averaged over the intervals", "attempts",
                    [this] { return sthld_ ? sthld_->mean() : 0.0; });
  }

  void observables(std::vector<Observable>& o) override {
    RandomAllocator::observables(o);
    o.push_back({"sthld", [this] { return uint64_t(sthld_ ? sthld_->current() : 0); }});
  }

protected:
  bool plain_refusals() const override { return false; } // counted by reason; STHLD waits
  int choose(const WarpInst& inst, unsigned pipe_bit) override {
    const int c = decide(inst, pipe_bit);
    if (c >= 0 && sthld_) sthld_->issued();
    return c;
  }

private:
  int decide(const WarpInst& inst, unsigned pipe_bit) {
    if (private_ || !board_) {
      const unsigned mine = ctx_.shape->local_warp(inst.warp) % collectors();
      return eligible(mine, pipe_bit) ? int(mine) : refuse(kHolderBusy);
    }
    const unsigned threshold = sthld_->value(now());
    int holder = -1;
    board_->holders(ctx_.subcore, inst.warp, [&](unsigned c) {
      if (holder < 0 && (collector_pipes_[c] & pipe_bit)) holder = int(c);
    });
    if (holder >= 0) return eligible(unsigned(holder), pipe_bit) ? holder : refuse(kHolderBusy);
    if (free_of(pipe_bit, [](unsigned) { return true; }).empty()) return refuse(kAllBusy);
    const int far =
        pick(free_of(pipe_bit, [&](unsigned c) { return !board_->near(ctx_.subcore, c); }));
    if (far >= 0) return far;
    // Waiting stalls the issue stage (Sec. IV-B: "a lightweight waiting mechanism that stalls
    // the issue sometimes"): the warps after this one in the cycle's priority order have no
    // CCU either, and are refused without counting again.
    if (waiting_at_ == now()) return refuse(kSthldWait);
    unsigned& counter = board_->counter(ctx_.subcore, per_sm_);
    if (counter < threshold) {
      ++counter;
      waiting_at_ = now();
      ctx_.wake_issue(); // the counter advances with every cycle the scheduler tries
      return refuse(kSthldWait);
    }
    counter = 0;
    return pick(free_of(pipe_bit, [](unsigned) { return true; }));
  }

  int refuse(Refusal why) {
    ++refusals_[why];
    return -1;
  }

  CcuBoard* board_;
  const bool private_;
  const bool per_sm_; // the waiting counter (Fig. 6) is the SM's, else the sub-core's
  Sthld* sthld_ = nullptr;
  Cycle waiting_at_ = kNever; // the cycle the issue stage waits for STHLD
  Stat& refusals_;
};

GPURF_REGISTER_UNIT(IAllocator, MalekehAllocator, "malekeh",
                    "Malekeh CCU allocation: the holder CCU or none, a random far CCU, else "
                    "wait up to STHLD (dynamic) before taking one with near values");

} // namespace gpurf
