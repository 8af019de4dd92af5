// Baseline operand collector unit (GPGPU-Sim style): one instruction at a time; requests
// each distinct source register once, at most `src_slots` outstanding; when all operands
// are in, checks them against the functional values and dispatches.
#pragma once
#include <cstring>
#include <sstream>

#include "gpurf/modules/collector/i_collector.h"
#include "gpurf/modules/common/skipped_retries.h"
#include "gpurf/modules/frontend/i_frontend.h"
#include "gpurf/policies/reg_mapping.h"

namespace gpurf {

// A delivered operand differs from the functional value: the timing model is wrong.
struct OperandMismatch : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Every source operand of `inst` must be the value of the right producer (version tag: a
// stale read is caught even when the old and new values are equal) and equal the functional
// value in all 32 lanes (inactive lanes hold the thread's previous value in both).
// `held(reg)` gives what the collector holds for a source register: {value, version tag}.
// `unit` is the module's name as SystemC keeps it: a std::string made per call would cost an
// allocation per instruction (the names are longer than the short-string buffer).
template <class Held> void check_sources(const char* unit, const WarpInst& inst, Held&& held) {
  const InstInfo& info = *inst.info;
  for (unsigned k = 0; k < info.n_src; ++k) {
    const auto [value, version] = held(info.src_reg[k]);
    const RegOperand& want = inst.src[k];
    auto fail = [&](const std::string& what) {
      std::ostringstream m;
      m << "operand check failed in " << unit << ": warp " << inst.warp << " pc " << info.pc
        << " (PTX line " << info.ptx_line << ", " << info.opname << ") source " << k
        << " register r" << info.src_reg[k] << ": " << what;
      throw OperandMismatch(m.str());
    };
    if (version != want.version)
      fail("stale value: expected the value of instruction #" + std::to_string(want.version) +
           ", got " +
           (version == kMixedVersion ? std::string("slices of different writes")
                                     : "the value of instruction #" + std::to_string(version)));
    if (*value != want.value) // lane by lane only to name the first that differs
      for (unsigned l = 0; l < kWarpSize; ++l)
        if ((*value)[l] != want.value[l]) {
          std::ostringstream m;
          m << "lane " << l << ": expected 0x" << std::hex << want.value[l] << " got 0x"
            << (*value)[l];
          fail(m.str());
        }
  }
}

class Ocu : public ICollector {
public:
  Ocu(sc_core::sc_module_name nm, Params& p, const UnitContext& c)
      : ICollector(nm, c),
        slots_(p.get_uint("src_slots", 3, "source registers in flight at once", 1, 16)),
        reads_(
            stats().scalar("reads_requested", "source registers requested", "registers",
                           energy::no_event("requests; the reads are priced by bank slice_reads"))),
        writes_(stats().scalar("oc_writes", "operand writes into the collector from the crossbar",
                               "writes", energy::priced("collector_write_pj_per_operand"))),
        hi_halves_(stats().scalar(
            "reg64_high_halves",
            "high halves of 64-bit operands that entered with their low half's write "
            "(frontend.reg64: one_operand)",
            "registers",
            energy::no_event("a 64-bit operand is one collector write: its low half's"))),
        dispatched_(stats().scalar(
            "dispatched", "instructions dispatched", "instructions",
            energy::scope("dispatching a collected instruction to its pipe (operand collection)"))),
        dispatch_stall_(stats().scalar(
            "dispatch_stall_cycles", "cycles ready but the pipe could not accept", "cycles",
            energy::no_event("stall cycles"), check::unwatched("stall cycles"))),
        checked_(stats().scalar(
            "operands_checked", "operands compared with functional values", "registers",
            energy::no_event("the simulator's value check, no hardware"),
            check::unwatched(
                "the value check's own count (a repeated source is read once, checked twice)"))),
        latency_(stats().distribution("collection_latency",
                                      "cycles from the collector's allocation to the "
                                      "instruction's dispatch, per instruction",
                                      "cycles", Buckets::linear(1, 64))) {}

  void tick(Cycle now) override {
    if (!inst_) return;
    request(now);
    if (arrived_ < ops_.size()) return; // woken again by operand arrivals
    Cycle ready = earliest_;
    for (auto& o : ops_) ready = std::max(ready, o.at);
    if (ready > now) return wake(ready);
    if (!operands_read_sent_) {
      check();
      send_sched(Txn::Kind::OperandsRead);
      if (ctx_.probe) ctx_.probe->operands_read(*inst_, now);
      operands_read_sent_ = true;
    }
    // W-C's decompression stage at dispatch: the pipe takes the instruction now (the collector
    // is free) and gets its operands when its compressed ones are through the stage.
    unsigned compressed = 0;
    if (stage_)
      for (const Operand& o : ops_) compressed += o.compressed;
    const Cycle at = compressed ? stage_(compressed, now, false) : now;
    pkt_.prepare(Txn::Kind::Dispatch);
    pkt_.txn.inst = inst_;
    pkt_.txn.skipped = skipped_dispatches(now);
    pkt_.delay = clock_->time(at - now);
    to_exec->b_transport(pkt_.gp, pkt_.delay);
    if (pkt_.txn.busy) {
      ++dispatch_stall_;
      // Asleep until the pipe can take it (the cycle it names, or its wire), not retrying
      // every cycle: a memory-bound kernel's collectors wait on the LSU most cycles.
      skips_.refused(now);
      const Cycle retry = pkt_.txn.retry_at;
      return wake(retry == 0 || retry <= now ? now + 1 : retry);
    }
    if (compressed) stage_(compressed, now, true); // a 0-cycle stage takes units too
    inst_->dispatch_cycle = now;
    latency_.sample(now - allocated_);
    ++dispatched_;
    dispatched(*inst_);
    inst_ = nullptr;
    pkt_.prepare(Txn::Kind::Release);
    to_alloc->b_transport(pkt_.gp, pkt_.delay);
  }

  void dispatch_event() override {
    if (skips_.waiting()) wake(now());
  }

  // The refused dispatches it skipped asleep before `at`, counted (each was a stall cycle).
  void settle(Cycle at) override { dispatch_stall_ += skips_.settle(at); }
  void finish() override { settle(now()); }
  // The dispatches skipped asleep, counted now, for the pipe too. None outstanding: 0.
  uint32_t skipped_dispatches(Cycle now) {
    if (!skips_.waiting()) return 0;
    settle(now);
    return skips_.take();
  }

  bool set_dispatch_stage(DispatchStage stage) override {
    stage_ = std::move(stage);
    return true;
  }

  void dump_state(std::ostream& os) const override {
    if (!inst_) return void(os << "  free\n");
    os << "  warp " << inst_->warp << " pc " << inst_->info->pc << " " << inst_->info->opname
       << ": " << arrived_ << "/" << ops_.size() << " operands in, " << sent_ << " requested\n";
  }

protected:
  void on_issue(tlm::tlm_generic_payload& gp, sc_core::sc_time&) override {
    Txn& t = txn_of(gp);
    sc_assert(!inst_);
    inst_ = t.inst;
    ops_.clear();
    const InstInfo& info = *inst_->info;
    for (unsigned k = 0; k < info.n_src; ++k) {
      bool dup = false;
      for (auto& o : ops_) dup |= o.reg == info.src_reg[k];
      // The high half of a 64-bit operand (frontend.reg64: one_operand) travels with its low
      // half, which was pushed just before it (a repeated pair is skipped whole).
      if (dup) continue;
      Operand op{info.src_reg[k], kNever, {}, 0, false};
      op.hi = info.src_is_hi(k) && !ops_.empty() && ops_.back().reg == info.src_reg[k - 1];
      ops_.push_back(op);
    }
    sent_ = arrived_ = hi_sent_ = hi_arrived_ = 0;
    to_read_ = unsigned(ops_.size());
    operands_read_sent_ = false;
    allocated_ = now();
    earliest_ = now() + read_stages();
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    wake(now() + 1);
  }

  void on_operand(tlm::tlm_generic_payload& gp, sc_core::sc_time& d) override {
    Txn& t = txn_of(gp);
    Operand& o = ops_[t.operand];
    std::memcpy(o.value.data(), gp.get_data_ptr(), kRegBytes);
    arrive(o, t, d);
    ++(t.companion ? hi_halves_ : writes_);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
  }

protected:
  struct Operand {
    uint16_t reg;
    Cycle at; // arrival cycle
    LaneValues value;
    uint64_t version = 0;    // tag the storage delivered with the value
    bool compressed = false; // read compressed from the banks (W-C's stage at dispatch)
    bool hi = false;         // the high half of the operand before it (one request, one slot)
  };

  // Bookkeeping of an operand that entered the collector: arrival cycle, version tag.
  void arrive(Operand& o, const Txn& t, const sc_core::sc_time& d) {
    o.at = now() + clock_->cycles(d);
    o.version = t.version;
    // Read in fewer slices than a bank has: BDI-compressed (W-C), for a stage at dispatch.
    o.compressed =
        t.from == Store::Bank && unsigned(__builtin_popcount(t.slice_mask)) < ctx_.shape->slices;
    if (ctx_.probe) ctx_.probe->arrived(*t.inst, t.reg, ctx_.index, t.from, t.slice_mask, o.at);
    ++arrived_;
    hi_arrived_ += t.companion;
    wake(o.at);
  }

  virtual void request(Cycle now) {
    // In flight: sent and not arrived (the operands past to_read_ arrive without a read); a
    // 64-bit operand's two halves take one slot.
    const unsigned unread = unsigned(ops_.size()) - to_read_;
    while (sent_ < to_read_ && sent_ - hi_sent_ + unread < arrived_ - hi_arrived_ + slots_) {
      const BankLoc loc = loc_of(ops_[sent_].reg);
      pkt_.prepare(Txn::Kind::Read, tlm::TLM_READ_COMMAND);
      const bool pair = sent_ + 1 < to_read_ && ops_[sent_ + 1].hi;
      if (pair) {
        const unsigned hr = ops_[sent_ + 1].reg;
        const BankLoc hl = loc_of(hr);
        Txn::Hi& h = pkt_.txn.hi;
        h.on = true;
        h.reg = uint16_t(hr);
        h.bank = uint16_t(hl.bank);
        h.row = hl.row;
        h.slice_mask = uint8_t(read_mask(hl, true));
      }
      Txn& t = pkt_.txn;
      t.inst = inst_;
      t.warp = inst_->warp;
      t.reg = ops_[sent_].reg;
      t.bank = loc.bank;
      t.row = loc.row;
      t.slice_mask = read_mask(loc, false);
      t.collector = ctx_.index;
      t.operand = sent_;
      requesting(sent_);
      to_arb->b_transport(pkt_.gp, pkt_.delay);
      ++sent_;
      ++reads_;
      if (pair) { // registers requested: both halves
        ++sent_, ++hi_sent_;
        ++reads_;
      }
    }
    (void)now;
  }

  // Operand `k`'s read request is about to leave (fixed_stage: look for a result to forward).
  virtual void requesting(unsigned k) {}
  // The physical register logical source `reg` was renamed to (WIR), or -1.
  int phys_of(unsigned reg) const {
    for (unsigned k = 0; k < inst_->info->n_src; ++k)
      if (inst_->info->src_reg[k] == reg) return inst_->src[k].phys;
    return -1;
  }
  // `inst` left for its pipe; the collector is free again (a CCU unlocks its sources).
  virtual void dispatched(const WarpInst&) {}

  // Where register `reg` of the collected instruction lives: its renamed physical register,
  // else the platform's mapping.
  BankLoc loc_of(unsigned reg) const {
    const SmShape& s = *ctx_.shape;
    const int phys = phys_of(reg);
    return phys >= 0 ? BankLoc{unsigned(phys) % s.banks, unsigned(phys) / s.banks}
                     : s.mapping->map(s.local_warp(inst_->warp), reg);
  }

  // Slices a read at `loc` touches (`high_half`: a 64-bit operand's, read with its low half):
  // all of them in the baseline.
  virtual unsigned read_mask(const BankLoc& loc, bool high_half) const {
    return (1u << ctx_.shape->slices) - 1;
  }

  // Every source operand must be the value of the right producer (check_sources).
  virtual void check() {
    check_sources(name(), *inst_, [&](unsigned reg) {
      for (const Operand& x : ops_)
        if (x.reg == reg) return std::make_pair(&x.value, x.version);
      return std::make_pair(static_cast<const LaneValues*>(nullptr), uint64_t(0));
    });
    checked_ += inst_->info->n_src;
  }

  void send_sched(Txn::Kind k) {
    pkt_.prepare(k);
    pkt_.txn.inst = inst_;
    to_sched[inst_->scheduler]->b_transport(pkt_.gp, pkt_.delay);
  }

  const unsigned slots_;
  DispatchStage stage_; // W-C's decompression stage at dispatch (empty: none)
  WarpInst* inst_ = nullptr;
  Cycle earliest_ = 0;  // dispatch no earlier (fixed-stage register read)
  Cycle allocated_ = 0; // inst_ took the collector
  std::vector<Operand> ops_;
  unsigned sent_ = 0, arrived_ = 0;
  unsigned hi_sent_ = 0, hi_arrived_ = 0; // of sent_ and arrived_: 64-bit operands' high halves
  unsigned to_read_ = 0; // ops_[0, to_read_) are read from the banks (a CCU: its misses)
  bool operands_read_sent_ = false;
  Packet pkt_;
  uint64_t& reads_;
  uint64_t& writes_;
  uint64_t& hi_halves_;
  uint64_t& dispatched_;
  uint64_t& dispatch_stall_;
  SkippedRetries skips_; // dispatches refused with a retry cycle or wire (Txn::retry_at)
  uint64_t& checked_;
  Distribution& latency_;
};

} // namespace gpurf
