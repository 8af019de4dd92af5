// Conservation identities over a statistics JSON and the checker's event counts (plain C++).
#include <algorithm>

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
  s["sm.sub0.collector0"] = {{"dispatched", v(6)}, {"oc_writes", v(7)}, {"reads_requested", v(7)}};
  s["sm.sub0.collector1"] = {{"dispatched", v(4)}, {"oc_writes", v(5)}, {"reads_requested", v(5)}};
  s["sm.sub0.writeback"] = {{"retired", v(10)}, {"register_writes", v(8)}};
  s["sm.sub0.arbiter"] = {{"reads_granted", v(12)},
                          {"writes_granted", v(8)},
                          {"bank_accesses", v(19)},
                          {"verify_reads_granted", v(0)}};
  s["sm.sub0.bank0"] = {
      {"reads", v(5)}, {"writes", v(3)}, {"slice_reads", v(20)}, {"slice_writes", v(12)}};
  s["sm.sub0.bank1"] = {
      {"reads", v(7)}, {"writes", v(5)}, {"slice_reads", v(28)}, {"slice_writes", v(20)}};
  s["sm.sub0.crossbar"] = {{"transfers", v(12)}, {"bytes", v(12 * 128)}};
  s["sm.sub0.lsu"] = {{"segments", v(3)},
                      {"instructions", {{"values", {0, 0, 0, 0, 0, 0}}, {"total", 0}}},
                      {"completed", v(0)}};
  s["sm.l1"] = {{"reads", v(3)},
                {"writes", v(0)},
                {"atomics", v(0)},
                {"line_reads", v(4)}, // one request covered two lines
                {"hits", v(1)},
                {"misses", v(2)},
                {"mshr_merges", v(1)},
                {"bytes_from_memory", v(256)},
                {"bytes_to_memory", v(64)}};
  s["memory"] = {{"bytes_read", v(256)}, {"bytes_written", v(64)}, {"writes", v(0)}};
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
    // One identity, or two where the counter is in both (oc_writes: arrivals, requests).
    ASSERT_GE(bad.size(), 1u) << f.group << "." << f.stat;
    ASSERT_LE(bad.size(), 2u) << f.group << "." << f.stat;
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
  s["sm.sub0.arbiter"] = {{"reads_granted", v(9)},
                          {"writes_granted", v(5)},
                          {"bank_accesses", v(19)},
                          {"verify_reads_granted", v(0)}};
  s["sm.sub0.bank0"] = {
      {"reads", v(9)}, {"writes", v(5)}, {"slice_reads", v(36)}, {"slice_writes", v(20)}};
  s.erase("sm.sub0.bank1");
  s["sm.sub0.crossbar"] = {{"transfers", v(9)}, {"bytes", v(9 * 128)}};
  s["sm.sub0.rfc"] = {{"reads", v(3)},     {"writes", v(5)},           {"misses", v(9)},
                      {"results", v(8)},   {"bypass", {{"total", 3}}}, {"mrf_writes", v(5)},
                      {"writebacks", v(2)}};
  EXPECT_EQ(check_identities(s, e, 4), std::vector<std::string>{});
  ordered_json b = s;
  b["sm.sub0.rfc"]["reads"] = v(2); // a hit counter that missed one
  EXPECT_FALSE(check_identities(b, e, 4).empty());
  // Issue 38: the write counter never incremented (sgemm: 35,968 -> 0) went unnoticed.
  b = s;
  b["sm.sub0.rfc"]["writes"] = v(0);
  const auto bad = check_identities(b, e, 4);
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_NE(bad[0].find("rfc.writes = 0"), std::string::npos) << bad[0];
  // allocate_sources: MRF operands copied in are RFC writes too.
  e.rfc_fills = 2;
  EXPECT_FALSE(check_identities(s, e, 4).empty());
  s["sm.sub0.rfc"]["writes"] = v(7);
  EXPECT_EQ(check_identities(s, e, 4), std::vector<std::string>{});
}

