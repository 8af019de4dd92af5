#include "gpurf/policies/cmrc_format.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace gpurf::cmrc {

unsigned lane_width(uint32_t v) {
  for (unsigned n = 1; n < 4; ++n) {
    const unsigned shift = 32 - 8 * n;
    if (uint32_t(int32_t(v << shift) >> shift) == v) return n;
  }
  return 4;
}

uint8_t width_mask(const LaneValues& v) {
  // Hardware: per byte position, a reduction over all lanes (Sec. IV-B5); the sign check
  // against the next lower byte's top bit makes the mask contiguous.
  // lane_width over the lanes as three OR reductions (a loop that vectorises): a lane fits
  // n bytes when x + 2^(8n-1) wraps below 2^(8n).
  uint32_t over1 = 0, over2 = 0, over3 = 0;
  for (uint32_t x : v) {
    over1 |= (x + 0x80u) >> 8;
    over2 |= (x + 0x8000u) >> 16;
    over3 |= (x + 0x800000u) >> 24;
  }
  const unsigned n = over3 ? 4 : over2 ? 3 : over1 ? 2 : 1;
  return uint8_t((1u << (n - 1)) - 1);
}

uint8_t width_mask_warp_sign(const LaneValues& v) {
  bool neg = false, pos = false;
  for (uint32_t x : v) (int32_t(x) < 0 ? neg : pos) = true;
  return neg && pos ? uint8_t(7) : width_mask(v);
}

uint8_t reverse4(uint8_t m) {
  return uint8_t((m & 1) << 3 | (m & 2) << 1 | (m & 4) >> 1 | (m & 8) >> 3);
}

uint8_t width_of_slices(uint8_t slices, bool odd) {
  const uint8_t bytes = odd ? reverse4(slices & 15u) : uint8_t(slices & 15u);
  switch (bytes) {
  case 1:
    return 0;
  case 3:
    return 1;
  case 7:
    return 3;
  case 15:
    return 7;
  }
  throw std::invalid_argument("cmrc: slice mask " + std::to_string(slices) +
                              " is not a register width at " + (odd ? "an odd" : "an even") +
                              " row");
}

void pack(const LaneValues& v, bool odd, unsigned char* out) {
  for (unsigned j = 0; j < 4; ++j) {
    unsigned char* s = out + slice_of_byte(j, odd) * kSliceBytes;
    for (unsigned l = 0; l < kWarpSize; ++l) s[l] = uint8_t(v[l] >> (8 * j));
  }
}

LaneValues unpack(const unsigned char* in, uint8_t slices, bool odd) {
  const unsigned n = width_bytes(width_of_slices(slices, odd));
  LaneValues v{};
  for (unsigned j = 0; j < n; ++j) {
    const unsigned char* s = in + slice_of_byte(j, odd) * kSliceBytes;
    for (unsigned l = 0; l < kWarpSize; ++l) v[l] |= uint32_t(s[l]) << (8 * j);
  }
  if (n < 4) {
    const unsigned shift = 32 - 8 * n;
    for (auto& x : v) x = uint32_t(int32_t(x << shift) >> shift);
  }
  return v;
}

} // namespace gpurf::cmrc
