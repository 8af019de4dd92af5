// WIR's physical warp registers (Kim & Ro, shared/papers/004, Sec. V-B, V-E): the free pool,
// the reference counts over the rename tables, the reuse buffer and the value signature
// buffer, and the per-warp rename tables. Plain C++: the WIR units drive it, tests drive it
// with hand-made sequences.
//
// The free pool is a queue (Sec. VII-E: "modeled as a queue using a 1r1w table"): a register
// comes back at its tail and is handed out again after every register freed before it. With
// `banks` > 1 it is one queue per register-file bank (register p lives in bank p mod banks),
// so that a new register can be taken from the bank asked for (the paper is silent on where a
// new register lives: docs/wir.md, "Bank-aware allocation").
//
// A register is allocated with one reference (its first holder's); every table that names it
// holds one more. At zero it is released, `release_latency` cycles later (the pipelined
// reference-count system: off the critical path, Sec. V-E), into the free pool.
#pragma once

#include <cstdint>
#include <deque>
#include <stdexcept>
#include <vector>

#include "gpurf/modules/common/warp_inst.h"

namespace gpurf {

// Low-register mode's random eviction (Sec. V-E): the first valid entry of a table at or
// after `start` (cyclically; a priority encoder over the valid bits), -1 if none.
template <class Entry> int first_valid(const std::vector<Entry>& e, unsigned start) {
  for (size_t n = 0; n < e.size(); ++n)
    if (const size_t i = (start + n) % e.size(); e[i].valid) return int(i);
  return -1;
}

// A reference count would go negative, or a register not allocated is used: a WIR bug.
struct RegisterAccounting : std::logic_error {
  using std::logic_error::logic_error;
};

class PhysRegs {
public:
  PhysRegs(unsigned count, unsigned release_latency, unsigned banks = 1);
  // A free register with one reference, or -1 if the pool is empty at `now`: the longest free
  // of bank `bank` (mod banks), else of the next bank that has one.
  int allocate(Cycle now, unsigned bank = 0);
  // Takes register p out of the pool for good (one reference, not counted as live).
  void reserve(unsigned p);
  void ref(unsigned p);
  // Drops a reference; at zero the register returns to the pool at now + release_latency.
  void unref(unsigned p, Cycle now);
  unsigned refs(unsigned p) const { return refs_.at(p); }
  // Registers allocated and not released (a release still in the pipeline counts as live).
  unsigned live() const { return live_; }
  // Free registers at `now` (releases due by then included).
  unsigned free(Cycle now);
  unsigned count() const { return unsigned(refs_.size()); }
  uint64_t allocations() const { return allocations_; }
  uint64_t increments() const { return increments_; } // reference-count operations
  uint64_t decrements() const { return decrements_; }
  uint64_t releases() const { return releases_; }
  unsigned peak_live() const { return peak_; }

private:
  void collect(Cycle now);
  std::vector<uint32_t> refs_;
  std::vector<std::deque<unsigned>> pools_; // per bank: free registers in release order (FIFO)
  unsigned free_ = 0;                       // free registers in all queues
  struct Pending {
    Cycle at;
    unsigned reg;
  };
  std::deque<Pending> releasing_; // in release order (at is non-decreasing)
  const unsigned latency_;
  unsigned live_ = 0, peak_ = 0;
  uint64_t allocations_ = 0, releases_ = 0, increments_ = 0, decrements_ = 0;
};

// Per warp, per logical register: the physical register it maps to, the pin bit (a
// dedicated register in a divergent flow, Sec. V-D) and the version tag of the value the
// physical register holds (the sequence number of the instruction that produced it: under
// reuse, an older instruction than the logical register's last writer).
class RenameTables {
public:
  struct Entry {
    int phys = -1; // -1: not mapped (invalid)
    bool pin = false;
    uint64_t version = 0;
  };
  RenameTables(unsigned warps, unsigned regs)
      : regs_(regs), e_(size_t(warps) * regs), mapped_(warps, 0) {}
  const Entry& at(unsigned warp, unsigned reg) const { return e_.at(size_t(warp) * regs_ + reg); }
  // Maps (warp, reg) to `phys` holding `version`: the table takes a reference to it and drops
  // the old one.
  void map(unsigned warp, unsigned reg, unsigned phys, uint64_t version, bool pin, PhysRegs& regs,
           Cycle now);
  // A warp ends: every mapping of it is dropped.
  void clear(unsigned warp, PhysRegs& regs, Cycle now);
  unsigned regs() const { return regs_; }
  // Warps with at least one mapped register (the capped policy's active warps).
  unsigned active_warps() const { return active_; }

private:
  unsigned regs_;
  std::vector<Entry> e_;
  std::vector<unsigned> mapped_; // per warp: mapped registers
  unsigned active_ = 0;
};

} // namespace gpurf
