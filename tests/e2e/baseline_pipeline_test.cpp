// The pipeline behaviours every baseline platform must show, with each platform's own
// parameters (one simulation per test process).
#include <gtest/gtest.h>

#include "tests/support/scripted_sim.h"

using namespace gpurf;
using test::load;
using test::op;

namespace {

class Baseline : public testing::TestWithParam<const char*> {
protected:
  test::Sim run(std::vector<ScriptOp> prog, unsigned warps, std::vector<std::string> o = {}) {
    return test::Sim(load_config(std::string(GPURF_SOURCE_DIR "/configs/") + GetParam() + ".yaml"),
                     std::move(prog), warps, o);
  }
};

TEST_P(Baseline, DependentInstructionWaitsForWriteback) {
  auto s = run({op(ScriptOp::Mov, {0}, {}, 7), op(ScriptOp::Add, {1}, {0}, 1),
                op(ScriptOp::Add, {2}, {1}, 1)},
               1);
  ASSERT_TRUE(s.r.ok) << s.r.error;
  EXPECT_GE(s.at(0, 1).issue, s.at(0, 0).complete);
  EXPECT_GE(s.at(0, 2).issue, s.at(0, 1).complete);
  EXPECT_EQ(s.fe.reg(0, 2)[3], 7u + 3 + 2);
}

// One load misses, the same line loaded again after it hits: exactly the configured
// latencies (LSU pipeline + L1 hit; + memory latency + one line at the memory's bandwidth).
TEST_P(Baseline, L1HitAndMissLatenciesAsConfigured) {
  auto s = run({load(1, 0x4000), op(ScriptOp::Add, {2}, {1}), load(3, 0x4000)}, 1);
  ASSERT_TRUE(s.r.ok) << s.r.error;
  const uint64_t lsu = s.param("lsu.latency"), hit = s.param("l1.hit_latency");
  const uint64_t line = s.param("l1.line_bytes"), bpc = s.param("memory.bytes_per_cycle");
  const uint64_t miss = hit + s.param("memory.latency") + (line + bpc - 1) / bpc;
  EXPECT_EQ(s.at(0, 0).complete - s.at(0, 0).dispatch, lsu + miss);
  EXPECT_EQ(s.at(0, 2).complete - s.at(0, 2).dispatch, lsu + hit);
  EXPECT_EQ(s.stat("sm.l1", "misses"), 1u);
  EXPECT_EQ(s.stat("sm.l1", "hits"), 1u);
}

// One collector per sub-core, and adds reading two registers of one bank: the other warps
// find no free collector.
TEST_P(Baseline, CollectorExhaustionStallsIssueAndIsCounted) {
  const std::string per_sm = GetParam() == std::string("turing-subcore") ? "4" : "1";
  auto s = run({op(ScriptOp::Add, {1}, {0, 4}), op(ScriptOp::Add, {2}, {1, 3})}, 8,
               {"collector.count=" + per_sm, "collector.sets.sp=0", "collector.sets.sfu=0",
                "collector.sets.mem=0"});
  ASSERT_TRUE(s.r.ok) << s.r.error;
  EXPECT_GT(s.stat("sm.sub0.allocator", "full"), 0u);
}

TEST_P(Baseline, EveryDeliveredOperandIsChecked) {
  auto s = run({op(ScriptOp::Mov, {0}, {}, 1), op(ScriptOp::Add, {1}, {0, 0}),
                op(ScriptOp::Add, {2}, {0, 1})},
               4);
  ASSERT_TRUE(s.r.ok) << s.r.error;
  uint64_t checked = 0;
  for (auto& [group, stats] : s.r.stats.items())
    if (stats.contains("operands_checked"))
      checked += stats["operands_checked"]["value"].get<uint64_t>();
  EXPECT_EQ(checked, 4u * (2 + 2));
}

INSTANTIATE_TEST_SUITE_P(Platforms, Baseline,
                         testing::Values("fermi", "warped-compression", "gebhart", "turing-subcore",
                                         "wir"),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& c : n)
                             if (c == '-') c = '_';
                           return n;
                         });

} // namespace
