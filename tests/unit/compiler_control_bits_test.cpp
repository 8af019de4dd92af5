// The control-bit pass (modules/frontend/compiler/control_bits.h) on hand-made sequences:
// the reuse-bit rules of Huerta et al. (MICRO'25) Listing 4, stall counts from fixed
// latencies (Listing 2: a 4-cycle FADD followed by its consumer encodes 4), dependence
// counters for variable-latency producers (Fig. 2).
#include <gtest/gtest.h>

#include "gpurf/modules/frontend/compiler/control_bits.h"

using namespace gpurf::compiler;

namespace {
CtrlInst op(std::vector<unsigned> dst, std::vector<unsigned> src, unsigned latency = 4) {
  CtrlInst c;
  c.dst = std::move(dst);
  c.src = std::move(src);
  c.latency = latency;
  return c;
}
CtrlInst load(std::vector<unsigned> dst, std::vector<unsigned> src) {
  CtrlInst c = op(std::move(dst), std::move(src));
  c.variable = true;
  return c;
}
} // namespace

// Listing 4, example 2: each instruction that wants the next one to hit sets the bit again.
TEST(ControlBits, ReuseWhenTheNextReadOfTheSlotIsTheSameRegister) {
  const auto b = control_bits({op({1}, {2, 3, 4}), op({5}, {2, 7, 8}), op({10}, {2, 12, 13})});
  EXPECT_EQ(b[0].reuse_mask, 1);
  EXPECT_EQ(b[1].reuse_mask, 1);
  EXPECT_EQ(b[2].reuse_mask, 0); // nothing reads it after
}

// Example 3: another slot does not hit; slot 0 keeps R2 because R7 reads the other bank.
TEST(ControlBits, ReuseSkipsReadsOfOtherSlotsAndOtherBanks) {
  const auto b = control_bits({op({1}, {2, 3, 4}), op({5}, {7, 2, 8}), op({10}, {2, 12, 13})});
  EXPECT_EQ(b[0].reuse_mask & 1, 1); // R7 (odd bank) leaves slot 0 of the even bank alone
  EXPECT_EQ(b[1].reuse_mask, 0);
}

// Example 4: R4 in the same bank and slot replaces R2, so caching R2 is useless.
TEST(ControlBits, NoReuseWhenAnotherRegisterOfTheBankTakesTheSlot) {
  const auto b = control_bits({op({1}, {2, 3, 4}), op({5}, {4, 7, 8}), op({10}, {2, 12, 13})});
  EXPECT_EQ(b[0].reuse_mask & 1, 0);
}

TEST(ControlBits, NoReuseAcrossAWriteOrABlockStart) {
  auto code = std::vector<CtrlInst>{op({1}, {2, 3}), op({2}, {9}), op({10}, {2, 12})};
  EXPECT_EQ(control_bits(code)[0].reuse_mask & 1, 0); // R2 rewritten in between
  code = {op({1}, {2, 3}), op({10}, {2, 12})};
  code[1].leader = true;
  EXPECT_EQ(control_bits(code)[0].reuse_mask, 0);
  EXPECT_EQ(control_bits({op({2}, {2, 3}), op({10}, {2, 12})})[0].reuse_mask & 1, 0); // own write
}

// Listing 2: FADD R1 (4 cycles) followed by its consumer: stall count 4; one independent
// instruction in between leaves 3.
TEST(ControlBits, StallCountIsTheLatencyMinusTheInstructionsBetween) {
  auto b = control_bits({op({1}, {2, 3}), op({5}, {1, 6})});
  EXPECT_EQ(b[0].stall, 4);
  b = control_bits({op({1}, {2, 3}), op({7}, {8, 9}), op({5}, {1, 6})});
  EXPECT_EQ(b[0].stall + b[1].stall, 4);
  b = control_bits({op({1}, {2, 3}), op({7}, {8, 9}), op({11}, {8, 9}), op({12}, {8, 9}),
                    op({13}, {8, 9}), op({5}, {1, 6})});
  for (unsigned k = 0; k + 1 < b.size(); ++k) EXPECT_EQ(b[k].stall, 1) << k;
}

