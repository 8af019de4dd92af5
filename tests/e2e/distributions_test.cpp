// The distributions the units sample (docs/statistics.md, "Distributions"), on hand-built warp
// programs whose values can be worked out by hand: operand-collection latency and the bank
// queue depth a read finds, without and with a forced bank conflict; the RFC's reuse distance
// and residency; Malekeh's CCU reuse distance and residency. One simulation per process.
#include <algorithm>

#include <gtest/gtest.h>

#include "gpurf/platform/stats.h"
#include "tests/support/scripted_sim.h"

using namespace gpurf;
using test::op;

namespace {

// A distribution over every group of kind `kind` (their samples together): count, sum, min,
// max, and every sample value the buckets hold exactly (1-wide linear buckets).
struct Merged {
  uint64_t count = 0, sum = 0, min = UINT64_MAX, max = 0;
  std::vector<uint64_t> exact; // value -> samples (linear(1, n) buckets only)
};
Merged merged(const test::Sim& s, const std::string& kind, const std::string& name) {
  Merged m;
  for (auto& [group, stats] : s.r.stats.items()) {
    if (!group_of_kind(group, kind) || !stats.contains(name)) continue;
    const auto& d = stats[name];
    EXPECT_EQ(d["kind"], "distribution") << group << "." << name;
    m.count += d["count"].get<uint64_t>();
    m.sum += d["sum"].get<uint64_t>();
    if (d["count"] == 0) continue;
    m.min = std::min(m.min, d["min"].get<uint64_t>());
    m.max = std::max(m.max, d["max"].get<uint64_t>());
    for (const auto& b : d["buckets"]["held"])
      if (b[0] == b[1]) {
        const uint64_t v = b[0];
        if (m.exact.size() <= v) m.exact.resize(v + 1);
        m.exact[v] += b[2].get<uint64_t>();
      }
  }
  return m;
}

// The pct-th percentile of m's exact samples (the rank-th smallest, rank = ceil(pct% count)).
uint64_t percentile(const Merged& m, unsigned pct) {
  const uint64_t rank = std::max<uint64_t>(1, (pct * m.count + 99) / 100);
  uint64_t seen = 0;
  for (uint64_t v = 0; v < m.exact.size(); ++v)
    if ((seen += m.exact[v]) >= rank) return v;
  ADD_FAILURE() << "samples beyond the exact buckets";
  return 0;
}

ConfigPtr small() { return parse_config_string(test::kSmallPlatform, "small-platform"); }

// Cycles from a read's request to its operand in the collector: the bank's latency and the
// crossbar's (0 where the platform leaves the crossbar at its default).
uint64_t bank_to_collector(const test::Sim& s) {
  return s.param("bank.latency") +
         (s.has_param("crossbar.latency") ? s.param("crossbar.latency") : 0);
}

// The small platform with two collector ports, so that a collector takes both operands of
// an add in one cycle, and two SP pipes, so that the exit never waits for the add's: the
// only conflicts left are the banks'.
ConfigPtr two_ports() {
  ConfigPtr c = small();
  apply_override(*c, "arbiter.collector_ports=2");
  apply_override(*c, "exec.sp.count=2");
  return c;
}

// One warp, one add and the exit. In the small platform a warp-0 register r lives in bank
// r mod 4: r2 and r3 in two banks, r2 and r6 in one.
std::vector<ScriptOp> add_reading(uint16_t a, uint16_t b) {
  return {op(ScriptOp::Add, {1}, {a, b})};
}

} // namespace

// Conflict-free: both reads find an empty bank queue, and the add is collected in
// 1 (request) + bank latency + crossbar latency cycles after its allocation in the issue
// cycle; the exit, which reads nothing, in 1.
TEST(Distributions, ConflictFreeReadsAllAtTheKnownLatency) {
  test::Sim s(two_ports(), add_reading(2, 3), 1);
  ASSERT_TRUE(s.r.ok) << s.r.error;
  const uint64_t read = 1 + bank_to_collector(s);
  const Merged lat = merged(s, "collector", "collection_latency");
  EXPECT_EQ(lat.count, 2u); // the add and the exit
  EXPECT_EQ(lat.max, read);
  EXPECT_EQ(lat.min, 1u);
  for (unsigned pc = 0; pc < 2; ++pc) // what the front-end saw: issue to dispatch
    EXPECT_EQ(s.at(0, pc).dispatch - s.at(0, pc).issue, pc ? 1u : read) << "pc " << pc;
  const Merged q = merged(s, "arbiter", "read_queue_depth");
  EXPECT_EQ(q.count, 2u);
  EXPECT_EQ(q.max, 0u);
}

