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
  EXPECT_EQ(b[3].wr_sb, b[0].wr_sb); // SB5 guards reads; two of SB0-4 stay free for global loads
  EXPECT_TRUE(b[8].wait_mask >> b[0].wr_sb & 1);
}

// Without a CFG (no successors given) any block may follow any block's end: an instruction
// waits for the counters of its own registers from every producer in the function that no
// wait on the path zeroed (a loop's back edge brings a later one).
TEST(ControlBits, WithoutACfgEveryBlockMayFollowAnyOther) {
  auto code = std::vector<CtrlInst>{load({1}, {2}), load({3}, {4}), op({5}, {6}), op({7}, {3})};
  code[2].leader = true;
  auto b = control_bits(code);
  EXPECT_EQ(b[2].wait_mask, 0);                        // R5, R6: nothing guards them
  EXPECT_EQ(b[3].wait_mask, 1 << b[1].wr_sb);          // R3 where it is read; not R1's counter
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
  EXPECT_EQ(control_bits(code)[1].wait_mask, 0);
}

namespace {
CtrlInst global_load(std::vector<unsigned> dst, std::vector<unsigned> src) {
  CtrlInst c = load(std::move(dst), std::move(src));
  c.long_latency = true;
  return c;
}
// Ends code[j]'s block with the given successors.
void jump(std::vector<CtrlInst>& code, size_t j, std::vector<unsigned> succ) {
  code[j].has_succ = true;
  code[j].succ = std::move(succ);
  for (unsigned s : code[j].succ) code[s].leader = true;
  if (j + 1 < code.size()) code[j + 1].leader = true;
}
} // namespace

// sgemm_tiled's k-step: `if (t + 1 < steps) load(next tile)`, then the shared loads and
// FFMAs of the current tile, then the stores of the prefetched registers. The compute block
// waits for its shared loads only, on counters of their own, not for the prefetch (the old
// pass made its first instruction wait for every counter of the block's registers: 914 to
// 1,620 cycles per k-step).
TEST(ControlBits, APrefetchIsWaitedForOnlyByItsConsumers) {
  std::vector<CtrlInst> code = {
      op({20}, {21}),        // 0: entry
      op({9}, {9}),          // 1: loop head: t + 1 < steps
      global_load({1}, {2}), // 2: the prefetch (LDG)
      load({5}, {6}),        // 3: LDS of the current tile
      op({7}, {5, 7}),       // 4: FFMA on it
      op({10}, {1}),         // 5: STS of the prefetched register
      op({11}, {20}),        // 6: after the loop
  };
  jump(code, 1, {2, 3});
  jump(code, 2, {3});
  jump(code, 5, {1, 6});
  const auto b = control_bits(code);
  EXPECT_EQ(b[3].wait_mask, 0);
  EXPECT_NE(b[3].wr_sb, b[2].wr_sb); // a shared load never shares the prefetch's counter
  EXPECT_EQ(b[4].wait_mask, 1 << b[3].wr_sb);
  EXPECT_TRUE(b[5].wait_mask >> b[2].wr_sb & 1);
  EXPECT_EQ(b[6].wait_mask, 0); // everything the loop left was waited for
}

// A producer at the end of a loop body reaches the loop's head through the back edge; one
// waited for before the back edge does not.
TEST(ControlBits, CountersFlowAroundLoopsToAFixedPoint) {
  std::vector<CtrlInst> code = {op({9}, {9}), op({5}, {1}), op({6}, {6}), global_load({1}, {2}),
                                op({8}, {3})};
  jump(code, 3, {1, 4});
  auto b = control_bits(code);
  EXPECT_TRUE(b[1].wait_mask >> b[3].wr_sb & 1); // R1 from the previous iteration
  EXPECT_EQ(b[2].wait_mask, 0);
  EXPECT_EQ(b[4].wait_mask, 0); // the exit block reads R3 only
  EXPECT_GE(b[3].stall, 2);     // the head waits on its counter: incremented after issue
  code.insert(code.begin() + 4, op({12}, {1})); // R1 consumed before the back edge
  code[3].has_succ = false;
  code[3].succ.clear();
  code[4].leader = false;
  jump(code, 4, {1, 5});
  b = control_bits(code);
  EXPECT_TRUE(b[4].wait_mask >> b[3].wr_sb & 1);
  EXPECT_EQ(b[1].wait_mask, 0); // the counter was zeroed on the only path here
}

// At a join the paths' states merge: a load on one side is waited for after the join.
TEST(ControlBits, AJoinWaitsForWhatEitherPathLeft) {
  std::vector<CtrlInst> code = {op({9}, {9}), load({1}, {2}), op({4}, {5}), op({6}, {1})};
  jump(code, 0, {1, 2});
  jump(code, 1, {3});
  const auto b = control_bits(code);
  EXPECT_EQ(b[2].wait_mask, 0);
  EXPECT_EQ(b[3].wait_mask, 1 << b[1].wr_sb);
  EXPECT_GE(b[1].stall, 2);
}

// Global loads and the rest take separate counters while there are enough: a shared load
// joins one holding only short producers rather than a global load's.
TEST(ControlBits, LongAndShortProducersDoNotShareACounterWhenTheyNeedNot) {
  std::vector<CtrlInst> code;
  for (unsigned k = 0; k < 4; ++k) code.push_back(global_load({10 + k}, {}));
  code.push_back(load({20}, {}));
  code.push_back(load({21}, {}));
  code.push_back(op({30}, {21}));
  const auto b = control_bits(code);
  EXPECT_EQ(b[5].wr_sb, b[4].wr_sb);
  for (unsigned k = 0; k < 4; ++k) EXPECT_FALSE(b[6].wait_mask >> b[k].wr_sb & 1) << k;
}

TEST(ControlBits, EntryAndAfterACallWaitForEveryCounter) {
  auto code = std::vector<CtrlInst>{load({1}, {2}), op({5}, {6})};
  code[1].leader = code[1].after_call = true;
  EXPECT_EQ(control_bits(code)[1].wait_mask, 0x3f);
  EXPECT_EQ(control_bits(code)[0].wait_mask, 0x3f);
}
