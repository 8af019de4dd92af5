// Instruction-lifecycle trace (Chrome trace-event JSON) and VCD waveforms of a small
// scripted program (one simulation per process).
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "tests/support/scripted_sim.h"

using namespace gpurf;
using nlohmann::json;
using test::op;

namespace {

// Arithmetic with bank conflicts, a load and a store: every stage of every pipe kind used.
std::vector<ScriptOp> program() {
  ScriptOp ld = test::load(5, 0x4000);
  ScriptOp st = op(ScriptOp::Store, {}, {2});
  st.base = 0x8000;
  return {op(ScriptOp::Mov, {0}, {}, 1),
          op(ScriptOp::Mov, {1}, {}, 2),
          op(ScriptOp::Mov, {4}, {}, 3),
          op(ScriptOp::Add, {2}, {1, 4}),
          ld,
          op(ScriptOp::Add, {3}, {2, 5}),
          op(ScriptOp::Add, {6}, {0, 4}),
          st};
}

std::string temp_path(const char* what) {
  return testing::TempDir() + "gpurf_trace_" + std::to_string(getpid()) + "_" + what;
}

struct TracedRun {
  ConfigPtr cfg = parse_config_string(test::kSmallPlatform, "test-platform");
  ScriptedFrontend fe{program(), 4, 16};
  RunResult r;
  explicit TracedRun(const SimOptions& o) {
    Simulation sim(*cfg, fe, fe.regs(), o);
    r = sim.run();
  }
};

json load(const std::string& path) {
  std::ifstream f(path);
  EXPECT_TRUE(f) << path;
  return json::parse(f);
}

// Slices of one track, by name, within [a, b).
std::vector<const json*> children(const json& events, const json& parent) {
  std::vector<const json*> out;
  const uint64_t a = parent["ts"], b = a + parent["dur"].get<uint64_t>();
  for (const json& e : events["traceEvents"])
    if (e["ph"] == "X" && &e != &parent && e["pid"] == parent["pid"] && e["tid"] == parent["tid"] &&
        e["ts"].get<uint64_t>() >= a && e["ts"].get<uint64_t>() + e["dur"].get<uint64_t>() <= b)
      out.push_back(&e);
  return out;
}

} // namespace

TEST(Trace, EveryInstructionIsIssuedDispatchedAndWrittenBackInOrder) {
  SimOptions o;
  o.trace_path = temp_path("full.json");
  TracedRun run(o);
  ASSERT_TRUE(run.r.ok) << run.r.error;
  const json t = load(o.trace_path);
  ASSERT_TRUE(t.contains("displayTimeUnit"));
  unsigned instructions = 0, reads = 0, writes = 0;
  std::map<std::pair<unsigned, unsigned>, unsigned> seen; // (warp, seq) -> count
  for (const json& e : t["traceEvents"]) {
    if (e["ph"] == "i" && e["name"].get<std::string>().rfind("read ", 0) == 0) {
      ++reads;
      EXPECT_EQ(e["args"]["from"].get<std::string>().rfind("bank ", 0), 0u) << e.dump();
    }
    if (e["ph"] == "i" && e["name"].get<std::string>().rfind("write ", 0) == 0) ++writes;
    if (e["ph"] != "X" || e["cat"] != "inst" || !e["args"].contains("seq")) continue;
    ++instructions;
    const json& a = e["args"];
    ++seen[{a["warp"].get<unsigned>(), a["seq"].get<unsigned>()}];
    EXPECT_EQ(e["tid"].get<unsigned>() & 0xffff, a["warp"].get<unsigned>());
    EXPECT_LT(a["issue"].get<uint64_t>(), a["dispatch"].get<uint64_t>()) << e.dump();
    EXPECT_LT(a["dispatch"].get<uint64_t>(), a["complete"].get<uint64_t>()) << e.dump();
    EXPECT_LE(a["complete"].get<uint64_t>(), a["retire"].get<uint64_t>()) << e.dump();
    EXPECT_EQ(e["ts"].get<uint64_t>(), a["issue"].get<uint64_t>());
    // The stage slices nest in the instruction's slice, in lifecycle order.
    std::map<std::string, uint64_t> stage;
    for (const json* c : children(t, e)) {
      std::string n = (*c)["name"];
      if (n.rfind("execute", 0) == 0) n = "execute";
      stage[n] = (*c)["ts"];
    }
    ASSERT_TRUE(stage.count("issue") && stage.count("execute") && stage.count("writeback"))
        << e.dump();
    EXPECT_LT(stage["issue"], stage["execute"]);
    EXPECT_LT(stage["execute"], stage["writeback"]);
    if (stage.count("collect")) {
      EXPECT_LT(stage["issue"], stage["collect"]);
      EXPECT_LT(stage["collect"], stage["execute"]);
    }
  }
  EXPECT_EQ(instructions, run.r.warp_instructions);
  for (auto& [k, n] : seen) EXPECT_EQ(n, 1u) << "warp " << k.first << " seq " << k.second;
  // Each warp: add r1,r4 + add r2,r5 + add r0,r4 + st r2 = 7 source registers read.
  EXPECT_EQ(reads, 4u * 7);
  EXPECT_EQ(writes, 4u * 7); // mov r0, r1, r4; add r2, r3, r6; ld r5
}

