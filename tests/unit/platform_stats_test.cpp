// Unit tests of platform/stats: registration, JSON shape and ordering, sum_stat.
#include <algorithm>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "gpurf/platform/stats.h"

using namespace gpurf;

TEST(PlatformStats, GroupsRegisterAndUnregister) {
  size_t before = all_stat_groups().size();
  {
    StatGroup a("sm.a");
    auto b = std::make_unique<StatGroup>("sm.b");
    ASSERT_EQ(all_stat_groups().size(), before + 2);
    EXPECT_EQ(all_stat_groups()[before], &a);
    EXPECT_EQ(all_stat_groups()[before + 1], b.get());
    b.reset();
    ASSERT_EQ(all_stat_groups().size(), before + 1);
    EXPECT_EQ(all_stat_groups().back(), &a);
  }
  EXPECT_EQ(all_stat_groups().size(), before);
}

TEST(PlatformStats, JsonShapeAndOrder) {
  StatGroup z("sm.zeta");
  StatGroup a("sm.alpha");
  uint64_t& reads = z.scalar("reads", "register reads", "accesses");
  Stat& per = z.vector("per_port", 3, "reads per port", "accesses", {"p0", "p1", "p2"});
  Stat& nolabel = z.vector("one", 1, "single-element vector", "events");
  z.formula("util", "utilisation", "ratio", [&] { return reads / 10.0; });
  uint64_t& writes = a.scalar("writes", "register writes", "accesses");
  reads = 5;
  per[0] = 1;
  per[2] = 4;
  nolabel[0] = 7;
  writes = 2;

  nlohmann::ordered_json j = dump_stats_json();
  // Groups in creation order, stats in declaration order (not alphabetical).
  std::vector<std::string> groups;
  for (auto& [k, v] : j.items()) groups.push_back(k);
  ASSERT_GE(groups.size(), 2u);
  auto zi = std::find(groups.begin(), groups.end(), "sm.zeta");
  auto ai = std::find(groups.begin(), groups.end(), "sm.alpha");
  ASSERT_NE(zi, groups.end());
  ASSERT_NE(ai, groups.end());
  EXPECT_LT(zi, ai);
  std::vector<std::string> names;
  for (auto& [k, v] : j["sm.zeta"].items()) names.push_back(k);
  EXPECT_EQ(names, (std::vector<std::string>{"reads", "per_port", "one", "util"}));

  const auto& r = j["sm.zeta"]["reads"];
  EXPECT_EQ(r["value"], 5);
  EXPECT_EQ(r["unit"], "accesses");
  EXPECT_EQ(r["desc"], "register reads");
  EXPECT_FALSE(r.contains("values"));
  const auto& v = j["sm.zeta"]["per_port"];
  EXPECT_EQ(v["values"], nlohmann::ordered_json::array({1, 0, 4}));
  EXPECT_EQ(v["labels"], nlohmann::ordered_json::array({"p0", "p1", "p2"}));
  EXPECT_EQ(v["total"], 5);
  EXPECT_FALSE(v.contains("value"));
  const auto& one = j["sm.zeta"]["one"];
  EXPECT_EQ(one["values"], nlohmann::ordered_json::array({7}));
  EXPECT_FALSE(one.contains("labels"));
  EXPECT_EQ(one["total"], 7);
  EXPECT_DOUBLE_EQ(j["sm.zeta"]["util"]["value"].get<double>(), 0.5);
  EXPECT_EQ(j["sm.zeta"]["util"]["unit"], "ratio");
  EXPECT_EQ(j["sm.alpha"]["writes"]["value"], 2);

  nlohmann::ordered_json bare = dump_stats_json(false);
  EXPECT_FALSE(bare["sm.zeta"]["reads"].contains("unit"));
  EXPECT_FALSE(bare["sm.zeta"]["reads"].contains("desc"));
  EXPECT_EQ(bare["sm.zeta"]["reads"]["value"], 5);
  // Converts to plain json for callers that want it.
  nlohmann::json plain = dump_stats_json();
  EXPECT_EQ(plain["sm.zeta"]["per_port"]["total"], 5);
}

