// Malekeh's caching collector unit (shared/papers/001, Sec. III-B/C, IV-A, Fig. 4/5): an OCU
// whose operand storage is a fully associative cache table (CT) of `entries` registers of
// the warp it last served (tags = register ids, lock, near/far and LRU state), indexed by the
// operand collector table. Its four operations:
//   allocation   flush the CT if the warp changed; tag-check every distinct source; hits are
//                ready without a bank read, misses take an entry (replacement below) and are
//                read from the banks; the sources' entries are locked and take the new
//                instruction's reuse bits (only its own: Sec. III-C1, step 4)
//   source       a bank read fills its entry (port S)
//   destination  a result the bank took arrives over port D (arbiter -> CCU, in the cycle of
//                the bank write): a near one is written into the CT (allocated then, never
//                locked), one per cycle; a far one is squashed by the arbiter
//   dispatch     all sources ready: the entries unlock
// Replacement (`replacement: malekeh`): never a locked entry; a random far one if any, else
// the least recently used; `lru`: the least recently used unlocked one (Sec. VI-C ablation).
// A table of a warp whose CTA has retired holds dead values (policies/ccu_board.h): it is
// emptied at the next allocation, also to the next warp of the same slot, and is neither
// a holder nor near meanwhile.
// Choices where the paper is silent (docs/malekeh.md): a result that is not cached (squashed,
// port taken) invalidates its register's entry, as the stale value must not hit later (the
// register id reaches the CCU even when the data is squashed); a result whose register is
// locked as a source of the waiting instruction cannot overwrite the operand about to be
// dispatched: the entry is dropped at dispatch; a hit's operand is ready the cycle after the
// allocation (`hit_latency` 1: when a miss would be requested).
#include <algorithm>
#include <cstring>
#include <random>

#include "gpurf/modules/collector/impl/ocu.h"
#include "gpurf/policies/ccu_board.h"

namespace gpurf {

class Ccu : public Ocu {
public:
  enum Eviction { kFar, kLru, kEvictionKinds };

