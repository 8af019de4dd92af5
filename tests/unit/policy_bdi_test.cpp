// Unit tests of Warped-Compression's BDI codec (policies/bdi): Table 1's sizes and banks,
// fits() against a range-check reference, the range indicator choice under the allowed
// masks of Fig. 15-16, the stored byte layout, round trips (random and at every delta
// boundary), and the design-space pick best() of Fig. 5.
#include <algorithm>
#include <array>
#include <cstring>
#include <random>
#include <stdexcept>

#include <gtest/gtest.h>

#include "gpurf/policies/bdi.h"

using namespace gpurf;
using namespace gpurf::bdi;

namespace {

using Lanes = std::array<uint32_t, kWarpSize>;
using Reg = std::array<uint8_t, kRegBytes>;

const Choice kChoices[] = {Choice::B4D0, Choice::B4D1, Choice::B4D2, Choice::Uncompressed};

Reg bytes_of(const Lanes& l) {
  Reg r;
  to_bytes(l.data(), r.data());
  return r;
}

Lanes fill(uint32_t v) {
  Lanes l;
  l.fill(v);
  return l;
}

// Lane 0 = base, lane `at` = base + d (wrapping), the rest = base.
Lanes one_delta(uint32_t base, int64_t d, unsigned at = 17) {
  Lanes l = fill(base);
  l[at] = uint32_t(base + uint32_t(d));
  return l;
}

// Reference fits(), written as a range check on the signed delta rather than the codec's
// sign-extension compare.
bool ref_fits(const Reg& r, Encoding e) {
  auto chunk = [&](unsigned i) {
    uint64_t v = 0;
    for (unsigned b = 0; b < e.base; ++b) v |= uint64_t(r[i * e.base + b]) << (8 * b);
    return v;
  };
  const unsigned bits = 8 * e.base;
  for (unsigned i = 1; i < kRegBytes / e.base; ++i) {
    int64_t d;
    if (bits == 64) {
      d = int64_t(chunk(i) - chunk(0));
    } else {
      d = int64_t(chunk(i)) - int64_t(chunk(0)); // |d| < 2^bits: wrap into the signed range
      const int64_t half = int64_t(1) << (bits - 1);
      if (d >= half) d -= 2 * half;
      if (d < -half) d += 2 * half;
    }
    if (e.delta == e.base) continue;
    const int64_t lim = e.delta == 0 ? 0 : int64_t(1) << (8 * e.delta - 1);
    if (e.delta == 0 ? d != 0 : (d < -lim || d >= lim)) return false;
  }
  return true;
}

// Reference choose(): fewest banks among the allowed fitting choices, ties the smaller delta.
Choice ref_choose(const Lanes& l, unsigned allowed) {
  const Reg r = bytes_of(l);
  Choice win = Choice::Uncompressed;
  for (unsigned i = 0; i < 3; ++i) {
    const Choice c = Choice(i);
    if (!(allowed & (1u << i)) || !ref_fits(r, encoding(c))) continue;
    if (slices(c) < slices(win) ||
        (slices(c) == slices(win) && encoding(c).delta < encoding(win).delta))
      win = c;
  }
  return win;
}

void expect_round_trip(const Lanes& l, Choice c) {
  Reg out;
  out.fill(0xa5);
  const unsigned n = compress(l.data(), c, out.data());
  EXPECT_EQ(n, c == Choice::Uncompressed ? kRegBytes : compressed_bytes(encoding(c)));
  for (unsigned i = n; i < kRegBytes; ++i) ASSERT_EQ(out[i], 0) << "byte " << i << " " << name(c);
  Lanes back;
  back.fill(0xdeadbeef);
  decompress(out.data(), c, back.data());
  EXPECT_EQ(back, l) << name(c);
}

// Round trip through every choice that fits; the others must be refused.
void expect_codec(const Lanes& l) {
  const Reg r = bytes_of(l);
  for (Choice c : kChoices) {
    if (fits(r.data(), encoding(c))) {
      expect_round_trip(l, c);
    } else {
      Reg out;
      EXPECT_THROW(compress(l.data(), c, out.data()), std::invalid_argument) << name(c);
    }
  }
}

Lanes random_register(std::mt19937& rng) {
  auto u32 = [&] { return uint32_t(rng()); };
  auto in = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  // Bases near the 32-bit wrap points as well as anywhere.
  const uint32_t edges[] = {0u, 0xffffffffu, 0x7fffffffu, 0x80000000u, 0x7fffff80u, 0x80007fffu};
  const uint32_t base = rng() % 3 == 0 ? edges[rng() % 6] : u32();
  Lanes l = fill(base);
  switch (rng() % 6) {
  case 0:
    break; // all equal
  case 1:
    for (auto& v : l) v = base + uint32_t(in(-128, 127));
    break;
  case 2:
    for (auto& v : l) v = base + uint32_t(in(-32768, 32767));
    break;
  case 3:
    for (auto& v : l) v = u32();
    break;
  case 4: // mixed signs and widths in one register, sometimes one outlier
    for (auto& v : l) v = base + uint32_t(rng() % 2 ? in(-128, 127) : in(-40000, 40000));
    if (rng() % 2) l[rng() % kWarpSize] = u32();
    break;
  default: // mostly equal, a few lanes at the 1 B / 2 B boundaries
    for (int k = 0; k < 4; ++k) {
      const int64_t ds[] = {127, -128, 128, -129, 32767, -32768, 32768, -32769};
      l[1 + rng() % (kWarpSize - 1)] = base + uint32_t(ds[rng() % 8]);
    }
    break;
  }
  l[0] = base;
  return l;
}

} // namespace

