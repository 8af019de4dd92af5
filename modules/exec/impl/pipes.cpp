// Execution pipes: per pipe kind `count` units, each accepting a warp instruction every
// `ii` cycles and producing its result `latency` cycles later. A latency class may carry its
// own latency and ii (a unit stays reserved for the class's ii) and run on another pipe
// (`classes:`; the SM routes it there, SmShape::pipe_for). Units need no clock: a dispatch
// reserves the unit and hands the instruction to writeback with the latency as the annotated
// delay. MEM instructions go to the LSU. `affine_lanes` (WIR's Affine GPU, Sec. VII-A): an
// integer mov, add, sub, mul or mad whose register sources and result are all affine runs on
// one lane (counted in affine_instructions; the energy prices it as one lane, not 32).
#include <algorithm>
#include <array>

#include "gpurf/modules/common/affine.h"
#include "gpurf/modules/exec/i_exec.h"

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
    Stat& busy =
        stats().vector("busy_cycles", kNumPipes,
                       "cycles the pipe's units were reserved "
                       "(sum over units)",
                       "unit-cycles", labels(kNumPipes, pipe_name),
                       energy::no_event("occupancy (functional-unit leakage not modelled)"),
                       check::unwatched("occupancy: unit-cycles reserved"));
    Stat& n = stats().vector("instructions", kNumPipes, "instructions dispatched per pipe",
                             "instructions", labels(kNumPipes, pipe_name),
                             energy::priced("fu_<pipe>_pj_per_lane_op x 32 lanes, per pipe label"));
    Stat& nc = stats().vector(
        "class_instructions", kNumOpClasses, "instructions dispatched to a pipe per latency class",
        "instructions", labels(kNumOpClasses, op_class_name),
        energy::no_event(
            "the same instructions by latency class; priced per pipe by instructions"));
    affine_ = p.get_bool("affine_lanes", false,
                         "WIR's Affine GPU: integer mov/add/sub/mul/mad with affine sources and "
                         "result run on one lane");
    if (affine_)
      affine_n_ = &stats().vector(
          "affine_instructions", kNumPipes,
          "instructions run on one lane (affine sources and result)", "instructions",
          labels(kNumPipes, pipe_name),
          energy::priced(
              "WIR's Affine GPU: these of the instructions are priced as 1 lane, not 32"),
          check::open_gap(
              "Affine GPU: decided from the operand values, which the checker does not see"));
    busy_ = &busy;
    dispatched_ = &n;
    by_class_ = &nc;
    std::vector<std::string> pipes;
    for (unsigned i = 0; i < kNumPipes; ++i) {
      const Pipe pipe = static_cast<Pipe>(i);
      if (pipe == Pipe::MEM) continue;
      pipes.push_back(pipe_name(pipe));
      Params& q = p.sub(pipe_name(pipe), std::string("the ") + pipe_name(pipe) + " pipe");
      Kind& k = kinds_[i];
      k.free_at.assign(q.get_uint("count", defs[i].count, "units (0: fold onto sp)", 0, 64), 0);
      k.t.latency = q.get_uint("latency", defs[i].latency, "result latency in cycles", 1, 10000);
      k.t.ii = q.get_uint("ii", defs[i].ii, "initiation interval in cycles", 1, 1000);
    }
    if (kinds_[0].free_at.empty())
      p.fail("sp", "sp.count must be at least 1 (other pipes fold onto sp)");
    read_classes(p, pipes);
  }

  unsigned units(Pipe p) const override { return kinds_[static_cast<unsigned>(p)].free_at.size(); }
  Timing timing(Pipe p) const override { return kinds_[static_cast<unsigned>(p)].t; }
  ClassTiming class_timing(OpClass c) const override { return classes_[static_cast<unsigned>(c)]; }