  Ccu(sc_core::sc_module_name nm, Params& p, const UnitContext& c)
      : Ocu(nm, p, c),
        entries_(p.get_uint("entries", 8,
                            "cache table entries (128 B registers): the OCU's 6 source slots "
                            "+ 2 (Sec. III-C)",
                            1, 64)),
        lru_only_(p.get_choice("replacement", "malekeh",
                               "cache table replacement: malekeh (locked entries excluded, a "
                               "random far one, else the least recently used) or lru",
                               {"malekeh", "lru"}) == "lru"),
        hit_latency_(p.get_uint(
            "hit_latency", 1, "cycles from the allocation to a hit's operand being ready", 1, 64)),
        rng_(p.get_uint("seed", 1, "seed of the random far victim (the same seed, the same run)", 0,
                        UINT32_MAX)),
        board_(c.ccus), ct_(entries_),
        operands_(stats().scalar(
            "source_operands", "distinct source registers collected (CT hits + bank reads)",
            "registers",
            energy::no_event(
                "Malekeh: CT hits + bank reads; the reads are priced by bank slice_reads"))),
        hits_(stats().scalar(
            "ccu_hits", "source operands found in the cache table", "registers",
            energy::no_event("Malekeh: operands found in the cache table: no bank read, no "
                             "crossbar transfer; reading them out at dispatch is the collector "
                             "read of every design (dispatched)"))),
        ccu_writes_(stats().scalar(
            "ccu_writes", "results written into the cache table (near, port D free)", "registers",
            energy::priced("Malekeh: a result written into a CCU's table over port D: "
                           "collector_write_pj_per_operand + 128 B over the wire (the crossbar to "
                           "the CCUs)"))),
        port_lost_(stats().scalar("ccu_write_port_lost",
                                  "near results not cached: port D took another this cycle",
                                  "registers", energy::no_event("Malekeh: results not cached"))),
        locked_drop_(stats().scalar("ccu_write_locked",
                                    "near results not cached: their register is a locked source "
                                    "(the entry is dropped at dispatch) or every entry is locked",
                                    "registers", energy::no_event("Malekeh: results not cached"))),
        squashed_(stats().scalar(
            "ccu_writes_squashed", "far results offered to the CCU and squashed by the arbiter",
            "registers",
            energy::no_event("Malekeh: far results squashed by the arbiter (no data written)"))),
        invalidations_(
            stats().scalar("ccu_invalidations", "entries invalidated by a result not cached",
                           "entries", energy::not_modelled("Malekeh: a valid bit cleared"),
                           check::unwatched("Malekeh: valid bits cleared by bank writes"))),
        warp_changes_(stats().scalar("ccu_warp_changes",
                                     "allocations to another warp than the previous one",
                                     "allocations", energy::no_event("Malekeh: allocations"))),
        flushes_(stats().scalar("ccu_flushes", "warp changes that flushed a non-empty cache table",
                                "flushes",
                                energy::not_modelled("Malekeh: the table's valid bits cleared"),
                                check::unwatched("Malekeh: tables cleared at a warp change"))),
        flushed_(stats().scalar("ccu_flushed_entries", "valid entries lost to flushes", "entries",
                                energy::no_event("Malekeh: entries lost to flushes"),
                                check::unwatched("Malekeh: entries lost to flushes"))),
        dead_(stats().scalar(
            "ccu_dead_tables",
            "tables of a warp whose CTA had retired, emptied at the next "
            "allocation",
            "allocations",
            energy::not_modelled("Malekeh: a finished warp's table's valid bits cleared"),
            check::unwatched("Malekeh: tables whose warp had finished"))),
        evictions_(stats().vector(
            "ccu_evictions", kEvictionKinds, "valid entries replaced, by the rule that chose them",
            "entries", {"far_random", "lru"},
            energy::no_event("Malekeh: replacements; priced by the write that takes the entry"),
            check::unwatched("Malekeh: entries replaced"))),
        reuse_(stats().distribution(
            "reuse_distance",
            "cycles from a register's previous access in the cache table (its fill, a result "
            "written over port D or a hit) to a hit",
            "cycles", Buckets::log2(24))),
        residency_(stats().distribution(
            "residency",
            "cycles a register stayed in the cache table, from the fill that brought it in to "
            "the replacement, invalidation or flush that took it out (a newer value of the "
            "register it holds does not end its stay)",
            "cycles", Buckets::log2(24))) {
    if (board_) board_->set_frontend(ctx_.frontend);
    stats().ratio("ccu_hit_ratio", "source operands found in the cache table / all", "ratio",
                  {"ccu_hits"}, {"source_operands"});
    publish();
  }

  unsigned cache_hit_latency() const override { return hit_latency_; }

  void dump_state(std::ostream& os) const override {
    Ocu::dump_state(os);
    os << "  table of warp " << warp_ << ":";
    for (const Entry& e : ct_)
      if (e.valid) os << " r" << e.reg << (e.locked ? "L" : "") << (e.near ? "n" : "f");
    os << "\n";
  }

protected:
  // The allocation: the flush now; the tag checks when the instruction's operands are known
  // (the front-end executes it after the allocator took it), at the start of the next tick,
  // before anything else can touch the table; hits are reported at the allocation cycle.
  void on_issue(tlm::tlm_generic_payload& gp, sc_core::sc_time& d) override {
    Ocu::on_issue(gp, d); // distinct sources into ops_, all to be read
    alloc_at_ = now();
    tags_pending_ = true;
    const bool dead = warp_ >= 0 && board_ && gen_ != board_->generation(unsigned(warp_));
    if (int(inst_->warp) != warp_ || dead) {
      warp_changes_ += warp_ >= 0 && int(inst_->warp) != warp_;
      const auto n = std::count_if(ct_.begin(), ct_.end(), [](const Entry& e) { return e.valid; });
      if (dead) { // its warp has finished: nothing of value is lost
        ++dead_;
      } else if (warp_ >= 0) {
        flushes_ += n > 0;
        flushed_ += uint64_t(n);
      }
      for (Entry& e : ct_) {
        leave(e, now());
        e = Entry{};
      }
      warp_ = int(inst_->warp);
      if (board_) gen_ = board_->generation(inst_->warp);
    }
    publish();
  }

