// Warped-Compression on configs/wc.yaml (docs/warped-compression.md): stored forms and the
// slices they take, the stages on the dependence path, power gating and the dummy MOVs under
// divergence (one simulation per process).
#include <gtest/gtest.h>

#include "gpurf/modules/frontend/launch.h"
#include "gpurf/modules/frontend/ptx_frontend.h"
#include "tests/support/scripted_sim.h"

using namespace gpurf;
using test::op;

namespace {

ConfigPtr wc() { return load_config(GPURF_SOURCE_DIR "/configs/wc.yaml"); }

// r0 = lane id + 100 (deltas 0..31 from lane 0: <4,1>, 3 slices), then n dependent adds of a
// constant (the same deltas), then r1 = r0 + r0 (deltas 0..62: still <4,1>).
std::vector<ScriptOp> chain(unsigned n) {
  std::vector<ScriptOp> p{op(ScriptOp::Mov, {0}, {}, 100)};
  for (unsigned k = 0; k < n; ++k) p.push_back(op(ScriptOp::Add, {0}, {0}, 3));
  p.push_back(op(ScriptOp::Add, {1}, {0, 0}, 0));
  return p;
}

} // namespace

TEST(WarpedCompression, StoredFormTakesOnlyItsSlices) {
  const unsigned n = 8, warps = 2;
  test::Sim s(wc(), chain(n), warps);
  ASSERT_TRUE(s.r.ok) << s.r.error;
  const uint64_t writes = warps * (n + 2);
  EXPECT_EQ(s.stat("sm.sub0.writeback", "stored_forms", 1), writes); // all <4,1>
  EXPECT_EQ(s.stat("sm.sub0.writeback", "stored_forms", 3), 0u);
  uint64_t slice_writes = 0, slice_reads = 0;
  for (unsigned b = 0; b < 4; ++b) {
    slice_writes += s.stat("sm.sub0.bank" + std::to_string(b), "slice_writes");
    slice_reads += s.stat("sm.sub0.bank" + std::to_string(b), "slice_reads");
  }
  EXPECT_EQ(slice_writes, 3 * writes);
  // n + 1 instructions read r0 (the last one once: one collector operand) per warp.
  EXPECT_EQ(s.stat("sm.sub0.arbiter", "read_forms", 1), warps * (n + 1));
  EXPECT_EQ(slice_reads, 3 * warps * (n + 1));
  EXPECT_EQ(s.stat("sm.sub0.decompressor", "decompressions"), warps * (n + 1));
  EXPECT_EQ(s.stat("sm.sub0.compressor", "compressions"), writes);
}

// One warp: each add waits for its producer's write, which comes compress_latency after the
// result, and its compressed operand passes the decompression stage before it executes: with
// the stage between the crossbar and the collector, before its dispatch; with the stage
// between the collector and the pipe (wc.yaml), after it.
void both_stages_on_the_dependence(const std::string& stage_at) {
  const unsigned n = 16;
  test::Sim s(wc(), chain(n), 1, {"crossbar.stage_at=" + stage_at});
  ASSERT_TRUE(s.r.ok) << s.r.error;
  const uint64_t c = s.param("writeback.compress_latency"),
                 d = s.param("crossbar.decompress_latency"), bank = s.param("bank.latency");
  ASSERT_GT(c, 0u);
  ASSERT_GT(d, 0u);
  for (unsigned pc = 1; pc <= n; ++pc) {
    const auto& prev = s.at(0, pc - 1);
    const auto& i = s.at(0, pc);
    EXPECT_GE(prev.retire, prev.complete + c) << "pc " << pc;
    EXPECT_GE(i.issue, prev.retire) << "pc " << pc;
    // allocation, the read request a cycle later, the bank, then the decompression stage
    EXPECT_GE(i.complete, i.issue + 1 + bank + d + 1) << "pc " << pc;
    if (stage_at == "crossbar") {
      EXPECT_GE(i.dispatch, i.issue + 1 + bank + d) << "pc " << pc;
    }
    if (stage_at == "dispatch") {
      EXPECT_GE(i.complete, i.dispatch + d + 1) << "pc " << pc;
    }
  }
}
TEST(WarpedCompression, BothStagesLieOnTheDependence) { both_stages_on_the_dependence("dispatch"); }
TEST(WarpedCompression, BothStagesLieOnTheDependenceStageAtCrossbar) {
  both_stages_on_the_dependence("crossbar");
}

