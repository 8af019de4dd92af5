// Affine warp registers (WIR's Affine GPU, shared/papers/004 Sec. VII-A, after Collange et
// al. and Kim et al.): a value whose 32 lanes step by one stride (mod 2^32; a uniform value has
// stride 0) is storable as a (32-bit base, 32-bit stride) tuple.
#pragma once

#include <cstring>

#include "gpurf/modules/common/warp_inst.h"

namespace gpurf {

inline bool affine(const LaneValues& v) {
  const uint32_t stride = v[1] - v[0];
  for (unsigned l = 2; l < kWarpSize; ++l)
    if (v[l] - v[l - 1] != stride) return false;
  return true;
}

// The same test on a 128 B register image (lane l in bytes 4l..4l+3).
inline bool affine(const unsigned char* bytes) {
  LaneValues v;
  std::memcpy(v.data(), bytes, kRegBytes);
  return affine(v);
}

} // namespace gpurf
