// WIR's reuse buffer (Kim & Ro, shared/papers/004, Sec. V-C, VI-A/B, Fig. 9): a
// direct-indexed table (by a hash of the tag) of executed instructions, tagged by the opcode
// and the physical registers (or immediates) of their sources, plus, for loads, the thread
// block (shared memory) and the block's barrier count; each entry names the physical register
// holding the result, or is pending (reserved by a missing instruction still executing:
// pending-retry). The buffer holds a reference to every register it names, so a register
// named by a tag is never reallocated to another value while the entry lives. Plain C++.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "gpurf/policies/wir_regs.h"

namespace gpurf {

struct ReuseTag {
  static constexpr unsigned kOperands = 3;
  uint32_t opcode =
      0; // the computation's key (compiler/reuse_key.h: opcode, modifiers, immediates)
  std::array<uint32_t, kOperands> operand{}; // physical register id or immediate
  uint8_t regs = 0;                          // bit k: operand k is a physical register
  int16_t block = -1;   // thread block (shared-memory loads): its CTA slot; -1: none
  uint8_t barriers = 0; // the block's barrier count (loads)
  bool operator==(const ReuseTag& o) const {
    return opcode == o.opcode && operand == o.operand && regs == o.regs && block == o.block &&
           barriers == o.barriers;
  }
};

class ReuseBuffer {
public:
  struct Lookup {
    bool hit = false;     // an entry with this tag (its result may still be pending)
    bool pending = false; // hit on a reserved entry whose result is not back yet
    int result = -1;      // the result register of a ready hit
    int result_hi = -1;   // and the high half's of a 64-bit result (-1: a 32-bit result)
    uint64_t values = 0;  // the recorded result's values (a key of them, as fill took it)
    unsigned index = 0;   // the entry the tag maps to
  };
  // `entries` a power of two.
  explicit ReuseBuffer(unsigned entries);
  Lookup lookup(const ReuseTag& tag) const;
  // A missing instruction reserves its entry (pending), replacing what was there.
  void reserve(const ReuseTag& tag, PhysRegs& regs, Cycle now);
  // The reserving instruction's result is in `result` (its high half in `result_hi` for a
  // 64-bit result, else -1), its values keyed `values`: the entry (if still its own) is ready.
  void fill(const ReuseTag& tag, unsigned result, PhysRegs& regs, Cycle now, int result_hi = -1,
            uint64_t values = 0);
  // Drops the entry `tag` maps to if it holds `tag` (a reserving instruction that will not
  // fill it, e.g. one that turned divergent).
  void cancel(const ReuseTag& tag, PhysRegs& regs, Cycle now);
  // Empties entry `index` (low-register mode); true if it held one.
  bool evict(unsigned index, PhysRegs& regs, Cycle now) {
    if (index >= e_.size() || !e_[index].valid) return false;
    drop(e_[index], regs, now);
    return true;
  }
  // Empties a valid entry chosen at random by `r` (low-register mode).
  void evict_random(uint32_t r, PhysRegs& regs, Cycle now) {
    if (const int i = first_valid(e_, r); i >= 0) evict(unsigned(i), regs, now);
  }
  // Empties the entries of thread block `block` (its shared-memory loads: the block has
  // ended, its slot's next block has other shared memory); returns how many.
  unsigned drop_block(int16_t block, PhysRegs& regs, Cycle now);
  // Empties every entry (the end of a launch); returns how many held one.
  unsigned clear(PhysRegs& regs, Cycle now);
  unsigned entries() const { return unsigned(e_.size()); }

private:
  struct Entry {
    bool valid = false, pending = false;
    ReuseTag tag;
    int result = -1, result_hi = -1;
    uint64_t values = 0;
  };
  unsigned index(const ReuseTag& tag) const;
  void drop(Entry& e, PhysRegs& regs, Cycle now);
  std::vector<Entry> e_;
};

} // namespace gpurf
