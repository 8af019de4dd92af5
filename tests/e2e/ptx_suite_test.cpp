// End-to-end: every real CUDA kernel of the suite (workloads/*.yaml) through the PTX
// front-end and the whole timing model on every platform of configs/ and the test platforms
// (tests/platforms/), with the timing checker and the conservation identities on. Each test
// case is one process (one SystemC elaboration): ctest runs them separately.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpurf/modules/frontend/launch.h"
#include "gpurf/modules/frontend/ptx_frontend.h"
#include "gpurf/platform/config.h"
#include "gpurf/platform/simulation.h"

using namespace gpurf;

namespace {

std::string repo_root() { return GPURF_SOURCE_DIR; }

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

void run_workload(const std::string& name, const std::string& platform_file) {
  const LaunchSpec spec = load_launch(repo_root() + "/workloads/" + name + ".yaml");
  ConfigPtr platform = load_config(repo_root() + "/" + platform_file);
  PtxFrontend fe(spec, frontend_options(*platform));
  Simulation sim(*platform, fe, fe.regs_per_thread());
  const RunResult r = sim.run();
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(fe.done());
  EXPECT_EQ(fe.verify_outputs(), "");
  EXPECT_EQ(r.warp_instructions, fe.retired());
  EXPECT_EQ(fe.issued(), fe.retired());
  const uint64_t checked = stat_total(r.stats, "operands_checked");
  EXPECT_GT(checked, 0u);
  // The collectors compare every source operand the front-end reported (and the predicates,
  // when the platform keeps them in the banks).
  const ConfigNode* sm = platform->find("sm");
  const ConfigNode* preds = sm ? sm->find("predicates") : nullptr;
  const bool banks = preds && preds->scalar == "banks";
  // ... and the one source of every Warped-Compression dummy MOV (platform/dummy_movs.h);
  // WIR's reused instructions read nothing (their consumers check the results they took).
  EXPECT_EQ(checked + stat_total(r.stats, "reused_sources"),
            fe.operands_checked() + (banks ? fe.predicate_sources() : 0) +
                stat_total(r.stats, "movs_injected"));
  // The GPU's warp instructions are its SMs'; with several SMs every SM ran some of the grid
  // (CTAs are handed round-robin first) and reached the shared L2 through the interconnect.
  std::vector<uint64_t> per_sm;
  for (auto it = r.stats.begin(); it != r.stats.end(); ++it)
    if (it.key().rfind("sm", 0) == 0 && it.key().find('.') == std::string::npos)
      per_sm.push_back(it.value()["warp_instructions"]["value"].get<uint64_t>());
  uint64_t sum = 0;
  for (uint64_t n : per_sm) sum += n;
  EXPECT_EQ(sum, r.warp_instructions);
  EXPECT_EQ(r.stats["gpu"]["warp_instructions"]["value"].get<uint64_t>(), r.warp_instructions);
  if (per_sm.size() > 1) {
    const auto& req = r.stats["interconnect"]["requests"]["values"];
    ASSERT_EQ(req.size(), per_sm.size());
    for (size_t s = 0; s < per_sm.size() && s < spec.num_ctas(); ++s) {
      EXPECT_GT(per_sm[s], 0u) << "sm" << s << " ran no CTA";
      EXPECT_GT(req[s].get<uint64_t>(), 0u) << "sm" << s << " sent no memory request";
    }
  }
  std::printf("%s: %u regs/thread, %u CTAs resident, %llu cycles, %llu warp instructions, "
              "%llu operands checked by the collectors\n",
              name.c_str(), fe.regs_per_thread(), fe.resident_ctas(), (unsigned long long)r.cycles,
              (unsigned long long)r.warp_instructions, (unsigned long long)checked);
}

std::vector<std::string> files(const std::string& dir) {
  std::vector<std::string> v;
  for (const auto& e : std::filesystem::directory_iterator(repo_root() + "/" + dir))
    if (e.path().extension() == ".yaml") v.push_back(dir + "/" + e.path().filename().string());
  std::sort(v.begin(), v.end());
  return v;
}

std::vector<std::string> platforms() {
  std::vector<std::string> v = files("configs");
  for (const std::string& t : files("tests/platforms")) v.push_back(t);
  return v;
}

std::vector<std::string> kernels() {
  std::vector<std::string> v;
  for (const std::string& f : files("workloads")) {
    const std::string base = std::filesystem::path(f).stem().string();
    v.push_back(base);
  }
  return v;
}

std::string test_name(const std::string& s) {
  std::string n;
  for (char c : std::filesystem::path(s).stem().string())
    n += std::isalnum((unsigned char)c) ? c : '_';
  return n;
}

class Suite : public testing::TestWithParam<std::tuple<std::string, std::string>> {};

} // namespace

// Every kernel (register pairs, calls under divergence, barriers, shared memory, shuffles,
// atomics, predicates) on every platform, each operand, output, timing rule and identity
// checked.
TEST_P(Suite, VerifiedWithTimingChecks) {
  run_workload(std::get<1>(GetParam()), std::get<0>(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(
    PtxE2e, Suite, testing::Combine(testing::ValuesIn(platforms()), testing::ValuesIn(kernels())),
    [](const auto& info) {
      return test_name(std::get<0>(info.param)) + "_" + test_name(std::get<1>(info.param));
    });
