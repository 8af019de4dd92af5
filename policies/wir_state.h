// The WIR tables of one sub-core's register file (Kim & Ro, shared/papers/004, Sec. V-VI):
// the physical register pool, the rename tables, the value signature buffer, the reuse
// buffer and the version each physical register holds. The rename/reuse stage (allocator
// `wir`) and the register-allocation stage (writeback `wir`) both access them, as the
// hardware stages access the same tables; the allocator creates them from its parameters.
#pragma once

#include <memory>
#include <random>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "gpurf/modules/common/hash.h"

#include "gpurf/platform/stats.h"
#include "gpurf/policies/wir_regs.h"
#include "gpurf/policies/wir_reuse.h"
#include "gpurf/policies/wir_vsb.h"

namespace gpurf {

struct WirOptions {
  unsigned phys_regs = 1024;      // physical warp registers (the sub-core's bank rows)
  unsigned warps = 48, regs = 63; // rename tables: warps x logical registers
  unsigned release_latency = 2;   // reference-count pipeline (Sec. VII-E: 2 cycles)
  unsigned vsb_entries = 256, reuse_entries = 256;
  unsigned hash_bits = 32;    // bits of the H3 signature (fewer: more collisions)
  bool verify = true;         // verify-read a VSB hit (false: trust the hash; unsafe)
  bool reuse = true;          // the reuse buffer (false: register renaming and the VSB only)
  bool load_reuse = false;    // RL: loads reuse (Sec. VI-A)
  unsigned pending_retry = 0; // RLP: pending-retry queue entries (Sec. VI-B; 0: none)
  unsigned verify_cache = 0;  // RLPV: verify-cache entries (Sec. VI-C; 0: none)
  bool capped = false;        // capped-register policy (Sec. V-E)
  unsigned stages = 4;        // cycles the WIR stages add (rename 1 + reuse 1 + allocation)
  unsigned front_stages = 2;  // of which before the collectors (rename, reuse)
  unsigned banks = 1;         // free-pool queues: one per bank (bank-aware allocation) or one
};

// The reuse-buffer tag of a renamed instruction: its static key and the physical registers of
// its register operands in operand order.
inline ReuseTag reuse_tag(const WarpInst& inst) {
  ReuseTag t;
  t.opcode = inst.info->reuse_op;
  t.block = inst.reuse_block;
  t.barriers = inst.reuse_barriers;
  for (unsigned j = 0; j < inst.info->reuse_n; ++j) {
    t.operand[j] = uint32_t(inst.src[inst.info->reuse_src[j]].phys);
    t.regs |= uint8_t(1u << j);
  }
  return t;
}

// A key of an instruction's result values (its functional per-lane results).
inline uint64_t result_values(const WarpInst& inst) {
  Hash64 h;
  for (unsigned k = 0; k < inst.n_dst; ++k) h.add_lanes(inst.dst[k].value);
  return h.h;
}

// Why reuse-buffer lookups miss (statistics only; no hardware keeps this): an earlier
// instance of the tag still executing (pending), the tag recorded earlier in the launch but
// replaced since (evicted), the same computation on the same values seen earlier in the launch
// but under other physical registers (other_registers: the VSB did not unify the values, or
// the earlier instance did not record), or a computation not seen before (first).
class ReuseMissOracle {
public:
  enum Kind { kPending, kEvicted, kOtherRegisters, kFirst, kKinds };
  static uint64_t tag_key(const ReuseTag& t) {
    Hash64 h;
    h.add(uint64_t(t.opcode) << 32 | uint64_t(t.regs) << 24 | uint64_t(uint16_t(t.block)) << 8 |
          t.barriers);
    for (unsigned j = 0; j < ReuseTag::kOperands; ++j) h.add(t.operand[j]);
    return h.h;
  }
  // The computation by value: the tag's static and dynamic fields, its register operands'
  // values and the result (a load's memory may have changed).
  static uint64_t value_key(const WarpInst& inst) {
    const InstInfo& info = *inst.info;
    Hash64 h;
    h.add(uint64_t(info.reuse_op) << 32 | uint64_t(uint16_t(inst.reuse_block)) << 8 |
          inst.reuse_barriers);
    for (unsigned j = 0; j < info.reuse_n; ++j) h.add_lanes(inst.src[info.reuse_src[j]].value);
    for (unsigned k = 0; k < inst.n_dst; ++k) h.add_lanes(inst.dst[k].value);
    return h.h;
  }
  // A lookup of `inst` with tag `t`: a hit (seen: nothing to classify), or the kind of miss;
  // `pending`: the buffer holds the tag, its result not back.
  Kind miss(const WarpInst& inst, const ReuseTag& t, bool pending) {
    const uint64_t tk = tag_key(t);
    const bool seen = !values_.insert(value_key(inst)).second;
    if (pending || in_flight_.count(tk)) return kPending;
    if (recorded_.count(tk)) return kEvicted;
    return seen ? kOtherRegisters : kFirst;
  }
  void hit(const WarpInst& inst) { values_.insert(value_key(inst)); }
  // A missing instruction will record tag `t` at retire (or gives the tag up: recorded false).
  void executing(const ReuseTag& t) { ++in_flight_[tag_key(t)]; }
  void retired(const ReuseTag& t, bool recorded) {
    const uint64_t tk = tag_key(t);
    if (auto it = in_flight_.find(tk); it != in_flight_.end() && !--it->second)
      in_flight_.erase(it);
    if (recorded) recorded_.insert(tk);
  }
  // The launch ended: its tags and computations go with the reuse buffer's entries.
  void clear() {
    values_.clear();
    recorded_.clear();
    in_flight_.clear();
  }

private:
  std::unordered_set<uint64_t> values_, recorded_;
  std::unordered_map<uint64_t, unsigned> in_flight_;
};

// The operations of WIR's added tables, counted in groups named as the energy table's
// structures (configs/energy/wir.yaml, Table III: one count per table operation), beside
// the sub-core's units ("sm.sub0.rename" etc.).
struct WirEvents {
  explicit WirEvents(const std::string& prefix)
      : rename_g(prefix + "rename"), reuse_g(prefix + "reuse_buffer"), hash_g(prefix + "hash"),
        vsb_g(prefix + "vsb"), alloc_g(prefix + "reg_allocator"), ref_g(prefix + "refcount"),
        rename_reads(rename_g.scalar(
            "reads", "rename-table reads (renamed sources)", "reads",
            energy::structure("WIR: a rename-table read (structures.rename)"),
            check::open_gap("WIR: renamed sources (instruction sources, with repeats)"))),
        rename_writes(
            rename_g.scalar("writes", "rename-table writes (retired destinations)", "writes",
                            energy::structure("WIR: a rename-table write (structures.rename)"))),
        reuse_lookups(reuse_g.scalar(
            "lookups", "reuse-buffer lookups", "lookups",
            energy::structure("WIR: a reuse-buffer lookup (structures.reuse_buffer)"),
            check::open_gap("WIR: reuse-buffer structure events"))),
        reuse_inserts(reuse_g.scalar(
            "inserts", "reuse-buffer updates at retire", "inserts",
            energy::structure("WIR: a reuse-buffer update (structures.reuse_buffer)"),
            check::open_gap("WIR: reuse-buffer structure events"))),
        hashes(hash_g.scalar(
            "hashes", "H3 hashes of results", "hashes",
            energy::structure("WIR: an H3 hash of a result (structures.hash)"),
            check::open_gap("WIR: H3 hashes of results (retried writes hash again)"))),
        vsb_lookups(vsb_g.scalar(
            "lookups", "value-signature-buffer lookups", "lookups",
            energy::structure("WIR: a VSB lookup (structures.vsb)"),
            check::open_gap("WIR: VSB structure events (retried writes look up again)"))),
        vsb_inserts(vsb_g.scalar("inserts", "value-signature-buffer updates", "inserts",
                                 energy::structure("WIR: a VSB update (structures.vsb)"),
                                 check::open_gap("WIR: VSB structure events"))),
        allocations(alloc_g.scalar(
            "allocations", "registers taken from the free pool", "registers",
            energy::structure("WIR: a free-pool allocation (structures.reg_allocator)"),
            check::open_gap("WIR: physical-register allocator events"))),
        frees(
            alloc_g.scalar("frees", "registers returned to the free pool", "registers",
                           energy::structure("WIR: a free-pool release (structures.reg_allocator)"),
                           check::open_gap("WIR: physical-register allocator events"))),
        increments(ref_g.scalar(
            "increments", "reference-count increments", "operations",
            energy::structure("WIR: a reference-count increment (structures.refcount)"),
            check::open_gap("WIR: reference-count events"))),
        decrements(ref_g.scalar(
            "decrements", "reference-count decrements", "operations",
            energy::structure("WIR: a reference-count decrement (structures.refcount)"),
            check::open_gap("WIR: reference-count events"))) {}
  StatGroup rename_g, reuse_g, hash_g, vsb_g, alloc_g, ref_g;
  uint64_t &rename_reads, &rename_writes, &reuse_lookups, &reuse_inserts, &hashes, &vsb_lookups,
      &vsb_inserts, &allocations, &frees, &increments, &decrements;
};

class WirState {
public:
  WirState(const WirOptions& o, const std::string& stats_prefix)
      : options(o), events(stats_prefix), regs(o.phys_regs + 1, o.release_latency, o.banks),
        rename(o.warps, o.regs), vsb(o.vsb_entries), reuse(o.reuse_entries),
        version(o.phys_regs + 1, 0), landed(o.phys_regs + 1, true) {
    // The zero register (SASS's RZ), in the banks' extra row beyond the pool: what a logical
    // register reads before its first write (every rename entry is invalid at warp start,
    // Sec. V-B). Never written or released.
    zero = o.phys_regs;
    regs.reserve(zero);
  }
  // The end of the run: the pool's and the counters' operations into the statistics.
  void finish() {
    events.allocations = regs.allocations();
    events.frees = regs.releases();
    events.increments = regs.increments();
    events.decrements = regs.decrements();
  }
  const WirOptions options;
  WirEvents events;
  PhysRegs regs;
  RenameTables rename;
  ValueSignatureBuffer vsb;
  ReuseBuffer reuse;
  std::vector<uint64_t> version; // per physical register: the producer of its value
  std::vector<bool> landed;      // per physical register: its value's write reached the bank
  unsigned zero = 0;
  // Load reuse (Sec. VI-A), per local warp: a store to shared memory / global memory since
  // the warp's last barrier (its loads of that space neither look up nor record), and the
  // barriers it passed (a load's tag carries it: loads reuse only loads of the same phase;
  // 5 bits, past 31 the warp's loads stop reusing). A store to the param space (a call's
  // arguments, a callee's return value: per-thread memory every call rewrites) stops the
  // warp's param loads until its warp ends; no barrier makes another warp's frame its own.
  struct WarpMem {
    bool stored_shared = false, stored_global = false, stored_param = false;
    uint8_t barriers = 0;
  };
  std::vector<WarpMem> mem = std::vector<WarpMem>(options.warps);
  // Warp slots that have run a warp (the capped policy's active warps: a finished warp's
  // registers stay mapped until the next warp of its slot starts).
  unsigned active_warps = 0;
  // Low-register mode (Sec. V-E): on while results find no register to allocate (the pool is
  // empty, or the cap is reached). A lookup that misses then evicts the entry it indexes
  // instead of recording itself; in a cycle without such an eviction, the writeback evicts a
  // random entry of the table. `*_evicted_at`: the cycle of the table's last miss eviction.
  bool low_register = false;
  Cycle reuse_evicted_at = kNever, vsb_evicted_at = kNever;
  std::mt19937 rng{0x574952}; // fixed seed: runs are deterministic
  ReuseMissOracle misses;     // statistics: why lookups miss
};

// Per SM: each sub-core's WIR tables (none without WIR units).
class WirBoard {
public:
  WirState& create(unsigned subcore, const WirOptions& o, const std::string& stats_prefix) {
    if (subcore >= sub_.size()) sub_.resize(subcore + 1);
    if (!sub_[subcore]) sub_[subcore] = std::make_unique<WirState>(o, stats_prefix);
    return *sub_[subcore];
  }
  WirState* at(unsigned subcore) const {
    return subcore < sub_.size() ? sub_[subcore].get() : nullptr;
  }
  unsigned subcores() const { return unsigned(sub_.size()); }

private:
  std::vector<std::unique_ptr<WirState>> sub_;
};

} // namespace gpurf
