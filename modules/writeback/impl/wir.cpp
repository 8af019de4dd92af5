// WIR's register allocation stage (Kim & Ro, shared/papers/004, Sec. V-A, V-D, Fig. 6, 7): a
// result waits `stages` - 2 cycles (hash generation, VSB access), then each destination gets a
// physical register:
//   reused       the reuse stage found the result: the destination takes the reused
//                register, nothing is written (the instruction retires at once)
//   divergent    a dedicated register: the one the pin bit says the logical register has,
//                or a new one (pin set; not registered in the VSB: it is overwritten in the
//                divergent flow), into which a dummy MOV "injected to the register file"
//                (Sec. V-D) first copies the inactive lanes: a bank read of the current
//                register (the writeback's read port, no crossbar), then the write
//   VSB hit      the hash of the value names a register: a verify-read compares it in the
//                register file (Fig. 7); equal: the destination shares it, no write; a
//                collision: a new register is written and replaces the VSB entry
//   VSB miss     a new register is written and registered in the VSB
// At retire the rename table maps each destination (the version it records is the producer
// of the register's value: under sharing, an older instruction) and a reusable convergent
// instruction records its tag and result in the reuse buffer. When no register can be
// allocated the stage waits in low-register mode (Sec. V-E): a VSB or reuse-buffer miss
// evicts the entry it indexes instead of recording, and each cycle a table had no such
// eviction one of its entries is evicted at random, until registers come back.
#include <cstring>
#include <memory>

#include "gpurf/modules/writeback/impl/priority.h"
#include "gpurf/policies/cache.h"
#include "gpurf/policies/wir_state.h"

