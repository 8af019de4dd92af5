// Allocates the next free collector serving the instruction's pipe, round robin from the
// one allocated last; busy when there is none (the scheduler counts a collector stall).
#include "modules/allocator/i_allocator.h"

namespace gpurf {

class RoundRobinAllocator : public IAllocator {
public:
  RoundRobinAllocator(sc_core::sc_module_name nm, Params&, const UnitContext& c)
      : IAllocator(nm, c),
        allocations_(stats().scalar("allocations", "collectors allocated", "allocations")),
        full_(stats().scalar("full", "issue attempts refused: no free collector for the pipe",
                             "attempts")),
        occupancy_(stats().scalar("occupied_collector_cycles",
                                  "sum over cycles of allocated collectors", "collector-cycles")) {}

  void finish() override { account(); }

  void dump_state(std::ostream& os) const override {
    os << "  collectors busy:";
    for (unsigned i = 0; i < busy_.size(); ++i) os << (busy_[i] ? " 1" : " 0");
    os << "\n";
  }

  void observables(std::vector<Observable>& o) override {
    o.push_back({"in_use", [this] { return uint64_t(in_use_); }});
  }

protected:
  void on_issue(int, tlm::tlm_generic_payload& gp, sc_core::sc_time& d) override {
    Txn& t = txn_of(gp);
    const unsigned n = collector_pipes_.size();
    if (busy_.size() != n) busy_.resize(n, false);
    const unsigned pipe_bit = 1u << static_cast<unsigned>(ctx_.shape->pipe_for(t.inst->info->pipe));
    for (unsigned k = 0; k < n; ++k) {
      const unsigned i = (last_ + 1 + k) % n;
      if (busy_[i] || !(collector_pipes_[i] & pipe_bit)) continue;
      account();
      busy_[i] = true;
      ++in_use_;
      last_ = i;
      ++allocations_;
      if (ctx_.probe) ctx_.probe->allocated(*t.inst, i, now());
      to_collector[i]->b_transport(gp, d);
      return;
    }
    ++full_;
    t.busy = true;
  }

  void on_release(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time&) override {
    account();
    busy_[id] = false;
    --in_use_;
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    ctx_.wake_issue();
  }

private:
  // Occupancy integrated over time, updated whenever it changes (no per-cycle work).
  void account() {
    occupancy_ += in_use_ * (now() - since_);
    since_ = now();
  }
  std::vector<bool> busy_;
  unsigned last_ = 0, in_use_ = 0;
  Cycle since_ = 0;
  uint64_t& allocations_;
  uint64_t& full_;
  uint64_t& occupancy_;
};

GPURF_REGISTER_UNIT(IAllocator, RoundRobinAllocator, "round_robin",
                    "next free collector serving the pipe, round robin");

} // namespace gpurf
