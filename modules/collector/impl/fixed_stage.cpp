// Fixed-stage register read (Gebhart et al., ISCA'11, Sec. 3.1, Fig. 3a): a `stages`-cycle
// register-read stage pipelined with execution. Each collector is one slot of the stage:
// the instruction dispatches `stages` cycles after issue unless bank conflicts delay its
// reads (then the slot stays held, and issue stalls when every slot is). Every source is
// still read from the register file; when its producer has not retired, the value read is
// replaced by the producer's result from the result bus (forwarding) at the cycle it is
// ready. The writeback tells the scheduler `stages` cycles before a result is ready, so a
// dependent instruction issues one pipe latency after its producer (docs/gebhart.md).
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
        forwarded_(stats().vector(
            "operands_forwarded", 2,
            "operands replaced by a result still in flight (forwarding), by the storage whose "
            "discarded read they replaced: mrf, or rfc (a hit on the register's older value)",
            "registers", {"mrf", "rfc"},
            energy::no_event("fixed-stage forwarding: the operand write is priced by oc_writes, "
                             "the bank read as a read"))) {}

  unsigned read_stages() const override { return stages_; }

protected:
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
  }

private:
  struct Forwarded {
    bool valid = false;
    uint64_t version = 0;
    Cycle ready = 0;
    LaneValues value{};
  };
  const unsigned stages_;
  Stat& forwarded_;
  std::vector<Forwarded> fwd_; // per operand
  Packet q_;
};

GPURF_REGISTER_UNIT(ICollector, FixedStage, "fixed_stage",
                    "fixed N-stage register read pipelined with execution: dispatch N cycles "
                    "after issue, results forwarded (Gebhart Sec. 3.1)");

} // namespace gpurf