namespace gpurf {

class WirWriteback : public PriorityWriteback {
public:
  WirWriteback(sc_core::sc_module_name nm, Params& p, const UnitContext& c)
      : PriorityWriteback(nm, p, c), state_(c.wir ? c.wir->at(c.subcore) : nullptr),
        verify_reads_(
            stats().scalar("verify_reads", "VSB hits verified by a bank read", "registers",
                           energy::no_event("WIR: priced as bank reads (bank slice_reads)"))),
        shared_(stats().scalar(
            "shared_writes", "results that share a register holding their value (no write)",
            "registers", energy::no_event("WIR: writes avoided (no bank access)"))),
        false_(stats().scalar("vsb_false_matches", "VSB hits whose register held another value",
                              "registers", energy::no_event("WIR: outcomes of verify-reads"))),
        vsb_misses_(stats().scalar(
            "vsb_misses", "results whose hash the VSB did not know", "registers",
            energy::no_event("WIR: outcomes of VSB lookups"),
            check::open_gap("WIR: VSB lookups that missed; retried lookups count again"))),
        dedicated_(stats().scalar(
            "dedicated_writes", "divergent results written to a dedicated (pinned) register",
            "registers", energy::no_event("WIR: bank writes (slice_writes)"),
            check::unwatched("WIR: bank writes by kind (the bank writes are watched)"))),
        movs_(stats().scalar(
            "dummy_movs", "dummy MOVs: first divergent redefinitions copying inactive lanes",
            "instructions",
            energy::no_event("WIR: the inactive lanes' copy into a new dedicated register: a bank "
                             "read and the result's write (slice_reads, slice_writes)"))),
        reused_results_(
            stats().scalar("reused_results", "destinations remapped to a reused result register",
                           "registers", energy::no_event("WIR: remaps, no bank access"))),
        bypassed_(stats().scalar("bypassed", "reused instructions retired without execution",
                                 "instructions",
                                 energy::no_event("WIR: reused instructions, no backend event"))),
        in_place_(stats().scalar(
            "in_place_writes",
            "results written over their register's old value (no free "
            "register, nothing to evict)",
            "registers", energy::no_event("WIR: bank writes (slice_writes)"),
            check::unwatched("WIR: bank writes by kind (the bank writes are watched)"))),
        vc_hits_(stats().scalar(
            "verify_cache_hits", "VSB hits verified in the verify cache (no bank read)",
            "registers", energy::no_event("WIR: priced by the verify_cache structure's reads"))),
        unverified_shares_(stats().scalar(
            "unverified_shares", "VSB hits shared without a verify-read (verify: false)",
            "registers", energy::no_event("WIR: a fault-injection count"))),
        block_drops_(stats().scalar(
            "reuse_block_drops",
            "reuse-buffer entries of shared loads dropped when their "
            "thread block ended",
            "entries",
            energy::no_event(
                "WIR: valid bits cleared (reference counts priced by refcount decrements)"),
            check::unwatched("WIR: reuse-buffer valid bits cleared"))),
        launch_drops_(stats().scalar(
            "reuse_launch_drops", "reuse-buffer entries dropped at the end of a launch", "entries",
            energy::no_event(
                "WIR: valid bits cleared (reference counts priced by refcount decrements)"),
            check::unwatched("WIR: reuse-buffer valid bits cleared"))),
        low_(stats().scalar("low_register_cycles",
                            "cycles a result waited for a free physical register (low-register "
                            "mode evictions)",
                            "cycles", energy::no_event("WIR: stall cycles"),
                            check::unwatched("WIR: stall cycles"))) {
    if (!state_) p.fail("impl", "the WIR writeback needs the WIR tables of allocator.impl: wir");
    if (const unsigned n = state_->options.verify_cache) {
      vcache_ = std::make_unique<CacheTags>(1, n, std::string(name()) + ".verify_cache");
      vc_group_ = std::make_unique<StatGroup>(sibling_stats_path("verify_cache"));
      vc_reads_ = &vc_group_->scalar(
          "reads", "verify-cache lookups", "reads",
          energy::structure("WIR: a verify-cache read (structures.verify_cache)"));
      vc_writes_ = &vc_group_->scalar(
          "writes", "verify-cache fills", "writes",
          energy::structure("WIR: a verify-cache write (structures.verify_cache)"));
    }
    stats().formula("vsb_hit_rate", "VSB lookups that found the value's register", "ratio", [this] {
      return ratio(double(shared_), double(shared_ + false_ + vsb_misses_)); // 0/0: null
    });
    stats().formula("phys_live", "physical registers allocated at the end", "registers",
                    [this] { return double(state_->regs.live()); });
    stats().formula("phys_peak", "physical registers allocated at most", "registers",
                    [this] { return double(state_->regs.peak_live()); });
  }

  bool renames() const override { return true; }

  unsigned write_stage() const override {
    return state_ ? state_->options.stages - state_->options.front_stages : 0;
  }

  void finish() override {
    PriorityWriteback::finish();
    state_->finish();
  }

  void tick(Cycle now) override {
    for (auto [inst, k] : copied_) send_write(inst, k, unsigned(inst->dst[k].phys));
    copied_.clear();
    retry_verified(now);
    PriorityWriteback::tick(now);
  }

protected:
  Cycle write_ready(const WarpInst& inst, Cycle ready) override {
    return inst.reused ? ready : ready + write_stage();
  }

  WriteAction prepare_write(Txn& t) override {
    const WriteAction a = choose_register(t);
    inflight_ += a != WriteAction::Wait;
    return a;
  }