// Sec. 5: only "the compressed chunks are sent to the decompressor unit"; an uncompressed
// operand (all 8 banks read) skips the decompression stage. With the stage between the
// collector and the pipe (wc.yaml) the collector is not held through it: a compressed
// operand's instruction dispatches as soon as an uncompressed one's and its result comes
// decompress_latency later; with the stage before the collector, its dispatch does.
namespace {
void uncompressed_skip(const std::string& stage_at) {
  // r0 = lane id + 100 (<4,1>), then 20 doublings r0 = r0 + r0: the deltas lane x 2^k fit
  // <4,1> or <4,2> up to k = 10 and no choice from k = 11 on: pc k reads the value of
  // pc k - 1, so pc 1-11 read compressed operands and pc 12-20 uncompressed ones.
  const unsigned n = 20, first_unc = 11;
  std::vector<ScriptOp> p{op(ScriptOp::Mov, {0}, {}, 100)};
  for (unsigned k = 0; k < n; ++k) p.push_back(op(ScriptOp::Add, {0}, {0, 0}, 0));
  test::Sim s(wc(), p, 1, {"crossbar.stage_at=" + stage_at});
  ASSERT_TRUE(s.r.ok) << s.r.error;
  ASSERT_EQ(s.stat("sm.sub0.writeback", "stored_forms", 3), n + 1 - first_unc);
  const uint64_t d = s.param("crossbar.decompress_latency");
  ASSERT_GT(d, 0u);
  // Issue to dispatch: collector allocation, read request, bank (+ decompression); the
  // fewest cycles of each kind (wake-ups of gated slices only add).
  // Dispatch to result: the pipe (+ decompression).
  Cycle compressed = ~Cycle(0), uncompressed = ~Cycle(0);
  Cycle compressed_exec = ~Cycle(0), uncompressed_exec = ~Cycle(0);
  for (unsigned pc = 1; pc <= n; ++pc) {
    const auto& i = s.at(0, pc);
    Cycle& m = pc <= first_unc ? compressed : uncompressed;
    m = std::min(m, i.dispatch - i.issue);
    Cycle& e = pc <= first_unc ? compressed_exec : uncompressed_exec;
    e = std::min(e, i.complete - i.dispatch);
  }
  if (stage_at == "crossbar") {
    EXPECT_EQ(uncompressed + d, compressed);
    EXPECT_EQ(uncompressed_exec, compressed_exec);
  } else {
    EXPECT_EQ(uncompressed, compressed);
    EXPECT_EQ(uncompressed_exec + d, compressed_exec);
  }
}
} // namespace
TEST(WarpedCompression, UncompressedOperandsSkipTheDecompressionStage) {
  uncompressed_skip("dispatch");
}
TEST(WarpedCompression, UncompressedOperandsSkipTheDecompressionStageAtCrossbar) {
  uncompressed_skip("crossbar");
}

TEST(WarpedCompression, GatedSlicesWakeOnTheirFirstWrite) {
  test::Sim s(wc(), chain(4), 1);
  ASSERT_TRUE(s.r.ok) << s.r.error;
  // Every slice starts gated; <4,1> writes wake slices 0-2 of the banks they reach, the
  // others stay gated for the whole run.
  uint64_t wakeups = 0;
  for (unsigned b = 0; b < 4; ++b) {
    const std::string g = "sm.sub0.bank" + std::to_string(b);
    wakeups += s.stat(g, "wakeups");
    for (unsigned sl = 3; sl < 8; ++sl) EXPECT_EQ(s.stat(g, "gated_cycles", int(sl)), s.r.cycles);
  }
  EXPECT_GT(wakeups, 0u);
  EXPECT_LE(wakeups, 2u * 3u); // r0 and r1: at most two banks x 3 slices
}

