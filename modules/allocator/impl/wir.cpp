// WIR's rename and reuse stages (Kim & Ro, shared/papers/004, Sec. V-B, V-C, VI, Fig. 5, 8),
// in front of the baseline's round-robin collector allocation. An issued instruction passes
// its scheduler's rename and reuse stages (1 cycle each, pipelined: one instruction per stage;
// the scheduler is refused while both hold one) into its pipe's collector latch (one per pipe
// and scheduler, as GPGPU-Sim's ID_OC pipeline registers), where it waits for a collector; one
// that finds its pipe's latch taken stays in the reuse stage and blocks the stages behind it.
// Rename: every source gets the physical register its warp's rename table maps it to, and the
// version tag of that register's value (an unmapped register reads physical register 0, zeros).
// Reuse: a reusable, convergent instruction looks its tag up in the reuse buffer; on a hit it
// bypasses register read, execution and write (its sources are released at the scheduler and it
// goes to the writeback, which retires it with the reused register); otherwise it takes a collector
// like any instruction (and waits in the latch while none is free).
//
// This unit also owns the sub-core's WIR tables (policies/wir_state.h), built from its
// parameters, which the writeback `wir` (register allocation stage) shares.
#include <deque>

#include "gpurf/modules/allocator/impl/round_robin.h"
#include "gpurf/modules/frontend/i_frontend.h"
#include "gpurf/policies/wir_state.h"

