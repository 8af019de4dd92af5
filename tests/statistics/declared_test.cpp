// Every registered implementation, built on default parameters as --describe builds it:
// each statistic it declares has a unit and a description, each counter an energy role that
// fits its kind (priced and leakage only where a fixed table entry prices the kind, structure
// events only in an added structure), and the conservation identities read only statistics
// it declares (the identity blocks throw UnknownStatistic otherwise). So a counter
// renamed in its unit without its readers fails here, whatever platform runs it.
#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpurf/platform/check/identities.h"
#include "gpurf/platform/energy.h"
#include "gpurf/platform/registry.h"
#include "gpurf/platform/unit_description.h"

using namespace gpurf;

namespace {

// Every (slot, implementation) that makes statistics. `skipped`: those that cannot be built
// alone (they need another unit's state), with the reason.
std::vector<UnitDescription> described(std::vector<std::string>& skipped) {
  std::vector<UnitDescription> out;
  for (const SlotInfo& s : all_slots())
    for (auto& [impl, desc] : s.impls()) {
      try {
        UnitDescription d = describe_unit(s, impl);
        if (!d.groups.empty()) out.push_back(std::move(d));
      } catch (const std::exception& e) {
        skipped.push_back(s.slot + "/" + impl + ": " + e.what());
      }
    }
  return out;
}

} // namespace

TEST(Statistics, EveryImplementationDocumentsItsStatistics) {
  std::vector<std::string> skipped, bad;
  const std::vector<UnitDescription> all = described(skipped);
  ASSERT_GT(all.size(), 20u);
  for (const UnitDescription& d : all)
    for (const UnitDescription::Group& g : d.groups) {
      const std::string kind = g.name.empty() ? d.slot : g.name;
      const bool fixed = energy_fixed_kind(kind);
      for (const Stat& s : g.stats) {
        const std::string at = d.slot + "/" + d.impl + " " + kind + "." + s.name;
        if (s.description.empty()) bad.push_back(at + ": no description");
        if (s.unit.empty()) bad.push_back(at + ": no unit");
        std::vector<std::pair<EnergyRole, std::string>> roles;
        if (s.energy.role != EnergyRole::Undeclared)
          roles.emplace_back(s.energy.role, s.energy.why);
        for (const LabelEnergy& l : s.energy.labels) roles.emplace_back(l.role, l.why);
        if (roles.empty()) bad.push_back(at + ": no energy role");
        if (!s.energy.labels.empty() && s.energy.labels.size() != s.labels.size())
          bad.push_back(at + ": an energy role for some labels only");
        for (auto& [role, why] : roles) {
          if (why.empty()) bad.push_back(at + ": energy role without a why");
          if ((role == EnergyRole::Priced || role == EnergyRole::Leakage) && !fixed)
            bad.push_back(at + ": priced by a fixed entry, but '" + kind +
                          "' is no kind the fixed entries price (an added structure's events "
                          "are energy::structure)");
          if (role == EnergyRole::Structure && fixed)
            bad.push_back(at + ": a structure event in fixed kind '" + kind + "'");
        }
      }
      for (const Formula& f : g.formulas)
        if (f.description.empty() || f.unit.empty())
          bad.push_back(d.slot + "/" + d.impl + " " + kind + "." + f.name +
                        ": formula without a unit or description");
      for (const Distribution& x : g.distributions)
        if (x.description.empty() || x.unit.empty())
          bad.push_back(d.slot + "/" + d.impl + " " + kind + "." + x.name +
                        ": distribution without a unit or description");
    }
  std::string m;
  for (const std::string& b : bad) m += "\n  " + b;
  EXPECT_TRUE(bad.empty()) << m;
  for (const std::string& s : skipped) std::cout << "not built alone: " << s << "\n";
}

// The walk sees the distributions too (they are checked above like every statistic): each
// unit that samples one declares it, whatever platform runs it.
TEST(Statistics, TheWalkSeesTheDistributions) {
  std::vector<std::string> skipped, found;
  for (const UnitDescription& d : described(skipped))
    for (const UnitDescription::Group& g : d.groups)
      for (const Distribution& x : g.distributions) found.push_back(d.impl + "." + x.name);
  for (const char* want :
       {"ocu.collection_latency", "ccu.reuse_distance", "ccu.residency", "cache.reuse_distance",
        "cache.residency", "write_first.read_queue_depth", "fixed_window.collection_latency"})
    EXPECT_NE(std::find(found.begin(), found.end(), want), found.end()) << want;
}

TEST(Statistics, TheIdentitiesReadOnlyDeclaredStatistics) {
  std::vector<std::string> skipped, bad;
  for (const UnitDescription& d : described(skipped)) {
    // A run of this implementation alone: what the identities read of its kind, it declares.
    try {
      check_identities(described_stats_json(d), EventCounts{}, 4);
    } catch (const UnknownStatistic& e) {
      bad.push_back(d.slot + "/" + d.impl + ": " + e.what());
    }
  }
  std::string m;
  for (const std::string& b : bad) m += "\n  " + b;
  EXPECT_TRUE(bad.empty()) << m;
}
