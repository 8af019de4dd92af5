// Register read of current NVIDIA cores (Huerta et al., MICRO'25, Sec. 5.1.1, 5.3): no
// operand collectors. One unit per sub-core holds every instruction between issue and
// dispatch. After the Control stage, the Allocate stage (`front` cycles after issue in all)
// looks the sources up in the register-file cache (modules/rfc/impl/operand_slots.h: one
// entry per bank, one value per operand slot, filled by the reuse bits) and reserves the
// bank read ports the misses need in the fixed `window` of cycles that follows (three on
// Ampere: "all the fixed-latency instructions spend three cycles for reading source
// operands"); each miss takes the latest free port cycle of its bank in the window, which
// reproduces the bubbles the paper measured (FMUL with both sources in one bank: 1, FFMA with
// three: 2, Listing 1's pairs: 0/1/2). An instruction whose reads do not fit is not
// issued that cycle (the paper holds it in Allocate and stalls issue, the same bubbles; a
// stall counter thus never counts down while its producer waits). The instruction
// dispatches when the window ends, `front + window` cycles after issue, always: results of
// older instructions still in flight are forwarded at their ready cycle (the result queue's
// bypass, Sec. 5.3), and a source that would be ready only after the window means the
// dependence was not kept (a stall count too small): the run stops naming it.
// Variable-latency instructions read through the same window (the paper queues them behind
// the fixed-latency ones; here they keep program order). docs/modern-core.md.
#include <algorithm>
#include <cstring>
#include <deque>
#include <map>
#include <sstream>
#include <unordered_set>

#include "gpurf/modules/collector/impl/ocu.h"
#include "gpurf/modules/collector/impl/read_ports.h"
#include "gpurf/modules/rfc/impl/operand_slots.h"

namespace gpurf {

class FixedWindow : public ICollector {
public:
  FixedWindow(sc_core::sc_module_name nm, Params& p, const UnitContext& c)
      : ICollector(nm, c),
        front_(p.get_uint("front", 2,
                          "cycles from issue to the first read cycle (Control and Allocate "
                          "stages)",
                          1, 16)),
        window_(p.get_uint("window", 3, "read cycles every instruction spends (Sec. 5.3)", 1, 16)),
        read_ports_(p.get_uint("read_ports", 1,
                               "read ports per bank (1024 bits each) the Allocate stage "
                               "reserves; bank.ports must give as many (1r1w: 1, 2r1w: 2)",
                               1, 2)),
        ports_(read_ports_),
        use_rfc_(p.get_bool("rfc", true,
                            "register-file cache: one entry per bank, a value per operand slot, "
                            "filled by reuse bits (Sec. 5.3.1)")),
        rfc_(c.shape->banks),
        issued_(stats().scalar("allocated", "instructions through the Allocate stage",
                               "instructions",
                               energy::no_event("modern core: the Allocate step (dispatched)"))),
        refused_(stats().scalar("port_conflicts",
                                "issue attempts refused: the reads did not fit the window's "
                                "free bank ports",
                                "attempts",
                                energy::no_event("modern core: refused issues (stalls)"))),
        bank_reads_(stats().scalar("bank_reads", "source registers read from the banks",
                                   "registers",
                                   energy::no_event("modern core: priced by bank slice_reads"))),
        hits_(stats().scalar(
            "rfc_hits", "source registers read from the register-file cache", "registers",
            energy::not_modelled(
                "modern core: operand-slot cache reads; no energy table prices that cache"))),
        misses_(stats().scalar(
            "rfc_misses", "operand-slot reads (slots 0-2) that found no cached value", "registers",
            energy::no_event("modern core: look-ups (bank_reads)"),
            check::unwatched("modern core: operand-slot look-ups that missed (a hit rate)"))),
        fills_(stats().scalar(
            "rfc_fills", "values the reuse bits put into the cache", "registers",
            energy::not_modelled("modern core: operand-slot cache writes"),
            check::unwatched("modern core: values the reuse bits cached (tag events)"))),
        oc_writes_(stats().scalar("oc_writes",
                                  "operands into the read stage (bank reads and cache hits)",
                                  "operands", energy::priced("collector_write_pj_per_operand"))),
        forwarded_(stats().scalar(
            "operands_forwarded", "sources replaced by a result still in flight (bypass)",
            "registers", energy::no_event("bypass: the operand write is priced by oc_writes"))),
        dispatched_(stats().scalar(
            "dispatched", "instructions dispatched", "instructions",
            energy::scope("dispatching a collected instruction to its pipe (operand collection)"))),
        dispatch_stall_(stats().scalar("dispatch_stall_cycles",
                                       "cycles past the window an instruction waited for its "
                                       "pipe (variable-latency pipes only)",
                                       "cycles", energy::no_event("stall cycles"),
                                       check::unwatched("stall cycles"))),
        checked_(stats().scalar(
            "operands_checked", "operands compared with functional values", "registers",
            energy::no_event("the simulator's value check, no hardware"),
            check::unwatched(
                "the value check's own count (a repeated source is read once, checked twice)"))),
        static_(stats().scalar("static_instructions",
                               "distinct instructions (pcs) through this unit", "instructions",
                               energy::no_event("modern core: a static count"),
                               check::unwatched("modern core: distinct pcs, a static count"))),
        static_reuse_(stats().scalar("static_reuse_instructions",
                                     "of those, with a reuse bit on at least one source (Table 6 "
                                     "\"% static inst. with reuse\")",
                                     "instructions",
                                     energy::no_event("modern core: a static count"),
                                     check::unwatched("modern core: a static count (Table 6)"))),
        latency_(stats().distribution("collection_latency",
                                      "cycles from the Allocate stage (the issue cycle) to the "
                                      "instruction's dispatch, per instruction",
                                      "cycles", Buckets::linear(1, 64))) {
    if (c.shape->banks > ReadPorts::kMaxBanks)
      p.fail("", "fixed_window: at most 8 banks per sub-core");
    stats().ratio("rfc_hit_rate", "rfc_hits / (rfc_hits + rfc_misses)", "ratio", {"rfc_hits"},
                  {"rfc_hits", "rfc_misses"});
  }

