// The pipeline behaviours every baseline platform must show, with each platform's own
// parameters (one simulation per test process).
#include <gtest/gtest.h>

#include "gpurf/platform/data_path.h"
#include "tests/support/scripted_sim.h"

using namespace gpurf;
using test::load;
using test::op;

namespace {

class Baseline : public testing::TestWithParam<std::string> {
protected:
  ConfigPtr platform() const {
    return load_config(std::string(GPURF_SOURCE_DIR "/configs/") + GetParam() + ".yaml");
  }
  test::Sim run(std::vector<ScriptOp> prog, unsigned warps, std::vector<std::string> o = {}) {
    return test::Sim(platform(), std::move(prog), warps, o);
  }
};

// A dependent chain on one warp, cycle by cycle as the platform's parameters say: a source
// is read the cycle after issue and arrives after the bank and crossbar latencies, the result
// is ready the SP latency after dispatch and written in that cycle, the dependent
// instruction issues in the cycle its producer's write is granted, and every cycle the
// scheduler did not issue is a stall for the reason that held it. With a fixed N-stage
// register read (collector fixed_stage) every instruction dispatches N cycles after issue and
// the dependent one issues N cycles before its producer's result is ready (forwarding).
TEST_P(Baseline, DependentChainTakesExactlyTheConfiguredCycles) {
  auto s = run({op(ScriptOp::Mov, {0}, {}, 7), op(ScriptOp::Add, {1}, {0}, 1),
                op(ScriptOp::Add, {2}, {1}, 1)},
               1);
  ASSERT_TRUE(s.r.ok) << s.r.error;
  const uint64_t sp = s.param("exec.sp.latency");
  const uint64_t stages = s.has_param("collector.stages") ? s.param("collector.stages") : 0;
  const uint64_t read = stages ? stages : 1 + s.param("bank.latency") + s.param("crossbar.latency");
  for (unsigned pc = 0; pc < 3; ++pc) {
    const auto& i = s.at(0, pc);
    Cycle ready = i.issue + (pc || stages ? read : 1); // Mov reads nothing
    // The exit (pc 3, no operands) issues right after pc 2 and may take the only SP unit
    // first: pc 2 then waits out its initiation interval.
    const auto& exit = s.at(0, 3);
    if (pc == 2 && s.param("exec.sp.count") == 1 && exit.dispatch <= ready &&
        exit.dispatch + s.param("exec.sp.ii") > ready)
      ready = exit.dispatch + s.param("exec.sp.ii");
    EXPECT_EQ(i.dispatch, ready) << "pc " << pc;
    EXPECT_EQ(i.complete, i.dispatch + sp) << "pc " << pc;
    EXPECT_EQ(i.retire, i.complete) << "pc " << pc;
    if (pc) {
      EXPECT_EQ(i.issue, s.at(0, pc - 1).complete - stages) << "pc " << pc;
    }
  }
  // Every cycle between the issues waited on the scoreboard; the exit (pc 3) issues next, and
  // from then on the scheduler has no instruction.
  const std::string sch = "sm.sub0.scheduler0";
  EXPECT_EQ(s.stat(sch, "stall_cycles", 0), s.at(0, 2).issue - s.at(0, 0).issue - 2);
  EXPECT_EQ(s.at(0, 3).issue, s.at(0, 2).issue + 1);
  EXPECT_EQ(s.stat(sch, "active_cycles"), 4u);
  EXPECT_EQ(s.stat(sch, "stall_cycles", 3), s.r.cycles - s.at(0, 3).issue - 1);
}

// One load misses, the same line loaded again after it hits: exactly the configured
// latencies (LSU pipeline + L1 hit; + memory latency + one line at the memory's bandwidth).
TEST_P(Baseline, L1HitAndMissLatenciesAsConfigured) {
  auto s = run({load(1, 0x4000), op(ScriptOp::Add, {2}, {1}), load(3, 0x4000)}, 1);
  ASSERT_TRUE(s.r.ok) << s.r.error;
  const uint64_t lsu = s.param("lsu.latency"), hit = s.param("l1.hit_latency");
  const uint64_t line = s.param("l1.line_bytes"), bpc = s.param("memory.bytes_per_cycle");
  // A cold miss goes through the L2 (when the platform has one) to the memory.
  const bool l2 = s.r.stats.contains("l2");
  const uint64_t l2_hit = l2 ? s.param("l2.hit_latency") : 0;
  const uint64_t miss = hit + l2_hit + s.param("memory.latency") + (line + bpc - 1) / bpc;
  EXPECT_EQ(s.at(0, 0).complete - s.at(0, 0).dispatch, lsu + miss);
  EXPECT_EQ(s.at(0, 2).complete - s.at(0, 2).dispatch, lsu + hit);
  EXPECT_EQ(s.stat("sm.l1", "misses"), 1u);
  EXPECT_EQ(s.stat("sm.l1", "hits"), 1u);
  if (l2) {
    EXPECT_EQ(s.stat("l2", "misses"), 1u);
    EXPECT_EQ(s.stat("l2", "reads"), 1u);
  }
}

// One collector per sub-core, and adds reading two registers of one bank: the other warps
// find no free collector.
// Fewer collectors than the issue rate needs stall issue. A fixed-stage read has one slot
// per stage (fewer is refused): its slots fill when dispatch stalls, here on a slow SP.
TEST_P(Baseline, CollectorExhaustionStallsIssueAndIsCounted) {
  const std::string per_sm = GetParam() == "turing-subcore" ? "4" : "1";
  std::vector<std::string> o = {"collector.count=" + per_sm, "collector.sets.sp=0",
                                "collector.sets.sfu=0", "collector.sets.mem=0"};
  if (test::has_param(*platform(), "collector.stages")) o = {"exec.sp.ii=4"};
  auto s = run({op(ScriptOp::Add, {1}, {0, 4}), op(ScriptOp::Add, {2}, {1, 3})}, 8, o);
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
                         testing::ValuesIn(baseline_platforms(GPURF_SOURCE_DIR)),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& c : n)
                             if (c == '-') c = '_';
                           return n;
                         });

} // namespace
