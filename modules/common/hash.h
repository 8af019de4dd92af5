// A 64-bit hash built value by value: the identity of an instruction's operation
// (compiler/reuse_key.h), of a warp computation with its values (gpurf profile, WIR Fig. 2),
// of a warp's state (frontend/loop_watch.h). Not cryptographic: a collision only merges two
// things the caller counts.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "gpurf/modules/common/warp_inst.h"

namespace gpurf {

struct Hash64 {
  uint64_t h = 0xcbf29ce484222325ull;
  void add(uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 0x100000001b3ull;
  }
  void add(const std::string& s) { add(std::hash<std::string>()(s)); }
  // The lanes of `mask` of per-lane values (register values, addresses).
  // All 32 lanes of 32-bit values: two lanes per step (half the chain).
  template <class Lanes> void add_lanes(const Lanes& v, uint32_t mask = ~0u) {
    if (sizeof(v[0]) == 4 && mask == ~0u) {
      for (unsigned l = 0; l < kWarpSize; l += 2)
        add(uint64_t(uint32_t(v[l])) | uint64_t(uint32_t(v[l + 1])) << 32);
      return;
    }
    for (unsigned l = 0; l < kWarpSize; ++l)
      if (mask >> l & 1) add(uint64_t(v[l]));
  }
  // Folded to 32 bits, never 0.
  uint32_t nonzero32() const { return uint32_t(h ^ (h >> 32)) | 1u; }
};

} // namespace gpurf