namespace gpurf {

class WirAllocator : public RoundRobinAllocator {
public:
  WirAllocator(sc_core::sc_module_name nm, Params& p, const UnitContext& c)
      : RoundRobinAllocator(nm, p, c),
        stages_(p.get_uint("stages", 4,
                           "cycles the WIR stages add to every instruction (Sec. VII-E: 4; "
                           "Fig. 22 varies 3-7): front_stages before the collectors, the rest "
                           "in the register-allocation stage",
                           1, 16)),
        front_(p.get_uint("front_stages", 2,
                          "cycles of the rename and reuse stages before the collectors (Sec. "
                          "VII-E: 1 each; 1: both in one cycle, a design exploration)",
                          1, 2)),
        lookups_(stats().scalar(
            "reuse_lookups", "reuse-buffer lookups", "instructions",
            energy::no_event("WIR: priced by the reuse_buffer structure's lookups"))),
        hits_(stats().scalar(
            "reuse_hits", "instructions that reused a result (bypassed the backend)",
            "instructions", energy::no_event("WIR: outcomes of reuse-buffer lookups"))),
        misses_(stats().scalar("reuse_misses", "reuse-buffer lookups that missed", "instructions",
                               energy::no_event("WIR: outcomes of reuse-buffer lookups"))),
        pending_waits_(stats().scalar("reuse_pending_waits",
                                      "hits on a pending entry that waited in the pending-retry "
                                      "queue",
                                      "instructions",
                                      energy::no_event("WIR: pending-retry queue entries"),
                                      check::unwatched("WIR: pending-retry queue entries"))),
        pending_hits_(stats().scalar("reuse_pending_hits",
                                     "reused instructions that waited for their result (pending-"
                                     "retry hits, counted in reuse_hits too)",
                                     "instructions",
                                     energy::no_event("WIR: outcomes of pending retries"),
                                     check::unwatched("WIR: outcomes of pending retries"))),
        stale_(stats().scalar("reuse_stale_loads",
                              "load hits whose recorded values memory no longer holds (another "
                              "warp's or SM's store since): dropped, the load executes (a miss)",
                              "instructions", energy::no_event("WIR: stale load entries"),
                              check::unwatched("WIR: stale load entries"))),
        skipped_(stats().vector(
            "reuse_skipped", kSkipKinds,
            "instructions that did not look the reuse buffer up, by the first reason",
            "instructions",
            {"memory", "control", "guarded", "carry", "shuffle_vote", "no_register_result",
             "too_many_operands", "other_operand", "divergent", "load_reuse_off",
             "load_after_store", "load_barriers", "pinned_source", "reuse_off"},
            energy::no_event("WIR: instructions by reason"))),
        miss_kinds_(stats().vector(
            "reuse_miss_kinds", ReuseMissOracle::kKinds,
            "reuse-buffer misses by cause: the tag's earlier instance still executing, the tag "
            "recorded earlier in the launch but replaced, the same computation on the same values "
            "earlier in the launch under other physical registers, or a first computation",
            "instructions", {"pending", "evicted", "other_registers", "first"},
            energy::no_event("WIR: reuse-buffer misses by cause"))),
        reused_sources_(stats().scalar(
            "reused_sources",
            "source operands of reused instructions (never read: "
            "their consumers check the reused results)",
            "registers", energy::no_event("WIR: operands never read"),
            check::unwatched("WIR: operands never read; tests/e2e/ptx_suite_test.cpp holds "
                             "operands checked + reused_sources to the front-end's operands"))),
        latch_full_(stats().scalar("stage_full",
                                   "issue attempts refused: the scheduler's WIR stages are full",
                                   "attempts", energy::no_event("WIR: refused issue attempts"),
                                   check::unwatched("WIR: refused issue attempts (stalls)"))),
        waits_(stats().scalar("collector_wait_cycles",
                              "cycles a renamed instruction waited for a collector", "cycles",
                              energy::no_event("WIR: stall cycles"),
                              check::unwatched("WIR: stall cycles"))) {
    WirOptions o;
    const SmShape& s = *c.shape;
    o.warps = s.warps_per_subcore();
    o.regs = s.regs_per_thread;
    // WIR's physical registers are the banks' rows (the zero register lives past them), with
    // the backing rows a kernel gets when its logical registers exceed the modelled rows (its
    // allocator count above ptxas's, Sm): every mapping needs a register, and without those
    // rows the mappings of the resident warps alone overflow the pool, no result finds a
    // register and the run stops at the watchdog (stress/gemm_rt: 8 warps x 187 > 1,024).
    const unsigned storage = s.banks * (s.storage_rows - 1);
    o.phys_regs = p.get_uint("phys_regs", storage,
                             "physical warp registers (default: the sub-core's bank rows, with "
                             "the backing rows of a kernel that has them)",
                             1, 1u << 20);
    o.release_latency = p.get_uint("release_latency", 2,
                                   "cycles from a reference count reaching 0 to the register "
                                   "being free (Sec. VII-E: 2)",
                                   0, 64);
    o.vsb_entries =
        p.get_uint("vsb_entries", 256, "value signature buffer entries, a power of two (0: NoVSB)",
                   0, 1u << 16);
    o.reuse_entries =
        p.get_uint("reuse_entries", 256, "reuse buffer entries, a power of two", 1, 1u << 16);
    o.reuse = p.get_bool("reuse", true,
                         "look instructions up in the reuse buffer (false: register reuse only)");
    o.load_reuse = p.get_bool("load_reuse", false,
                              "loads reuse earlier loads of the same address (Sec. VI-A: RL)");
    o.pending_retry = p.get_uint("pending_retry", 0,
                                 "pending-retry queue entries: a hit on a result still being "
                                 "computed waits for it (Sec. VI-B: 16; 0: none)",
                                 0, 1024);
    o.verify_cache =
        p.get_uint("verify_cache", 0,
                   "verify-cache entries serving verify-reads (Sec. VI-C: 8; 0: none)", 0, 1024);
    o.capped = p.get_choice("register_policy", "max",
                            "max (every physical register for reuse, low-register mode when "
                            "none is free) or capped (no more than the logical registers of the "
                            "active warps, Sec. V-E)",
                            {"max", "capped"}) == "capped";
    o.hash_bits = p.get_uint("hash_bits", 32,
                             "bits of the H3 value signature (fewer: more false matches)", 1, 32);
    o.verify = p.get_bool("verify", true,
                          "verify-read every VSB hit (false: trust the signature; a fault "
                          "injection: false matches then rename to wrong values)");
    o.banks = p.get_bool("bank_aware", true,
                         "a new physical register comes from the bank the baseline's register "
                         "mapping gives its logical register (one free queue per bank; false: "
                         "one queue, any bank; the paper is silent: docs/wir.md)")
                  ? s.banks
                  : 1;
    o.stages = stages_;
    o.front_stages = front_;
    if (stages_ < front_)
      p.fail("stages", std::to_string(stages_) + " is fewer than front_stages (" +
                           std::to_string(front_) +
                           "): the rename and reuse stages are part of it");
    if (o.vsb_entries & (o.vsb_entries - 1)) p.fail("vsb_entries", "must be a power of two");
    if (o.reuse_entries & (o.reuse_entries - 1)) p.fail("reuse_entries", "must be a power of two");
    if (o.phys_regs > storage)
      p.fail("phys_regs", std::to_string(o.phys_regs) + " physical registers do not fit the " +
                              std::to_string(storage) + " registers of the banks");
    if (c.wir) state_ = &c.wir->create(c.subcore, o, sibling_stats_path(""));
    stats().formula("reuse_rate", "reused / issued instructions of the sub-core", "ratio",
                    [this] { return ratio(double(hits_), double(issued_)); }); // 0/0: null
  }