TEST(PolicyBdi, Table1SizesAndBanks) {
  struct Row {
    Encoding e;
    unsigned bytes, banks;
  };
  const Row rows[] = {{{1, 0}, 1, 1},  {{2, 1}, 65, 5}, {{4, 0}, 4, 1},
                      {{4, 1}, 35, 3}, {{4, 2}, 66, 5}, {{8, 0}, 8, 1},
                      {{8, 1}, 23, 2}, {{8, 2}, 38, 3}, {{8, 4}, 68, 5}};
  for (const Row& r : rows) {
    EXPECT_EQ(compressed_bytes(r.e), r.bytes) << name(r.e);
    EXPECT_EQ(banks_needed(r.e), r.banks) << name(r.e);
  }
  // Full-width deltas give back the raw register at every base size.
  for (uint8_t b : {1, 2, 4, 8}) EXPECT_EQ(compressed_bytes({b, b}), kRegBytes);
}

TEST(PolicyBdi, ChoicesAreTheHardwareEncodings) {
  EXPECT_EQ(encoding(Choice::B4D0), (Encoding{4, 0}));
  EXPECT_EQ(encoding(Choice::B4D1), (Encoding{4, 1}));
  EXPECT_EQ(encoding(Choice::B4D2), (Encoding{4, 2}));
  EXPECT_EQ(encoding(Choice::Uncompressed), (Encoding{4, 4}));
  EXPECT_EQ(slices(Choice::B4D0), 1u);
  EXPECT_EQ(slices(Choice::B4D1), 3u);
  EXPECT_EQ(slices(Choice::B4D2), 5u);
  EXPECT_EQ(slices(Choice::Uncompressed), 8u);
  EXPECT_EQ(name(Choice::B4D1), "<4,1>");
  EXPECT_EQ(name(Choice::Uncompressed), "uncompressed");
  EXPECT_EQ(name(Encoding{8, 4}), "<8,4>");
}

TEST(PolicyBdi, InvalidEncodingsAndMasksThrow) {
  const Reg r{};
  for (Encoding e : {Encoding{3, 1}, Encoding{0, 0}, Encoding{16, 1}, Encoding{4, 5}}) {
    EXPECT_THROW(compressed_bytes(e), std::invalid_argument) << name(e);
    EXPECT_THROW(fits(r.data(), e), std::invalid_argument) << name(e);
    EXPECT_THROW(best(r.data(), {e}), std::invalid_argument) << name(e);
  }
  const Lanes l = fill(1);
  EXPECT_THROW(choose(l.data(), 8), std::invalid_argument);
  EXPECT_THROW(encoding(Choice(4)), std::invalid_argument);
}

