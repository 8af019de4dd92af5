// End-to-end: real CUDA kernels of the suite (workloads/*.yaml) through the PTX front-end and
// the whole timing model on configs/fermi.yaml. Each test case is one process (one SystemC
// elaboration): ctest runs them separately.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "modules/frontend/launch.h"
#include "modules/frontend/ptx_frontend.h"
#include "platform/config.h"
#include "platform/simulation.h"

using namespace gpurf;

namespace {

std::string repo_root() {
  return std::filesystem::path(__FILE__).parent_path().parent_path().parent_path().string();
}

// Sum of a scalar statistic over every group that has it.
uint64_t stat_total(const nlohmann::ordered_json& stats, const std::string& name) {
  uint64_t sum = 0;
  for (auto it = stats.begin(); it != stats.end(); ++it)
    if (it.value().is_object() && it.value().contains(name)) {
      const auto& s = it.value()[name];
      if (s.contains("value"))
        sum += s["value"].get<uint64_t>();
      else if (s.contains("total"))
        sum += s["total"].get<uint64_t>();
    }
  return sum;
}

void run_workload(const std::string& name) {
  const LaunchSpec spec = load_launch(repo_root() + "/workloads/" + name + ".yaml");
  PtxFrontend fe(spec);
  ConfigPtr platform = load_config(repo_root() + "/configs/fermi.yaml");
  Simulation sim(*platform, fe, fe.regs_per_thread());
  const RunResult r = sim.run();
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(fe.done());
  EXPECT_EQ(fe.verify_outputs(), "");
  EXPECT_EQ(r.warp_instructions, fe.retired());
  EXPECT_EQ(fe.issued(), fe.retired());
  const uint64_t checked = stat_total(r.stats, "operands_checked");
  EXPECT_GT(checked, 0u);
  // The collectors compare every source operand the front-end reported.
  EXPECT_EQ(checked, fe.operands_checked());
  std::printf("%s: %u regs/thread, %u CTAs resident, %llu cycles, %llu warp instructions, "
              "%llu operands checked by the collectors\n",
              name.c_str(), fe.regs_per_thread(), fe.resident_ctas(), (unsigned long long)r.cycles,
              (unsigned long long)r.warp_instructions, (unsigned long long)checked);
}

} // namespace

// One case per kernel; the four below cover register pairs (daxpy_dot), calls under divergence
// (nw, backprop), barriers and shared memory (sgemm), shuffles and atomics (reduce).
TEST(PtxE2e, Sgemm) { run_workload("sgemm"); }
TEST(PtxE2e, Reduce) { run_workload("reduce"); }
TEST(PtxE2e, DaxpyDot) { run_workload("daxpy_dot"); }
TEST(PtxE2e, Backprop) { run_workload("backprop"); }
TEST(PtxE2e, Nw) { run_workload("nw"); }
TEST(PtxE2e, Bfs) { run_workload("bfs"); }
TEST(PtxE2e, Bitonic) { run_workload("bitonic"); }
TEST(PtxE2e, Dp1d) { run_workload("dp1d"); }
TEST(PtxE2e, Gaussian) { run_workload("gaussian"); }
TEST(PtxE2e, Heat2d) { run_workload("heat2d"); }
TEST(PtxE2e, Histogram) { run_workload("histogram"); }
TEST(PtxE2e, Kmeans) { run_workload("kmeans"); }
TEST(PtxE2e, Nbody) { run_workload("nbody"); }
TEST(PtxE2e, Nn) { run_workload("nn"); }
TEST(PtxE2e, Scan) { run_workload("scan"); }
TEST(PtxE2e, Sobel) { run_workload("sobel"); }
