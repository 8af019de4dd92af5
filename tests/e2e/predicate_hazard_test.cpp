// Predicate hazards on a real kernel: scan on fermi once let `@%p2 bra` (PTX line 54) issue at
// cycle 648 while the `setp.ge.s32 %p2` before it (line 53) completed at 651, because
// predicates had no scoreboard entries. An observer of its own (not the timing checker)
// watches every predicate consumer issue after its producer retired; the timing checker is
// off here so this test stands alone. The checker's view: TimingChecker.PredicateReadBefore*.
#include <filesystem>
#include <map>

#include <gtest/gtest.h>

#include "gpurf/modules/frontend/launch.h"
#include "gpurf/modules/frontend/ptx_frontend.h"
#include "gpurf/platform/config.h"
#include "gpurf/platform/probe.h"
#include "gpurf/platform/simulation.h"

using namespace gpurf;

namespace {

struct PredicateWatch : Observer {
  std::map<std::pair<unsigned, unsigned>, unsigned> writing; // (warp, pred) -> producers
  uint64_t consumers = 0, line54 = 0;
  std::vector<std::string> bad;
  void issue(const WarpInst& i, Cycle t) override {
    const InstInfo& info = *i.info;
    for (unsigned k = 0; k < info.n_psrc; ++k) {
      ++consumers;
      line54 += info.ptx_line == 54;
      if (writing[{i.warp, info.psrc_reg[k]}])
        bad.push_back("warp " + std::to_string(i.warp) + " PTX line " +
                      std::to_string(info.ptx_line) + " (" + info.opname + ") issued at " +
                      std::to_string(t) + " before p" + std::to_string(info.psrc_reg[k]) +
                      " was written");
    }
    for (unsigned k = 0; k < info.n_pdst; ++k) ++writing[{i.warp, info.pdst_reg[k]}];
  }
  void retire(const WarpInst& i, Cycle) override {
    for (unsigned k = 0; k < i.info->n_pdst; ++k) --writing[{i.warp, i.info->pdst_reg[k]}];
  }
};

} // namespace

TEST(PredicateHazard, ScanConsumersWaitForTheirProducers) {
  const std::string root = GPURF_SOURCE_DIR;
  const LaunchSpec spec = load_launch(root + "/workloads/scan.yaml");
  ConfigPtr platform = load_config(root + "/configs/fermi.yaml");
  PtxFrontend fe(spec, frontend_options(*platform));
  apply_override(*platform, "sm.checks=false");
  PredicateWatch watch;
  SimOptions o;
  o.observers.push_back(&watch);
  Simulation sim(*platform, fe, fe.regs_per_thread(), o);
  const RunResult r = sim.run();
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(fe.verify_outputs(), "");
  EXPECT_GT(watch.line54, 0u); // the guarded branch of the report was seen
  EXPECT_GT(watch.consumers, watch.line54);
  EXPECT_TRUE(watch.bad.empty()) << watch.bad.size()
                                 << " early predicate reads, first: " << watch.bad.front();
}
