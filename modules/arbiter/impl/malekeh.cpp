// Malekeh's arbiter (shared/papers/001, Sec. III-B, IV-A2): the write-first arbiter of the
// baseline, which also drives the tri-state buffer between the write-back bus and the caching
// collectors. Every result the banks take is offered, in the same cycle, to port D of each
// CCU whose cache table holds the writer's warp (port R); a result with a far reuse is
// squashed there (only its register id reaches the CCU, which drops a stale copy).
#include "gpurf/modules/arbiter/impl/write_first.h"
#include "gpurf/policies/ccu_board.h"

namespace gpurf {

class MalekehArbiter : public WriteFirstArbiter {
public:
  MalekehArbiter(sc_core::sc_module_name nm, Params& p, const UnitContext& c)
      : WriteFirstArbiter(nm, p, c), board_(c.ccus),
        offered_(stats().scalar(
            "ccu_near_results", "near results sent to a CCU holding the writer's warp", "registers",
            energy::no_event("Malekeh: results offered to a CCU; priced by collector ccu_writes"))),
        squashed_(stats().scalar(
            "ccu_squashed_results",
            "far results squashed on their way to a CCU holding the "
            "writer's warp",
            "registers",
            energy::not_modelled("Malekeh: the tri-state buffer's control of a squashed result"))) {
    need({{"collector", "ccu"}},
         "offers results to Malekeh's caching collectors (the write filter); without them it "
         "models nothing of the design");
  }

  bool feeds_collector_caches() const override { return true; }

protected:
  void written(const Req& t, const unsigned char* data) override {
    if (!board_ || !t.inst) return;
    const bool near = t.operand < t.inst->n_dst && t.inst->dst[t.operand].reuse_near;
    board_->holders(ctx_.subcore, t.warp, [&](unsigned c) {
      pkt_.prepare(Txn::Kind::CcuWrite, tlm::TLM_WRITE_COMMAND);
      Txn& x = pkt_.txn;
      x.inst = t.inst;
      x.warp = t.warp;
      x.reg = t.reg;
      x.operand = t.operand;
      x.version = t.version;
      x.busy = !near;
      pkt_.gp.set_data_ptr(const_cast<unsigned char*>(data));
      pkt_.gp.set_data_length(kRegBytes);
      to_collector[c]->b_transport(pkt_.gp, pkt_.delay);
      ++(near ? offered_ : squashed_);
    });
  }

private:
  CcuBoard* board_;
  Packet pkt_;
  uint64_t &offered_, &squashed_;
};

GPURF_REGISTER_UNIT(IArbiter, MalekehArbiter, "malekeh",
                    "write-first arbiter that offers every result to the CCUs holding its "
                    "warp, squashing far ones (Malekeh write filter)");

} // namespace gpurf
