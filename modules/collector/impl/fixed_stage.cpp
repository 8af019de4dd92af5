// Fixed-stage register read (Gebhart et al., ISCA'11, Sec. 3.1, Fig. 3a): a `stages`-cycle
// register-read stage pipelined with execution. Each collector is one slot of the stage:
// the instruction dispatches `stages` cycles after issue unless bank conflicts delay its
// reads (then the slot stays held, and issue stalls when every slot is). Every source is
// still read from the register file; when its producer has not retired, the value read is
// replaced by the producer's result from the result bus (forwarding) at the cycle it is
// ready. The writeback tells the scheduler `stages` cycles before a result is ready, so a
// dependent instruction issues one pipe latency after its producer (docs/gebhart.md).
// `warp_order`: a warp's reads leave in issue order, as in the paper's in-order pipeline,
// where an instruction's operands are all read before the next instruction of its warp
// reads: a static last-read bit (Gebhart's RFC liveness) is only right in that order.
#include <cstring>

#include "gpurf/modules/collector/impl/ocu.h"

namespace gpurf {

class FixedStage : public Ocu {
public:
  FixedStage(sc_core::sc_module_name nm, Params& p, const UnitContext& c)
      : Ocu(nm, p, c),
        stages_(p.get_uint("stages", 3,
                           "register-read stages: an instruction dispatches this many cycles "
                           "after issue at the earliest; results are forwarded",
                           1, 64)),
        warp_order_(p.get_bool(
            "warp_order", false,
            "a warp's register reads leave in issue order: an instruction's reads wait until "
            "every older instruction of its warp has sent all of its reads, in an earlier "
            "cycle (the paper's in-order register-read stage; needed by an RFC's static "
            "last-read bits, docs/gebhart.md)")),
        forwarded_(stats().vector(
            "operands_forwarded", 2,
            "operands replaced by a result still in flight (forwarding), by the storage whose "
            "discarded read they replaced: mrf, or rfc (a hit on the register's older value)",
            "registers", {"mrf", "rfc"},
            energy::no_event("fixed-stage forwarding: the operand write is priced by oc_writes, "
                             "the bank read as a read"))),
        order_waits_(stats().scalar(
            "order_waits",
            "cycles an instruction's reads waited for an older instruction of its warp to send "
            "its own (warp_order)",
            "cycles", energy::no_event("waits"), check::unwatched("waits"))) {}

  unsigned read_stages() const override { return stages_; }

  void set_peers(const std::vector<std::unique_ptr<ICollector>>& all) override {
    for (const auto& c : all)
      if (auto* f = dynamic_cast<const FixedStage*>(c.get()); f && f != this) peers_.push_back(f);
  }

protected:
  void request(Cycle now) override {
    if (warp_order_ && sent_ < to_read_ && older_reads_unsent(now)) {
      ++order_waits_;
      return wake(now + 1);
    }
    const unsigned before = sent_;
    Ocu::request(now);
    if (sent_ == to_read_ && sent_ != before) all_sent_at_ = now;
  }

  // The read stage compares the source with the results in flight as its read leaves: a
  // producer that has not retired forwards its result; the value read is then discarded.
  void requesting(unsigned k) override {
    fwd_.resize(ops_.size());
    Forwarded& f = fwd_[k];
    q_.prepare(Txn::Kind::Forward);
    q_.txn.warp = inst_->warp;
    q_.txn.reg = ops_[k].reg;
    to_fwd->b_transport(q_.gp, q_.delay);
    f.valid = !q_.txn.busy;
    if (!f.valid) return;
    f.version = q_.txn.version;
    f.ready = now() + clock_->cycles(q_.delay);
    std::memcpy(f.value.data(), q_.gp.get_data_ptr(), kRegBytes);
  }

  void on_operand(tlm::tlm_generic_payload& gp, sc_core::sc_time& d) override {
    Txn& t = txn_of(gp);
    if (t.operand >= fwd_.size() || !fwd_[t.operand].valid) return Ocu::on_operand(gp, d);
    const Forwarded& f = fwd_[t.operand];
    Operand& o = ops_[t.operand];
    o.value = f.value;
    const bool over_rfc = t.from == Store::Rfc; // the storage whose read is discarded
    t.from = Store::Bypass;
    t.version = f.version;
    const Cycle at = std::max(now() + clock_->cycles(d), f.ready);
    arrive(o, t, clock_->time(at - now()));
    ++writes_;
    ++forwarded_[over_rfc ? 1 : 0];
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
  }

  void on_issue(tlm::tlm_generic_payload& gp, sc_core::sc_time& d) override {
    Ocu::on_issue(gp, d);
    for (Forwarded& f : fwd_) f.valid = false;
    all_sent_at_ = kNever;
  }

private:
  // An older instruction of this one's warp has a read not sent, or sent its last in this
  // cycle: collectors tick in index order, and the RFC takes reads in the order they arrive.
  bool older_reads_unsent(Cycle now) const {
    for (const FixedStage* f : peers_) {
      const WarpInst* o = f->inst_;
      if (o && o->warp == inst_->warp && o->seq < inst_->seq &&
          (f->sent_ < f->to_read_ || f->all_sent_at_ == now))
        return true;
    }
    return false;
  }

  struct Forwarded {
    bool valid = false;
    uint64_t version = 0;
    Cycle ready = 0;
    LaneValues value{};
  };
  const unsigned stages_;
  const bool warp_order_;
  Stat& forwarded_;
  uint64_t& order_waits_;
  std::vector<const FixedStage*> peers_; // the sub-core's other collectors
  Cycle all_sent_at_ = kNever;           // the cycle the instruction sent its last read
  std::vector<Forwarded> fwd_;           // per operand
  Packet q_;
};

GPURF_REGISTER_UNIT(ICollector, FixedStage, "fixed_stage",
                    "fixed N-stage register read pipelined with execution: dispatch N cycles "
                    "after issue, results forwarded (Gebhart Sec. 3.1)");

} // namespace gpurf
