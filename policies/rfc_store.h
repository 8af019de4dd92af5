// Register file cache storage (Gebhart et al., ISCA'11, Sec. 3.1): per-warp sets of
// `entries` registers (one set per warp slot; a two-level scheduler keeps sets only for its
// active warps by flushing the others), with their values, a dirty bit and the static
// liveness bit (dead: read for the last time, no write-back needed). Plain C++, no SystemC.
//
// Replacement inside a warp's set: FIFO (the paper's default: the entry allocated first) or
// LRU (least recently read or written). With `prefer_evict_first`, entries whose value is not
// read before the next long-latency operation (a compiler hint, Sec. 5.3) are evicted first.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpurf/modules/common/warp_inst.h"

namespace gpurf {

enum class RfcReplacement : uint8_t { Fifo, Lru };
bool rfc_replacement_from_name(const std::string& s, RfcReplacement& out);

struct RfcEntry {
  uint16_t reg = 0;
  bool valid = false;
  bool dirty = false;       // newer than the MRF: written back on eviction unless dead
  bool dead = false;        // the last read happened (or the value is never read)
  bool evict_first = false; // hint: not read before the next long-latency operation
  uint64_t inserted = 0;    // allocation order (FIFO)
  uint64_t used = 0;        // last read or write (LRU)
  uint64_t version = 0;     // sequence number of the instruction that produced the value
  // Cycles (RfcStore::at): the register came in (a newer value of it keeps this), its last
  // allocation or read.
  uint64_t filled = 0, touched = 0;
  LaneValues value{};
};

class RfcStore {
public:
  RfcStore(unsigned warps, unsigned entries, RfcReplacement repl, bool prefer_evict_first = false);

  unsigned entries() const { return entries_; }
  // The cycle the next calls happen in (RfcEntry::filled, touched).
  void at(uint64_t cycle) { now_ = cycle; }
  // The entry holding (warp, reg), or nullptr.
  const RfcEntry* find(unsigned warp, uint16_t reg) const;
  // Reads (warp, reg): nullptr on a miss. On a hit, updates LRU and, when `last_read`, marks
  // the entry dead.
  const RfcEntry* read(unsigned warp, uint16_t reg, bool last_read);
  // Allocates (warp, reg) with `value`. A register already present is overwritten in place
  // (its old instance is superseded: no write-back). Otherwise a free entry is taken, or the
  // victim chosen by the replacement policy is returned (the caller writes it back to the MRF
  // if it is dirty and not dead).
  std::optional<RfcEntry> allocate(unsigned warp, uint16_t reg, const LaneValues& value, bool dirty,
                                   bool dead = false, bool evict_first = false,
                                   uint64_t version = 0);
  // Drops (warp, reg) without write-back (a newer value bypasses the RFC to the MRF).
  bool invalidate(unsigned warp, uint16_t reg);
  // Empties a warp's set; returns its valid entries (the caller writes back the dirty live
  // ones).
  std::vector<RfcEntry> flush(unsigned warp);
  unsigned occupancy(unsigned warp) const;

private:
  RfcEntry* lookup(unsigned warp, uint16_t reg);
  unsigned victim(unsigned warp) const;
  unsigned entries_;
  RfcReplacement repl_;
  bool prefer_evict_first_;
  uint64_t clock_ = 0;
  uint64_t now_ = 0;
  std::vector<RfcEntry> sets_; // warp * entries_ + i
};

} // namespace gpurf
