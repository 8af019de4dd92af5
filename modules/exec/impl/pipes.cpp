// Execution pipes: per pipe kind `count` units, each accepting a warp instruction every
// `ii` cycles and producing its result `latency` cycles later. Units need no clock: a
// dispatch reserves the unit and hands the instruction to writeback with the latency as the
// annotated delay. MEM instructions go to the LSU.
#include <array>

#include "modules/exec/i_exec.h"

namespace gpurf {

class Pipes : public IExec {
public:
  Pipes(sc_core::sc_module_name nm, Params& p, const UnitContext& c) : IExec(nm, c) {
    struct Def {
      unsigned count, latency, ii;
    };
    // Defaults: a Fermi-like SM (GPGPU-Sim's GTX480 latencies); baselines override.
    const Def defs[kNumPipes] = {{1, 4, 1},  {0, 4, 1}, {0, 8, 2},
                                 {1, 20, 4}, {1, 0, 1}, {0, 16, 4}};
    Stat& busy = stats().vector("busy_cycles", kNumPipes,
                                "cycles the pipe's units were reserved "
                                "(sum over units)",
                                "unit-cycles", pipe_labels());
    Stat& n = stats().vector("instructions", kNumPipes, "instructions dispatched per pipe",
                             "instructions", pipe_labels());
    busy_ = &busy;
    dispatched_ = &n;
    for (unsigned i = 0; i < kNumPipes; ++i) {
      const Pipe pipe = static_cast<Pipe>(i);
      if (pipe == Pipe::MEM) continue;
      Params& q = p.sub(pipe_name(pipe), std::string("the ") + pipe_name(pipe) + " pipe");
      Kind& k = kinds_[i];
      k.free_at.assign(q.get_uint("count", defs[i].count, "units (0: fold onto sp)", 0, 64), 0);
      k.latency = q.get_uint("latency", defs[i].latency, "result latency in cycles", 1, 10000);
      k.ii = q.get_uint("ii", defs[i].ii, "initiation interval in cycles", 1, 1000);
    }
    if (kinds_[0].free_at.empty())
      p.fail("sp", "sp.count must be at least 1 (other pipes fold onto sp)");
  }

  unsigned units(Pipe p) const override { return kinds_[static_cast<unsigned>(p)].free_at.size(); }
  Timing timing(Pipe p) const override {
    const Kind& k = kinds_[static_cast<unsigned>(p)];
    return {k.latency, k.ii};
  }

protected:
  void on_dispatch(int, tlm::tlm_generic_payload& gp, sc_core::sc_time& d) override {
    Txn& t = txn_of(gp);
    const Pipe pipe = ctx_.shape->pipe_for(t.inst->info->pipe);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    if (pipe == Pipe::MEM) return to_lsu->b_transport(gp, d);
    const unsigned i = static_cast<unsigned>(pipe);
    Kind& k = kinds_[i];
    const Cycle now = this->now();
    for (Cycle& f : k.free_at)
      if (f <= now) {
        f = now + k.ii;
        (*busy_)[i] += k.ii;
        ++(*dispatched_)[i];
        if (ctx_.probe) ctx_.probe->dispatch(*t.inst, pipe, k.latency, now);
        pkt_.prepare(Txn::Kind::Complete);
        pkt_.txn.inst = t.inst;
        pkt_.delay = clock_->time(k.latency);
        to_wb->b_transport(pkt_.gp, pkt_.delay);
        return;
      }
    t.busy = true;
  }

private:
  static std::vector<std::string> pipe_labels() {
    std::vector<std::string> v;
    for (unsigned i = 0; i < kNumPipes; ++i) v.push_back(pipe_name(static_cast<Pipe>(i)));
    return v;
  }
  struct Kind {
    std::vector<Cycle> free_at; // per unit: first cycle it accepts again
    unsigned latency = 1, ii = 1;
  };
  std::array<Kind, kNumPipes> kinds_;
  Stat* busy_;
  Stat* dispatched_;
  Packet pkt_;
};

GPURF_REGISTER_UNIT(IExec, Pipes, "pipes",
                    "SP/INT/DP/SFU/TENSOR pipes with count, latency and initiation interval");

} // namespace gpurf