  void tick(Cycle now) override {
    looked_up_ = false;
    retry_bind(now);
    for (auto& q : stage_) { // per scheduler, in issue order
      unsigned latched = 0;  // pipe bits whose latch holds an instruction
      for (auto it = q.begin(); it != q.end();) {
        Latch& l = *it;
        if (l.ready > now) { // still in the stages (and so are the younger ones)
          wake(l.ready);
          break;
        }
        const unsigned bit = pipe_bit(*l.inst);
        if (!l.latched) {
          if (latched & bit) break; // its pipe's latch is taken: it blocks the stages
          if (!l.renamed) {
            rename(*l.inst);
            l.renamed = true;
            if (reuse(*l.inst)) {
              it = q.erase(it);
              ctx_.wake_issue(); // a stage slot is free
              continue;
            }
          }
        }
        pkt_.prepare(Txn::Kind::Issue);
        pkt_.txn.inst = l.inst;
        if (!bind(pkt_.gp, pkt_.delay)) {
          ++waits_;
          wake(now + 1);
          l.latched = true;
          latched |= bit;
          ++it;
          continue;
        }
        it = q.erase(it);
        ctx_.wake_issue();
      }
    }
    if (!looked_up_) retry_pending(now); // the reuse stage's port is free this cycle
    if (!pending_.empty()) wake(now + 1);
  }

  unsigned front_stages() const override { return front_; }

  void dump_state(std::ostream& os) const override {
    RoundRobinAllocator::dump_state(os);
    for (unsigned k = 0; k < stage_.size(); ++k)
      for (const Latch& l : stage_[k])
        os << "  stages of scheduler " << k << ": warp " << l.inst->warp << " pc "
           << l.inst->info->pc << (l.renamed ? " (renamed)" : "") << "\n";
  }

protected:
  void on_issue(int, tlm::tlm_generic_payload& gp, sc_core::sc_time&) override {
    Txn& t = txn_of(gp);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    const unsigned k = t.inst->scheduler;
    if (k >= stage_.size()) stage_.resize(k + 1);
    if (in_stages(stage_[k]) == front_) { // every stage taken
      ++latch_full_;
      t.busy = true;
      return;
    }
    stage_[k].push_back({t.inst, now() + front_, false});
    ++issued_;
    wake(now() + front_);
  }

private:
  struct Latch {
    WarpInst* inst = nullptr;
    Cycle ready = 0;
    bool renamed = false;
    bool latched = false; // in its pipe's collector latch, out of the stages
  };
  static unsigned in_stages(const std::deque<Latch>& q) {
    unsigned n = 0;
    for (const Latch& l : q) n += !l.latched;
    return n;
  }

  // Sources to physical registers; a warp slot that got a new warp starts unmapped.
  void rename(WarpInst& inst) {
    if (!state_) return;
    const SmShape& s = *ctx_.shape;
    const unsigned lw = s.local_warp(inst.warp);
    if (lw >= seen_.size()) {
      seen_.resize(s.warps_per_subcore(), 0);
      started_.resize(s.warps_per_subcore(), false);
    }
    const uint64_t f = ctx_.frontend->warps_finished(inst.warp);
    if (!started_[lw]) { // its first instruction: active for the capped policy
      started_[lw] = true;
      ++state_->active_warps;
    }
    if (f != seen_[lw]) {
      seen_[lw] = f;
      state_->rename.clear(lw, state_->regs, now());
      state_->mem[lw] = WirState::WarpMem{};
    }
    WirState::WarpMem& m = state_->mem[lw];
    const InstInfo& info = *inst.info;
    if (info.mem == MemKind::Store || info.mem == MemKind::Atomic) {
      // Two flags (Sec. VI-A): a global store stops global loads only; a generic store
      // (no PTXPlus form) may write either space.
      m.stored_shared |= info.space == MemSpace::Shared || info.generic;
      m.stored_global |= info.space == MemSpace::Global;
      m.stored_param |= info.space == MemSpace::Param; // a call's arguments or return value
    }
    // cp.async reads global memory (mem Load) and writes the warp's shared memory.
    if (info.async == InstInfo::Async::Copy) m.stored_shared = true;
    // A fence or an acquire makes other threads' stores visible to the warp's later loads (a
    // flag polled, then the data it guards reloaded): as after a store of its own, its loads
    // reuse nothing until its next barrier (a count of its own would match another block
    // phase's entries).
    if (info.acquire) m.stored_shared = m.stored_global = true;
    if (info.barrier) {
      m.stored_shared = m.stored_global = false;
      if (m.barriers < 32) ++m.barriers;
    }
    state_->events.rename_reads += inst.n_src;
    for (unsigned k = 0; k < inst.n_src; ++k) {
      const RenameTables::Entry& e = state_->rename.at(lw, inst.info->src_reg[k]);
      inst.src[k].phys = e.phys >= 0 ? e.phys : int(state_->zero);
      inst.src[k].version = e.phys >= 0 ? e.version : 0;
    }
  }