TEST(ControlBits, PredicatesAndWawAreDependencesToo) {
  CtrlInst setp = op({}, {2, 3});
  setp.pdst = {0};
  CtrlInst guarded = op({5}, {6});
  guarded.psrc = {0};
  EXPECT_EQ(control_bits({setp, guarded})[0].stall, 4);
  EXPECT_EQ(control_bits({op({1}, {2}, 5), op({1}, {3})})[0].stall, 5); // WAW
}

TEST(ControlBits, ABlockEndsWithEveryFixedResultReady) {
  auto code = std::vector<CtrlInst>{op({1}, {2}), op({3}, {4}), op({5}, {1})};
  code[2].leader = true;
  const auto b = control_bits(code);
  EXPECT_GE(b[0].stall + b[1].stall, 4);
  EXPECT_GE(b[1].stall, 3);
}

// Fig. 2: a load increments a counter its consumer waits on; a write of the load's address
// register waits on the read counter; the consumer right after needs a stall of 2.
TEST(ControlBits, DependenceCountersGuardVariableLatencyResults) {
  const auto b = control_bits({load({1}, {2}), op({5}, {1, 6}), op({2}, {7})});
  ASSERT_NE(b[0].wr_sb, CtrlBits::kNoSb);
  ASSERT_NE(b[0].rd_sb, CtrlBits::kNoSb);
  EXPECT_NE(b[0].wr_sb, b[0].rd_sb);
  EXPECT_TRUE(b[1].wait_mask >> b[0].wr_sb & 1);
  EXPECT_GE(b[0].stall, 2);
  EXPECT_EQ(b[2].wait_mask, 1 << b[0].rd_sb); // WAR on R2; RAW on R1 waited for already
  const auto c = control_bits({load({1}, {2}), op({9}, {8}), op({2}, {7})});
  EXPECT_TRUE(c[2].wait_mask >> c[0].rd_sb & 1); // WAR on the address
  EXPECT_FALSE(c[2].wait_mask >> c[0].wr_sb & 1);
  EXPECT_EQ(c[1].wait_mask, 0);
}

TEST(ControlBits, CountersAreSharedWhenMoreThanSixAreLive) {
  std::vector<CtrlInst> code;
  for (unsigned k = 0; k < 8; ++k) code.push_back(load({10 + k}, {}));
  code.push_back(op({30}, {10}));
  const auto b = control_bits(code);
  EXPECT_EQ(b[6].wr_sb, b[0].wr_sb); // round robin over SB0-5
  EXPECT_TRUE(b[8].wait_mask >> b[0].wr_sb & 1);
}

// A block's first instruction waits for the counters of the registers the block uses, from
// their producers anywhere in the function (a loop's back edge brings a later one).
TEST(ControlBits, ABlockWaitsForTheCountersOfTheRegistersItUses) {
  auto code = std::vector<CtrlInst>{load({1}, {2}), load({3}, {4}), op({5}, {6}), op({7}, {3})};
  code[2].leader = true;
  auto b = control_bits(code);
  EXPECT_EQ(b[2].wait_mask, 1 << b[1].wr_sb); // R3, used later in the block; not R1's
  EXPECT_EQ(b[3].wait_mask, 0);
  code = {op({9}, {9}), op({5}, {1}), load({1}, {2})}; // the load is a later producer (a loop)
  code[1].leader = true;
  b = control_bits(code);
  EXPECT_TRUE(b[1].wait_mask >> b[2].wr_sb & 1);
  code = {op({9}, {9}), op({2}, {8}), load({1}, {2})}; // WAR on R2 before its reader
  code[1].leader = true;
  b = control_bits(code);
  EXPECT_TRUE(b[1].wait_mask >> b[2].rd_sb & 1);
  code = {op({9}, {9}), op({5}, {6}), load({1}, {2})};
  code[1].leader = true;
  code[2].src = {8}; // nothing of the block's is a late reader's or producer's register
  EXPECT_EQ(control_bits(code)[1].wait_mask & ~(1 << control_bits(code)[2].wr_sb), 0);
}

TEST(ControlBits, EntryAndAfterACallWaitForEveryCounter) {
  auto code = std::vector<CtrlInst>{load({1}, {2}), op({5}, {6})};
  code[1].leader = code[1].after_call = true;
  EXPECT_EQ(control_bits(code)[1].wait_mask, 0x3f);
  EXPECT_EQ(control_bits(code)[0].wait_mask, 0x3f);
}