  // The destination's physical register (with its in-flight reference), as the header says.
  WriteAction choose_register(Txn& t) {
    WarpInst& inst = *t.inst;
    const unsigned k = t.operand;
    if (inst.reused) { // the reuse stage chose the register
      ++reused_results_;
      remap(inst, k);
      return WriteAction::Skip;
    }
    WirState& s = *state_;
    const unsigned lw = ctx_.shape->local_warp(inst.warp);
    if (inst.divergent()) {
      const RenameTables::Entry& cur = s.rename.at(lw, inst.info->dst_reg[k]);
      int p = cur.pin ? cur.phys : -1;
      if (p >= 0) {
        s.regs.ref(unsigned(p));                            // the in-flight reference
      } else if ((p = allocate(home_bank(inst, k))) >= 0) { // the dummy MOV: inactive lanes first
        ++movs_;
        ++dedicated_;
        inst.dst[k].phys = p;
        t.kind = Txn::Kind::VerifyRead;
        place(t, cur.phys >= 0 ? unsigned(cur.phys) : s.zero);
        t.collector = uint16_t(ctx_.shape->collectors); // the writeback's read port
        t.data = nullptr;                               // a copy: nothing to compare
        return WriteAction::Send;
      } else if ((p = in_place(inst, k)) < 0) {
        return WriteAction::Wait;
      }
      ++dedicated_;
      return write_to(t, unsigned(p));
    }
    const uint32_t bits = state_->options.hash_bits;
    const uint32_t h = h3_hash(inst.dst[k].value) & (bits >= 32 ? ~0u : (1u << bits) - 1);
    hash_[&inst][k] = h;
    ++s.events.hashes;
    ++s.events.vsb_lookups;
    // A candidate whose own write has not reached its bank yet holds the register's previous
    // value there (a verify-read or the verify cache would compare that): as a miss.
    if (const int c = s.vsb.lookup(h); c >= 0 && s.landed[unsigned(c)]) {
      s.regs.ref(unsigned(c));
      inst.dst[k].phys = c;
      if (!s.options.verify) { // trusted: a false match renames wrongly
        ++unverified_shares_;
        ++shared_;
        remap(inst, k);
        return WriteAction::Skip;
      }
      if (vcache_) { // the verify cache first (Sec. VI-C)
        ++*vc_reads_;
        if (CacheTags::Line* line = vcache_->lookup(unsigned(c))) {
          vcache_->touch(line);
          ++vc_hits_;
          if (vvalues_.at(unsigned(c)) == inst.dst[k].value) {
            ++shared_;
            remap(inst, k);
            return WriteAction::Skip;
          }
          ++false_;
          s.regs.unref(unsigned(c), now());
          const int p = allocate(home_bank(inst, k));
          if (p < 0) {
            s.regs.ref(unsigned(c)); // retried next cycle from the start
            --false_;
            return WriteAction::Wait;
          }
          s.vsb.insert(h, unsigned(p), s.regs, now());
          ++s.events.vsb_inserts;
          return write_to(t, unsigned(p));
        }
      }
      t.kind = Txn::Kind::VerifyRead;
      place(t, unsigned(c));
      t.collector = uint16_t(ctx_.shape->collectors); // the writeback's read port
      t.data = reinterpret_cast<unsigned char*>(inst.dst[k].value.data());
      ++verify_reads_;
      return WriteAction::Send;
    }
    return new_register(t, h);
  }

  // A VSB miss: a new register, registered under the value's signature (in low-register
  // mode the miss evicts the entry instead), written.
  WriteAction new_register(Txn& t, uint32_t h) {
    WirState& s = *state_;
    const bool record = !s.low_register;
    if (!record && s.vsb.evict(s.vsb.index(h), s.regs, now())) s.vsb_evicted_at = now();
    int p = allocate(home_bank(*t.inst, t.operand));
    if (p < 0 && (p = in_place(*t.inst, t.operand)) < 0) return WriteAction::Wait;
    ++vsb_misses_;
    if (record) {
      ++s.events.vsb_inserts;
      s.vsb.insert(h, unsigned(p), s.regs, now());
    }
    return write_to(t, unsigned(p));
  }