  // Why an instruction did not look up (the static reasons first, as ReuseKey::Why - 1).
  enum Skip {
    kDivergent = 8,
    kLoadOff,
    kLoadAfterStore,
    kLoadBarriers,
    kPinned,
    kReuseOff,
    kSkipKinds
  };
  bool skip(unsigned why) {
    ++skipped_[why];
    return false;
  }

  // Whether `inst` may look the reuse buffer up; sets its tag's dynamic fields.
  bool reusable(WarpInst& inst) {
    const InstInfo& info = *inst.info;
    if (!state_) return false;
    if (!state_->options.reuse) return skip(kReuseOff); // register reuse only
    if (!info.reuse_op) return skip(info.reuse_why ? info.reuse_why - 1u : 0u);
    // Not all 32 lanes active, as the hardware sees it (divergence, or a CTA's partial last
    // warp, whose lanes without a thread hold 0, not another warp's values).
    if (inst.active_mask != ~0u) return skip(kDivergent);
    // A dedicated (pinned) register is written in place by the warp's next divergent writes
    // (Sec. V-D): like the VSB, the reuse buffer ties no value to it, so no tag names it.
    const unsigned lw = ctx_.shape->local_warp(inst.warp);
    for (unsigned j = 0; j < info.reuse_n; ++j)
      if (state_->rename.at(lw, info.src_reg[info.reuse_src[j]]).pin) return skip(kPinned);
    inst.reuse_block = -1;
    inst.reuse_barriers = 0;
    if (info.reuse_load == MemSpace::None) return true;
    const WirState::WarpMem& m = state_->mem[lw];
    const bool shared = info.reuse_load == MemSpace::Shared;
    if (!state_->options.load_reuse) return skip(kLoadOff);
    if ((shared && m.stored_shared) || (info.reuse_load == MemSpace::Global && m.stored_global) ||
        (info.reuse_load == MemSpace::Param && m.stored_param))
      return skip(kLoadAfterStore);
    // Read-only memory reuses as arithmetic does (Fig. 10 i1, i2): no barrier count.
    if (info.reuse_load == MemSpace::Const) return true;
    if (m.barriers > 31) return skip(kLoadBarriers);
    // The block: its CTA slot (the paper's Thread Block ID). The writeback drops a block's
    // entries when it ends, before the slot's next block (other shared memory) starts.
    inst.reuse_block = shared ? int16_t(inst.cta) : -1;
    inst.reuse_barriers = m.barriers;
    return true;
  }

  // The reuse stage: true if `inst` took a previous result and bypasses the backend (or waits
  // for one in the pending-retry queue).
  bool reuse(WarpInst& inst) {
    if (!reusable(inst)) return false;
    const ReuseTag tag = reuse_tag(inst);
    ++lookups_;
    ++state_->events.reuse_lookups;
    looked_up_ = true;
    ReuseBuffer::Lookup l = state_->reuse.lookup(tag);
    if (stale(inst, l)) l = ReuseBuffer::Lookup{false, false, -1, -1, 0, l.index};
    if (l.hit && !l.pending) {
      state_->misses.hit(inst);
      bypass(inst, l);
      return true;
    }
    if (l.hit && pending_.size() < state_->options.pending_retry) { // wait for the result
      ++pending_waits_;
      pending_.push_back(&inst);
      return true;
    }
    ++misses_;
    ++miss_kinds_[state_->misses.miss(inst, tag, l.hit)];
    if (l.hit) return false;    // another instruction is computing it; no room to wait
    if (state_->low_register) { // the miss frees the entry's registers instead of recording
      if (state_->reuse.evict(l.index, state_->regs, now())) state_->reuse_evicted_at = now();
      return false;
    }
    // It records its tag at retire: its source registers must keep their values till then.
    inst.reuse_tagged = true;
    state_->misses.executing(tag);
    for (unsigned j = 0; j < ReuseTag::kOperands; ++j)
      if (tag.regs >> j & 1) state_->regs.ref(tag.operand[j]);
    if (state_->options.pending_retry) state_->reuse.reserve(tag, state_->regs, now());
    return false;
  }