TEST(Trace, OnlyEventsInsideTheWindowAreWritten) {
  SimOptions o;
  o.trace_path = temp_path("window.json");
  o.trace_from = 10;
  o.trace_to = 40;
  TracedRun run(o);
  ASSERT_TRUE(run.r.ok) << run.r.error;
  ASSERT_GT(run.r.cycles, 60u);
  const json t = load(o.trace_path);
  unsigned slices = 0, instants = 0, clipped = 0;
  for (const json& e : t["traceEvents"]) {
    if (e["ph"] == "M") continue;
    const uint64_t ts = e["ts"];
    EXPECT_GE(ts, 10u) << e.dump();
    EXPECT_LT(ts, 40u) << e.dump();
    if (e["ph"] == "X") {
      ++slices;
      EXPECT_LE(ts + e["dur"].get<uint64_t>(), 40u) << e.dump();
      clipped += e["args"].value("clipped", false);
    } else {
      ++instants;
    }
  }
  EXPECT_GT(slices, 10u);
  EXPECT_GT(instants, 0u);
  EXPECT_GT(clipped, 0u); // instructions in flight at the window's edges are cut, not lost
}

TEST(Trace, VcdHasTheChosenSignals) {
  SimOptions o;
  o.vcd_path = temp_path("wave.vcd");
  o.vcd_signals = {"sm.sub0.scheduler0.issued", "sm.sub0.bank*.busy", "sm.sub0.allocator.in_use",
                   "sm.ipc"};
  TracedRun run(o);
  ASSERT_TRUE(run.r.ok) << run.r.error;
  std::ifstream f(o.vcd_path);
  ASSERT_TRUE(f) << o.vcd_path;
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string vcd = ss.str();
  EXPECT_NE(vcd.find("$enddefinitions"), std::string::npos);
  for (const char* n : {"issued", "busy", "in_use", "ipc", "bank3"})
    EXPECT_NE(vcd.find(n), std::string::npos) << n;
}

TEST(Trace, UnknownVcdSignalSuggestsTheClosest) {
  ConfigPtr cfg = parse_config_string(test::kSmallPlatform, "test-platform");
  ScriptedFrontend fe(program(), 1, 16);
  SimOptions o;
  o.vcd_path = temp_path("bad.vcd");
  o.vcd_signals = {"sm.sub0.scheduler0.isued"};
  try {
    Simulation sim(*cfg, fe, fe.regs(), o);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("did you mean 'sm.sub0.scheduler0.issued'"),
              std::string::npos)
        << e.what();
  }
}