  void on_write_done(tlm::tlm_generic_payload& gp, sc_core::sc_time& d) override {
    Txn& t = txn_of(gp);
    if (t.kind != Txn::Kind::VerifyDone) {
      state_->landed[unsigned(t.inst->dst[t.operand].phys)] = true;
      return PriorityWriteback::on_write_done(gp, d);
    }
    if (!t.data) { // a dummy MOV's copy read (of another register: nothing to cache): the
      copied_.push_back({t.inst, t.operand}); // write follows next cycle
      wake(now() + 1);
      return;
    }
    if (vcache_) { // the register's value, as the bank read it, into the verify cache
      const unsigned c = unsigned(t.inst->dst[t.operand].phys);
      if (CacheTags::Line* line = vcache_->lookup(c)) { // filled meanwhile: refresh
        vcache_->touch(line);
      } else {
        const CacheTags::Line old = vcache_->install(c);
        if (old.valid) vvalues_.erase(unsigned(old.line));
      }
      std::memcpy(vvalues_[c].data(), gp.get_data_ptr(), kRegBytes);
      ++*vc_writes_;
    }
    if (!t.busy) { // equal: share the register
      ++shared_;
      remap(*t.inst, t.operand);
      return request_done(t.inst);
    }
    ++false_; // a collision: write a new register next cycle (the request stays pending)
    unverified_.push_back({t.inst, t.operand});
    wake(now() + 1);
  }

  void retire(WarpInst* inst) override {
    WirState& s = *state_;
    const unsigned lw = ctx_.shape->local_warp(inst->warp);
    // First the reuse buffer (the tag's sources are still held by the lookup's references),
    // then the rename table (which may drop a source's mapping: add r1, r1, r2).
    if (inst->reuse_tagged) {
      const ReuseTag tag = reuse_tag(*inst);
      if (!s.options.pending_retry) s.reuse.reserve(tag, s.regs, now()); // else at the miss
      s.reuse.fill(tag, unsigned(inst->dst[0].phys), s.regs, now(),
                   inst->n_dst > 1 ? inst->dst[1].phys : -1, result_values(*inst));
      ++s.events.reuse_inserts;
      s.misses.retired(tag, true);
      for (unsigned j = 0; j < ReuseTag::kOperands; ++j) // the lookup's references
        if (tag.regs >> j & 1) s.regs.unref(tag.operand[j], now());
    }
    for (unsigned k = 0; k < inst->n_dst; ++k) {
      const unsigned p = unsigned(inst->dst[k].phys);
      s.rename.map(lw, inst->info->dst_reg[k], p, s.version[p], inst->divergent() && !inst->reused,
                   s.regs, now());
      s.regs.unref(p, now()); // the in-flight reference
      --inflight_;
      ++s.events.rename_writes;
    }
    if (inst->reused) ++bypassed_;
    hash_.erase(inst);
    const unsigned warp = inst->warp, cta = inst->cta;
    const uint64_t finished = ctx_.frontend->warps_finished(warp);
    PriorityWriteback::retire(inst); // the front-end may end the CTA, and the launch
    if (ctx_.frontend->warps_finished(warp) != finished) block_ended(cta);
    if (ctx_.frontend->done()) launch_ended();
  }

private:
  // Thread block `cta` (a CTA slot) ended: its shared memory goes with it, so its shared-load
  // entries go from every sub-core's reuse buffer before the slot's next block can start.
  void block_ended(unsigned cta) {
    for (unsigned k = 0; k < ctx_.wir->subcores(); ++k)
      if (WirState* s = ctx_.wir->at(k))
        block_drops_ += s->reuse.drop_block(int16_t(cta), s->regs, now());
  }

