// Conservation identities over a statistics JSON and the checker's event counts (plain C++).
#include <gtest/gtest.h>

#include "gpurf/platform/check/identities.h"
#include "gpurf/platform/stats.h"

using namespace gpurf;
using nlohmann::ordered_json;

namespace {

ordered_json v(double x) { return {{"value", x}}; }

// A consistent two-bank run: 10 instructions, 12 bank reads of 4 slices, 8 results.
ordered_json stats() {
  ordered_json s;
  s["sm"] = {{"cycles", v(30)}, {"warp_instructions", v(10)}};
  s["sm.sub0.scheduler0"] = {
      {"issued", v(10)}, {"active_cycles", v(10)}, {"stall_cycles", {{"total", 20}}}};
  s["sm.sub0.collector0"] = {{"dispatched", v(6)}, {"oc_writes", v(7)}};
  s["sm.sub0.collector1"] = {{"dispatched", v(4)}, {"oc_writes", v(5)}};
  s["sm.sub0.writeback"] = {{"retired", v(10)}, {"register_writes", v(8)}};
  s["sm.sub0.arbiter"] = {
      {"reads_granted", v(12)}, {"writes_granted", v(8)}, {"bank_accesses", v(19)}};
  s["sm.sub0.bank0"] = {
      {"reads", v(5)}, {"writes", v(3)}, {"slice_reads", v(20)}, {"slice_writes", v(12)}};
  s["sm.sub0.bank1"] = {
      {"reads", v(7)}, {"writes", v(5)}, {"slice_reads", v(28)}, {"slice_writes", v(20)}};
  s["sm.sub0.crossbar"] = {{"transfers", v(12)}, {"bytes", v(12 * 128)}};
  s["sm.sub0.lsu"] = {{"segments", v(3)}};
  s["sm.l1"] = {{"reads", v(3)},
                {"line_reads", v(4)}, // one request covered two lines
                {"hits", v(1)},
                {"misses", v(2)},
                {"mshr_merges", v(1)},
                {"bytes_from_memory", v(256)},
                {"bytes_to_memory", v(64)}};
  s["memory"] = {{"bytes_read", v(256)}, {"bytes_written", v(64)}};
  return s;
}

EventCounts events() {
  EventCounts e;
  e.issued = e.dispatched = e.retired = 10;
  e.bank_reads = 12;
  e.bank_slice_reads = 48;
  e.bank_writes = 8;
  e.bank_slice_writes = 32;
  e.arrivals = 12;
  e.arch_writes = 8;
  e.bank_port_cycles = 19; // one read and one write shared a cycle (disjoint slices)
  return e;
}

} // namespace

TEST(Identities, ConsistentRunHolds) {
  EXPECT_EQ(check_identities(stats(), events(), 4), std::vector<std::string>{});
}

TEST(Identities, SumStatAddsEveryGroupOfAKind) {
  EXPECT_EQ(sum_stat(stats(), "bank", "reads"), 12);
  EXPECT_EQ(sum_stat(stats(), "collector", "dispatched"), 10);
  EXPECT_EQ(sum_stat(stats(), "bank", "absent"), 0);
  EXPECT_TRUE(has_kind(stats(), "crossbar"));
  EXPECT_FALSE(has_kind(stats(), "rfc"));
}

// Each fault the identities exist for: a counter counted twice or never.
TEST(Identities, EachBrokenCounterIsNamed) {
  struct Fault {
    const char* group;
    const char* stat;
    double value;
    const char* identity;
  };
  for (const Fault& f : {Fault{"sm.sub0.crossbar", "bytes", 2 * 12 * 128, "crossbar bytes"},
                         Fault{"sm.sub0.bank1", "reads", 6, "bank reads"},
                         Fault{"sm.sub0.collector1", "oc_writes", 0, "operands into collectors"},
                         Fault{"sm.l1", "hits", 0, "L1 line reads"},
                         Fault{"sm.sub0.bank0", "slice_writes", 13, "slices activated by writes"},
                         Fault{"sm.sub0.writeback", "retired", 9, "issued = dispatched"},
                         Fault{"sm.sub0.scheduler0", "active_cycles", 9, "issued or stalled"},
                         Fault{"sm.sub0.arbiter", "bank_accesses", 38, "physical bank accesses"},
                         Fault{"sm.sub0.lsu", "segments", 4, "LSU segments"},
                         Fault{"sm.l1", "bytes_from_memory", 128, "memory bytes read"},
                         Fault{"sm.l1", "bytes_to_memory", 0, "memory bytes written"}}) {
    ordered_json s = stats();
    s[f.group][f.stat] = v(f.value);
    const auto bad = check_identities(s, events(), 4);
    ASSERT_EQ(bad.size(), 1u) << f.group << "." << f.stat;
    EXPECT_NE(bad[0].find(f.identity), std::string::npos) << bad[0];
    EXPECT_NE(bad[0].find(f.stat), std::string::npos) << bad[0];
  }
}

