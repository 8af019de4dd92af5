// Gebhart et al. (ISCA'11) register file cache: per-warp sets of `entries` registers with
// FIFO (default) or LRU replacement, 3 read ports and 1 write port, a tag-check stage before
// the MRF (+1 cycle for every operand, Fig. 3b), every result allocated (Sec. 3.1), evicted
// values written back to the MRF unless the static liveness bit marked them dead. Options:
// allocate source operands too (Sec. 3.1), bypass long-latency results to the MRF (Sec. 3.3),
// bypass values not read before the warp is deactivated and evict first values not read
// before the next long-latency operation (Sec. 5.3). Values travel: a hit delivers the RFC's
// copy, checked at dispatch like any MRF operand.
#include <cstring>
#include <deque>
#include <memory>
#include <unordered_map>
#include <unordered_set>

#include "gpurf/modules/common/inst_pool.h"
#include "gpurf/modules/rfc/i_rfc.h"
#include "gpurf/policies/reg_mapping.h"
#include "gpurf/policies/rfc_store.h"

namespace gpurf {

namespace {
// The instruction record an RFC write-back to the MRF travels with (the arbiter and banks
// take write data from inst->dst[operand]).
InstInfo make_writeback_info() {
  InstInfo i;
  i.opname = "rfc_writeback";
  return i;
}
const InstInfo kWritebackInfo = make_writeback_info();
} // namespace

class CacheRfc : public IRfc {
public:
  enum Bypass { kInactive, kLongLatency, kUnread, kBypassKinds };

  CacheRfc(sc_core::sc_module_name nm, Params& p, const UnitContext& c)
      : IRfc(nm, c),
        entries_(p.get_uint("entries", 6, "RFC entries per thread (per warp register set)", 1, 8)),
        read_ports_(p.get_uint("read_ports", 3, "RFC operand reads per cycle", 1, 16)),
        write_ports_(p.get_uint("write_ports", 1, "RFC allocations per cycle", 1, 16)),
        tag_latency_(p.get_uint("tag_latency", 1, "tag-check stage before the MRF, cycles", 0, 8)),
        hit_latency_(p.get_uint("hit_latency", 1, "cycles to read a hit", 0, 8)),
        liveness_(p.get_bool("liveness", true,
                             "static liveness: dead values are not written back (Sec. 3.1)")),
        alloc_sources_(p.get_bool("allocate_sources", false,
                                  "also allocate source operands read from the MRF (Sec. 3.1)")),
        bypass_ll_(p.get_bool("bypass_long_latency", false,
                              "results of long-latency loads go straight to the MRF (Sec. 3.3)")),
        bypass_unread_(p.get_bool("bypass_unread", false,
                                  "results not read before the warp is deactivated go straight "
                                  "to the MRF (Sec. 5.3)")),
        store_(c.shape->warps, entries_, replacement(p),
               p.get_bool("evict_first", false,
                          "evict first values not read before the next long-latency operation "
                          "(Sec. 5.3)")),
        reads_(stats().scalar("reads", "operands read from the RFC (hits)", "operands",
                              energy::structure("operands read from the RFC"))),
        writes_(stats().scalar("writes", "values written into the RFC", "registers",
                               energy::structure("values written into the RFC"))),
        misses_(stats().scalar(
            "misses", "operands not in the RFC, read from the MRF", "operands",
            energy::no_event("MRF reads; priced by bank slice_reads (tag checks not modelled)"))),
        results_(stats().scalar(
            "results", "result registers from the writeback", "registers",
            energy::no_event("results offered; each is an rfc write or a bank write"))),
        mrf_writes_(stats().scalar("mrf_writes", "writes the RFC sends to the MRF", "registers",
                                   energy::no_event("priced by bank slice_writes"))),
        wb_live_(stats().scalar("writebacks",
                                "live dirty values written back to the MRF "
                                "(evictions and flushes)",
                                "registers",
                                energy::structure("dirty values read out of the RFC for the MRF"))),
        wb_dead_(stats().scalar("dead_elided", "dirty values dropped because dead (liveness)",
                                "registers",
                                energy::no_event("dead values dropped without an access"),
                                check::unwatched("dead values dropped without an access"))),
        wb_flush_(
            stats().scalar("flush_writebacks", "write-backs caused by warp deactivation",
                           "registers", energy::no_event("part of writebacks"),
                           check::unwatched("the part of rfc.writebacks a deactivation caused"))),
        flushes_(stats().scalar(
            "flushes", "warp deactivations that flushed a non-empty set", "flushes",
            energy::no_event("flush operations; their write-backs are in writebacks"),
            check::unwatched(
                "deactivations that flushed; their write-backs are in rfc.writebacks"))),
        bypass_(stats().vector(
            "bypass", kBypassKinds, "results written to the MRF around the RFC", "registers",
            {"inactive_warp", "long_latency", "unread"},
            energy::no_event("results written around the RFC; priced by bank slice_writes"))),
        wait_(stats().scalar("eviction_waits",
                             "read-cycles a miss waited for a write-back of "
                             "its register to reach the MRF",
                             "cycles", energy::no_event("waits"), check::unwatched("waits"))),
        port_stall_(stats().scalar("write_port_stall_cycles",
                                   "cycles a result waited for the RFC write port", "cycles",
                                   energy::no_event("stalls"), check::unwatched("stalls"))),
        exit_dropped_(stats().scalar(
            "exit_dropped",
            "dirty live entries dropped without write-back because "
            "their warp's CTA finished (every register dead)",
            "registers", energy::no_event("values of finished warps dropped without an access"),
            check::unwatched("values of finished warps dropped without an access"))),
        reuse_(stats().distribution(
            "reuse_distance",
            "cycles from a register's previous access in the RFC (its allocation or a read) to "
            "a read that hits",
            "cycles", Buckets::log2(24))),
        residency_(stats().distribution(
            "residency",
            "cycles a register stayed in the RFC, from its allocation to the eviction, "
            "invalidation or flush that took it out (a newer value of it does not end its stay)",
            "cycles", Buckets::log2(24))),
        active_(c.shape->warps, true) {
    stats().ratio("hit_rate", "reads / (reads + misses)", "ratio", {"reads"}, {"reads", "misses"});
    stats().formula("mrf_reads_avoided", "MRF reads replaced by RFC reads", "registers",
                    [this] { return double(reads_); });
    stats().formula("mrf_writes_avoided", "results that never reached the MRF", "registers",
                    [this] { return double(results_) - double(mrf_writes_); });
    pkt_.gp.set_data_length(kRegBytes);
    pkt_.gp.set_streaming_width(kRegBytes);
  }