  unsigned read_stages() const override { return front_ + window_ + read_latency_ - 1; }
  void set_read_latency(unsigned cycles) override { read_latency_ = std::max(1u, cycles); }
  unsigned bank_read_ports() const override { return read_ports_; }
  unsigned capacity() const override { return ~0u >> 8; } // the whole read pipeline
  // What the timing checker holds the cache to: a hit per slot and cycle at most.
  OperandCache operand_cache() const override {
    return use_rfc_ ? OperandCache{OperandSlotRfc::kSlots, unsigned(kHitLatency)} : OperandCache{};
  }

  void tick(Cycle now) override {
    Cycle next = kNever;
    for (auto it = flights_.begin(); it != flights_.end();) {
      Flight& f = *it;
      for (unsigned k = 0; k < f.ops.size(); ++k) {
        Op& o = f.ops[k];
        if (!o.sent && o.read_at <= now) read(f, k, now);
        if (!o.sent) next = std::min(next, o.read_at);
      }
      if (f.arrived < f.ops.size()) { // woken by the arrivals
        ++it;
        continue;
      }
      Cycle ready = f.dispatch;
      for (const Op& o : f.ops) ready = std::max(ready, o.at);
      if (ready > now) {
        next = std::min(next, ready);
        ++it;
        continue;
      }
      if (try_dispatch(f, now)) {
        it = flights_.erase(it);
      } else {
        next = std::min(next, now + 1);
        ++it;
      }
    }
    ports_.forget_before(now);
    if (next != kNever) wake(next);
  }

  void slot_freed(unsigned warp) override { rfc_.drop_warp(warp); }

  void dump_state(std::ostream& os) const override {
    for (const Flight& f : flights_)
      os << "  warp " << f.inst->warp << " pc " << f.inst->info->pc << " " << f.inst->info->opname
         << ": " << f.arrived << "/" << f.ops.size() << " operands in, dispatch at " << f.dispatch
         << "\n";
    os << "  register-file cache: " << rfc_.valid() << " values\n";
  }

protected:
  struct Op {
    uint16_t reg = 0;
    unsigned bank = 0, row = 0;
    Cycle read_at = 0;
    bool sent = false;
    OperandSlotRfc::Ref hit;                // the cached value it reads (null: a bank read)
    std::vector<OperandSlotRfc::Ref> fills; // cache slots its value fills (reuse bits)
    bool fwd = false;                       // a result in flight replaces the value read
    Cycle fwd_ready = 0;
    uint64_t fwd_version = 0;
    LaneValues fwd_value{};
    LaneValues value{};
    uint64_t version = 0;
    Cycle at = kNever; // arrival
  };
  struct Flight {
    WarpInst* inst = nullptr;
    Cycle dispatch = 0;  // the window's end
    Cycle allocated = 0; // the issue cycle
    std::vector<Op> ops;
    unsigned arrived = 0;
    bool checked = false; // sources checked and released (OperandsRead)
  };

