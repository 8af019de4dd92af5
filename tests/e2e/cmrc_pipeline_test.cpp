// End-to-end CMRC behaviour with hand-built warp programs (one simulation per process):
// two narrow reads of one bank served in one cycle, two narrow reads from two banks into one
// collector in one cycle, wide values not coalesced, negative narrow values sign-extended,
// and the baseline units on the same program for comparison.
#include <gtest/gtest.h>

#include "tests/support/scripted_sim.h"

using namespace gpurf;
using test::op;

namespace {

// Fermi-like: 4 banks of 4 x 32 B slices, one shared port; (reg + warp) mod 4 mapping, so
// for warp 0 with 16 registers: bank = reg mod 4, row = reg / 4 (r1: bank 1 row 0 = even,
// r5: bank 1 row 1 = odd, r6: bank 2 row 1 = odd).
const char* kPlatform = R"(
sm: {warps: 8, subcores: 1}
scheduler: {count: 1, policy: gto}
collector: {impl: cmrc, count: 4, src_slots: 3}
bank: {count: 4, entries: 64, slices: 4, ports: 1rw, latency: 1}
arbiter: {impl: coalescing, collector_ports: 1}
crossbar: {impl: split}
writeback: {impl: cmrc, ports: 2}
exec: {sp: {count: 2, latency: 4, ii: 1}}  # 2: the Exit after the add never takes its pipe
l1: {hit_latency: 20}
memory: {latency: 100, bytes_per_cycle: 32}
)";
const std::vector<std::string> kBaseline = {"collector.impl=ocu", "arbiter.impl=write_first",
                                            "crossbar.impl=full", "writeback.impl=priority"};

// Runs `prog` on one warp of the platform above.
struct Sim : test::Sim {
  Sim(std::vector<ScriptOp> prog, std::vector<std::string> overrides = {})
      : test::Sim(parse_config_string(kPlatform, "cmrc-test-platform"), std::move(prog), 1,
                  overrides) {}
  const ScriptedFrontend::Retired& at(unsigned pc) const { return test::Sim::at(0, pc); }
  // Every retired instruction's timing, for failure messages.
  std::string timeline() const {
    std::string s;
    for (auto& x : fe.log())
      s += "pc " + std::to_string(x.pc) + ": issue " + std::to_string(x.issue) + " dispatch " +
           std::to_string(x.dispatch) + " complete " + std::to_string(x.complete) + "\n";
    return s;
  }
  uint64_t coalesced(int kind) const { return stat("sm.sub0.arbiter", "coalesced", kind); }
};

enum { kSameInst, kDiffInst, kWriteWrite, kReadWrite, kDiffBank };

// mov r1 (even row), mov r5 (odd row), both one byte wide; then add r2 = r1 + r5 reads two
// registers of bank 1.
std::vector<ScriptOp> same_bank(uint32_t v1 = 1, uint32_t v5 = 2) {
  return {op(ScriptOp::Mov, {1}, {}, v1), op(ScriptOp::Mov, {5}, {}, v5),
          op(ScriptOp::Add, {2}, {1, 5})};
}

} // namespace

TEST(Cmrc, TwoNarrowReadsOfOneBankInOneCycle) {
  Sim run(same_bank());
  ASSERT_TRUE(run.r.ok) << run.r.error;
  const auto& add = run.at(2);
  EXPECT_EQ(add.dispatch - add.issue, 2u) << run.timeline(); // allocate, both reads in one cycle
  EXPECT_EQ(run.coalesced(kSameInst), 1u);
  EXPECT_EQ(run.stat("sm.sub0.bank1", "reads"), 2u);
  EXPECT_EQ(run.stat("sm.sub0.bank1", "slice_reads"), 2u); // one slice each
}

TEST(Cmrc, BaselineReadsTheSamePairInTwoCycles) {
  Sim run(same_bank(), kBaseline);
  ASSERT_TRUE(run.r.ok) << run.r.error;
  const auto& add = run.at(2);
  EXPECT_EQ(add.dispatch - add.issue, 3u);
  EXPECT_EQ(run.stat("sm.sub0.bank1", "slice_reads"), 8u);
}

TEST(Cmrc, WideValuesDoNotCoalesce) {
  Sim run(same_bank(0x40000000, 2));
  ASSERT_TRUE(run.r.ok) << run.r.error;
  const auto& add = run.at(2);
  EXPECT_EQ(add.dispatch - add.issue, 3u); // r1 needs all four slices
  EXPECT_EQ(run.coalesced(kSameInst), 0u);
  EXPECT_EQ(run.stat("sm.sub0.bank1", "slice_reads"), 4u + 1);
}

TEST(Cmrc, NegativeNarrowValuesAreSignExtended) {
  // Lanes -16..15 and -100..-69: one byte each; the golden check at dispatch compares them.
  Sim run(same_bank(0xfffffff0u, uint32_t(-100)));
  ASSERT_TRUE(run.r.ok) << run.r.error;
  EXPECT_EQ(run.coalesced(kSameInst), 1u);
  EXPECT_EQ(run.stat("sm.sub0.writeback", "width_writes", 0), 3u); // r1, r5, r2 all 1 B
}

// r1 (bank 1, even row: slice 0) and r6 (bank 2, odd row: slice 3) into one collector in
// one cycle through its 32 B write ports: one collector write.
TEST(Cmrc, TwoBanksIntoOneCollectorInOneCycle) {
  Sim run({op(ScriptOp::Mov, {1}, {}, 1), op(ScriptOp::Mov, {6}, {}, 2),
           op(ScriptOp::Add, {3}, {1, 6})});
  ASSERT_TRUE(run.r.ok) << run.r.error;
  const auto& add = run.at(2);
  EXPECT_EQ(add.dispatch - add.issue, 2u) << run.timeline();
  EXPECT_EQ(run.coalesced(kDiffBank), 1u);
  uint64_t writes = 0, shared = 0;
  for (unsigned c = 0; c < 4; ++c) {
    writes += run.stat("sm.sub0.collector" + std::to_string(c), "oc_writes");
    shared += run.stat("sm.sub0.collector" + std::to_string(c), "oc_coalesced_operands");
  }
  EXPECT_EQ(writes, 1u);
  EXPECT_EQ(shared, 1u);
}

// The CORF-like kind set keeps the same-instruction pair and refuses the two-bank pair.
TEST(Cmrc, CorfLikeKindsRefuseTwoBanksIntoOneCollector) {
  Sim run({op(ScriptOp::Mov, {1}, {}, 1), op(ScriptOp::Mov, {6}, {}, 2),
           op(ScriptOp::Add, {3}, {1, 6})},
          {"arbiter.kinds=[read_read_same_inst]"});
  ASSERT_TRUE(run.r.ok) << run.r.error;
  EXPECT_EQ(run.at(2).dispatch - run.at(2).issue, 3u);
  EXPECT_EQ(run.coalesced(kDiffBank), 0u);
}

// Limit study: unlimited ports read both full-width operands of one bank in one cycle.
TEST(Cmrc, UnlimitedPortsServeEveryRequest) {
  Sim run(same_bank(0x40000000, 0x40000000),
          {"collector.impl=ocu", "crossbar.impl=full", "writeback.impl=priority",
           "arbiter.unlimited_ports=true"});
  ASSERT_TRUE(run.r.ok) << run.r.error;
  EXPECT_EQ(run.at(2).dispatch - run.at(2).issue, 2u);
}