  void tick(Cycle now) override {
    store_.at(now);
    bool more = false;
    // Results: allocate (write_ports per cycle) or bypass to the MRF.
    unsigned wports = write_ports_;
    for (auto it = writes_q_.begin(); it != writes_q_.end();) {
      Txn& t = *it;
      WarpInst* inst = t.inst;
      const InstInfo& info = *inst->info;
      int why = !active_[t.warp]                                              ? kInactive
                : bypass_ll_ && info.produces_long_latency                    ? kLongLatency
                : bypass_unread_ && info.dst_unread_before_suspend[t.operand] ? kUnread
                                                                              : -1;
      if (why >= 0) {
        if (const RfcEntry* e = store_.find(t.warp, t.reg)) residency_.sample(now - e->filled);
        store_.invalidate(t.warp, t.reg); // the MRF gets the newer value
        dropped_.erase(key(t.warp, t.reg));
        diverged_.erase(key(t.warp, t.reg));
        ++bypass_[unsigned(why)];
        ++mrf_writes_;
        fwd_.prepare(Txn::Kind::Write, tlm::TLM_WRITE_COMMAND);
        fwd_.txn = t;
        fwd_.txn.busy = false;
        to_arb->b_transport(fwd_.gp, fwd_.delay);
        it = writes_q_.erase(it);
        continue;
      }
      if (!wports) {
        more = true;
        if (!bypass_ll_ && !bypass_unread_ && !inactive_) break; // none behind it bypasses
        ++it;
        continue;
      }
      --wports;
      ++writes_;
      const bool dead = liveness_ && info.dst_dead[t.operand];
      if (ctx_.probe)
        ctx_.probe->write({inst, t.reg, Store::Rfc, -1, 0, t.slice_mask, t.version}, now);
      dropped_.erase(key(t.warp, t.reg));
      if (inst->divergent())
        diverged_[key(t.warp, t.reg)] = {inst->active_mask, inst->thread_mask};
      else
        diverged_.erase(key(t.warp, t.reg));
      if (auto v = store_.allocate(t.warp, t.reg, inst->dst[t.operand].value, true, dead,
                                   info.dst_evict_first[t.operand], t.version))
        evict(t.warp, *v, false);
      pkt_.prepare(Txn::Kind::WriteDone);
      pkt_.txn = t;
      pkt_.txn.kind = Txn::Kind::WriteDone;
      to_wb->b_transport(pkt_.gp, pkt_.delay);
      it = writes_q_.erase(it);
    }
    if (!writes_q_.empty() && !wports) ++port_stall_;
    // Reads past the tag check: hits from the RFC (read_ports per cycle), misses to the MRF.
    unsigned rports = read_ports_;
    for (auto it = reads_q_.begin(); it != reads_q_.end();) {
      Txn& t = it->txn;
      if (it->ready > now) {
        more = true;
        ++it;
        continue;
      }
      const RfcEntry* e = store_.find(t.warp, t.reg);
      if (e && !rports) {
        more = true;
        ++it;
        continue;
      }
      if (!e && pending_.count(key(t.warp, t.reg))) { // its write-back is still on the way
        ++wait_;
        more = true;
        ++it;
        continue;
      }
      if (e) {
        --rports;
        reuse_.sample(now - e->touched);
        e = store_.read(t.warp, t.reg, liveness_ && last_read(t));
        buf_ = e->value;
        ++reads_;
        if (ctx_.probe)
          ctx_.probe->read({t.inst, t.reg, Store::Rfc, -1, 0, t.slice_mask, e->version}, now);
        pkt_.prepare(Txn::Kind::Read, tlm::TLM_READ_COMMAND);
        pkt_.txn = t;
        pkt_.txn.version = e->version;
        pkt_.txn.from = Store::Rfc;
        pkt_.gp.set_data_ptr(reinterpret_cast<unsigned char*>(buf_.data()));
        pkt_.gp.set_byte_enable_ptr(nullptr);
        pkt_.gp.set_response_status(tlm::TLM_OK_RESPONSE);
        pkt_.delay = clock_->time(hit_latency_);
        to_collector[t.collector]->b_transport(pkt_.gp, pkt_.delay);
      } else {
        ++misses_;
        fwd_.prepare(Txn::Kind::Read, tlm::TLM_READ_COMMAND);
        fwd_.txn = t;
        to_arb->b_transport(fwd_.gp, fwd_.delay);
      }
      it = reads_q_.erase(it);
    }
    if (more) wake(now + 1);
  }

