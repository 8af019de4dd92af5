// WIR's register allocation stage (Kim & Ro, shared/papers/004, Sec. V-A, Fig. 6): an H3 hash
// of each 1024-bit result, and the value signature buffer, a direct-indexed table (by the
// hash's low bits) of [hash, physical register] pairs, so that a result whose value a
// physical register already holds can share it (after a verify-read: a hash match may be a
// collision). Plain C++.
#pragma once

#include <cstdint>
#include <vector>

#include "gpurf/policies/wir_regs.h"

namespace gpurf {

// H3 (Carter-Wegman) hash of a warp register: bit i of the 1024-bit value selects the fixed
// random 32-bit word q_i, and the hash is the XOR of the selected words (hardwired XOR trees).
uint32_t h3_hash(const LaneValues& v);

class ValueSignatureBuffer {
public:
  // `entries` a power of two (0: no buffer, every lookup misses).
  explicit ValueSignatureBuffer(unsigned entries);
  // The register registered under `hash`, or -1.
  int lookup(uint32_t hash) const;
  // Registers `phys` under `hash` (the buffer takes a reference; the entry it replaces drops
  // its own).
  void insert(uint32_t hash, unsigned phys, PhysRegs& regs, Cycle now);
  // Removes the entry of `hash` if it names `phys` (a false match found by the verify-read).
  void remove(uint32_t hash, unsigned phys, PhysRegs& regs, Cycle now);
  // Empties entry `index` (low-register mode); true if it held one.
  bool evict(unsigned index, PhysRegs& regs, Cycle now);
  // The entry `hash` indexes.
  unsigned index(uint32_t hash) const { return e_.empty() ? 0 : hash & unsigned(e_.size() - 1); }
  // Empties a valid entry chosen at random by `r` (low-register mode).
  void evict_random(uint32_t r, PhysRegs& regs, Cycle now) {
    if (const int i = first_valid(e_, r); i >= 0) evict(unsigned(i), regs, now);
  }
  unsigned entries() const { return unsigned(e_.size()); }

private:
  struct Entry {
    bool valid = false;
    uint32_t hash = 0;
    unsigned phys = 0;
  };
  std::vector<Entry> e_;
};

} // namespace gpurf