  // The SM ran its last CTA of the launch (nothing is in flight): a reuse-buffer entry belongs
  // to the launch that recorded it. Its key may hold kernel parameters by name (constant
  // operands) and its loads read memory the launch's stores changed; the next launch has new
  // parameters and follows a grid-wide barrier. Every sub-core's buffer is emptied. The
  // launch's warps have all ended, so their rename mappings go too: a slot's are otherwise
  // released when the slot's next warp starts, and a next kernel that uses fewer slots (fewer
  // warps fit its registers) would run with the slots it leaves idle holding the last
  // kernel's physical registers; its own then did not fit the pool and every result waited in
  // low-register mode for a register nothing could free (the watchdog).
  void launch_ended() {
    for (unsigned k = 0; k < ctx_.wir->subcores(); ++k)
      if (WirState* s = ctx_.wir->at(k)) {
        launch_drops_ += s->reuse.clear(s->regs, now());
        s->misses.clear();
        for (unsigned w = 0; w < s->options.warps; ++w) s->rename.clear(w, s->regs, now());
      }
  }

  // (bank, row) of physical register p.
  void place(Txn& t, unsigned p) const {
    t.bank = uint16_t(p % ctx_.shape->banks);
    t.row = p / ctx_.shape->banks;
  }

  // A write of the result into physical register p (holding its in-flight reference).
  WriteAction write_to(Txn& t, unsigned p) {
    if (vcache_) { // a register write evicts its verify-cache line
      vcache_->invalidate(p);
      vvalues_.erase(p);
    }
    t.inst->dst[t.operand].phys = int(p);
    state_->version[p] = t.inst->seq;
    state_->landed[p] = false;
    place(t, p);
    return WriteAction::Send;
  }

  // The destination maps to a register that holds its value already: the architectural write
  // without a bank write.
  void remap(WarpInst& inst, unsigned k) {
    const unsigned p = unsigned(inst.dst[k].phys);
    if (ctx_.probe) {
      const unsigned banks = ctx_.shape->banks;
      ctx_.probe->write({&inst, inst.info->dst_reg[k], Store::Rename, int(p % banks), p / banks,
                         (1u << ctx_.shape->slices) - 1, state_->version[p]},
                        now());
    }
  }

  // The bank the baseline's register mapping gives destination k of inst: where a new register
  // for it is taken from (bank-aware allocation; with one free queue the bank is ignored).
  unsigned home_bank(const WarpInst& inst, unsigned k) const {
    const SmShape& sh = *ctx_.shape;
    return sh.mapping->map(sh.local_warp(inst.warp), inst.info->dst_reg[k]).bank;
  }

  // A free register of `bank` if it has one, else of another bank (with one reference, the
  // in-flight one); none: a low-register-mode eviction this cycle, and -1.
  int allocate(unsigned bank) {
    WirState& s = *state_;
    // Capped: the tables hold no more registers than the logical registers of the active warps;
    // results on their way to retirement come on top (a new value
    // needs its register before the old one is released at retire).
    s.regs.free(now()); // releases due by now back in the pool (and out of live)
    const bool cap = s.options.capped && s.regs.live() - std::min(s.regs.live(), inflight_) >=
                                             s.options.regs * std::max(1u, s.active_warps);
    const int p = cap ? -1 : s.regs.allocate(now(), bank);
    s.low_register = p < 0;
    if (p >= 0) return p;
    if (low_at_ != now()) { // once per cycle (a table whose lookup missed evicted already)
      low_at_ = now();
      ++low_;
      if (s.vsb_evicted_at != now()) s.vsb.evict_random(uint32_t(s.rng()), s.regs, now());
      if (s.reuse_evicted_at != now()) s.reuse.evict_random(uint32_t(s.rng()), s.regs, now());
    }
    return -1;
  }