  Timing timing() const override { return {read_ports_, write_ports_, tag_latency_, hit_latency_}; }
  bool bank_copy_stale(unsigned warp, unsigned reg) const override {
    return store_.find(warp, uint16_t(reg)) || dropped_.count(key(warp, reg));
  }

  // The slot's CTA has finished: its registers are deallocated, so every value in the set is
  // dead whatever the liveness bits say, and none is written back. Left in place, the next
  // CTA in the slot would find them (a hit on a value it never wrote; a write-back of the old
  // CTA's value into its register).
  void slot_freed(unsigned warp) override {
    for (auto it = dropped_.begin(); it != dropped_.end();)
      it = (*it >> 16) == warp ? dropped_.erase(it) : std::next(it);
    for (auto it = diverged_.begin(); it != diverged_.end();)
      it = (it->first >> 16) == warp ? diverged_.erase(it) : std::next(it);
    for (const RfcEntry& e : store_.flush(warp)) {
      exit_dropped_ += e.dirty && !(liveness_ && e.dead);
      residency_.sample(now() - e.filled);
    }
  }

  void dump_state(std::ostream& os) const override {
    os << "  " << reads_q_.size() << " reads, " << writes_q_.size() << " results queued, "
       << pending_.size() << " registers with write-backs in flight\n";
  }

protected:
  void on_request(int, tlm::tlm_generic_payload& gp, sc_core::sc_time&) override {
    Txn& t = txn_of(gp);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    switch (t.kind) {
    case Txn::Kind::Read:
      reads_q_.push_back({t, now() + tag_latency_});
      reads_q_.back().txn.busy = false;
      wake(now() + tag_latency_);
      break;
    case Txn::Kind::Write:
      ++results_;
      writes_q_.push_back(t);
      wake(now());
      break;
    case Txn::Kind::RfcFlush:
      inactive_ += active_[t.warp];
      active_[t.warp] = false;
      store_.at(now());
      for (const RfcEntry& e : flush_buf_ = store_.flush(t.warp)) evict(t.warp, e, true);
      flushes_ += !flush_buf_.empty();
      break;
    case Txn::Kind::RfcActivate:
      inactive_ -= !active_[t.warp];
      active_[t.warp] = true;
      break;
    default:
      gp.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
    }
  }

  void on_write_done(tlm::tlm_generic_payload& gp, sc_core::sc_time& d) override {
    Txn& t = txn_of(gp);
    if (t.inst->info != &kWritebackInfo) return to_wb->b_transport(gp, d);
    auto it = pending_.find(key(t.warp, t.reg));
    if (it != pending_.end() && --it->second == 0) pending_.erase(it);
    ctx_.pool->put(t.inst);
    wake(now());
  }