TEST(Identities, RfcStorageIsAccountedFor) {
  ordered_json s = stats();
  EventCounts e = events();
  // 3 of the 12 operands hit in the RFC; 5 results allocated there, 3 bypassed; 2 write-backs.
  e.bank_reads = 9;
  e.bank_slice_reads = 36;
  e.rfc_reads = 3;
  e.rfc_writes = 5;
  e.bank_writes = 5;
  e.bank_copy_writes = 2;
  e.bank_slice_writes = 20;
  s["sm.sub0.arbiter"] = {
      {"reads_granted", v(9)}, {"writes_granted", v(5)}, {"bank_accesses", v(19)}};
  s["sm.sub0.bank0"] = {
      {"reads", v(9)}, {"writes", v(5)}, {"slice_reads", v(36)}, {"slice_writes", v(20)}};
  s.erase("sm.sub0.bank1");
  s["sm.sub0.crossbar"] = {{"transfers", v(9)}, {"bytes", v(9 * 128)}};
  s["sm.sub0.rfc"] = {{"reads", v(3)},      {"misses", v(9)},
                      {"results", v(8)},    {"bypass", {{"total", 3}}},
                      {"mrf_writes", v(5)}, {"writebacks", v(2)}};
  EXPECT_EQ(check_identities(s, e, 4), std::vector<std::string>{});
  s["sm.sub0.rfc"]["reads"] = v(2); // a hit counter that missed one
  EXPECT_FALSE(check_identities(s, e, 4).empty());
}

// An L2 takes the L1's misses, write-throughs and atomics, and is the memory's initiator.
TEST(Identities, L2IsAccountedFor) {
  ordered_json s = stats();
  s["sm.l1"]["writes"] = v(1);
  s["sm.sub0.lsu"]["segments"] = v(4);
  s["l2"] = {{"reads", v(2)},          {"writes", v(1)},     {"atomics", v(0)},
             {"line_reads", v(2)},     {"hits", v(1)},       {"misses", v(1)},
             {"mshr_merges", v(0)},    {"writebacks", v(0)}, {"bytes_from_memory", v(128)},
             {"bytes_to_memory", v(0)}};
  s["memory"] = {{"bytes_read", v(128)}, {"bytes_written", v(0)}};
  EXPECT_EQ(check_identities(s, events(), 4), std::vector<std::string>{});
  for (const char* stat : {"reads", "hits", "bytes_from_memory"}) {
    ordered_json b = s;
    b["l2"][stat] = v(7);
    const auto bad = check_identities(b, events(), 4);
    ASSERT_FALSE(bad.empty()) << stat;
    EXPECT_NE(bad[0].find(std::string("l2.")), std::string::npos) << bad[0];
  }
}

// Per scheduler, not summed: one scheduler a cycle over and another a cycle under is caught.
TEST(Identities, EverySchedulerAccountsForEveryCycle) {
  ordered_json s = stats();
  s["sm.sub0.scheduler1"] = {
      {"issued", v(0)}, {"active_cycles", v(0)}, {"stall_cycles", {{"total", 30}}}};
  EXPECT_EQ(check_identities(s, events(), 4), std::vector<std::string>{});
  s["sm.sub0.scheduler0"]["active_cycles"] = v(11);
  s["sm.sub0.scheduler1"]["stall_cycles"] = {{"total", 29}};
  EXPECT_EQ(check_identities(s, events(), 4).size(), 2u); // one line per scheduler
}

// A split-crossbar counter that exists is checked even when it stayed 0.
TEST(Identities, AnExistingCounterLeftAtZeroIsCaught) {
  ordered_json s = stats();
  s["sm.sub0.crossbar"]["slice_transfers"] = {{"total", 0}};
  const auto bad = check_identities(s, events(), 4);
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_NE(bad[0].find("slice_transfers"), std::string::npos) << bad[0];
}