  void tick(Cycle now) override {
    if (tags_pending_) check_tags();
    Ocu::tick(now);
  }

  void check_tags() {
    tags_pending_ = false;
    const WarpInst& inst = *inst_;
    // Hits first (they lock their entries), then misses take entries; misses go first in
    // ops_, as Ocu reads ops_[0, to_read_) from the banks.
    std::vector<Operand>&miss = miss_, &hit = hit_; // kept: no allocation per instruction
    miss.clear();
    hit.clear();
    entry_of_.clear();
    for (Operand& o : ops_) {
      const bool near = near_read(inst, o.reg);
      const int e = find(o.reg);
      if (e < 0) {
        miss.push_back(o);
        continue;
      }
      Entry& x = ct_[unsigned(e)];
      reuse_.sample(alloc_at_ - x.touched);
      x.touched = alloc_at_;
      x.locked = true;
      x.near = near;
      x.lru = ++clock_;
      o.value = x.value;
      o.version = x.version;
      o.at = alloc_at_ + hit_latency_;
      hit.push_back(o);
      ++hits_;
      if (ctx_.probe) {
        ctx_.probe->read({inst_, o.reg, Store::Ccu, int(ctx_.index), 0, all_slices(), x.version},
                         alloc_at_);
        ctx_.probe->arrived(inst, o.reg, ctx_.index, Store::Ccu, all_slices(), o.at);
      }
      wake(o.at);
    }
    for (Operand& o : miss) {
      const int e = victim();
      if (e >= 0) {
        Entry& x = ct_[unsigned(e)];
        leave(x, alloc_at_);
        x = Entry{true, o.reg, true, near_read(inst, o.reg), false, ++clock_};
        x.filled = x.touched = alloc_at_;
      }
      entry_of_.push_back(e);
    }
    operands_ += ops_.size();
    to_read_ = unsigned(miss.size());
    arrived_ = unsigned(hit.size());
    ops_.swap(miss); // the old ops_ storage becomes the next instruction's miss list
    ops_.insert(ops_.end(), hit.begin(), hit.end());
    publish();
  }

  void on_operand(tlm::tlm_generic_payload& gp, sc_core::sc_time& d) override {
    const Txn& t = txn_of(gp);
    const unsigned k = t.operand;
    Ocu::on_operand(gp, d);
    if (k < entry_of_.size() && entry_of_[k] >= 0) { // port S: the fill
      Entry& e = ct_[unsigned(entry_of_[k])];
      if (e.valid && e.reg == t.reg) {
        e.value = ops_[k].value;
        e.version = t.version;
      }
    }
  }

  // Port D: a result the bank took in this cycle; busy: squashed by the arbiter (far).
  void on_result(tlm::tlm_generic_payload& gp, sc_core::sc_time&) override {
    const Txn& t = txn_of(gp);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    if (int(t.warp) != warp_) return;
    int e = find(t.reg, true);
    const bool write = !t.busy && last_write_ != now();
    if (!write) { // squashed (far) or port D taken: the stale value must go
      squashed_ += t.busy;
      port_lost_ += !t.busy;
      if (e >= 0) {
        Entry& x = ct_[unsigned(e)];
        if (x.locked)
          x.drop = true;
        else
          leave(x, now());
        ++invalidations_;
      }
    } else if (e >= 0 && ct_[unsigned(e)].locked) {
      ct_[unsigned(e)].drop = true;
      ++locked_drop_;
    } else if (e < 0 && (e = victim()) < 0) {
      ++locked_drop_;
    } else {
      last_write_ = now();
      Entry& x = ct_[unsigned(e)];
      // A newer value of the register it holds continues its stay; a victim's ends.
      const Cycle filled = x.valid && x.reg == t.reg ? x.filled : now();
      if (x.reg != t.reg) leave(x, now());
      x = Entry{true, t.reg, false, true, false, ++clock_};
      x.filled = filled;
      x.touched = now();
      std::memcpy(x.value.data(), gp.get_data_ptr(), kRegBytes);
      x.version = t.version;
      ++ccu_writes_;
      if (ctx_.probe)
        ctx_.probe->write({t.inst, t.reg, Store::Ccu, int(ctx_.index), 0, all_slices(), t.version},
                          now());
    }
    publish();
  }

