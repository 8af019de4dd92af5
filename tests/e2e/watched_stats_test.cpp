// Every counter watched (issue 38): a run of each variant family emits its statistics, and
// each one must be read by a conservation identity (the identity blocks record what they read:
// identity_reads()) or be declared unwatched with a reason where the unit declares it
// (check::unwatched / check::open_gap, platform/stats.h). A declared-unwatched statistic that
// an identity reads is stale; one that feeds the energy (the role its unit declares) must be
// declared an open gap. Each test case is one process (one SystemC elaboration).
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpurf/modules/frontend/launch.h"
#include "gpurf/modules/frontend/ptx_frontend.h"
#include "gpurf/platform/check/identities.h"
#include "gpurf/platform/config.h"
#include "gpurf/platform/energy.h"
#include "gpurf/platform/simulation.h"
#include "gpurf/platform/stats.h"

using namespace gpurf;

namespace {

std::string repo_root() { return GPURF_SOURCE_DIR; }

// A formula (IPC, hit rates, ...) is computed from other statistics: no counter of its own.
bool is_formula(const nlohmann::ordered_json& st) {
  if (auto k = st.find("kind"); k != st.end()) return *k == "formula";
  auto v = st.find("value"); // a dump without kinds (an older gpurf's)
  return v != st.end() && v->is_number_float();
}

// Whether the energy model prices statistic `st` (its unit declares it a fixed table entry, a
// structure event, a leakage time base or an SM-scope event) of the group at `path`.
bool feeds_energy(const std::string& path, const nlohmann::ordered_json& st) {
  auto e = st.find("energy");
  if (e == st.end()) return !energy_fixed_kind(energy_group_kind(path)); // a structure's event
  auto feeds = [](const std::string& role) {
    return role != "not_event" && role != "not_modelled";
  };
  if (e->is_string()) return feeds(e->get<std::string>());
  for (auto& [label, role] : e->items())
    if (feeds(role.get<std::string>())) return true;
  return false;
}

// The declaration of statistic `stat` of the live group at `path` (the run's stats.json keys
// are the groups' paths): why it is unwatched, if it says so.
const Unwatched* declared_unwatched(const std::string& path, const std::string& stat) {
  for (const StatGroup* g : all_stat_groups())
    if (g->path() == path)
      for (const Stat& s : g->stats())
        if (s.name == stat) return s.unwatched.why.empty() ? nullptr : &s.unwatched;
  return nullptr;
}

class Watched : public testing::TestWithParam<std::string> {};

} // namespace

TEST_P(Watched, EveryStatisticIsReadByAnIdentityOrListedWithAReason) {
  const LaunchSpec spec = load_launch(repo_root() + "/workloads/daxpy_dot.yaml");
  ConfigPtr platform = load_config(repo_root() + "/" + GetParam());
  PtxFrontend fe(spec, frontend_options(*platform));
  Simulation sim(*platform, fe, fe.regs_per_thread());
  const RunResult r = sim.run();
  ASSERT_TRUE(r.ok) << r.error;
  const auto reads = identity_reads();
  ASSERT_FALSE(reads.empty()) << "the identities did not run";
  std::vector<std::string> unwatched, stale, energy_exempt;
  size_t n = 0;
  for (auto g = r.stats.begin(); g != r.stats.end(); ++g) {
    if (!g.value().is_object()) continue;
    for (auto s = g.value().begin(); s != g.value().end(); ++s) {
      // "_unit" says which implementation made the group: no statistic. A distribution
      // samples events the counters count (tests/e2e/distributions_test.cpp ties its counts to
      // them): no counter of its own.
      if (!s.value().is_object() || is_formula(s.value()) || s.key() == "_unit" ||
          s.value().value("kind", "") == "distribution")
        continue;
      ++n;
      const std::string& path = g.key();
      const std::string& stat = s.key();
      const bool read = std::any_of(reads.begin(), reads.end(), [&](const auto& k) {
        return k.second == stat && group_of_kind(path, k.first);
      });
      const Unwatched* u = declared_unwatched(path, stat);
      if (!read && !u) unwatched.push_back(path + "." + stat);
      if (read && u) stale.push_back(path + "." + stat);
      if (!read && u && !u->gap && feeds_energy(path, s.value()))
        energy_exempt.push_back(path + "." + stat);
    }
  }
  EXPECT_GT(n, 20u);
  auto join = [](const std::vector<std::string>& v) {
    std::string s;
    for (const std::string& x : v) s += "\n  " + x;
    return s;
  };
  EXPECT_TRUE(unwatched.empty())
      << "no identity reads these statistics: add an identity from independent events (a "
         "GPURF_IDENTITIES block beside the unit), or declare them check::unwatched(\"why\") "
         "where the unit declares them:"
      << join(unwatched);
  EXPECT_TRUE(stale.empty())
      << "declared unwatched, but an identity reads them: drop the check::unwatched" << join(stale);
  EXPECT_TRUE(energy_exempt.empty())
      << "these feed the energy: an identity is owed (or declare them check::open_gap)"
      << join(energy_exempt);
}

// One platform of each variant family, and the memory-side ones (several SMs, an L2 written
// through).
INSTANTIATE_TEST_SUITE_P(Families, Watched,
                         testing::Values("configs/fermi.yaml", "configs/gebhart-rfc.yaml",
                                         "configs/gebhart-rfc-twolevel.yaml", "configs/wc.yaml",
                                         "configs/warped-compression-rfc.yaml",
                                         "configs/malekeh.yaml", "configs/wir.yaml",
                                         "configs/wir-rlpvc.yaml", "configs/cmrc-wid.yaml",
                                         "configs/cmrc-wshift.yaml", "configs/turing-subcore.yaml",
                                         "configs/affine.yaml", "tests/platforms/gpu-2sm.yaml",
                                         "tests/platforms/l2-write-through.yaml"),
                         [](const auto& info) {
                           std::string n;
                           for (char c : std::filesystem::path(info.param).stem().string())
                             n += std::isalnum((unsigned char)c) ? c : '_';
                           return n;
                         });
