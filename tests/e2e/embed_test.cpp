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
