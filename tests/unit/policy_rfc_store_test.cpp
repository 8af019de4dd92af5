// Unit tests of the register file cache storage (policies/rfc_store): FIFO and LRU victims,
// in-place overwrite, liveness (dead entries are returned as such, so the RFC elides their
// write-back), flush, and the evict-first hint (Gebhart Sec. 5.3).
#include <gtest/gtest.h>

#include "gpurf/policies/rfc_store.h"

using namespace gpurf;

namespace {
LaneValues val(uint32_t x) {
  LaneValues v{};
  for (unsigned l = 0; l < kWarpSize; ++l) v[l] = x + l;
  return v;
}
} // namespace

TEST(RfcStore, FifoEvictsTheOldestAllocationEvenIfRecentlyRead) {
  RfcStore s(2, 3, RfcReplacement::Fifo);
  for (uint16_t r = 0; r < 3; ++r) EXPECT_FALSE(s.allocate(0, r, val(r), true));
  ASSERT_NE(s.read(0, 0, false), nullptr); // a read does not refresh FIFO order
  auto v = s.allocate(0, 7, val(7), true);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->reg, 0);
  EXPECT_EQ(v->value, val(0));
  EXPECT_TRUE(v->dirty);
  EXPECT_EQ(s.find(0, 0), nullptr);
  EXPECT_EQ(s.occupancy(1), 0u); // warps have separate sets
}

TEST(RfcStore, LruEvictsTheLeastRecentlyUsed) {
  RfcStore s(1, 3, RfcReplacement::Lru);
  for (uint16_t r = 0; r < 3; ++r) s.allocate(0, r, val(r), true);
  s.read(0, 0, false);
  auto v = s.allocate(0, 9, val(9), true);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->reg, 1);
}

TEST(RfcStore, RewritingARegisterOverwritesInPlace) {
  RfcStore s(1, 2, RfcReplacement::Fifo);
  s.allocate(0, 1, val(1), true);
  s.allocate(0, 2, val(2), true);
  EXPECT_FALSE(s.allocate(0, 1, val(100), true)); // superseded, no victim
  EXPECT_EQ(s.find(0, 1)->value, val(100));
  EXPECT_EQ(s.occupancy(0), 2u);
  auto v = s.allocate(0, 3, val(3), true); // r2 is now the oldest allocation
  ASSERT_TRUE(v);
  EXPECT_EQ(v->reg, 2);
}

TEST(RfcStore, LastReadMarksTheEntryDeadSoItsWritebackCanBeElided) {
  RfcStore s(1, 1, RfcReplacement::Fifo);
  s.allocate(0, 4, val(4), true);
  const RfcEntry* e = s.read(0, 4, true);
  ASSERT_NE(e, nullptr);
  EXPECT_TRUE(e->dead);
  auto v = s.allocate(0, 5, val(5), true);
  ASSERT_TRUE(v);
  EXPECT_TRUE(v->dead && v->dirty); // the RFC drops it instead of writing the MRF
  // A new instance of the register is live again.
  s.allocate(0, 5, val(6), true);
  EXPECT_FALSE(s.find(0, 5)->dead);
  // Allocated dead (never read) values are dead from the start.
  s.allocate(0, 8, val(8), true, /*dead=*/true);
  EXPECT_TRUE(s.find(0, 8)->dead);
}

TEST(RfcStore, FlushReturnsEveryValidEntryAndEmptiesTheSet) {
  RfcStore s(2, 4, RfcReplacement::Fifo);
  s.allocate(1, 1, val(1), true);
  s.allocate(1, 2, val(2), false);
  s.allocate(0, 3, val(3), true);
  auto f = s.flush(1);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_TRUE(f[0].dirty);
  EXPECT_FALSE(f[1].dirty);
  EXPECT_EQ(s.occupancy(1), 0u);
  EXPECT_EQ(s.occupancy(0), 1u);
  EXPECT_TRUE(s.invalidate(0, 3));
  EXPECT_FALSE(s.invalidate(0, 3));
}

TEST(RfcStore, EvictFirstHintPrecedesFifoOrder) {
  RfcStore s(1, 3, RfcReplacement::Fifo, /*prefer_evict_first=*/true);
  s.allocate(0, 0, val(0), true);
  s.allocate(0, 1, val(1), true, false, /*evict_first=*/true);
  s.allocate(0, 2, val(2), true);
  auto v = s.allocate(0, 3, val(3), true);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->reg, 1);
  RfcStore plain(1, 3, RfcReplacement::Fifo);
  plain.allocate(0, 0, val(0), true);
  plain.allocate(0, 1, val(1), true, false, true);
  plain.allocate(0, 2, val(2), true);
  EXPECT_EQ(plain.allocate(0, 3, val(3), true)->reg, 0);
}

TEST(RfcStore, ReplacementNames) {
  RfcReplacement r;
  EXPECT_TRUE(rfc_replacement_from_name("lru", r));
  EXPECT_EQ(r, RfcReplacement::Lru);
  EXPECT_FALSE(rfc_replacement_from_name("random", r));
}