TEST(PolicyBdi, RandomRegistersRoundTripAndMatchReference) {
  std::mt19937 rng(20160312);
  std::array<unsigned, 4> picked{};
  for (int n = 0; n < 5000; ++n) {
    const Lanes l = random_register(rng);
    const Reg r = bytes_of(l);
    for (Encoding e : table1_design_space())
      ASSERT_EQ(fits(r.data(), e), ref_fits(r, e)) << name(e) << " register " << n;
    for (Encoding e : {Encoding{1, 0}, Encoding{1, 1}, Encoding{2, 0}, Encoding{2, 2}})
      ASSERT_EQ(fits(r.data(), e), ref_fits(r, e)) << name(e) << " register " << n;
    // Sec. 4: a wider delta at the same base compresses whatever a narrower one does.
    EXPECT_LE(fits(r.data(), {4, 1}), fits(r.data(), {4, 2}));
    EXPECT_LE(fits(r.data(), {8, 1}), fits(r.data(), {8, 2}));
    EXPECT_LE(fits(r.data(), {8, 2}), fits(r.data(), {8, 4}));
    const Choice c = choose(l.data());
    ASSERT_EQ(c, ref_choose(l, kAllChoices)) << "register " << n;
    ++picked[unsigned(c)];
    expect_codec(l);
    if (HasFailure()) return;
  }
  // The generator must exercise every range indicator value.
  for (unsigned i = 0; i < 4; ++i) EXPECT_GT(picked[i], 200u) << name(Choice(i));
}

TEST(PolicyBdi, DeltaBoundaries) {
  struct Case {
    int64_t d;
    Choice smallest;
  };
  const Case cases[] = {{0, Choice::B4D0},
                        {1, Choice::B4D1},
                        {-1, Choice::B4D1},
                        {127, Choice::B4D1},
                        {-128, Choice::B4D1},
                        {128, Choice::B4D2},
                        {-129, Choice::B4D2},
                        {32767, Choice::B4D2},
                        {-32768, Choice::B4D2},
                        {32768, Choice::Uncompressed},
                        {-32769, Choice::Uncompressed}};
  for (uint32_t base : {0u, 1000u, 0xffffffffu, 0x7fffffffu, 0x80000000u, 0x12345678u}) {
    for (const Case& k : cases) {
      for (unsigned at : {1u, 17u, 31u}) {
        const Lanes l = one_delta(base, k.d, at);
        EXPECT_EQ(choose(l.data()), k.smallest) << "base " << base << " delta " << k.d;
        expect_codec(l);
      }
    }
  }
}

TEST(PolicyBdi, MixedSignsInOneRegister) {
  Lanes l = fill(0x40000000);
  for (unsigned k = 1; k < kWarpSize; ++k)
    l[k] += uint32_t(k % 2 ? -int32_t(k) * 4 : int32_t(k) * 4);
  EXPECT_EQ(choose(l.data()), Choice::B4D1); // deltas -124..+120
  expect_codec(l);
  l[5] = 0x40000000u - 128;
  l[6] = 0x40000000u + 127;
  EXPECT_EQ(choose(l.data()), Choice::B4D1);
  l[7] = 0x40000000u - 129;
  EXPECT_EQ(choose(l.data()), Choice::B4D2);
  l[8] = 0x40000000u + 32767;
  l[9] = 0x40000000u - 32768;
  EXPECT_EQ(choose(l.data()), Choice::B4D2);
  expect_codec(l);
  l[10] = 0x40000000u + 32768;
  EXPECT_EQ(choose(l.data()), Choice::Uncompressed);
  expect_codec(l);
}