  // No free register and nothing left to evict would deadlock when the logical registers of
  // the resident warps fill the register file and share nothing (NoVSB; GPGPU-Sim PTX mode):
  // the destination's current register, named by nothing but its mapping, is overwritten in
  // place as in the baseline (its older readers have read it: WAR), and keeps its mapping.
  int in_place(WarpInst& inst, unsigned k) {
    WirState& s = *state_;
    const int p = s.rename.at(ctx_.shape->local_warp(inst.warp), inst.info->dst_reg[k]).phys;
    if (p < 0 || unsigned(p) == s.zero) {
      untag(inst);
      return -1;
    }
    unsigned own = 1; // the mapping, and this instruction's own tag references (add r1, r1, 1)
    if (inst.reuse_tagged) {
      const ReuseTag tag = reuse_tag(inst);
      for (unsigned j = 0; j < ReuseTag::kOperands; ++j)
        own += (tag.regs >> j & 1) && tag.operand[j] == unsigned(p);
    }
    if (s.regs.refs(unsigned(p)) != own) {
      // Its tag may hold a register no mapping names any more (a younger writer of its source
      // retired meanwhile): it gives the tag up, and the register may come free.
      untag(inst);
      return -1;
    }
    if (own > 1) untag(inst); // its tag names the register it overwrites: not recordable
    s.regs.ref(unsigned(p));  // the in-flight reference
    ++in_place_;
    return p;
  }

  // `inst` will not record its reuse tag: the references that kept its sources go.
  void untag(WarpInst& inst) {
    if (!inst.reuse_tagged) return;
    const ReuseTag tag = reuse_tag(inst);
    // Its reservation goes too (pending-retry): waiting instructions then execute.
    if (state_->options.pending_retry) state_->reuse.cancel(tag, state_->regs, now());
    state_->misses.retired(tag, false);
    for (unsigned j = 0; j < ReuseTag::kOperands; ++j)
      if (tag.regs >> j & 1) state_->regs.unref(tag.operand[j], now());
    inst.reuse_tagged = false;
  }

  // A write of destination k of inst into physical register p, after its register-file read.
  void send_write(WarpInst* inst, unsigned k, unsigned p) {
    write_to(write_request(inst, k), p);
    to_arb->b_transport(pkt_.gp, pkt_.delay);
    ++writes_;
  }

  // Collisions found by verify-reads: a new register is written instead.
  void retry_verified(Cycle now) {
    for (size_t i = 0; i < unverified_.size();) {
      auto [inst, k] = unverified_[i];
      WirState& s = *state_;
      const int p = allocate(home_bank(*inst, k));
      if (p < 0) {
        ++i;
        wake(now + 1);
        continue;
      }
      s.regs.unref(unsigned(inst->dst[k].phys), now); // the false candidate
      s.vsb.insert(hash_[inst][k], unsigned(p), s.regs, now);
      ++s.events.vsb_inserts;
      send_write(inst, k, unsigned(p));
      unverified_[i] = unverified_.back();
      unverified_.pop_back();
    }
  }

  WirState* state_;
  // The verify cache (Sec. VI-C): tags by physical register, LRU, and the values.
  std::unique_ptr<CacheTags> vcache_;
  std::unordered_map<unsigned, LaneValues> vvalues_;
  std::unique_ptr<StatGroup> vc_group_; // energy: structures.verify_cache
  uint64_t *vc_reads_ = nullptr, *vc_writes_ = nullptr;
  std::unordered_map<const WarpInst*, std::array<uint32_t, InstInfo::kMaxDst>> hash_;
  std::vector<std::pair<WarpInst*, unsigned>> unverified_;
  std::vector<std::pair<WarpInst*, unsigned>> copied_; // dummy MOVs read: write next cycle
  Cycle low_at_ = kNever;
  unsigned inflight_ = 0; // destinations between register choice and retire
  uint64_t &verify_reads_, &shared_, &false_, &vsb_misses_, &dedicated_, &movs_, &reused_results_,
      &bypassed_, &in_place_, &vc_hits_, &unverified_shares_, &block_drops_, &launch_drops_, &low_;
};

GPURF_REGISTER_UNIT(IWriteback, WirWriteback, "wir",
                    "WIR register allocation stage: H3 hash, value signature buffer, "
                    "verify-reads, register sharing, rename-table and reuse-buffer updates; "
                    "needs allocator: wir");

} // namespace gpurf
