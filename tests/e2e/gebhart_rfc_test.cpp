// Gebhart register file cache + two-level scheduler, end to end with hand-built warp programs
// (one simulation per process); the programs carry the compiler hints by hand.
#include <gtest/gtest.h>

#include "gpurf/modules/frontend/launch.h"
#include "gpurf/modules/frontend/ptx_frontend.h"
#include "gpurf/platform/probe.h"
#include "tests/support/scripted_sim.h"

using namespace gpurf;
using test::load;
using test::op;

namespace {

const char* kPlatform = R"(
sm: {warps: 8, subcores: 1}
scheduler: {impl: two_level, count: 1, policy: gto, active: 1}
collector: {count: 2, src_slots: 3}
bank: {count: 4, entries: 64, slices: 1, ports: 1r1w, latency: 1}
exec: {sp: {count: 1, latency: 4, ii: 1}}
writeback: {ports: 2}
l1: {hit_latency: 20}
memory: {latency: 100, bytes_per_cycle: 32}
rfc: {impl: cache, entries: 6, liveness: true, bypass_long_latency: true}
)";

// Runs `prog` on the small platform above.
struct Sim : test::Sim {
  Sim(std::vector<ScriptOp> prog, unsigned warps, std::vector<std::string> overrides = {})
      : test::Sim(parse_config_string(kPlatform, "test-platform"), std::move(prog), warps,
                  overrides) {}
};

// Marks `o`'s sources read for the last time (`last`) and whether it consumes a
// long-latency result.
ScriptOp hinted(ScriptOp o, std::vector<bool> last, bool consumes = false) {
  o.last_read = std::move(last);
  o.consumes_long_latency = consumes;
  return o;
}

// r1 is produced (RFC, dirty, live), a load's consumer suspends the warp (flush: r1 goes to
// the MRF), and r1 is read again after reactivation from the MRF; r5 is read for the last
// time before the suspension, so its write-back is elided.
std::vector<ScriptOp> suspend_program() {
  return {op(ScriptOp::Mov, {1}, {}, 5),                         // 0
          op(ScriptOp::Mov, {5}, {}, 9),                         // 1
          hinted(op(ScriptOp::Add, {6}, {5}, 1), {true}),        // 2: last read of r5
          load(2, 0x4000),                                       // 3: long-latency producer
          hinted(op(ScriptOp::Add, {3}, {2}, 0), {false}, true), // 4: consumes r2: suspend
          op(ScriptOp::Add, {4}, {1, 3, 6})};                    // 5: r1, r6 from the MRF
}

} // namespace

TEST(GebhartRfc, SuspendedWarpsDirtyLiveValueSurvivesTheFlush) {
  Sim run(suspend_program(), 2);
  ASSERT_TRUE(run.r.ok) << run.r.error; // the golden check passed for every operand
  const std::string rfc = "sm.sub0.rfc";
  const std::string sch = "sm.sub0.scheduler0";
  // Each warp is suspended once for the load and leaves the active set once at its exit,
  // each time with values in its set.
  EXPECT_EQ(run.stat(sch, "deactivations", 0), 2u);
  EXPECT_EQ(run.stat(sch, "deactivations", 1), 2u);
  EXPECT_EQ(run.stat(rfc, "flushes"), 4u);
  EXPECT_EQ(run.stat(rfc, "flush_writebacks"), 4u); // r1 and r6 of both warps
  EXPECT_EQ(run.stat(rfc, "dead_elided"), 2u);      // r5 of both warps
  EXPECT_EQ(run.stat(rfc, "misses"), 6u); // r2 (loaded while suspended), r1, r6 from the MRF
  EXPECT_EQ(run.stat(rfc, "reads"), 4u);  // r5 before the suspension, r3 after it
  // Results reaching a warp outside the active set go to the MRF: the loads among them.
  EXPECT_GE(run.stat(rfc, "bypass", 0), 4u);
  EXPECT_EQ(run.stat(rfc, "bypass"), run.stat(rfc, "bypass", 0));
}

TEST(GebhartRfc, TinyRfcEvictsAndReadsBackFromTheMrf) {
  // One entry per thread: every new result evicts the previous one (live: written back).
  Sim run({op(ScriptOp::Mov, {1}, {}, 1), op(ScriptOp::Mov, {2}, {}, 2),
           op(ScriptOp::Mov, {3}, {}, 3), op(ScriptOp::Add, {4}, {1, 2, 3})},
          4, {"rfc.entries=1", "scheduler.active=4"});
  ASSERT_TRUE(run.r.ok) << run.r.error;
  EXPECT_GE(run.stat("sm.sub0.rfc", "writebacks"), 4u * 2);
  EXPECT_GE(run.stat("sm.sub0.rfc", "misses"), 4u * 2);
}

TEST(GebhartRfc, WithoutLivenessDeadValuesAreWrittenBack) {
  Sim run(suspend_program(), 2, {"rfc.liveness=false"});
  ASSERT_TRUE(run.r.ok) << run.r.error;
  EXPECT_EQ(run.stat("sm.sub0.rfc", "dead_elided"), 0u);
}

