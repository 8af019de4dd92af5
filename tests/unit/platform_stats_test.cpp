// Unit tests of platform/stats: registration, JSON shape and ordering, sum_stat.
#include <algorithm>
#include <memory>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "gpurf/platform/results.h"
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

// Percentiles from buckets, checked by hand: the pct-th percentile is the largest value of the
// bucket holding the ceil(pct% x count)-th smallest sample, at most the exact max.
TEST(PlatformStats, DistributionEmpty) {
  StatGroup g("sm.dist_empty");
  Distribution& d = g.distribution("lat", "latency", "cycles", Buckets::linear(1, 8));
  const auto j = dump_stats_json()["sm.dist_empty"]["lat"];
  EXPECT_EQ(j["kind"], "distribution");
  EXPECT_EQ(j["count"], 0);
  EXPECT_EQ(j["sum"], 0);
  for (const char* k : {"mean", "min", "max", "p50", "p90", "p99"})
    EXPECT_TRUE(j[k].is_null()) << k;
  EXPECT_TRUE(j["buckets"]["held"].empty());
  EXPECT_EQ(j["energy"], "not_event");
  EXPECT_EQ(d.count, 0u);
}

TEST(PlatformStats, DistributionOneSample) {
  StatGroup g("sm.dist_one");
  Distribution& d = g.distribution("lat", "latency", "cycles", Buckets::linear(4, 8));
  d.sample(6); // bucket [4, 7]
  const auto j = dump_stats_json()["sm.dist_one"]["lat"];
  EXPECT_EQ(j["count"], 1);
  EXPECT_DOUBLE_EQ(j["mean"].get<double>(), 6.0);
  EXPECT_EQ(j["min"], 6);
  EXPECT_EQ(j["max"], 6);
  // The bucket's top is 7, but no sample is above the max, 6: every percentile is 6.
  for (const char* k : {"p50", "p90", "p99"}) EXPECT_EQ(j[k], 6) << k;
  EXPECT_EQ(j["buckets"]["held"], nlohmann::ordered_json::parse("[[4, 7, 1]]"));
}

TEST(PlatformStats, DistributionAllInOneBucket) {
  StatGroup g("sm.dist_same");
  Distribution& d = g.distribution("depth", "queue depth", "requests", Buckets::linear(8, 4));
  for (uint64_t v : {9, 10, 12, 15}) d.sample(v); // all in [8, 15]
  d.sample(9);
  EXPECT_EQ(d.count, 5u);
  EXPECT_EQ(d.sum, 55u);
  EXPECT_EQ(d.min, 9u);
  EXPECT_EQ(d.max, 15u);
  // One bucket [8, 15]: every percentile is its top, 15 (an upper bound: the true p50 is 10).
  EXPECT_EQ(d.percentile(50), 15u);
  EXPECT_EQ(d.percentile(99), 15u);
  d.sample(14);
  d.sample(2);                      // bucket [0, 7]: 1 of 7 samples
  EXPECT_EQ(d.percentile(10), 7u);  // rank ceil(0.7) = 1: the [0, 7] bucket's top
  EXPECT_EQ(d.percentile(15), 15u); // rank ceil(1.05) = 2: the [8, 15] bucket
}

TEST(PlatformStats, DistributionExactWithUnitBuckets) {
  StatGroup g("sm.dist_exact");
  Distribution& d = g.distribution("lat", "latency", "cycles", Buckets::linear(1, 16));
  for (uint64_t v = 1; v <= 10; ++v) d.sample(v); // 1..10
  // 1-wide buckets: exact. p50: the 5th smallest = 5; p90: the 9th = 9; p99: ceil(9.9) = 10th.
  EXPECT_EQ(d.percentile(50), 5u);
  EXPECT_EQ(d.percentile(90), 9u);
  EXPECT_EQ(d.percentile(99), 10u);
  EXPECT_EQ(d.percentile(100), 10u);
  EXPECT_EQ(d.percentile(1), 1u);
}

