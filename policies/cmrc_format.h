// CMRC (Radaideh & Gratz, shared/papers/000) register data format, plain C++: width
// detection (Sec. IV-B5), the thread-interleaved format with the thread-local byte swap
// (Sec. IV-B1/2, Fig. 4), unpacking with sign extension, and the per-register mask buffer.
//
// A warp register is 32 lanes x 4 B = 128 B, held by a bank of 4 slices (sub-banks) of
// 32 B. In the thread-interleaved format slice k holds one byte position of all 32 lanes
// (byte l of slice k = that byte of lane l). Even bank rows are right-aligned: byte j of
// every lane lives in slice j. Odd rows are left-aligned by swapping the bytes inside each
// thread: byte j lives in slice 3 - j. A register needs bytes 0..n-1 (n = its width); the
// other slices are not accessed, and reading back sign-extends byte n-1.
#pragma once

#include <cstdint>
#include <vector>

#include "gpurf/modules/common/warp_inst.h"

namespace gpurf::cmrc {

constexpr unsigned kSlices = 4; // CMRC's 4 x 32 B sub-banks per 128 B bank
constexpr unsigned kSliceBytes = kRegBytes / kSlices;

// Bytes (1..4) lane value v needs: the smallest n with v == sign extension of its low n
// bytes (0x0000007f: 1, 0xffffff80: 1, 0x00000080: 2, 0x12000034: 4).
unsigned lane_width(uint32_t v);

// A register's width mask: 3 bits, bit j-1 set when byte j (1..3) must be stored for some
// lane (byte 0 is always stored). Always of the form 000, 001, 011 or 111: a byte above a
// needed byte is needed, since the missing bytes are recovered by sign extension.
uint8_t width_mask(const LaneValues& v);
// The literal reading of Sec. IV-B5: a byte is dropped when it is all zeros (OR reduction)
// or all ones (NAND reduction) over every lane of the warp, with the sign check of
// width_mask (so sign extension recovers it). A warp whose lanes mix signs keeps all 4
// bytes; otherwise the same as width_mask.
uint8_t width_mask_warp_sign(const LaneValues& v);
// Bytes a width mask stores (1..4).
inline unsigned width_bytes(uint8_t wmask) { return 1 + __builtin_popcount(wmask & 7u); }
// Logical byte mask (4 bits, bit j: byte j stored) of a width mask.
inline uint8_t byte_mask(uint8_t wmask) { return uint8_t(1u | (wmask & 7u) << 1); }
// The thread-local byte swap as a mask permutation: bit j <-> bit 3 - j.
uint8_t reverse4(uint8_t m);
// Physical slice holding byte j of every lane in a row of parity `odd`.
inline unsigned slice_of_byte(unsigned j, bool odd) { return odd ? kSlices - 1 - j : j; }
// Physical slice mask (bit k: slice k accessed) of a register with width mask `wmask`.
inline uint8_t slice_mask(uint8_t wmask, bool odd) {
  return odd ? reverse4(byte_mask(wmask)) : byte_mask(wmask);
}
// Width mask back from a physical slice mask (for the collector's unpacking); throws
// std::invalid_argument when the mask is not one a register can have at that parity.
uint8_t width_of_slices(uint8_t slices, bool odd);

// Writes all four bytes of every lane into `out` (128 B) in the thread-interleaved format,
// byte-swapped when `odd`. The bank stores only the slices of the register's mask.
void pack(const LaneValues& v, bool odd, unsigned char* out);
// Rebuilds the 32-bit lane values from the slices in `slices` (physical mask) of `in`,
// sign-extending above the highest stored byte. Slices outside the mask are not read.
LaneValues unpack(const unsigned char* in, uint8_t slices, bool odd);

} // namespace gpurf::cmrc