  // The Allocate stage, in the issue cycle: cache look-up, port reservation, cache update.
  void on_issue(tlm::tlm_generic_payload& gp, sc_core::sc_time&) override {
    Txn& t = txn_of(gp);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    WarpInst* inst = t.inst;
    const InstInfo& info = *inst->info;
    const SmShape& s = *ctx_.shape;
    Flight f;
    f.allocated = now();
    f.inst = inst;
    const unsigned warp = inst->warp;
    for (unsigned k = 0; k < info.n_src; ++k) {
      bool dup = false;
      for (const Op& o : f.ops) dup |= o.reg == info.src_reg[k];
      if (dup) continue;
      const BankLoc loc = s.mapping->map(s.local_warp(warp), info.src_reg[k]);
      Op o;
      o.reg = info.src_reg[k];
      o.bank = loc.bank;
      o.row = loc.row;
      f.ops.push_back(o);
    }
    auto op_of = [&](unsigned reg) -> Op& {
      for (Op& o : f.ops)
        if (o.reg == reg) return o;
      return f.ops[0];
    };
    unsigned slot_misses = 0;
    if (use_rfc_)
      for (unsigned k = 0; k < std::min<unsigned>(info.n_src, OperandSlotRfc::kSlots); ++k) {
        Op& o = op_of(info.src_reg[k]);
        if (auto v = rfc_.lookup(o.bank, k, warp, o.reg))
          o.hit = v;
        else
          ++slot_misses;
      }
    // The misses' reads, latest free port cycle first, in [start, start + window); an
    // instruction with more registers in a bank than the window has port cycles (64-bit
    // operands, vector stores) reads for as many cycles as it needs (read_ports.h).
    const Cycle start = now() + front_;
    std::vector<unsigned> banks, which;
    for (unsigned j = 0; j < f.ops.size(); ++j)
      if (!f.ops[j].hit) {
        banks.push_back(f.ops[j].bank);
        which.push_back(j);
      }
    const unsigned length = ports_.length(window_, banks);
    std::vector<Cycle> at;
    if (!ports_.reserve(start, length, banks, at)) { // no issue this cycle, the cache unchanged
      t.busy = true;
      ++refused_;
      ctx_.wake_issue();
      return;
    }
    for (unsigned k = 0; k < which.size(); ++k) f.ops[which[k]].read_at = at[k];
    for (Op& o : f.ops)
      if (o.hit) o.read_at = start + length - 1;
    // Every read of a bank's slot replaces or drops its entry unless the reuse bit keeps it.
    if (use_rfc_) {
      misses_ += slot_misses;
      for (unsigned k = 0; k < std::min<unsigned>(info.n_src, OperandSlotRfc::kSlots); ++k) {
        Op& o = op_of(info.src_reg[k]);
        if (auto v = rfc_.access(o.bank, k, warp, o.reg, info.reuse_mask >> k & 1)) {
          o.fills.push_back(v);
          ++fills_;
        }
      }
    }
    f.dispatch = start + length - 1 + read_latency_; // the last read's operand is in
    ++issued_;
    if (seen_.insert(info.pc).second) {
      ++static_;
      static_reuse_ += info.reuse_mask != 0;
    }
    Cycle first = kNever;
    for (const Op& o : f.ops) first = std::min(first, o.read_at);
    flights_.push_back(std::move(f));
    wake(flights_.back().ops.empty() ? flights_.back().dispatch : first);
  }

  // Operand k of f is read now: from the cache or a bank (reserved port); a result still in
  // flight replaces the value at its ready cycle.
  void read(Flight& f, unsigned k, Cycle now) {
    Op& o = f.ops[k];
    o.sent = true;
    WarpInst* inst = f.inst;
    q_.prepare(Txn::Kind::Forward);
    q_.txn.warp = inst->warp;
    q_.txn.reg = o.reg;
    to_fwd->b_transport(q_.gp, q_.delay);
    o.fwd = !q_.txn.busy;
    if (o.fwd) {
      o.fwd_version = q_.txn.version;
      o.fwd_ready = now + clock_->cycles(q_.delay);
      std::memcpy(o.fwd_value.data(), q_.gp.get_data_ptr(), kRegBytes);
    }
    if (o.hit) {
      ++hits_;
      const uint64_t version = o.hit->filled ? o.hit->version : 0;
      if (ctx_.probe)
        ctx_.probe->read({inst, o.reg, Store::Rfc, -1, o.row, all_slices(), version}, now);
      o.value = o.hit->lanes;
      o.version = version;
      arrive(f, o, now + kHitLatency);
      return;
    }
    ++bank_reads_;
    pkt_.prepare(Txn::Kind::Read, tlm::TLM_READ_COMMAND);
    Txn& t = pkt_.txn;
    t.inst = inst;
    t.warp = inst->warp;
    t.reg = o.reg;
    t.bank = uint16_t(o.bank);
    t.row = o.row;
    t.slice_mask = all_slices();
    t.collector = ctx_.index;
    t.operand = k;
    to_arb->b_transport(pkt_.gp, pkt_.delay);
  }

