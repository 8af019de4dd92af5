// gpurf inside a virtual platform (docs/vp.md): other IP elaborated beside the SM runs on
// after the kernel ends; the SM reports the end through done_event() and never stops the
// simulation.
#include <gtest/gtest.h>
#include <systemc>

#include "gpurf/modules/frontend/launch.h"
#include "gpurf/modules/frontend/ptx_frontend.h"
#include "gpurf/platform/config.h"
#include "gpurf/platform/simulation.h"
#include "gpurf/platform/sm.h"

using namespace gpurf;

namespace {

// Another initiator of a virtual platform: a thread that runs for `steps` x 100 ns and notes
// when the SM said it was done.
struct OtherIp : sc_core::sc_module {
  SC_HAS_PROCESS(OtherIp);
  unsigned steps, done = 0;
  const sc_core::sc_event* sm_done = nullptr;
  sc_core::sc_time sm_done_at = sc_core::SC_ZERO_TIME;
  OtherIp(sc_core::sc_module_name nm, unsigned n) : sc_module(nm), steps(n) {
    SC_THREAD(run);
    SC_THREAD(watch);
  }
  void run() {
    for (; done < steps; ++done) wait(100, sc_core::SC_NS);
  }
  void watch() {
    wait(*sm_done);
    sm_done_at = sc_core::sc_time_stamp();
  }
};

} // namespace

TEST(Embed, TheSmNeverStopsTheSimulation) {
  ConfigPtr cfg = load_config(GPURF_SOURCE_DIR "/configs/fermi.yaml");
  const LaunchSpec spec = load_launch(GPURF_SOURCE_DIR "/workloads/sgemm.yaml");
  PtxFrontend fe(spec, frontend_options(*cfg));
  Simulation sim(*cfg, fe, fe.regs_per_thread());
  OtherIp other("other", 2000); // 200 us: well past the kernel's end
  other.sm_done = &sim.sm().done_event();
  const RunResult r = sim.run();
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(fe.verify_outputs(), "");
  EXPECT_EQ(other.done, other.steps) << "the other IP was cut off";
  EXPECT_GT(other.sm_done_at, sc_core::SC_ZERO_TIME);
  EXPECT_LT(other.sm_done_at, sc_core::sc_time(200, sc_core::SC_US));
  EXPECT_TRUE(sim.sm().stopped());
}

namespace {

// The latest cycle the SM issued an instruction in.
struct LastIssue : Observer {
  Cycle last = 0;
  void issue(const WarpInst&, Cycle at) override { last = at; }
};

// A process due every `every` ns that notes the most cycles the SM had issued in beyond
// SystemC's time when it ran (Simulation::run lets the SM run ahead while nothing else is due).
struct Sampler : sc_core::sc_module {
  SC_HAS_PROCESS(Sampler);
  Sm* sm = nullptr;
  const LastIssue* issued = nullptr;
  unsigned every, samples = 0;
  int64_t most_ahead = -1000000;
  Sampler(sc_core::sc_module_name nm, unsigned ns) : sc_module(nm), every(ns) { SC_THREAD(run); }
  void run() {
    while (!sm->stopped()) {
      wait(every, sc_core::SC_NS);
      const int64_t at = int64_t(sm->clock().cycles(sc_core::sc_time_stamp()));
      most_ahead = std::max(most_ahead, int64_t(issued->last) - at);
      ++samples;
    }
  }
};

} // namespace

// Another process sees the SM at its own time: the SM runs ahead of SystemC only up to the
// next event of the simulation (at most the cycle it is about to tick).
TEST(Embed, TheSmRunsAheadOnlyWhileNothingElseIsDue) {
  ConfigPtr cfg = load_config(GPURF_SOURCE_DIR "/configs/fermi.yaml");
  const LaunchSpec spec = load_launch(GPURF_SOURCE_DIR "/workloads/sgemm.yaml");
  PtxFrontend fe(spec, frontend_options(*cfg));
  LastIssue issued;
  SimOptions opt;
  opt.observers = {&issued};
  Simulation sim(*cfg, fe, fe.regs_per_thread(), opt);
  Sampler s("sampler", 13);
  s.sm = &sim.sm();
  s.issued = &issued;
  const RunResult r = sim.run();
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(fe.verify_outputs(), "");
  ASSERT_GT(s.samples, 100u);
  EXPECT_LE(s.most_ahead, 0) << "the SM issued in a cycle after another process's event";
  EXPECT_EQ(s.most_ahead, 0); // it issued in the cycle of some event (not vacuous)
}

// The SM's end is notified at the cycle it stopped in, also when it ran ahead up to it.
TEST(Embed, TheEndIsNotifiedAtTheSmsCycle) {
  ConfigPtr cfg = load_config(GPURF_SOURCE_DIR "/configs/fermi.yaml");
  const LaunchSpec spec = load_launch(GPURF_SOURCE_DIR "/workloads/sgemm.yaml");
  PtxFrontend fe(spec, frontend_options(*cfg));
  Simulation sim(*cfg, fe, fe.regs_per_thread());
  OtherIp w("watch", 0); // no steps of its own: it only notes the SM's end
  w.sm_done = &sim.sm().done_event();
  const RunResult r = sim.run();
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(fe.verify_outputs(), "");
  EXPECT_GT(sim.sm().cycles(), 1000u);
  EXPECT_EQ(w.sm_done_at, sim.sm().clock().time(sim.sm().cycles()));
}
