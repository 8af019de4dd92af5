// Unit tests of CMRC's register data format (policies/cmrc_format): per-lane width, the
// 3-bit mask over a warp, the byte swap of odd rows, packing into the thread-interleaved
// format and unpacking with sign extension, and the mask buffer.
#include <random>

#include <gtest/gtest.h>

#include "gpurf/policies/cmrc_format.h"
#include "gpurf/policies/row_tags.h"

using namespace gpurf;
using namespace gpurf::cmrc;

namespace {
LaneValues fill(uint32_t v) {
  LaneValues a;
  a.fill(v);
  return a;
}
} // namespace

TEST(CmrcFormat, LaneWidthIsTheSignExtensionWidth) {
  EXPECT_EQ(lane_width(0), 1u);
  EXPECT_EQ(lane_width(0x7f), 1u);
  EXPECT_EQ(lane_width(0xffffffff), 1u); // -1
  EXPECT_EQ(lane_width(0xffffff80), 1u); // -128
  EXPECT_EQ(lane_width(0x80), 2u);       // 128 needs byte 1 for its sign
  EXPECT_EQ(lane_width(0xffffff7f), 2u); // -129
  EXPECT_EQ(lane_width(0x7fff), 2u);
  EXPECT_EQ(lane_width(0x8000), 3u);
  EXPECT_EQ(lane_width(0x007fffff), 3u);
  EXPECT_EQ(lane_width(0x00800000), 4u);
  EXPECT_EQ(lane_width(0x12000034), 4u); // a zero middle byte is not droppable
  EXPECT_EQ(lane_width(0x3f800000), 4u); // 1.0f
}

TEST(CmrcFormat, WarpMaskIsTheWidestLaneAndContiguous) {
  EXPECT_EQ(width_mask(fill(5)), 0b000);
  LaneValues v = fill(5);
  v[31] = 0x100;
  EXPECT_EQ(width_mask(v), 0b001);
  v[7] = 0xffff0000; // -65536: 3 bytes
  EXPECT_EQ(width_mask(v), 0b011);
  v[0] = 0x40000000;
  EXPECT_EQ(width_mask(v), 0b111);
  for (uint8_t w : {0, 1, 3, 7}) EXPECT_EQ(width_bytes(w), 1u + __builtin_popcount(w));
}

// The literal warp-wide OR / NAND reading: lanes of one sign narrow as per lane; a warp
// mixing signs (bytes 0x00 in some lanes, 0xff in others) keeps all four bytes.
TEST(CmrcFormat, WarpSignReadingKeepsMixedSignsFullWidth) {
  LaneValues v = fill(5);
  EXPECT_EQ(width_mask_warp_sign(v), 0b000);
  v[3] = 0xffffff80; // -128: one byte, negative
  EXPECT_EQ(width_mask(v), 0b000);
  EXPECT_EQ(width_mask_warp_sign(v), 0b111);
  v = fill(0xfffffff0);
  v[0] = 0xffff0000; // all negative: as per lane
  EXPECT_EQ(width_mask_warp_sign(v), width_mask(v));
  EXPECT_EQ(width_mask_warp_sign(v), 0b011);
}

TEST(CmrcFormat, ByteSwapPutsOddRowsInTheHighSlices) {
  EXPECT_EQ(reverse4(0b0001), 0b1000);
  EXPECT_EQ(reverse4(0b0011), 0b1100);
  EXPECT_EQ(reverse4(0b0111), 0b1110);
  EXPECT_EQ(reverse4(0b1111), 0b1111);
  // Even rows right-aligned in the low slices, odd rows left-aligned in the high slices.
  EXPECT_EQ(slice_mask(0b000, false), 0b0001);
  EXPECT_EQ(slice_mask(0b001, false), 0b0011);
  EXPECT_EQ(slice_mask(0b000, true), 0b1000);
  EXPECT_EQ(slice_mask(0b011, true), 0b1110);
  for (unsigned j = 0; j < 4; ++j) {
    EXPECT_EQ(slice_of_byte(j, false), j);
    EXPECT_EQ(slice_of_byte(j, true), 3 - j);
  }
  for (uint8_t w : {0, 1, 3, 7})
    for (bool odd : {false, true}) EXPECT_EQ(width_of_slices(slice_mask(w, odd), odd), w);
  EXPECT_THROW(width_of_slices(0b1000, false), std::invalid_argument);
  EXPECT_THROW(width_of_slices(0b0101, true), std::invalid_argument);
}