  void dispatched(const WarpInst&) override {
    for (Entry& e : ct_) {
      if (e.drop) leave(e, now());
      e.locked = e.drop = false;
    }
    publish();
  }

private:
  struct Entry {
    bool valid = false;
    uint16_t reg = 0;
    bool locked = false; // a source of the instruction waiting in the collector
    bool near = false;   // the last access's reuse distance was below RTHLD
    bool drop = false;   // overwritten while locked: invalid once the instruction leaves
    uint64_t lru = 0;    // last use (larger: more recent)
    uint64_t version = 0;
    LaneValues value{};
    Cycle filled = 0, touched = 0; // the register came in; its last fill, write or hit
  };

  // A valid entry leaves the table (replaced, invalidated, flushed): its stay ends.
  void leave(Entry& e, Cycle at) {
    if (e.valid) residency_.sample(at - e.filled);
    e.valid = false;
  }

  unsigned all_slices() const { return (1u << ctx_.shape->slices) - 1; }

  // The read of `reg` by `inst` is near: any of its source slots naming it says so.
  static bool near_read(const WarpInst& inst, unsigned reg) {
    bool near = false;
    for (unsigned k = 0; k < inst.info->n_src; ++k)
      near |= inst.info->src_reg[k] == reg && inst.src[k].reuse_near;
    return near;
  }

  // The entry holding `reg` that may hit (not dropped; with `dropped`: any valid one), or -1.
  int find(unsigned reg, bool dropped = false) const {
    for (unsigned i = 0; i < ct_.size(); ++i)
      if (ct_[i].valid && (dropped || !ct_[i].drop) && ct_[i].reg == reg) return int(i);
    return -1;
  }

  // An entry to (re)allocate: a free one, else by the replacement policy; -1: all locked.
  int victim() {
    int lru = -1;
    far_.clear();
    for (unsigned i = 0; i < ct_.size(); ++i) {
      const Entry& e = ct_[i];
      if (!e.valid) return int(i);
      if (e.locked) continue;
      if (!e.near) far_.push_back(i);
      if (lru < 0 || e.lru < ct_[unsigned(lru)].lru) lru = int(i);
    }
    if (!lru_only_ && !far_.empty()) {
      ++evictions_[kFar];
      return int(far_[std::uniform_int_distribution<size_t>(0, far_.size() - 1)(rng_)]);
    }
    if (lru >= 0) ++evictions_[kLru];
    return lru;
  }

  // Port R: the table's warp and whether a valid entry has a near reuse.
  void publish() {
    if (!board_) return;
    CcuBoard::Ccu& r = board_->at(ctx_.subcore, ctx_.index);
    r.warp = warp_;
    r.gen = gen_;
    r.near = std::any_of(ct_.begin(), ct_.end(), [](const Entry& e) { return e.valid && e.near; });
  }

  const unsigned entries_;
  const bool lru_only_;
  const unsigned hit_latency_;
  std::mt19937 rng_;
  CcuBoard* board_;
  std::vector<Entry> ct_;
  std::vector<int> entry_of_;       // per bank-read operand (ops_ index): its CT entry, -1: none
  std::vector<Operand> miss_, hit_; // check_tags' lists, reused
  std::vector<unsigned> far_;
  int warp_ = -1;
  uint64_t gen_ = 0; // warp_'s slot generation when the table was filled
  Cycle alloc_at_ = 0;
  bool tags_pending_ = false;
  uint64_t clock_ = 0;
  Cycle last_write_ = kNever;
  uint64_t &operands_, &hits_, &ccu_writes_, &port_lost_, &locked_drop_, &squashed_,
      &invalidations_, &warp_changes_, &flushes_, &flushed_, &dead_;
  Stat& evictions_;
  Distribution &reuse_, &residency_;
};

GPURF_REGISTER_UNIT(ICollector, Ccu, "ccu",
                    "Malekeh caching collector unit: a cache table of the last warp's "
                    "registers (near/far-aware replacement, port D for near results); needs "
                    "arbiter: malekeh, no rfc");

} // namespace gpurf