// The identities added for issue 38, each over a consistent run and then with one counter
// wrong: execution per pipe and memory space, allocations, the two-level active set, the
// interconnect, the memory's writes, the collectors' requests, the GPU's sums.
TEST(Identities, EveryCounterWatchedIdentitiesFail) {
  ordered_json s = stats();
  EventCounts e = events();
  auto vec = [](std::vector<double> x) {
    double t = 0;
    for (double d : x) t += d;
    return ordered_json{{"values", x}, {"total", t}};
  };
  // 10 instructions: 6 SP, 1 SFU, 3 MEM (2 global, 1 shared).
  s["sm.sub0.exec"] = {{"instructions", vec({6, 0, 0, 1, 0, 0})},
                       {"class_instructions", vec({3, 4})}};
  s["sm.sub0.lsu"]["instructions"] = vec({0, 2, 1, 0, 0, 0});
  s["sm.sub0.lsu"]["completed"] = v(3);
  e.by_pipe = {6, 0, 0, 1, 3, 0};
  e.mem_by_space = {0, 2, 1, 0, 0, 0};
  s["sm.sub0.allocator"] = {{"allocations", v(10)}};
  e.allocations = 10;
  // A two-level scheduler and a power-gated bank: their blocks are gated on the impl.
  s["sm.sub0.scheduler0"]["_unit"] = {{"slot", "scheduler"}, {"impl", "two_level"}};
  s["sm.sub0.scheduler0"]["cycles_by_state"] = {{"total", 30}};
  s["sm.sub0.bank0"]["_unit"] = {{"slot", "bank"}, {"impl", "power_gated"}};
  s["sm.sub0.scheduler0"]["activations"] = v(4);
  s["sm.sub0.scheduler0"]["deactivations"] = v(3);
  e.activations = 4;
  e.deactivations = 3;
  s["sm.l1"]["writes"] = v(1);
  s["sm.l1"]["atomics"] = v(0);
  s["sm.sub0.lsu"]["segments"] = v(4);
  s["interconnect"] = {{"requests", vec({3})}, {"bytes", vec({320})}};
  s["l2"] = {{"reads", v(2)},
             {"writes", v(1)},
             {"atomics", v(0)},
             {"line_reads", v(2)},
             {"hits", v(1)},
             {"misses", v(1)},
             {"mshr_merges", v(0)},
             {"writebacks", v(1)},
             {"write_throughs", v(0)},
             {"bytes_from_memory", v(128)},
             {"bytes_to_memory", v(128)}};
  s["memory"] = {{"bytes_read", v(128)}, {"bytes_written", v(128)}, {"writes", v(1)}};
  s["sm.sub0.collector0"]["reads_requested"] = v(7);
  s["sm.sub0.collector0"]["operands_checked"] = v(7);
  s["sm.sub0.collector1"]["reads_requested"] = v(5);
  s["sm.sub0.collector1"]["operands_checked"] = v(5);
  s["gpu"] = {{"cycles", v(30)}, {"warp_instructions", v(10)}};
  s["sm.sub0.bank0"]["wakeups"] = v(2);
  e.wakeups = 2;
  e.gating = 1;
  ASSERT_EQ(check_identities(s, e, 4), std::vector<std::string>{});
  struct Fault {
    const char* group;
    const char* stat;
    ordered_json value;
    const char* identity;
  };
  for (const Fault& f :
       {Fault{"sm.sub0.exec", "instructions", vec({6, 0, 0, 0, 0, 0}), "pipe sfu"},
        Fault{"sm.sub0.exec", "class_instructions", vec({3, 3}), "latency class"},
        Fault{"sm.sub0.lsu", "instructions", vec({0, 3, 0, 0, 0, 0}), "space global"},
        Fault{"sm.sub0.lsu", "completed", v(2), "LSU instructions = completed"},
        Fault{"sm.sub0.allocator", "allocations", v(9), "collector allocations"},
        Fault{"sm.sub0.scheduler0", "activations", v(3), "two-level: activations"},
        Fault{"sm.sub0.scheduler0", "deactivations", v(4), "two-level: deactivations"},
        Fault{"interconnect", "requests", vec({4}), "interconnect requests"},
        Fault{"interconnect", "bytes", vec({256}), "interconnect bytes"},
        Fault{"l2", "writebacks", v(0), "memory writes"},
        Fault{"sm.sub0.collector1", "reads_requested", v(4), "operands requested"},
        Fault{"gpu", "cycles", v(31), "GPU cycles"},
        Fault{"sm.sub0.bank0", "wakeups", v(1), "slices woken"},
        Fault{"gpu", "warp_instructions", v(9), "GPU warp instructions"}}) {
    ordered_json b = s;
    b[f.group][f.stat] = f.value;
    const auto bad = check_identities(b, e, 4);
    ASSERT_FALSE(bad.empty()) << f.group << "." << f.stat;
    bool named = false;
    for (const std::string& x : bad) named |= x.find(f.identity) != std::string::npos;
    EXPECT_TRUE(named) << f.group << "." << f.stat << ": " << bad[0];
  }
}

