// Bit counts (slice masks), inline. The build targets baseline x86-64 (no POPCNT), where
// __builtin_popcount is a call into libgcc (about 20 host instructions with the call); the
// same count in a few shifts and adds is inlined.
#pragma once

#include <cstdint>

namespace gpurf {

constexpr unsigned popcount32(uint32_t m) {
  m = m - ((m >> 1) & 0x55555555u);
  m = (m & 0x33333333u) + ((m >> 2) & 0x33333333u);
  return (((m + (m >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24;
}
static_assert(popcount32(0) == 0 && popcount32(0xff) == 8 && popcount32(0xa5) == 4 &&
              popcount32(0xffffffffu) == 32 && popcount32(0x80000001u) == 2);

} // namespace gpurf