TEST(CmrcFormat, PackIsThreadInterleaved) {
  LaneValues v;
  for (unsigned l = 0; l < 32; ++l) v[l] = 0x04030201u + l * 0x01010101u;
  unsigned char even[128], odd[128];
  pack(v, false, even);
  pack(v, true, odd);
  for (unsigned l = 0; l < 32; ++l)
    for (unsigned j = 0; j < 4; ++j) {
      EXPECT_EQ(even[j * 32 + l], uint8_t(v[l] >> (8 * j)));
      EXPECT_EQ(odd[(3 - j) * 32 + l], uint8_t(v[l] >> (8 * j)));
    }
}

// Pack, keep only the slices of the mask (the bank stores nothing else), unpack: the lane
// values come back, sign-extended, for random narrow and wide values at both parities.
TEST(CmrcFormat, RoundTripThroughTheStoredSlicesOnly) {
  std::mt19937 rng(1);
  for (unsigned n = 1; n <= 4; ++n)
    for (bool odd : {false, true})
      for (int rep = 0; rep < 50; ++rep) {
        LaneValues v;
        for (auto& x : v) {
          const unsigned shift = 32 - 8 * n;
          x = uint32_t(int32_t(rng() << shift) >> shift);
        }
        const uint8_t w = width_mask(v);
        EXPECT_LE(width_bytes(w), n);
        unsigned char buf[128], stored[128];
        pack(v, odd, buf);
        std::fill(stored, stored + 128, 0xa5); // stale bytes in the slices not written
        const uint8_t m = slice_mask(w, odd);
        for (unsigned s = 0; s < 4; ++s)
          if (m >> s & 1) std::copy(buf + s * 32, buf + s * 32 + 32, stored + s * 32);
        EXPECT_EQ(unpack(stored, m, odd), v) << "n " << n << " odd " << odd;
      }
}

// The mask is the widest lane's width (lane_width), for lanes at every width boundary.
TEST(CmrcFormat, WidthMaskIsTheWidestLane) {
  std::mt19937 rng(7);
  const uint32_t edges[] = {0,        0x7f,       0x80,       0xffffff80, 0xffffff7f,
                            0x7fff,   0x8000,     0xffff8000, 0xffff7fff, 0x7fffff,
                            0x800000, 0xff800000, 0xff7fffff, 0x7fffffff, 0x80000000};
  for (int rep = 0; rep < 2000; ++rep) {
    LaneValues v;
    unsigned widest = 1;
    for (auto& x : v) {
      x = rng() % 3 ? edges[rng() % std::size(edges)] : uint32_t(rng());
      widest = std::max(widest, lane_width(x));
    }
    EXPECT_EQ(width_mask(v), (1u << (widest - 1)) - 1) << "rep " << rep;
  }
}

TEST(RowTags, OneTagPerBankRowZeroUntilSet) {
  RowTags mb(4, 256); // CMRC Table II: 1024 warp registers (x 3 bits = 384 B of mask buffer)
  EXPECT_EQ(mb.entries(), 1024u);
  EXPECT_EQ(mb.get(3, 255), 0);
  mb.set(3, 255, 0b011);
  mb.set(0, 1, 0b111);
  EXPECT_EQ(mb.get(3, 255), 0b011);
  EXPECT_EQ(mb.get(0, 1), 0b111);
  EXPECT_EQ(mb.get(0, 0), 0);
  EXPECT_THROW(mb.get(4, 0), std::out_of_range);
}
