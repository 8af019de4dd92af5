// Issue logic of current NVIDIA cores (Huerta et al., MICRO'25, Sec. 4 and 5.1): no
// scoreboard; the compiler's control bits (compiler/control_bits.h) keep dependences. Per
// warp a stall counter (the warp may issue again `stall` cycles after an issue, two with the
// yield bit) and six dependence counters (SB0-5): an instruction increments its wr_sb and
// rd_sb at issue; the write-back of its results decrements wr_sb (Written), the read of its
// sources rd_sb (OperandsRead); an instruction issues only when every counter of its wait
// mask is zero. The warp order is CGGTY (Sec. 5.1.2, policy `cggty`): the warp that issued
// last while it is ready, else the youngest ready warp. docs/modern-core.md.
#include "gpurf/modules/scheduler/impl/standard.h"

namespace gpurf {

namespace {
// Compiler Guided Greedy Then Youngest: the last issuer first, then by age, youngest first.
class Cggty : public WarpPolicy {
public:
  explicit Cggty(Params&) {}
  const std::vector<unsigned>& prioritize(const std::vector<uint64_t>& age) override {
    const std::vector<unsigned>& oldest = by_age(age);
    if (sorts_ == built_sorts_ && last_ == built_last_ && order_.size() == oldest.size())
      return order_;
    built_sorts_ = sorts_;
    built_last_ = last_;
    youngest_.assign(oldest.rbegin(), oldest.rend());
    last_first(youngest_);
    return order_;
  }

private:
  uint64_t built_sorts_ = ~uint64_t(0);
  unsigned built_last_ = ~0u;
  std::vector<unsigned> youngest_;
};
} // namespace

GPURF_REGISTER(WarpPolicy, Cggty, "cggty",
               "compiler guided greedy then youngest: the last issuer, then the youngest "
               "(Huerta et al. MICRO'25 Sec. 5.1.2)");

class ControlBitsScheduler : public StandardScheduler {
public:
  static constexpr unsigned kCounters = 6;
  ControlBitsScheduler(sc_core::sc_module_name nm, Params& p, const UnitContext& c)
      : StandardScheduler(nm, p, c),
        stall_waits_(stats().scalar(
            "stall_count_waits", "looks at a warp held by its stall counter (or yield)", "looks",
            energy::no_event("modern core: stalls"),
            check::unwatched("modern core: looks at a held warp (stalls)"))),
        counter_waits_(
            stats().scalar("dependence_counter_waits",
                           "looks at a warp whose instruction waits on a dependence "
                           "counter",
                           "looks", energy::no_event("modern core: stalls"),
                           check::unwatched("modern core: looks at a held warp (stalls)"))) {
    ready_at_.assign(warps_.size(), 0);
    sb_.assign(warps_.size(), std::array<uint16_t, kCounters>{});
    need({{"collector", "fixed_window"}},
         "issues a fixed-latency instruction's consumer after the compiler's stall count, which "
         "holds only where every instruction reads its operands in a fixed window with the "
         "results bypassed; collectors read when the banks grant, so a consumer would read a "
         "register before its producer wrote it (use scheduler.impl: standard, the scoreboard)");
  }

  bool software_dependences() const override { return true; }

  void tick(Cycle now) override {
    for (unsigned i = 0; i < warps_.size(); ++i) // stall counters that ran out
      if (slots_[i].blocked == kScoreboard && ready_at_[i] <= now && !waits_on_counter(i))
        release(i);
    next_ready_ = kNever;
    StandardScheduler::tick(now);
    if (next_ready_ != kNever) wake(next_ready_);
  }

  void dump_state(std::ostream& os) const override {
    for (unsigned i = 0; i < warps_.size(); ++i) {
      os << "  warp " << warps_[i] << ": " << ctx_.frontend->describe_warp(warps_[i])
         << "; issues from cycle " << ready_at_[i] << "; SB:";
      for (uint16_t n : sb_[i]) os << " " << n;
      os << "\n";
    }
  }

protected:
  Stall check(unsigned i, const InstInfo& info) const override {
    if (ready_at_[i] > now()) {
      ++stall_waits_;
      next_ready_ = std::min(next_ready_, ready_at_[i]);
      return kScoreboard;
    }
    for (unsigned k = 0; k < kCounters; ++k)
      if (info.wait_mask >> k & 1 && sb_[i][k]) {
        ++counter_waits_;
        return kScoreboard;
      }
    return kStallKinds;
  }

  void on_issued(unsigned i, const WarpInst& inst) override {
    const InstInfo& info = *inst.info;
    ready_at_[i] = now() + std::max<unsigned>(info.stall, info.yield ? 2 : 1);
    if (info.wr_sb < kCounters) ++sb_[i][info.wr_sb];
    if (info.rd_sb < kCounters) ++sb_[i][info.rd_sb];
  }

  void on_notify(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& d) override {
    const Txn& t = txn_of(gp);
    const InstInfo& info = *t.inst->info;
    const unsigned i = slot_of_[t.inst->warp];
    const uint8_t k = t.kind == Txn::Kind::OperandsRead ? info.rd_sb
                      : t.kind == Txn::Kind::Written    ? info.wr_sb
                                                        : InstInfo::kNoSb;
    if (k < kCounters) {
      sc_assert(sb_[i][k] > 0);
      --sb_[i][k];
    }
    StandardScheduler::on_notify(id, gp, d);
  }

private:
  bool waits_on_counter(unsigned i) const {
    const InstInfo* info = ctx_.frontend->peek(warps_[i]);
    if (!info) return false;
    for (unsigned k = 0; k < kCounters; ++k)
      if (info->wait_mask >> k & 1 && sb_[i][k]) return true;
    return false;
  }

  std::vector<Cycle> ready_at_;                     // per warp: the stall counter's end
  std::vector<std::array<uint16_t, kCounters>> sb_; // per warp: SB0-5
  mutable Cycle next_ready_ = kNever;               // the earliest stall counter to run out
  uint64_t& stall_waits_;
  uint64_t& counter_waits_;
};

GPURF_REGISTER_UNIT(IScheduler, ControlBitsScheduler, "control_bits",
                    "no scoreboard: compiler stall counts, yield and dependence counters, CGGTY "
                    "(Huerta et al. MICRO'25 Sec. 4, 5.1)");

} // namespace gpurf