  void on_operand(tlm::tlm_generic_payload& gp, sc_core::sc_time& d) override {
    Txn& t = txn_of(gp);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    for (Flight& f : flights_) {
      if (f.inst != t.inst) continue;
      Op& o = f.ops[t.operand];
      if (now() != o.read_at) // the reservation promised this cycle's port
        throw std::runtime_error(
            std::string(name()) + ": the read of r" + std::to_string(o.reg) +
            " reserved for cycle " + std::to_string(o.read_at) + " was granted at " +
            std::to_string(now()) +
            ": the banks granted fewer reads per cycle than collector.read_ports reserved");
      std::memcpy(o.value.data(), gp.get_data_ptr(), kRegBytes);
      o.version = t.version;
      arrive(f, o, now() + clock_->cycles(d), t.slice_mask);
      return;
    }
    sc_assert(!"operand for an instruction not in the register-read stage");
  }

  // The operand is in (the value read, or the forwarded result at its ready cycle); the cache
  // slots the reuse bits gave it keep the same value.
  void arrive(Flight& f, Op& o, Cycle read_done, unsigned mask = 0) {
    Store from = o.hit ? Store::Rfc : Store::Bank;
    o.at = read_done;
    if (o.fwd) {
      o.value = o.fwd_value;
      o.version = o.fwd_version;
      o.at = std::max(read_done, o.fwd_ready);
      from = Store::Bypass;
      ++forwarded_;
    }
    if (o.at > f.dispatch) {
      std::ostringstream m;
      m << "operand check failed in " << name() << ": warp " << f.inst->warp << " pc "
        << f.inst->info->pc << " (PTX line " << f.inst->info->ptx_line << ", "
        << f.inst->info->opname << ") source r" << o.reg << ": the result of #" << o.version
        << " is ready at cycle " << o.at << ", after the read window ends at " << f.dispatch
        << " (a fixed-latency dependence the control bits did not keep)";
      throw OperandMismatch(m.str());
    }
    for (auto& v : o.fills) {
      v->filled = true;
      v->version = o.version;
      v->lanes = o.value;
    }
    if (ctx_.probe)
      ctx_.probe->arrived(*f.inst, o.reg, ctx_.index, from, mask ? mask : all_slices(), o.at);
    ++f.arrived;
    ++oc_writes_;
    wake(o.at);
  }

  bool try_dispatch(Flight& f, Cycle now) {
    WarpInst* inst = f.inst;
    const InstInfo& info = *inst->info;
    if (!f.checked) {
      check_sources(name(), *inst, [&](unsigned reg) {
        for (const Op& o : f.ops)
          if (o.reg == reg) return std::make_pair(&o.value, o.version);
        return std::make_pair(static_cast<const LaneValues*>(nullptr), uint64_t(0));
      });
      checked_ += info.n_src;
      pkt_.prepare(Txn::Kind::OperandsRead);
      pkt_.txn.inst = inst;
      to_sched[inst->scheduler]->b_transport(pkt_.gp, pkt_.delay);
      if (ctx_.probe) ctx_.probe->operands_read(*inst, now);
      f.checked = true;
    }
    pkt_.prepare(Txn::Kind::Dispatch);
    pkt_.txn.inst = inst;
    to_exec->b_transport(pkt_.gp, pkt_.delay);
    if (pkt_.txn.busy) {
      ++dispatch_stall_;
      return false;
    }
    inst->dispatch_cycle = now;
    latency_.sample(now - f.allocated);
    ++dispatched_;
    return true;
  }

  unsigned all_slices() const { return (1u << ctx_.shape->slices) - 1; }

  static constexpr Cycle kHitLatency = 1; // as a bank read (bank.latency 1, crossbar 0)
  const unsigned front_, window_, read_ports_;
  // Bank read to operand (bank, crossbar, W-C's decompression stage): the window's last read
  // is in that much later; the cache's hits need no decompression.
  unsigned read_latency_ = 1;
  ReadPorts ports_; // the sub-core's bank read ports, reserved per cycle
  const bool use_rfc_;
  OperandSlotRfc rfc_;
  std::deque<Flight> flights_;
  Packet pkt_, q_;
  uint64_t &issued_, &refused_, &bank_reads_, &hits_, &misses_, &fills_, &oc_writes_, &forwarded_,
      &dispatched_, &dispatch_stall_, &checked_, &static_, &static_reuse_;
  Distribution& latency_;
  std::unordered_set<uint32_t> seen_; // pcs allocated so far
};

GPURF_REGISTER_UNIT(ICollector, FixedWindow, "fixed_window",
                    "no collectors: Allocate reserves the banks' read ports for a fixed read "
                    "window, operand-slot register-file cache, results bypassed (Huerta et al. "
                    "MICRO'25)");

} // namespace gpurf