TEST(PolicyBdi, DeltasWrapAtThirtyTwoBits) {
  Lanes l = fill(0x7fffffff);
  l[1] = 0x80000000; // +1 across the signed overflow point
  EXPECT_EQ(choose(l.data()), Choice::B4D1);
  expect_codec(l);
  l = fill(0x80000000);
  l[1] = 0x7fffffff; // -1
  l[2] = 0x8000007f; // +127
  l[3] = 0x7fffff80; // -128
  EXPECT_EQ(choose(l.data()), Choice::B4D1);
  expect_codec(l);
  l[4] = 0x7fffff7f; // -129
  EXPECT_EQ(choose(l.data()), Choice::B4D2);
  expect_codec(l);
  l = fill(0);
  l[31] = 0xffffffff; // -1 across the unsigned wrap
  EXPECT_EQ(choose(l.data()), Choice::B4D1);
  expect_codec(l);
  l = fill(0x7fffffff);
  l[1] = 0xffffffff; // delta 0x80000000: only the raw register holds it
  EXPECT_EQ(choose(l.data()), Choice::Uncompressed);
  expect_codec(l);
}

TEST(PolicyBdi, ChooseRespectsTheAllowedMask) {
  const Lanes zero_bin = fill(0x3f800000);
  const Lanes one_byte = one_delta(0x3f800000, -100);
  const Lanes two_byte = one_delta(0x3f800000, 3000);
  const Lanes random = [] {
    Lanes l;
    for (unsigned k = 0; k < kWarpSize; ++k) l[k] = 0x9e3779b9u * (k + 1);
    return l;
  }();
  // The single-choice variants (Fig. 15-16): <4,0> only, <4,1> only, <4,2> only.
  const unsigned only40 = 1u << 0, only41 = 1u << 1, only42 = 1u << 2;
  EXPECT_EQ(choose(zero_bin.data(), only42), Choice::B4D2);
  EXPECT_EQ(choose(zero_bin.data(), only41), Choice::B4D1);
  EXPECT_EQ(choose(zero_bin.data(), only40), Choice::B4D0);
  EXPECT_EQ(choose(one_byte.data(), only40), Choice::Uncompressed);
  EXPECT_EQ(choose(one_byte.data(), only42), Choice::B4D2);
  EXPECT_EQ(choose(two_byte.data(), only41), Choice::Uncompressed);
  EXPECT_EQ(choose(two_byte.data(), only42), Choice::B4D2);
  EXPECT_EQ(choose(zero_bin.data(), only41 | only42), Choice::B4D1);
  EXPECT_EQ(choose(random.data(), kAllChoices), Choice::Uncompressed);
  for (const Lanes* l : {&zero_bin, &one_byte, &two_byte, &random}) {
    EXPECT_EQ(choose(l->data(), 0), Choice::Uncompressed);
    for (unsigned mask = 0; mask <= kAllChoices; ++mask)
      EXPECT_EQ(choose(l->data(), mask), ref_choose(*l, mask)) << "mask " << mask;
  }
}