// What the identities read is recorded by their own lookups (the e2e test holds every
// statistic of a run to it, or to its declaration as unwatched).
TEST(Identities, ReadsAreRecorded) {
  check_identities(stats(), events(), 4);
  const auto reads = identity_reads();
  for (const auto& k : {std::pair<std::string, std::string>{"bank", "slice_reads"},
                        {"sm", "cycles"},
                        {"scheduler", "active_cycles"},
                        {"l1", "mshr_merges"}})
    EXPECT_TRUE(reads.count(k)) << k.first << "." << k.second;
}

// The blocks register themselves from the units' folders (GPURF_IDENTITIES): the ungated
// ones run first, then those of a unit kind, then those of an implementation.
TEST(Identities, EveryUnitRegistersItsBlocks) {
  const std::vector<std::string> n = identity_block_names();
  auto at = [&](const char* name) {
    return size_t(std::find(n.begin(), n.end(), name) - n.begin());
  };
  for (const char* b : {"sm",
                        "gpu",
                        "interconnect",
                        "scheduler_cycles",
                        "two_level",
                        "arbiter",
                        "bank_slices",
                        "power_gated",
                        "crossbar_bytes",
                        "split_crossbar",
                        "collector_operands",
                        "collector_requests",
                        "reg64_halves",
                        "malekeh",
                        "fixed_stage",
                        "modern_core",
                        "cmrc_collector",
                        "cmrc_writeback",
                        "warped_compression",
                        "wir",
                        "wir_rename",
                        "wir_verify_cache",
                        "wir_reuse",
                        "l1",
                        "l2",
                        "memory",
                        "rfc",
                        "exec",
                        "lsu",
                        "allocator"})
    EXPECT_LT(at(b), n.size()) << b << " is not registered";
  EXPECT_EQ(n.size(), 30u);
  EXPECT_LT(at("sm"), at("rfc"));      // ungated before a kind
  EXPECT_LT(at("rfc"), at("malekeh")); // a kind before an implementation
}

// An L2 takes the L1's misses, write-throughs and atomics, and is the memory's initiator.
TEST(Identities, L2IsAccountedFor) {
  ordered_json s = stats();
  s["sm.l1"]["writes"] = v(1);
  s["sm.sub0.lsu"]["segments"] = v(4);
  s["l2"] = {{"reads", v(2)},           {"writes", v(1)},        {"atomics", v(0)},
             {"line_reads", v(2)},      {"hits", v(1)},          {"misses", v(1)},
             {"mshr_merges", v(0)},     {"writebacks", v(0)},    {"bytes_from_memory", v(128)},
             {"bytes_to_memory", v(0)}, {"write_throughs", v(0)}};
  s["memory"] = {{"bytes_read", v(128)}, {"bytes_written", v(0)}, {"writes", v(0)}};
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

// A split crossbar's counter is checked even when it stayed 0.
TEST(Identities, AnExistingCounterLeftAtZeroIsCaught) {
  ordered_json s = stats();
  s["sm.sub0.crossbar"]["_unit"] = {{"slot", "crossbar"}, {"impl", "split"}};
  s["sm.sub0.crossbar"]["slice_transfers"] = {{"total", 0}};
  const auto bad = check_identities(s, events(), 4);
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_NE(bad[0].find("slice_transfers"), std::string::npos) << bad[0];
}

// A renamed counter (rfc `writes` -> `stores`) whose identity was not renamed with it stops
// the check; before, it summed to 0 (and a block gated on a statistic was skipped).
TEST(Identities, AStatisticNoGroupDeclaresThrows) {
  ordered_json s = stats();
  s["sm.sub0.rfc"] = {{"reads", v(0)},     {"stores", v(0)}, {"misses", v(12)},
                      {"results", v(8)},   {"bypass", v(8)}, {"mrf_writes", v(8)},
                      {"writebacks", v(0)}};
  try {
    check_identities(s, events(), 4);
    FAIL() << "expected UnknownStatistic";
  } catch (const UnknownStatistic& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("read statistic 'writes' of sm.sub0.rfc"), std::string::npos) << m;
    EXPECT_NE(m.find("stores"), std::string::npos) << m;
    EXPECT_NE(m.find("identities rfc (modules/rfc/rfc_identities.cpp)"), std::string::npos) << m;
  }
  // A design's block runs when its unit is there, not when its statistic is: a CMRC collector
  // without its width counter is an error, not a skipped identity.
  s = stats();
  s["sm.sub0.collector0"]["_unit"] = {{"slot", "collector"}, {"impl", "cmrc"}};
  EXPECT_THROW(check_identities(s, events(), 4), UnknownStatistic);
}