TEST(PlatformStats, DistributionAboveTheLastBucket) {
  StatGroup g("sm.dist_over");
  Distribution& d = g.distribution("lat", "latency", "cycles", Buckets::linear(1, 4));
  for (uint64_t v : {1, 2, 3}) d.sample(v);
  for (uint64_t v : {100, 7}) d.sample(v); // beyond [0, 3]: the last bucket, [4, inf)
  EXPECT_EQ(d.percentile(50), 3u);         // rank 3: exact
  EXPECT_EQ(d.percentile(80), 100u);       // rank 4, in the open bucket: its bound is the max, 100
  EXPECT_EQ(d.percentile(99), 100u);
  const auto j = dump_stats_json()["sm.dist_over"]["lat"];
  EXPECT_EQ(j["buckets"]["held"],
            nlohmann::ordered_json::parse("[[1,1,1],[2,2,1],[3,3,1],[4,null,2]]"));
  EXPECT_EQ(j["max"], 100);
}

TEST(PlatformStats, DistributionLog2Buckets) {
  StatGroup g("sm.dist_log");
  Distribution& d = g.distribution("res", "residency", "cycles", Buckets::log2(5));
  // Buckets {0}, {1}, [2, 3], [4, 7], [8, 15], then [16, inf).
  EXPECT_EQ(d.bucket(0), 0u);
  EXPECT_EQ(d.bucket(1), 1u);
  EXPECT_EQ(d.bucket(3), 2u);
  EXPECT_EQ(d.bucket(4), 3u);
  EXPECT_EQ(d.bucket(15), 4u);
  EXPECT_EQ(d.bucket(16), 5u);
  EXPECT_EQ(d.bucket(UINT64_MAX), 5u);
  for (uint64_t v : {0, 5, 6, 9}) d.sample(v);
  EXPECT_EQ(d.percentile(25), 0u);  // rank 1: {0}
  EXPECT_EQ(d.percentile(50), 7u);  // rank 2: [4, 7]
  EXPECT_EQ(d.percentile(75), 7u);  // rank 3: [4, 7]
  EXPECT_EQ(d.percentile(100), 9u); // rank 4: [8, 15], at most the max 9
}

TEST(PlatformStats, FormulaRatioOfNothingIsNull) {
  StatGroup g("sm.ratio");
  uint64_t& hits = g.scalar("hits", "hits", "lines");
  uint64_t& misses = g.scalar("misses", "misses", "lines");
  g.ratio("hit_rate", "hits / (hits + misses)", "ratio", {"hits"}, {"hits", "misses"});
  auto j = dump_stats_json()["sm.ratio"]["hit_rate"];
  EXPECT_EQ(j["kind"], "formula");
  EXPECT_TRUE(j["value"].is_null()); // 0/0: n/a, neither 0 nor 1
  EXPECT_EQ(j["ratio_of"]["denominator"], nlohmann::ordered_json::parse(R"(["hits","misses"])"));
  hits = 3;
  misses = 1;
  EXPECT_DOUBLE_EQ(dump_stats_json()["sm.ratio"]["hit_rate"]["value"].get<double>(), 0.75);
  misses = 0;
  hits = 0;
  EXPECT_THROW(g.ratio("bad", "of an undeclared counter", "ratio", {"hitz"}, {"hits"}),
               std::logic_error);
}

// Every statistic in the dump carries a kind the results schema lists, with that kind's keys.
TEST(PlatformStats, KindsMatchTheResultsSchema) {
  StatGroup g("sm.kinds");
  g.scalar("c", "a counter", "events");
  g.vector("v", 2, "a vector", "events");
  g.formula("f", "a formula", "ratio", [] { return 0.5; });
  g.distribution("d", "a distribution", "cycles", Buckets::log2(4)).sample(3);
  const nlohmann::json schema = results_schema()["statistic_kinds"];
  std::set<std::string> seen;
  const nlohmann::ordered_json dump = dump_stats_json();
  for (auto& [name, st] : dump["sm.kinds"].items()) {
    const std::string kind = st["kind"];
    seen.insert(kind);
    ASSERT_TRUE(schema.contains(kind)) << name << ": " << kind;
    for (const auto& key : schema[kind]) EXPECT_TRUE(st.contains(key.get<std::string>())) << name;
  }
  EXPECT_EQ(seen, (std::set<std::string>{"counter", "vector", "formula", "distribution"}));
}