TEST(PolicyBdi, StoredFormLayout) {
  Lanes l = fill(0x11223344);
  l[1] = 0x11223344u + 0x7f;  // delta 1
  l[2] = 0x11223344u - 2;     // delta 2
  l[31] = 0x11223344u - 0x80; // delta 31
  Reg out;
  out.fill(0xee);
  ASSERT_EQ(compress(l.data(), Choice::B4D1, out.data()), 35u);
  const uint8_t head[] = {0x44, 0x33, 0x22, 0x11, 0x7f, 0xfe};
  for (unsigned i = 0; i < sizeof head; ++i) EXPECT_EQ(out[i], head[i]) << "byte " << i;
  for (unsigned i = 6; i < 34; ++i) EXPECT_EQ(out[i], 0) << "byte " << i;
  EXPECT_EQ(out[34], 0x80); // delta 31 at 4 + 30 * 1
  for (unsigned i = 35; i < kRegBytes; ++i) EXPECT_EQ(out[i], 0) << "byte " << i;

  l[3] = 0x11223344u + 0x1234; // delta 3 needs 2 B
  out.fill(0xee);
  ASSERT_EQ(compress(l.data(), Choice::B4D2, out.data()), 66u);
  const uint8_t head2[] = {0x44, 0x33, 0x22, 0x11, 0x7f, 0x00, 0xfe, 0xff, 0x34, 0x12};
  for (unsigned i = 0; i < sizeof head2; ++i) EXPECT_EQ(out[i], head2[i]) << "byte " << i;
  EXPECT_EQ(out[4 + 30 * 2], 0x80); // delta 31 at 4 + 30 * 2
  EXPECT_EQ(out[4 + 30 * 2 + 1], 0xff);
  for (unsigned i = 66; i < kRegBytes; ++i) EXPECT_EQ(out[i], 0) << "byte " << i;

  out.fill(0xee);
  const Lanes same = fill(0xcafef00d);
  ASSERT_EQ(compress(same.data(), Choice::B4D0, out.data()), 4u);
  EXPECT_EQ(out[0], 0x0d);
  EXPECT_EQ(out[3], 0xca);
  for (unsigned i = 4; i < kRegBytes; ++i) EXPECT_EQ(out[i], 0) << "byte " << i;

  // Uncompressed: the register's own little-endian bytes.
  ASSERT_EQ(compress(l.data(), Choice::Uncompressed, out.data()), kRegBytes);
  EXPECT_EQ(out, bytes_of(l));
  EXPECT_EQ(out[12], 0x78); // lane 3 = 0x11224578, low byte first
  EXPECT_EQ(out[13], 0x45);
}

TEST(PolicyBdi, CompressRefusesAChoiceThatDoesNotFit) {
  Reg out;
  const Lanes l = one_delta(5, 200);
  EXPECT_THROW(compress(l.data(), Choice::B4D0, out.data()), std::invalid_argument);
  EXPECT_THROW(compress(l.data(), Choice::B4D1, out.data()), std::invalid_argument);
  EXPECT_EQ(compress(l.data(), Choice::B4D2, out.data()), 66u);
}

TEST(PolicyBdi, FitsWithBaseEightUsesLanePairs) {
  // Lane pairs (a, b) repeating: one 64-bit chunk over and over.
  Lanes l;
  for (unsigned k = 0; k < kWarpSize; k += 2) {
    l[k] = 0x01020304;
    l[k + 1] = 0xa0b0c0d0;
  }
  Reg r = bytes_of(l);
  EXPECT_TRUE(fits(r.data(), {8, 0}));
  EXPECT_FALSE(fits(r.data(), {4, 0}));
  EXPECT_FALSE(fits(r.data(), {4, 2}));

  // A carry out of the low lane into the high lane is a 64-bit delta of +1.
  for (unsigned k = 0; k < kWarpSize; k += 2) {
    l[k] = 0xffffffff;
    l[k + 1] = 0xdeadbeef;
  }
  l[6] = 0;
  l[7] = 0xdeadbef0;
  r = bytes_of(l);
  EXPECT_FALSE(fits(r.data(), {8, 0}));
  EXPECT_TRUE(fits(r.data(), {8, 1}));
  EXPECT_FALSE(fits(r.data(), {4, 2})); // lane-wise the high lanes are far from lane 0

  // A high-lane change alone is a delta of 2^32: more than 4 bytes.
  for (unsigned k = 0; k < kWarpSize; k += 2) {
    l[k] = 0x5550;
    l[k + 1] = 0x5555;
  }
  l[9] = 0x5556;
  r = bytes_of(l);
  EXPECT_FALSE(fits(r.data(), {8, 4}));
  EXPECT_TRUE(fits(r.data(), {8, 8}));
  EXPECT_TRUE(fits(r.data(), {4, 1})); // lane-wise it is small

  // Base 1 and 2: bytes and 16-bit halves.
  r = bytes_of(fill(0x05050505));
  EXPECT_TRUE(fits(r.data(), {1, 0}));
  r = bytes_of(fill(0x05050506));
  EXPECT_FALSE(fits(r.data(), {1, 0}));
  EXPECT_TRUE(fits(r.data(), {1, 1}));
  r = bytes_of(fill(0x12341250));
  EXPECT_TRUE(fits(r.data(), {2, 1})); // halves 0x1250, 0x1234: delta -0x1c
  r = bytes_of(fill(0x123412b5));
  EXPECT_FALSE(fits(r.data(), {2, 1})); // delta -0x81
  EXPECT_TRUE(fits(r.data(), {2, 2}));
}

