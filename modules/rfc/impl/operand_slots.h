// The register-file cache of current NVIDIA cores (Huerta et al., MICRO'25, Sec. 5.3.1): one
// entry per register bank of the sub-core, each with one 1024-bit value per operand slot
// (three slots: the regular-register source positions of an instruction). The compiler
// manages it with a reuse bit per source operand:
//   * hit: same warp, same register, same operand slot (same bank follows from the register);
//   * every read request to a bank's slot, hit or miss, makes the cached value unavailable,
//     unless the reading operand's reuse bit is set: then the value read is (re)cached there
//     (Listing 4, examples 1-4).
// Plain C++ (no SystemC): the Allocate stage of the collector `fixed_window` looks operands up
// in allocation order, since which reads need a bank port decides the port reservation.
// Not an IRfc unit: that slot filters read requests between collectors and arbiter in the
// cycle they are sent, after the reservation this cache's answer has to decide.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "gpurf/modules/common/warp_inst.h"

namespace gpurf {

class OperandSlotRfc {
public:
  static constexpr unsigned kSlots = 3;
  // A cached value: filled by the read that allocated it (bank data or a forwarded result);
  // the instructions that hit on it hold it until their own read cycle, so a later
  // replacement of the entry does not take it from them.
  struct Value {
    bool filled = false;
    uint64_t version = 0; // sequence number of its producer (the timing checker's tag)
    LaneValues lanes{};
  };
  using Ref = std::shared_ptr<Value>;

  explicit OperandSlotRfc(unsigned banks = 2) : entries_(size_t(banks) * kSlots) {}

  // The value operand slot `slot` of a read of (warp, reg) in `bank` finds cached, or null.
  Ref lookup(unsigned bank, unsigned slot, unsigned warp, unsigned reg) const {
    if (slot >= kSlots) return nullptr;
    const Entry& e = entries_[bank * kSlots + slot];
    return e.data && e.warp == warp && e.reg == reg ? e.data : nullptr;
  }
  // A read request of (warp, reg) reached `bank`'s slot: with the reuse bit the entry keeps
  // (a hit) or takes (a miss: the returned value, to be filled by this read) the register;
  // without it the entry is unavailable. Returns null when nothing is to be filled.
  Ref access(unsigned bank, unsigned slot, unsigned warp, unsigned reg, bool reuse) {
    if (slot >= kSlots) return nullptr;
    Entry& e = entries_[bank * kSlots + slot];
    const bool same = e.data && e.warp == warp && e.reg == reg;
    if (!reuse) {
      e = Entry{};
      return nullptr;
    }
    if (same) return nullptr;
    e = Entry{warp, uint16_t(reg), std::make_shared<Value>()};
    return e.data;
  }
  // A slot's warp left (its CTA finished): its cached registers mean nothing any more.
  void drop_warp(unsigned warp) {
    for (Entry& e : entries_)
      if (e.data && e.warp == warp) e = Entry{};
  }
  unsigned valid() const {
    unsigned n = 0;
    for (const Entry& e : entries_) n += e.data != nullptr;
    return n;
  }

private:
  struct Entry {
    uint32_t warp = 0;
    uint16_t reg = 0;
    Ref data; // null: unavailable
  };
  std::vector<Entry> entries_;
};

} // namespace gpurf