  // A ready hit of a load whose recorded values are not what the load reads now: memory
  // changed under the entry through a store the paper's flags do not see (another warp's or
  // SM's store or atomic: the first read of a CAS loop, `old = *p`, racing with the others'
  // CAS). Hardware would return the old values; gpurf's program sees the memory's, so the
  // entry is dropped and the load executes (a miss).
  bool stale(const WarpInst& inst, const ReuseBuffer::Lookup& l) {
    if (!l.hit || l.pending || inst.info->reuse_load == MemSpace::None ||
        l.values == result_values(inst))
      return false;
    ++stale_;
    state_->reuse.evict(l.index, state_->regs, now());
    return true;
  }

  // `inst` takes the result registers of hit `l` and goes to the writeback without executing.
  void bypass(WarpInst& inst, const ReuseBuffer::Lookup& l) {
    ++hits_;
    reused_sources_ += inst.n_src;
    inst.reused = true;
    for (unsigned k = 0; k < inst.n_dst; ++k) {
      inst.dst[k].phys = k ? l.result_hi : l.result;
      state_->regs.ref(unsigned(inst.dst[k].phys)); // in flight until retire maps it
    }
    if (ctx_.probe) ctx_.probe->reused(inst, now());
    pkt_.prepare(Txn::Kind::OperandsRead);
    pkt_.txn.inst = &inst;
    to_sched[inst.scheduler]->b_transport(pkt_.gp, pkt_.delay);
    pkt_.prepare(Txn::Kind::Complete);
    pkt_.txn.inst = &inst;
    to_wb[0]->b_transport(pkt_.gp, pkt_.delay);
  }

  // Pending-retry (Sec. VI-B): the oldest waiting instruction looks again: the result is
  // there (reuse), still pending (it queues again), or the entry is gone (it executes).
  void retry_pending(Cycle now) {
    if (pending_.empty()) return;
    WarpInst* inst = pending_.front();
    pending_.pop_front();
    const ReuseTag tag = reuse_tag(*inst);
    ReuseBuffer::Lookup l = state_->reuse.lookup(tag);
    ++state_->events.reuse_lookups;
    if (stale(*inst, l)) l = ReuseBuffer::Lookup{};
    if (l.hit && !l.pending) {
      ++pending_hits_;
      state_->misses.hit(*inst);
      bypass(*inst, l);
    } else if (l.hit) {
      pending_.push_back(inst);
    } else {
      ++misses_;
      ++miss_kinds_[state_->misses.miss(*inst, tag, false)];
      unbound_.push_back(inst);
    }
    wake(now + 1);
  }

  // Instructions that left the pending-retry queue to execute take collectors first.
  void retry_bind(Cycle now) {
    while (!unbound_.empty()) {
      pkt_.prepare(Txn::Kind::Issue);
      pkt_.txn.inst = unbound_.front();
      if (!bind(pkt_.gp, pkt_.delay)) {
        ++waits_;
        wake(now + 1);
        return;
      }
      unbound_.pop_front();
    }
  }

  const unsigned stages_, front_; // all added cycles; those before the collectors
  WirState* state_ = nullptr;
  std::vector<std::deque<Latch>> stage_; // per scheduler: the rename and reuse stages
  std::deque<WarpInst*> pending_;        // pending-retry queue
  std::deque<WarpInst*> unbound_;        // left the queue to execute: wait for a collector
  bool looked_up_ = false;               // the reuse stage looked up this cycle
  std::vector<uint64_t> seen_;           // per local warp slot: warps finished there when last seen
  std::vector<bool> started_;            // per local warp slot: a warp has renamed there
  Packet pkt_;
  uint64_t issued_ = 0;
  uint64_t &lookups_, &hits_, &misses_, &pending_waits_, &pending_hits_, &stale_;
  Stat &skipped_, &miss_kinds_;
  uint64_t &reused_sources_, &latch_full_, &waits_;
};

GPURF_REGISTER_UNIT(IAllocator, WirAllocator, "wir",
                    "WIR rename and reuse stages (Kim & Ro): physical sources, reuse-buffer "
                    "lookups bypassing the backend, then round-robin collector allocation; "
                    "needs writeback: wir");

} // namespace gpurf