// The RFC holds values of a warp slot's current CTA only: when the CTA ends its registers are
// dead and the set is emptied without write-backs. Before, the standard scheduler (no
// deactivation at exit) left them there, and the next CTA's first allocations evicted them
// into the MRF rows of registers it had not written yet. Watches, per warp slot, RFC
// write-backs (bank writes of carrier records, seq 0) of a value older than the slot's last
// exit that reach the banks after an instruction of the slot's next warp has retired.
namespace {
struct StaleWritebackWatch : Observer {
  std::vector<uint64_t> exit_seq = std::vector<uint64_t>(64, 0);
  std::vector<bool> next_warp_retired = std::vector<bool>(64, false);
  uint64_t writebacks = 0, stale = 0;
  void issue(const WarpInst& i, Cycle) override {
    if (!i.info->exit) return;
    exit_seq.at(i.warp) = i.seq;
    next_warp_retired.at(i.warp) = false;
  }
  void retire(const WarpInst& i, Cycle) override {
    if (exit_seq.at(i.warp) && i.seq > exit_seq.at(i.warp)) next_warp_retired.at(i.warp) = true;
  }
  void write(const RegAccess& a, Cycle) override {
    if (a.store != Store::Bank || !a.inst || a.inst->seq != 0) return;
    ++writebacks;
    const unsigned w = a.inst->warp;
    stale += next_warp_retired.at(w) && a.version < exit_seq.at(w);
  }
};
} // namespace

TEST(GebhartRfc, NoValueOfAFinishedCtaIsWrittenBack) {
  // dp1d: 10 CTAs of 8 warps, 4 resident on 32 warp slots: the slots get later CTAs.
  const LaunchSpec spec = load_launch(GPURF_SOURCE_DIR "/workloads/dp1d.yaml");
  ConfigPtr platform = load_config(GPURF_SOURCE_DIR "/configs/gebhart-rfc.yaml");
  PtxFrontend fe(spec, frontend_options(*platform));
  StaleWritebackWatch watch;
  SimOptions o;
  o.observers.push_back(&watch);
  Simulation sim(*platform, fe, fe.regs_per_thread(), o);
  const RunResult r = sim.run();
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(fe.verify_outputs(), "");
  EXPECT_GT(watch.writebacks, 0u);
  EXPECT_EQ(watch.stale, 0u);
  // The finished CTAs' live dirty values were dropped instead.
  EXPECT_GT(r.stats.at("sm.sub0.rfc").at("exit_dropped").at("value").get<uint64_t>(), 0u);
}

// Gebhart's static last-read bit assumes that a warp reads its registers in program order
// (the paper's in-order pipeline, Fig. 3). The fixed-stage read holds 3 reads in flight, so
// the add with four sources reads r4 when a slot frees; the younger add's read of r4 is its
// last. Were the younger read first, it would mark r4 dead, and in a 1-entry RFC the next
// result (r7) would evict r4 without a write-back: the older add would then read the MRF's
// stale r4 (timing check: RAW). `GetParam()` stores (no result) between r7's mov and the
// adds move r7's allocation over the cycles around the two reads; with `warp_order` the
// younger read waits for the older add's reads, and every placement passes.
class GebhartRfcWarpOrder : public testing::TestWithParam<unsigned> {};

TEST_P(GebhartRfcWarpOrder, AYoungerLastReadWaitsForTheOlderReadsOfItsWarp) {
  auto store = [](uint16_t r, uint64_t at) {
    ScriptOp o = op(ScriptOp::Store, {}, {r});
    o.base = at;
    return o;
  };
  std::vector<ScriptOp> p;
  for (uint16_t r = 1; r <= 4; ++r) p.push_back(op(ScriptOp::Mov, {r}, {}, 10u * r));
  for (unsigned k = 0; k < 12; ++k) p.push_back(store(4, 0x1000 + 0x100 * k)); // r4 retires
  p.push_back(op(ScriptOp::Mov, {7}, {}, 70)); // its allocation evicts r4
  for (unsigned k = 0; k < GetParam(); ++k) p.push_back(store(1, 0x3000 + 0x100 * k));
  p.push_back(op(ScriptOp::Add, {5}, {1, 2, 3, 4}));        // 4 sources, 3 read slots
  p.push_back(hinted(op(ScriptOp::Add, {6}, {4}), {true})); // the last read of r4
  test::Sim run(load_config(GPURF_SOURCE_DIR "/configs/gebhart-rfc.yaml"), std::move(p), 1,
                {"rfc.entries=1"});
  ASSERT_TRUE(run.r.ok) << run.r.error; // the golden and timing checks passed
  EXPECT_EQ(run.fe.reg(0, 5)[0], 10u + 20u + 30u + 40u);
  uint64_t waits = 0; // the younger add's read waited for the older add's fourth
  for (unsigned c = 0; c < run.param("collector.count"); ++c)
    waits += run.stat("sm.sub0.collector" + std::to_string(c), "order_waits");
  EXPECT_GT(waits, 0u);
}

INSTANTIATE_TEST_SUITE_P(Stores, GebhartRfcWarpOrder, testing::Range(0u, 12u));