// r2 and r6 share a bank: the second read waits behind the first (depth 1) and the add's
// collection takes one cycle more, which moves the latency's p99 (the add's) by one.
TEST(Distributions, ForcedBankConflictShiftsLatencyAndDepth) {
  test::Sim conflict(two_ports(), add_reading(2, 6), 1);
  ASSERT_TRUE(conflict.r.ok) << conflict.r.error;
  const Merged b = merged(conflict, "collector", "collection_latency");
  const uint64_t read = 1 + bank_to_collector(conflict);
  EXPECT_EQ(b.count, 2u);
  EXPECT_EQ(percentile(b, 99), read + 1); // conflict-free: read (the test above)
  EXPECT_EQ(percentile(b, 50), 1u);       // the exit
  const Merged q = merged(conflict, "arbiter", "read_queue_depth");
  EXPECT_EQ(q.count, 2u);
  EXPECT_EQ(q.sum, 1u); // 0, then 1
  EXPECT_EQ(q.max, 1u);
  // The platform's own conflict counter agrees: one read waited one cycle.
  EXPECT_EQ(conflict.stat("sm.sub0.arbiter", "conflicts", 0), 1u);
}

namespace {

// Gebhart's RFC on the small platform: every result is allocated in the warp's set.
ConfigPtr with_rfc() {
  ConfigPtr c = small();
  apply_override(*c, "rfc.impl=cache");
  return c;
}

} // namespace

// Reuse distance: r1, written into the RFC in cycle W, is read by its dependent add, which
// issues in W (the write's grant releases it), requests r1 in W + 1 and reads it past the
// tag check in W + 1 + tag_latency.
TEST(Distributions, RfcReuseDistance) {
  test::Sim s(with_rfc(), {op(ScriptOp::Mov, {1}, {}, 5), op(ScriptOp::Add, {3}, {1}, 1)}, 1);
  ASSERT_TRUE(s.r.ok) << s.r.error;
  const std::string rfc = "sm.sub0.rfc";
  const auto& reuse = s.r.stats[rfc]["reuse_distance"];
  ASSERT_EQ(s.stat(rfc, "reads"), 1u); // the one hit
  EXPECT_EQ(reuse["count"], 1);
  EXPECT_EQ(reuse["min"], 1 + s.param("rfc.tag_latency"));
  EXPECT_EQ(reuse["max"], 1 + s.param("rfc.tag_latency"));
}

// Residency: with one entry, r2's allocation evicts r1 one cycle after r1's (the two movs
// retire in consecutive cycles); r2 is still in the RFC at the end (the scripted front-end
// frees no slot), so it is not sampled.
TEST(Distributions, RfcResidency) {
  const std::string rfc = "sm.sub0.rfc";
  test::Sim e(with_rfc(), {op(ScriptOp::Mov, {1}, {}, 5), op(ScriptOp::Mov, {2}, {}, 6)}, 1,
              {"rfc.entries=1"});
  ASSERT_TRUE(e.r.ok) << e.r.error;
  const auto& res = e.r.stats[rfc]["residency"];
  ASSERT_EQ(e.stat(rfc, "writes"), 2u);
  EXPECT_EQ(res["count"], 1);
  EXPECT_EQ(res["min"], e.at(0, 1).retire - e.at(0, 0).retire); // r1, evicted by r2
  EXPECT_EQ(e.at(0, 1).retire - e.at(0, 0).retire, 1u);
}

namespace {

// One of Malekeh's caching collectors on the small platform (its arbiter, no RFC): every
// instruction of the warp goes through its table.
ConfigPtr with_ccus(unsigned entries) {
  ConfigPtr c = small();
  apply_override(*c, "collector.impl=ccu");
  apply_override(*c, "collector.count=1");
  apply_override(*c, "collector.entries=" + std::to_string(entries));
  apply_override(*c, "arbiter.impl=malekeh");
  return c;
}

} // namespace

// Two adds of one warp read r2 and r3: the first misses and fills them, the second finds both
// in the table. Each hit's reuse distance is the cycles between the two allocations, the two
// issue cycles. With two entries, a third add reading r5 and r6 replaces both: their
// residency ran from the first add's allocation to the third's (r5 and r6, still in the
// table at the end, are not sampled).
TEST(Distributions, CcuReuseDistanceAndResidency) {
  test::Sim s(with_ccus(2),
              {op(ScriptOp::Add, {1}, {2, 3}), op(ScriptOp::Add, {4}, {2, 3}),
               op(ScriptOp::Add, {7}, {5, 6})},
              1);
  ASSERT_TRUE(s.r.ok) << s.r.error;
  const Merged reuse = merged(s, "collector", "reuse_distance");
  uint64_t hits = 0;
  for (auto& [group, stats] : s.r.stats.items())
    if (group_of_kind(group, "collector")) hits += stats["ccu_hits"]["value"].get<uint64_t>();
  ASSERT_EQ(hits, 2u);
  EXPECT_EQ(reuse.count, 2u);
  EXPECT_EQ(reuse.min, s.at(0, 1).issue - s.at(0, 0).issue);
  EXPECT_EQ(reuse.max, s.at(0, 1).issue - s.at(0, 0).issue);
  const Merged res = merged(s, "collector", "residency");
  EXPECT_EQ(res.count, 2u);
  EXPECT_EQ(res.min, s.at(0, 2).issue - s.at(0, 0).issue);
  EXPECT_EQ(res.max, s.at(0, 2).issue - s.at(0, 0).issue);
}
