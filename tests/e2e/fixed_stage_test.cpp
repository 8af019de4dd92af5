// Fixed-stage register read with forwarding (collector fixed_stage, Gebhart Sec. 3.1, 5.2) on
// the gebhart platform: the register-read latency is hidden, so a dependent instruction
// issues one ALU latency after its producer and as many warps as the ALU latency keep the
// single-issue SM busy (one simulation per process).
#include <gtest/gtest.h>

#include "tests/support/scripted_sim.h"

using namespace gpurf;
using test::op;

namespace {

ConfigPtr gebhart() { return load_config(GPURF_SOURCE_DIR "/configs/gebhart.yaml"); }

// A chain of `n` dependent adds on r0.
std::vector<ScriptOp> chain(unsigned n) {
  std::vector<ScriptOp> p{op(ScriptOp::Mov, {0}, {}, 1)};
  for (unsigned k = 0; k < n; ++k) p.push_back(op(ScriptOp::Add, {0}, {0}, 3));
  return p;
}

} // namespace

TEST(FixedStage, DependentIssueLatencyEqualsTheAluLatency) {
  test::Sim s(gebhart(), chain(16), 1);
  ASSERT_TRUE(s.r.ok) << s.r.error;
  const uint64_t alu = s.param("exec.sp.latency"), stages = s.param("collector.stages");
  for (unsigned pc = 2; pc <= 16; ++pc) {
    const auto& i = s.at(0, pc);
    EXPECT_EQ(i.issue - s.at(0, pc - 1).issue, alu) << "pc " << pc;
    EXPECT_EQ(i.dispatch - i.issue, stages) << "pc " << pc;
  }
  // Every add read its source while the producer (the mov, then the add before) was in
  // flight.
  EXPECT_EQ(s.stat("sm.sub0.collector0", "operands_forwarded") +
                s.stat("sm.sub0.collector1", "operands_forwarded") +
                s.stat("sm.sub0.collector2", "operands_forwarded"),
            16u);
}

// As many warps as the ALU latency: one issue per cycle once every warp runs (Sec. 5.2:
// "an 8-cycle pipeline latency is completely hidden with 8 warps"); no allocation stall.
TEST(FixedStage, AluLatencyManyWarpsReachFullIssueRate) {
  const unsigned n = 64;
  ConfigPtr cfg = gebhart();
  const unsigned warps = unsigned(test::param(*cfg, "exec.sp.latency"));
  test::Sim s(std::move(cfg), chain(n), warps);
  ASSERT_TRUE(s.r.ok) << s.r.error;
  const double ipc = double(warps * (n + 2)) / double(s.r.cycles);
  EXPECT_GE(ipc, 0.95);
  EXPECT_EQ(s.stat("sm.sub0.allocator", "full"), 0u);
}

// Sec. 3.1, Fig. 3b: the register file cache "adds a stage to check the register file cache
// tags" in front of the 3 MRF-access stages: an operand dispatches the gebhart baseline's
// read stages + the tag latency after issue, and "the tag-check stage does not affect
// back-to-back instruction latencies".
static void expect_tag_stage_of_its_own(const char* platform) {
  const uint64_t mrf_stages = test::param(*gebhart(), "collector.stages");
  test::Sim s(load_config(std::string(GPURF_SOURCE_DIR "/configs/") + platform + ".yaml"), chain(8),
              1);
  ASSERT_TRUE(s.r.ok) << s.r.error;
  const uint64_t tag = s.param("rfc.tag_latency");
  ASSERT_GT(tag, 0u);
  for (unsigned pc = 1; pc <= 8; ++pc) {
    const auto& i = s.at(0, pc);
    EXPECT_EQ(i.dispatch - i.issue, mrf_stages + tag) << "pc " << pc;
    if (pc > 1) {
      EXPECT_EQ(i.issue - s.at(0, pc - 1).issue, s.param("exec.sp.latency")) << "pc " << pc;
    }
  }
}

TEST(FixedStage, RfcTagCheckIsAStageOfItsOwn) { expect_tag_stage_of_its_own("gebhart-rfc"); }

// The combined design includes the two-level platform after the RFC one; gebhart.yaml's
// 3-stage read came in with it and took the tag-check stage away (issue 32: the tag check
// then shared the MRF stages, every bank conflict held a stage slot and IPC fell to 0.961).
TEST(FixedStage, RfcTagCheckIsAStageOfItsOwnInTheCombinedDesign) {
  expect_tag_stage_of_its_own("gebhart-rfc-twolevel");
}

TEST(FixedStage, FewerSlotsThanStagesAreRefused) {
  ConfigPtr cfg = gebhart();
  EXPECT_THROW(test::Sim(std::move(cfg), chain(2), 1, {"collector.count=2"}), ConfigError);
}