// nw's boundary code diverges: a divergent write of a compressed register gets a MOV first.
TEST(WarpedCompression, DivergentWritesOfCompressedRegistersGetADummyMov) {
  const LaunchSpec spec = load_launch(GPURF_SOURCE_DIR "/workloads/nw.yaml");
  ConfigPtr platform = wc();
  PtxFrontend fe(spec, frontend_options(*platform));
  Simulation sim(*platform, fe, fe.regs_per_thread());
  const RunResult r = sim.run();
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(fe.verify_outputs(), "");
  auto stat = [&](const char* g, const char* n) {
    return r.stats.at(g).at(n).at("value").get<uint64_t>();
  };
  const uint64_t movs = stat("sm", "movs_injected");
  EXPECT_GT(movs, 0u);
  EXPECT_EQ(stat("sm", "movs_retired"), movs);
  EXPECT_EQ(stat("sm.sub0.writeback", "mov_writes"), movs);
  EXPECT_GT(stat("sm.sub0.writeback", "divergent_writes"), 0u);
  // MOVs are not program instructions.
  EXPECT_EQ(r.warp_instructions, fe.retired());
  EXPECT_EQ(stat("sm.sub0.scheduler0", "issued") + stat("sm.sub0.scheduler1", "issued"),
            fe.retired() + movs);
}

// The range indicators belong to the registers of a CTA: when a warp slot's CTA ends its
// registers are deallocated and their indicators return to "uncompressed". apps/dp1d at 7 CTAs
// (one more than fit) over two launches: warp 0 of every CTA writes registers in divergent code
// first, so a stale indicator from the slot's previous CTA would make a dummy MOV decompress
// the old CTA's bytes (the second launch starts with fresh registers: the MOV read 0x10032900
// where the register holds 0). With power gating (wc*) and without (wake_latency 0: the reset
// does not depend on the valid bits).
namespace {
void run_dp1d_two_launches(const std::string& config, const std::vector<std::string>& overrides) {
  const LaunchSpec spec =
      load_launch(GPURF_SOURCE_DIR "/workloads/apps/dp1d.yaml", 1, {"cols=1568", "rows=33"});
  ConfigPtr platform = load_config(GPURF_SOURCE_DIR "/configs/" + config);
  for (const std::string& o : overrides) apply_override(*platform, o);
  PtxFrontend fe(spec, frontend_options(*platform));
  Simulation sim(*platform, fe, fe.regs_per_thread());
  const RunResult r = sim.run();
  ASSERT_TRUE(r.ok) << config << ": " << r.error;
  EXPECT_EQ(r.launches, 2u);
  EXPECT_EQ(fe.verify_outputs(), "");
  const uint64_t movs = r.stats.at("sm").at("movs_injected").at("value").get<uint64_t>();
  EXPECT_GT(movs, 0u) << "the case needs divergent writes of compressed registers";
}
} // namespace

TEST(WarpedCompression, RangeIndicatorsResetWhenACtaEnds) { run_dp1d_two_launches("wc.yaml", {}); }
TEST(WarpedCompression, RangeIndicatorsResetWithoutPowerGating) {
  run_dp1d_two_launches("wc.yaml", {"bank.wake_latency=0"});
}
TEST(WarpedCompression, RangeIndicatorsResetWithChoice40) {
  run_dp1d_two_launches("wc-40.yaml", {});
}
TEST(WarpedCompression, RangeIndicatorsResetWithChoice41) {
  run_dp1d_two_launches("wc-41.yaml", {});
}
TEST(WarpedCompression, RangeIndicatorsResetWithChoice42) {
  run_dp1d_two_launches("wc-42.yaml", {});
}

// A 0-cycle stage at dispatch still takes a decompressor per compressed operand: with one unit
// and 8 warps' chains dispatching together, operands wait for it (the checker holds the count).
TEST(WarpedCompression, ZeroCycleDecompressionStillTakesTheUnits) {
  test::Sim s(wc(), chain(8), 8, {"crossbar.decompress_latency=0", "crossbar.decompressors=1"});
  ASSERT_TRUE(s.r.ok) << s.r.error;
  EXPECT_EQ(s.stat("sm.sub0.decompressor", "decompressions"), 8u * 9u);
  EXPECT_GT(s.stat("sm.sub0.crossbar", "decompressor_wait_cycles"), 0u);
}
