// Unit tests of CMRC's coalescing legality (policies/cmrc_coalesce): each Table I kind,
// overlapping slices, disabled kinds (the CORF-like set) and kind names.
#include <gtest/gtest.h>

#include "gpurf/policies/cmrc_coalesce.h"
#include "gpurf/policies/cmrc_format.h"

using namespace gpurf::cmrc;

namespace {
int a, b; // two instructions (identity only)
Request rd(const void* inst, unsigned bank, uint8_t slices, unsigned collector) {
  return {false, inst, bank, slices, collector};
}
Request wr(const void* inst, unsigned bank, uint8_t slices) {
  return {true, inst, bank, slices, 0};
}
Kind kind_of(const Request& x, const Request& y) {
  Kind k{};
  EXPECT_TRUE(classify(x, y, k));
  return k;
}
// One-byte register in an even row (slice 0) and in an odd row (slice 3).
const uint8_t kEven1 = slice_mask(0b000, false), kOdd1 = slice_mask(0b000, true);
} // namespace

TEST(CmrcCoalesce, EachTableIKind) {
  EXPECT_EQ(kind_of(rd(&a, 1, kEven1, 0), rd(&a, 1, kOdd1, 0)), Kind::ReadReadSameInst);
  EXPECT_EQ(kind_of(rd(&a, 1, kEven1, 0), rd(&b, 1, kOdd1, 2)), Kind::ReadReadDiffInst);
  EXPECT_EQ(kind_of(wr(&a, 1, kEven1), wr(&b, 1, kOdd1)), Kind::WriteWrite);
  EXPECT_EQ(kind_of(rd(&a, 1, kEven1, 0), wr(&b, 1, kOdd1)), Kind::ReadWrite);
  EXPECT_EQ(kind_of(wr(&b, 1, kOdd1), rd(&a, 1, kEven1, 0)), Kind::ReadWrite);
  EXPECT_EQ(kind_of(rd(&a, 0, kEven1, 3), rd(&a, 2, kOdd1, 3)), Kind::ReadReadDiffBank);
  for (auto [x, y] : {std::pair{rd(&a, 1, kEven1, 0), rd(&a, 1, kOdd1, 0)},
                      {rd(&a, 1, kEven1, 0), rd(&b, 1, kOdd1, 2)},
                      {wr(&a, 1, kEven1), wr(&b, 1, kOdd1)},
                      {rd(&a, 1, kEven1, 0), wr(&b, 1, kOdd1)},
                      {rd(&a, 0, kEven1, 3), rd(&a, 2, kOdd1, 3)}})
    EXPECT_TRUE(can_coalesce(x, y, KindSet::all()));
}

TEST(CmrcCoalesce, OverlappingSlicesNeverCoalesce) {
  // Two even rows both need slice 0; a 3-byte even + 2-byte odd overlap in slice 2.
  EXPECT_FALSE(can_coalesce(rd(&a, 1, kEven1, 0), rd(&a, 1, kEven1, 0), KindSet::all()));
  EXPECT_FALSE(can_coalesce(rd(&a, 1, slice_mask(0b011, false), 0),
                            rd(&b, 1, slice_mask(0b001, true), 1), KindSet::all()));
  EXPECT_TRUE(can_coalesce(rd(&a, 1, slice_mask(0b001, false), 0),
                           rd(&b, 1, slice_mask(0b001, true), 1), KindSet::all()));
  EXPECT_FALSE(can_coalesce(wr(&a, 1, 0b1111), wr(&b, 1, kOdd1), KindSet::all()));
}

TEST(CmrcCoalesce, DifferentBanksOnlyAsTwoReadsIntoOneCollector) {
  Kind k;
  EXPECT_FALSE(classify(rd(&a, 0, kEven1, 0), rd(&b, 1, kOdd1, 1), k)); // two collectors
  EXPECT_FALSE(classify(wr(&a, 0, kEven1), wr(&b, 1, kOdd1), k));
  EXPECT_FALSE(can_coalesce(wr(&a, 0, kEven1), rd(&b, 1, kOdd1, 0), KindSet::all()));
}

// Table I lists 2 writes of different instructions only: the two results of one
// instruction (a 64-bit value's halves, a vector load's registers) take two accesses.
TEST(CmrcCoalesce, TwoWritesOfOneInstructionAreNoTableIKind) {
  Kind k;
  EXPECT_FALSE(classify(wr(&a, 1, kEven1), wr(&a, 1, kOdd1), k));
  EXPECT_FALSE(can_coalesce(wr(&a, 1, kEven1), wr(&a, 1, kOdd1), KindSet::all()));
  EXPECT_TRUE(can_coalesce(wr(&a, 1, kEven1), wr(&b, 1, kOdd1), KindSet::all()));
  EXPECT_TRUE(can_coalesce(rd(&a, 1, kEven1, 0), rd(&a, 1, kOdd1, 0), KindSet::all()));
}

TEST(CmrcCoalesce, CorfLikeSetAllowsOnlyTheFirstKind) {
  const KindSet corf = KindSet::parse({"read_read_same_inst"});
  EXPECT_TRUE(can_coalesce(rd(&a, 1, kEven1, 0), rd(&a, 1, kOdd1, 0), corf));
  EXPECT_FALSE(can_coalesce(rd(&a, 1, kEven1, 0), rd(&b, 1, kOdd1, 2), corf));
  EXPECT_FALSE(can_coalesce(wr(&a, 1, kEven1), wr(&b, 1, kOdd1), corf));
  EXPECT_FALSE(can_coalesce(rd(&a, 1, kEven1, 0), wr(&b, 1, kOdd1), corf));
  EXPECT_FALSE(can_coalesce(rd(&a, 0, kEven1, 3), rd(&a, 2, kOdd1, 3), corf));
  EXPECT_FALSE(can_coalesce(rd(&a, 1, kEven1, 0), rd(&a, 1, kOdd1, 0), KindSet()));
  EXPECT_THROW(KindSet::parse({"read_read"}), std::invalid_argument);
  EXPECT_EQ(kind_names().size(), kKinds);
}
