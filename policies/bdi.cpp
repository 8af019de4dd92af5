#include "gpurf/policies/bdi.h"

#include <cstring>
#include <stdexcept>

namespace gpurf::bdi {

namespace {

uint64_t load_le(const uint8_t* p, unsigned n) {
  uint64_t v = 0;
  for (unsigned i = 0; i < n; ++i) v |= uint64_t(p[i]) << (8 * i);
  return v;
}

void store_le(uint8_t* p, uint64_t v, unsigned n) {
  for (unsigned i = 0; i < n; ++i) p[i] = uint8_t(v >> (8 * i));
}

// The hardware's encodings have a 4-byte base: a chunk is a lane, and the codec runs on the 32
// lanes as they are (loops that vectorise) instead of byte by byte.
// Whether every lane's delta to lane 0, wrapping at 32 bits, is the sign extension of its low
// `d` bytes.
bool lanes_fit(const uint32_t lanes[kWarpSize], unsigned d) {
  const uint32_t base = lanes[0];
  uint32_t bad = 0;
  if (d == 0)
    for (unsigned k = 1; k < kWarpSize; ++k) bad |= lanes[k] ^ base;
  else if (d < 4) {
    const uint32_t bias = 1u << (8 * d - 1), limit = 1u << (8 * d);
    for (unsigned k = 1; k < kWarpSize; ++k) bad |= uint32_t(lanes[k] - base + bias) >= limit;
  }
  return bad == 0;
}

uint64_t low_mask(unsigned bytes) {
  return bytes >= 8 ? ~uint64_t(0) : (uint64_t(1) << (8 * bytes)) - 1;
}

// Sign-extends the low `from` bytes of v to `to` bytes (the rest zero), as the hardware's
// sign-extension comparators do when checking a delta.
uint64_t sign_extend(uint64_t v, unsigned from, unsigned to) {
  if (from == 0) return 0;
  const unsigned shift = 64 - 8 * from;
  return uint64_t(int64_t(v << shift) >> shift) & low_mask(to);
}

} // namespace

void check(Encoding e) {
  const bool base_ok = e.base == 1 || e.base == 2 || e.base == 4 || e.base == 8;
  if (!base_ok || e.delta > e.base)
    throw std::invalid_argument("bdi: invalid encoding " + name(e) +
                                " (base 1, 2, 4 or 8 bytes, delta <= base)");
}

unsigned compressed_bytes(Encoding e) {
  check(e);
  return e.base + e.delta * (kRegBytes / e.base - 1);
}

unsigned banks_needed(Encoding e) { return (compressed_bytes(e) + kBankBytes - 1) / kBankBytes; }

bool fits(const uint8_t reg[kRegBytes], Encoding e) {
  check(e);
  if (e.base == 4) {
    uint32_t lanes[kWarpSize];
    to_lanes(reg, lanes);
    return lanes_fit(lanes, e.delta);
  }
  const unsigned b = e.base;
  const uint64_t mask = low_mask(b);
  const uint64_t base = load_le(reg, b);
  for (unsigned off = b; off < kRegBytes; off += b) {
    const uint64_t d = (load_le(reg + off, b) - base) & mask;
    if (sign_extend(d, e.delta, b) != d) return false;
  }
  return true;
}

Encoding encoding(Choice c) {
  switch (c) {
  case Choice::B4D0:
    return {4, 0};
  case Choice::B4D1:
    return {4, 1};
  case Choice::B4D2:
    return {4, 2};
  case Choice::Uncompressed:
    return {4, 4};
  }
  throw std::invalid_argument("bdi: invalid choice " + std::to_string(unsigned(c)));
}

unsigned slices(Choice c) { return banks_needed(encoding(c)); }

Choice choice_of_slices(unsigned n) {
  for (Choice c : {Choice::B4D0, Choice::B4D1, Choice::B4D2, Choice::Uncompressed})
    if (slices(c) == n) return c;
  throw std::invalid_argument("bdi: " + std::to_string(n) +
                              " slices is no stored form (1, 3, 5 or 8)");
}

Choice choose(const uint32_t lanes[kWarpSize], unsigned allowed) {
  if (allowed & ~kAllChoices)
    throw std::invalid_argument("bdi: choice mask " + std::to_string(allowed) +
                                " has bits above <4,2>");
  // Choices 0..2 need strictly more banks as the delta grows, so the first fitting allowed
  // one is the fewest-banks one (and the smaller delta on a tie).
  for (uint8_t i = 0; i < 3; ++i) {
    const Choice c = Choice(i);
    if (allowed & (1u << i) && lanes_fit(lanes, encoding(c).delta)) return c;
  }
  return Choice::Uncompressed;
}

unsigned compress(const uint32_t lanes[kWarpSize], Choice c, uint8_t out[kRegBytes]) {
  const Encoding e = encoding(c);
  if (c == Choice::Uncompressed) {
    to_bytes(lanes, out);
    return kRegBytes;
  }
  if (!lanes_fit(lanes, e.delta))
    throw std::invalid_argument("bdi: register does not fit " + name(c) + "; use choose()");
  std::memset(out, 0, kRegBytes);
  store_le(out, lanes[0], 4);
  uint8_t* p = out + 4;
  if (e.delta == 1)
    for (unsigned k = 1; k < kWarpSize; ++k) p[k - 1] = uint8_t(lanes[k] - lanes[0]);
  else if (e.delta == 2)
    for (unsigned k = 1; k < kWarpSize; ++k) {
      const uint32_t d = lanes[k] - lanes[0];
      p[2 * k - 2] = uint8_t(d);
      p[2 * k - 1] = uint8_t(d >> 8);
    }
  return compressed_bytes(e);
}

void decompress(const uint8_t in[kRegBytes], Choice c, uint32_t lanes[kWarpSize]) {
  const Encoding e = encoding(c);
  if (c == Choice::Uncompressed) {
    to_lanes(in, lanes);
    return;
  }
  const uint32_t base = uint32_t(load_le(in, 4));
  const uint8_t* p = in + 4;
  lanes[0] = base;
  if (e.delta == 0)
    for (unsigned k = 1; k < kWarpSize; ++k) lanes[k] = base;
  else if (e.delta == 1)
    for (unsigned k = 1; k < kWarpSize; ++k) lanes[k] = base + uint32_t(int32_t(int8_t(p[k - 1])));
  else
    for (unsigned k = 1; k < kWarpSize; ++k)
      lanes[k] = base + uint32_t(int32_t(int16_t(uint16_t(p[2 * k - 2] | p[2 * k - 1] << 8))));
}

std::optional<Encoding> best(const uint8_t reg[kRegBytes], const std::vector<Encoding>& set) {
  std::optional<Encoding> win;
  unsigned win_bytes = 0;
  for (Encoding e : set) {
    const unsigned bytes = compressed_bytes(e);
    // Strictly smaller only, so the earlier encoding keeps a tie.
    if ((!win || bytes < win_bytes) && fits(reg, e)) {
      win = e;
      win_bytes = bytes;
    }
  }
  return win;
}

const std::vector<Encoding>& table1_design_space() {
  static const std::vector<Encoding> set = {{4, 0}, {4, 1}, {4, 2}, {8, 0},
                                            {8, 1}, {8, 2}, {8, 4}, {2, 1}};
  return set;
}

std::string name(Encoding e) {
  return "<" + std::to_string(unsigned(e.base)) + "," + std::to_string(unsigned(e.delta)) + ">";
}

std::string name(Choice c) {
  return c == Choice::Uncompressed ? "uncompressed" : name(encoding(c));
}

// Little-endian bytes: a copy on a little-endian host.
void to_bytes(const uint32_t lanes[kWarpSize], uint8_t reg[kRegBytes]) {
  if constexpr (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)
    std::memcpy(reg, lanes, kRegBytes);
  else
    for (unsigned l = 0; l < kWarpSize; ++l) store_le(reg + 4 * l, lanes[l], 4);
}

void to_lanes(const uint8_t reg[kRegBytes], uint32_t lanes[kWarpSize]) {
  if constexpr (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)
    std::memcpy(lanes, reg, kRegBytes);
  else
    for (unsigned l = 0; l < kWarpSize; ++l) lanes[l] = uint32_t(load_le(reg + 4 * l, 4));
}

} // namespace gpurf::bdi