TEST(PlatformStats, SumStatMatchesGroupKind) {
  StatGroup b0("sm.sub0.bank0"), b1("sm.sub0.bank1"), b12("sm.sub1.bank12"), top("bank");
  StatGroup other("sm.sub0.banker3"), col("sm.sub0.collector0"), nested("sm.bank0.port");
  b0.scalar("reads", "r", "") = 3;
  b1.scalar("reads", "r", "") = 4;
  Stat& v = b12.vector("reads", 2, "r", "");
  v[0] = 10;
  v[1] = 20;
  top.scalar("reads", "r", "") = 100;
  other.scalar("reads", "r", "") = 1000;
  col.scalar("reads", "r", "") = 10000;
  nested.scalar("reads", "r", "") = 100000;
  b0.scalar("writes", "w", "") = 5;
  EXPECT_EQ(sum_stat("bank", "reads"), 3u + 4 + 30 + 100);
  EXPECT_EQ(sum_stat("bank", "writes"), 5u);
  EXPECT_EQ(sum_stat("collector", "reads"), 10000u);
  EXPECT_EQ(sum_stat("bank", "nonexistent"), 0u);
  EXPECT_EQ(sum_stat("port", "reads"), 100000u);
}

TEST(PlatformStats, DuplicateNameIsABug) {
  StatGroup g("sm.dup");
  g.scalar("x", "", "");
  EXPECT_THROW(g.scalar("x", "", ""), std::logic_error);
  EXPECT_THROW(g.vector("v", 2, "", "", {"only-one"}), std::logic_error);
}

TEST(PlatformStats, EnergyRoleAndOriginAreDumped) {
  const size_t first = all_stat_groups().size();
  StatGroup g("sm.sub0.lsu");
  g.scalar("segments", "coalesced L1 accesses", "accesses", energy::no_event("priced as l1"));
  g.vector("instructions", 2, "by space", "instructions", {"none", "shared"},
           energy::by_label({{"none", EnergyRole::NotEvent, "no access"},
                             {"shared", EnergyRole::Priced, "shared_access_pj_per_warp_access"}}));
  g.scalar("undeclared", "a counter that says nothing", "events");
  set_stat_origin(first, "lsu", "coalescing");
  EXPECT_EQ(g.slot(), "lsu");
  EXPECT_EQ(g.impl(), "coalescing");
  // The role is input to the energy report of a saved run: dumped with or without descriptions.
  for (bool desc : {true, false}) {
    const nlohmann::ordered_json j = dump_stats_json(desc)["sm.sub0.lsu"];
    EXPECT_EQ(j.begin().key(), "_unit");
    EXPECT_EQ(j["_unit"]["impl"], "coalescing");
    EXPECT_EQ(j["_unit"]["slot"], "lsu");
    EXPECT_EQ(j["segments"]["energy"], "not_event");
    EXPECT_EQ(j["instructions"]["energy"]["shared"], "priced");
    EXPECT_EQ(j["instructions"]["energy"]["none"], "not_event");
    EXPECT_FALSE(j["undeclared"].contains("energy"));
  }
  // A group made later by another unit keeps its own origin; one set stays.
  set_stat_origin(first, "bank", "sliced");
  EXPECT_EQ(g.impl(), "coalescing");
  EXPECT_EQ(energy_role_of("not_modelled"), EnergyRole::NotModelled);
  EXPECT_EQ(energy_role_of("nonsense"), EnergyRole::Undeclared);
  // A role for a label the vector does not have is a declaration bug.
  EXPECT_THROW(
      g.vector("x", 1, "x", "x", {"a"}, energy::by_label({{"b", EnergyRole::Priced, "?"}})),
      std::logic_error);
}
