// End-to-end pipeline behaviour with hand-built warp programs (one simulation per process).
#include <gtest/gtest.h>

#include "tests/support/scripted_sim.h"

using namespace gpurf;
using test::load;
using test::op;

namespace {

// Runs `prog` on the small platform above.
struct Sim : test::Sim {
  Sim(std::vector<ScriptOp> prog, unsigned warps, std::vector<std::string> overrides = {})
      : test::Sim(parse_config_string(test::kSmallPlatform, "test-platform"), std::move(prog),
                  warps, overrides) {}
};

} // namespace

// 4 banks, bank = (reg + warp) mod 4. Each add waits for its producer, so nothing else is in
// flight: r1 + r4 read banks 1 and 0; r2 + r6 both sit in bank 2.
std::vector<ScriptOp> bank_program() {
  return {op(ScriptOp::Mov, {0}, {}, 1), op(ScriptOp::Mov, {1}, {}, 2),
          op(ScriptOp::Mov, {4}, {}, 3), op(ScriptOp::Add, {2}, {1, 4}),
          op(ScriptOp::Add, {12}, {2, 6})};
}

TEST(Pipeline, TwoSourcesInOneBankCostAnExtraCycle) {
  Sim run(bank_program(), 1, {"arbiter.collector_ports=2"});
  ASSERT_TRUE(run.r.ok) << run.r.error;
  const auto& diff = run.at(0, 3);
  const auto& same = run.at(0, 4);
  EXPECT_EQ(diff.dispatch - diff.issue, 2u); // allocate, read + crossbar
  EXPECT_EQ(same.dispatch - same.issue, diff.dispatch - diff.issue + 1);
  EXPECT_EQ(run.stat("sm.sub0.arbiter", "conflicts", 0), 1u); // read_read
  EXPECT_EQ(run.stat("sm.sub0.arbiter", "conflicts", 3), 0u); // collector_port
}

// With one 128 B write port per collector (the baseline), two operands from different banks
// cannot enter one collector in the same cycle.
TEST(Pipeline, OneCollectorPortSerialisesOperandsFromTwoBanks) {
  Sim run(bank_program(), 1, {"arbiter.collector_ports=1"});
  ASSERT_TRUE(run.r.ok) << run.r.error;
  const auto& diff = run.at(0, 3);
  EXPECT_EQ(diff.dispatch - diff.issue, 3u);
  EXPECT_EQ(run.stat("sm.sub0.arbiter", "conflicts", 3), 1u); // collector_port
}

TEST(Pipeline, CollectorExhaustionStallsIssueAndIsCounted) {
  Sim run({op(ScriptOp::Add, {1}, {0, 4})}, 8, {"collector.count=1"});
  ASSERT_TRUE(run.r.ok) << run.r.error;
  EXPECT_GT(run.stat("sm.sub0.allocator", "full"), 0u);
  EXPECT_GT(run.stat("sm.sub0.scheduler0", "stall_cycles", 2), 0u); // collector_full
}

// A miss costs hit latency + memory latency + one 128 B line at 32 B/cycle; a hit only the
// hit latency, both after the LSU's own pipeline cycle.
TEST(Pipeline, L1HitAndMissLatenciesAsConfigured) {
  Sim run({load(1, 0x4000), op(ScriptOp::Add, {2}, {1}), load(3, 0x4000)}, 1,
          {"lsu.latency=1", "l1.hit_latency=20", "memory.latency=100"});
  ASSERT_TRUE(run.r.ok) << run.r.error;
  const auto& miss = run.at(0, 0);
  const auto& hit = run.at(0, 2);
  EXPECT_EQ(hit.complete - hit.dispatch, 1u + 20);
  EXPECT_EQ(miss.complete - miss.dispatch, 1u + 20 + 100 + 128 / 32);
  EXPECT_EQ(run.stat("sm.l1", "hits"), 1u);
  EXPECT_EQ(run.stat("sm.l1", "misses"), 1u);
}

TEST(Pipeline, EveryDeliveredOperandIsChecked) {
  Sim run({op(ScriptOp::Mov, {0}, {}, 1), op(ScriptOp::Add, {1}, {0, 0}),
           op(ScriptOp::Add, {2}, {0, 1})},
          4);
  ASSERT_TRUE(run.r.ok) << run.r.error;
  uint64_t checked = 0;
  for (unsigned c = 0; c < 4; ++c)
    checked += run.stat("sm.sub0.collector" + std::to_string(c), "operands_checked");
  EXPECT_EQ(checked, 4u * (2 + 2)); // per warp: add r0,r0 (2 sources) + add r0,r1 (2)
}

// A load whose response is due 1,000,000 cycles later is progress to come: the SM sleeps until
// then and the watchdog counts only the cycles in which a unit was due (a debug build's mix
// kernel on ampere-modern waited 280,000 cycles behind the L2's queue and was stopped).
TEST(Pipeline, WatchdogWaitsForAMemoryResponseDueLater) {
  Sim run({load(1, 0x4000), op(ScriptOp::Add, {2}, {1})}, 1,
          {"memory.latency=1000000", "sm.watchdog_cycles=5000"});
  ASSERT_TRUE(run.r.ok) << run.r.error;
  EXPECT_GT(run.at(0, 1).complete, 1000000u);
}