TEST(PolicyBdi, BestPicksAnEightByteBaseForRepeatingPairs) {
  std::mt19937 rng(7);
  Lanes l;
  // hi constant and close to lo; lo varies within 1 B of the first lo.
  for (unsigned k = 0; k < kWarpSize; k += 2) {
    l[k] = 0x1000 + rng() % 100;
    l[k + 1] = 0x1800;
  }
  l[0] = 0x1000 + 50;
  Reg r = bytes_of(l);
  ASSERT_TRUE(fits(r.data(), {4, 2})); // lane deltas up to 0x800
  ASSERT_FALSE(fits(r.data(), {4, 1}));
  auto b = best(r.data(), table1_design_space());
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(*b, (Encoding{8, 1})); // 23 B beats 66 B
  EXPECT_EQ(compressed_bytes(*b), 23u);

  // With a far hi no <4,*> fits at all.
  for (unsigned k = 1; k < kWarpSize; k += 2) l[k] = 0xdeadbeef;
  r = bytes_of(l);
  b = best(r.data(), table1_design_space());
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(*b, (Encoding{8, 1}));

  // Exactly repeating pairs: <8,0> (8 B).
  for (unsigned k = 0; k < kWarpSize; k += 2) l[k] = 0x1000;
  r = bytes_of(l);
  EXPECT_EQ(best(r.data(), table1_design_space()), (Encoding{8, 0}));
}

TEST(PolicyBdi, BestPicksAFourByteBaseForLaneSimilarity) {
  Reg r = bytes_of(fill(0x3f800000));
  EXPECT_EQ(best(r.data(), table1_design_space()), (Encoding{4, 0})); // 4 B beats <8,0>'s 8 B

  // Lane deltas that change both lanes of every pair: a 64-bit chunk delta is then about
  // 2^32 or more, so only the 4 B base compresses.
  Lanes l;
  for (unsigned k = 0; k < kWarpSize; ++k) l[k] = 1000 + 3 * k;
  r = bytes_of(l);
  EXPECT_EQ(best(r.data(), table1_design_space()), (Encoding{4, 1}));
  const std::vector<Encoding> eights = {{8, 0}, {8, 1}, {8, 2}, {8, 4}};
  EXPECT_EQ(best(r.data(), eights), std::nullopt);
  l[9] += 1000; // a lane delta of 2 B
  r = bytes_of(l);
  EXPECT_EQ(best(r.data(), table1_design_space()), (Encoding{4, 2}));
}

TEST(PolicyBdi, BestTiesAndMisses) {
  Lanes l;
  for (unsigned k = 0; k < kWarpSize; ++k) l[k] = 0x9e3779b9u * (k + 1);
  const Reg r = bytes_of(l);
  EXPECT_EQ(best(r.data(), table1_design_space()), std::nullopt);
  EXPECT_EQ(best(r.data(), {}), std::nullopt);
  // <8,8> and <4,4> both take 128 B and always fit: the earlier one wins.
  EXPECT_EQ(best(r.data(), {{8, 8}, {4, 4}}), (Encoding{8, 8}));
  EXPECT_EQ(best(r.data(), {{4, 4}, {8, 8}}), (Encoding{4, 4}));
  EXPECT_EQ(best(r.data(), {{4, 1}, {4, 4}}), (Encoding{4, 4}));
}

TEST(PolicyBdi, ChoiceOfSlicesInvertsSlices) {
  using namespace gpurf::bdi;
  for (Choice c : {Choice::B4D0, Choice::B4D1, Choice::B4D2, Choice::Uncompressed})
    EXPECT_EQ(choice_of_slices(slices(c)), c);
  for (unsigned n : {0u, 2u, 4u, 6u, 7u, 9u})
    EXPECT_THROW(choice_of_slices(n), std::invalid_argument);
}