  void on_data(int, tlm::tlm_generic_payload& gp, sc_core::sc_time& d) override {
    Txn& t = txn_of(gp);
    if (alloc_sources_ && active_[t.warp] && !store_.find(t.warp, t.reg) &&
        !(liveness_ && last_read(t))) {
      LaneValues v;
      std::memcpy(v.data(), gp.get_data_ptr(), kRegBytes);
      ++writes_;
      if (ctx_.probe)
        ctx_.probe->filled({t.inst, t.reg, Store::Rfc, -1, 0, t.slice_mask, t.version}, now());
      store_.at(now());
      if (auto e = store_.allocate(t.warp, t.reg, v, false, false, false, t.version))
        evict(t.warp, *e, false);
    }
    to_collector[t.collector]->b_transport(gp, d);
  }

private:
  static RfcReplacement replacement(Params& p) {
    RfcReplacement r = RfcReplacement::Fifo;
    rfc_replacement_from_name(p.get_choice("replacement", "fifo",
                                           "victim in a warp's set: fifo (Sec. 3.1) or lru",
                                           {"fifo", "lru"}),
                              r);
    return r;
  }
  static uint32_t key(unsigned warp, unsigned reg) { return (uint32_t(warp) << 16) | reg; }
  static bool last_read(const Txn& t) {
    const InstInfo& info = *t.inst->info;
    for (unsigned k = 0; k < info.n_src; ++k)
      if (info.src_reg[k] == t.reg && info.src_last_read[k]) return true;
    return false;
  }

  // A value leaves the RFC: written back to the MRF if dirty and live.
  void evict(unsigned warp, const RfcEntry& e, bool flush) {
    residency_.sample(now() - e.filled);
    // The write-back carries its producer's SIMT masks (W-C stores a diverged value whole).
    std::pair<uint32_t, uint32_t> masks{~0u, ~0u};
    if (auto d = diverged_.find(key(warp, e.reg)); d != diverged_.end()) {
      masks = d->second;
      diverged_.erase(d);
    }
    if (!e.dirty) return;
    if (liveness_ && e.dead) {
      ++wb_dead_;
      dropped_.insert(key(warp, e.reg));
      return;
    }
    ++wb_live_;
    wb_flush_ += flush;
    ++mrf_writes_;
    const SmShape& s = *ctx_.shape;
    WarpInst* c = ctx_.pool->get();
    c->info = &kWritebackInfo;
    c->seq = 0; // not an instruction: a copy of the value of instruction #e.version
    c->warp = warp;
    c->n_src = 0;
    c->n_dst = 1;
    c->active_mask = masks.first;
    c->thread_mask = masks.second;
    c->injected = false;
    c->dst[0].reg = e.reg;
    c->dst[0].value = e.value;
    c->subcore = ctx_.subcore;
    const BankLoc loc = s.mapping->map(s.local_warp(warp), e.reg);
    fwd_.prepare(Txn::Kind::Write, tlm::TLM_WRITE_COMMAND);
    Txn& t = fwd_.txn;
    t.inst = c;
    t.warp = warp;
    t.reg = e.reg;
    t.bank = loc.bank;
    t.row = loc.row;
    t.slice_mask = uint8_t((1u << s.slices) - 1);
    t.operand = 0;
    t.version = e.version;
    ++pending_[key(warp, e.reg)];
    to_arb->b_transport(fwd_.gp, fwd_.delay);
  }

  struct Pending {
    Txn txn;
    Cycle ready;
  };
  const unsigned entries_, read_ports_, write_ports_, tag_latency_, hit_latency_;
  const bool liveness_, alloc_sources_, bypass_ll_, bypass_unread_;
  RfcStore store_;
  uint64_t &reads_, &writes_, &misses_, &results_, &mrf_writes_, &wb_live_, &wb_dead_, &wb_flush_,
      &flushes_;
  Stat& bypass_;
  uint64_t &wait_, &port_stall_, &exit_dropped_;
  Distribution &reuse_, &residency_;
  std::vector<bool> active_;
  unsigned inactive_ = 0; // warps active_ says are not: their results bypass the RFC
  std::deque<Pending> reads_q_;
  std::deque<Txn> writes_q_;
  std::unordered_map<uint32_t, unsigned> pending_; // write-backs in flight per (warp, reg)
  // (warp, reg) -> active and thread masks of the divergent producer of the cached value
  std::unordered_map<uint32_t, std::pair<uint32_t, uint32_t>> diverged_;
  std::unordered_set<uint32_t> dropped_; // (warp, reg) dropped dead: the banks hold an older value
  Packet pkt_, fwd_;
  LaneValues buf_{};
  std::vector<RfcEntry> flush_buf_;
};

GPURF_REGISTER_UNIT(IRfc, CacheRfc, "cache",
                    "Gebhart register file cache: per-warp FIFO/LRU sets, tag-check stage, "
                    "liveness-elided write-backs, flush on warp deactivation");
GPURF_UNIT_SLOT(IRfc, "rfc", "register file cache in front of the MRF (Gebhart ISCA'11)");

} // namespace gpurf
