// The operand-slot register-file cache (modules/rfc/impl/operand_slots.h) on Listing 4 of
// Huerta et al. (MICRO'25): hit needs warp, register and slot; every read of the bank's slot
// replaces or drops the entry unless its reuse bit keeps it.
#include <gtest/gtest.h>

#include "gpurf/modules/rfc/impl/operand_slots.h"

using gpurf::OperandSlotRfc;

namespace {
// One instruction's reads of slots 0..2 (register, reuse), as the Allocate stage does them:
// returns which slots hit.
std::vector<bool> read(OperandSlotRfc& c, unsigned warp,
                       std::vector<std::pair<unsigned, bool>> ops) {
  std::vector<bool> hit;
  for (unsigned k = 0; k < ops.size(); ++k) {
    const unsigned r = ops[k].first, bank = r % 2;
    hit.push_back(c.lookup(bank, k, warp, r) != nullptr);
    if (auto v = c.access(bank, k, warp, r, ops[k].second)) v->filled = true;
  }
  return hit;
}
} // namespace

TEST(OperandSlotRfc, Example1AHitWithoutReuseDropsTheValue) {
  OperandSlotRfc c;
  read(c, 0, {{2, true}, {3, false}, {4, false}});
  EXPECT_TRUE(read(c, 0, {{2, false}, {7, false}, {8, false}})[0]);
  EXPECT_FALSE(read(c, 0, {{2, false}, {12, false}, {13, false}})[0]);
}

TEST(OperandSlotRfc, Example2ReuseAgainKeepsIt) {
  OperandSlotRfc c;
  read(c, 0, {{2, true}, {3, false}, {4, false}});
  EXPECT_TRUE(read(c, 0, {{2, true}, {7, false}, {8, false}})[0]);
  EXPECT_TRUE(read(c, 0, {{2, false}, {12, false}, {13, false}})[0]);
}

TEST(OperandSlotRfc, Example3OtherSlotMissesAndOtherBankLeavesIt) {
  OperandSlotRfc c;
  read(c, 0, {{2, true}, {3, false}, {4, false}});
  EXPECT_FALSE(read(c, 0, {{7, false}, {2, false}, {8, false}})[1]);
  EXPECT_TRUE(read(c, 0, {{2, false}, {12, false}, {13, false}})[0]);
}

TEST(OperandSlotRfc, Example4SameBankAndSlotReplaces) {
  OperandSlotRfc c;
  read(c, 0, {{2, true}, {3, false}, {4, false}});
  EXPECT_FALSE(read(c, 0, {{4, false}, {7, false}, {8, false}})[0]);
  EXPECT_FALSE(read(c, 0, {{2, false}, {12, false}, {13, false}})[0]);
}

TEST(OperandSlotRfc, AnotherWarpMissesAndReplaces) {
  OperandSlotRfc c;
  read(c, 0, {{2, true}});
  EXPECT_FALSE(read(c, 1, {{2, false}})[0]);
  EXPECT_FALSE(read(c, 0, {{2, false}})[0]);
}

TEST(OperandSlotRfc, AHitterKeepsItsValueAfterTheEntryIsReplaced) {
  OperandSlotRfc c;
  auto v = c.access(0, 0, 0, 2, true);
  v->filled = true;
  auto held = c.lookup(0, 0, 0, 2);
  c.access(0, 0, 0, 2, false);
  c.access(0, 0, 1, 4, true);
  EXPECT_EQ(held, v);
  EXPECT_EQ(c.lookup(0, 0, 0, 2), nullptr);
  c.drop_warp(1);
  EXPECT_EQ(c.valid(), 0u);
}
