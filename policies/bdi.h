// Warped-Compression's BDI codec (Lee et al., shared/papers/002, Sec. 4 and 5.1, Table 1,
// Eq. 1), plain C++.
//
// A 128 B warp register (32 lanes x 4 B, little-endian, lane 0 first) is cut into chunks of
// the base size B. The base is the first chunk (Sec. 5.1: the hardware only uses the first
// chunk as the base); every chunk's delta is chunk - base, wrapping at B bytes. An encoding
// <B,D> fits when every delta equals the sign extension of its low D bytes. The stored form
// is the base followed by the 128/B - 1 deltas of the other chunks, in 16 B bank slices.
//
// The hardware (Sec. 4) keeps only <4,0>, <4,1>, <4,2> and a 2-bit range indicator per warp
// register (Choice); the other encodings exist for the design-space study (Fig. 5).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpurf/modules/common/warp_inst.h"

namespace gpurf::bdi {

constexpr unsigned kBankBytes = 16; // one register bank entry (slice)

struct Encoding {
  uint8_t base = 4, delta = 0; // bytes
};
inline bool operator==(Encoding a, Encoding b) { return a.base == b.base && a.delta == b.delta; }
inline bool operator!=(Encoding a, Encoding b) { return !(a == b); }

// Throws std::invalid_argument unless base is 1, 2, 4 or 8 and delta <= base.
void check(Encoding e);

// Eq. 1 for a 128 B register: B + D * (128/B - 1).
unsigned compressed_bytes(Encoding e);
// ceil(compressed_bytes / 16).
unsigned banks_needed(Encoding e);
// Whether every chunk's delta to the first chunk is representable in D bytes.
bool fits(const uint8_t reg[kRegBytes], Encoding e);

// The hardware's 2-bit compression range indicator (Sec. 4).
enum class Choice : uint8_t { B4D0 = 0, B4D1 = 1, B4D2 = 2, Uncompressed = 3 };
Encoding encoding(Choice c); // Uncompressed -> {4, 4} (Eq. 1 then gives 128 B)
unsigned slices(Choice c);   // banks read or written: 1, 3, 5, 8
// The choice whose stored form takes `n` slices; throws std::invalid_argument for another n.
Choice choice_of_slices(unsigned n);

// Allowed choices as a bit mask over Choice values 0..2 (the single-choice variants of
// Fig. 15-16 allow one). Uncompressed is always possible and needs no bit.
constexpr unsigned kAllChoices = 7;
// The allowed choice needing the fewest banks (ties: the smaller delta), else Uncompressed.
// Throws std::invalid_argument for mask bits above bit 2.
Choice choose(const uint32_t lanes[kWarpSize], unsigned allowed = kAllChoices);

// Stored form: base (4 B) then the 31 deltas of D bytes each, little-endian, packed from
// byte 0; the rest of `out` is zeroed. Uncompressed: the 128 B as they are. Returns the
// bytes the stored form needs (compressed_bytes or 128). Throws std::invalid_argument when
// `c` does not fit (callers pick with choose()).
unsigned compress(const uint32_t lanes[kWarpSize], Choice c, uint8_t out[kRegBytes]);
// Inverse of compress(); only the first compressed_bytes of `in` are read.
void decompress(const uint8_t in[kRegBytes], Choice c, uint32_t lanes[kWarpSize]);

// Design space (Fig. 5): the fitting encoding of `set` with the smallest compressed size
// (ties: earlier in `set`), or nullopt if none fits.
std::optional<Encoding> best(const uint8_t reg[kRegBytes], const std::vector<Encoding>& set);
// <4,0>, <4,1>, <4,2>, <8,0>, <8,1>, <8,2>, <8,4> (Fig. 5's set) and <2,1> (Table 1).
const std::vector<Encoding>& table1_design_space();

std::string name(Encoding e); // "<4,1>"
std::string name(Choice c);   // "<4,1>" / "uncompressed"

// Lane values <-> the register's 128 little-endian bytes.
void to_bytes(const uint32_t lanes[kWarpSize], uint8_t reg[kRegBytes]);
void to_lanes(const uint8_t reg[kRegBytes], uint32_t lanes[kWarpSize]);

} // namespace gpurf::bdi