protected:
  void on_dispatch(int, tlm::tlm_generic_payload& gp, sc_core::sc_time& d) override {
    Txn& t = txn_of(gp);
    const InstInfo& info = *t.inst->info;
    const Pipe pipe = ctx_.shape->pipe_for(info);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    if (pipe == Pipe::MEM) return to_lsu->b_transport(gp, d);
    const unsigned i = static_cast<unsigned>(pipe);
    const Timing k = timing_of(info.op_class, pipe);
    // A delay: the operands reach the pipe's stages that much later (W-C's decompression stage
    // between the collector and the pipe), so the result does too; the unit is taken now.
    const Cycle now = this->now();
    const unsigned stage = unsigned(clock_->cycles(d));
    Cycle first_free = kNever;
    for (Cycle& f : kinds_[i].free_at) {
      if (f > now) {
        first_free = std::min(first_free, f);
        continue;
      }
      pkt_.prepare(Txn::Kind::ResultSlot); // a full writeback holds the instruction back
      pkt_.txn.inst = t.inst;
      to_wb->b_transport(pkt_.gp, pkt_.delay);
      if (pkt_.txn.busy) return void(t.busy = true); // lifted by an event: retry next cycle
      f = now + k.ii;
      (*busy_)[i] += k.ii;
      ++(*dispatched_)[i];
      ++(*by_class_)[static_cast<unsigned>(info.op_class)];
      if (affine_ && one_lane(*t.inst)) ++(*affine_n_)[i];
      if (ctx_.probe) ctx_.probe->dispatch(*t.inst, pipe, stage + k.latency, now);
      pkt_.prepare(Txn::Kind::Complete);
      pkt_.txn.inst = t.inst;
      pkt_.delay = clock_->time(stage + k.latency);
      to_wb->b_transport(pkt_.gp, pkt_.delay);
      sc_assert(!pkt_.txn.busy);
      return;
    }
    // Every unit reserved: none frees before the first reservation ends (a dispatch only
    // reserves units later).
    t.busy = true;
    if (first_free != kNever) t.retry_at = first_free;
  }

private:
  // Affine in, affine out (a full warp: inactive lanes' values are not the registers').
  static bool one_lane(const WarpInst& w) {
    const OpClass c = w.info->op_class;
    if ((c != OpClass::Move && c != OpClass::IntAdd && c != OpClass::IntMul &&
         c != OpClass::IntMad) ||
        w.active_mask != ~0u || w.thread_mask != ~0u || !w.n_dst)
      return false;
    for (unsigned k = 0; k < w.n_src; ++k)
      if (!affine(w.src[k].value)) return false;
    for (unsigned k = 0; k < w.n_dst; ++k)
      if (!affine(w.dst[k].value)) return false;
    return true;
  }
  template <class E> static std::vector<std::string> labels(unsigned n, const char* (*name)(E)) {
    std::vector<std::string> v;
    for (unsigned i = 0; i < n; ++i) v.push_back(name(static_cast<E>(i)));
    return v;
  }
  // `classes: {name: {pipe, latency, ii}}`: every key optional; a missing one keeps the
  // pipe's. `mem` and `unclassified` are not the exec's to time.
  void read_classes(Params& p, const std::vector<std::string>& pipes) {
    Params& cl = p.sub("classes", "per latency class: pipe, latency, ii (docs/frontend.md)");
    for (unsigned i = 0; i < kNumOpClasses; ++i) {
      const OpClass c = static_cast<OpClass>(i);
      if (c == OpClass::Unclassified || c == OpClass::Mem) continue;
      const std::string name = op_class_name(c);
      Params& q = cl.sub(name, "latency class " + name);
      std::vector<std::string> choices{"default"};
      choices.insert(choices.end(), pipes.begin(), pipes.end());
      const std::string pipe = q.get_choice(
          "pipe", "default", "pipe it runs on (default: the front-end's choice)", choices);
      ClassTiming& k = classes_[i];
      if (pipe != "default") {
        Pipe x;
        pipe_from_name(pipe, x);
        k.pipe = static_cast<int>(x);
      }
      k.latency = q.get_uint("latency", 0, "result latency in cycles (0: the pipe's)", 0, 10000);
      k.ii = q.get_uint("ii", 0, "initiation interval in cycles (0: the pipe's)", 0, 1000);
      // shfl runs on the LSU unless moved: the LSU times it.
      if (c == OpClass::Shfl && k.pipe < 0 && (k.latency || k.ii))
        q.fail(k.latency ? "latency" : "ii",
               "shfl runs on the mem pipe (the lsu times it); give it a pipe (sp, int, ...) "
               "to time it here");
    }
  }
  // The class's timing where it set one, else the executing pipe's.
  Timing timing_of(OpClass c, Pipe pipe) const {
    const ClassTiming& k = classes_[static_cast<unsigned>(c)];
    const Timing& p = kinds_[static_cast<unsigned>(pipe)].t;
    return {k.latency ? k.latency : p.latency, k.ii ? k.ii : p.ii};
  }
  struct Kind {
    std::vector<Cycle> free_at; // per unit: first cycle it accepts again
    Timing t;
  };
  std::array<Kind, kNumPipes> kinds_;
  std::array<ClassTiming, kNumOpClasses> classes_{};
  Stat* busy_;
  Stat* dispatched_;
  Stat* by_class_;
  bool affine_ = false;
  Stat* affine_n_ = nullptr;
  Packet pkt_;
};

GPURF_REGISTER_UNIT(IExec, Pipes, "pipes",
                    "SP/INT/DP/SFU/TENSOR pipes with count, latency and initiation interval, "
                    "and per latency class latency, ii and pipe");

} // namespace gpurf
