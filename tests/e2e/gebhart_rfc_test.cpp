// Gebhart register file cache + two-level scheduler, end to end with hand-built warp programs
// (one simulation per process). A wrapper front-end adds the compiler hints the scripted
// front-end does not compute (last reads, long-latency consumers).
#include <map>

#include <gtest/gtest.h>

#include "modules/frontend/scripted.h"
#include "platform/config.h"
#include "platform/simulation.h"

using namespace gpurf;

namespace {

const char* kPlatform = R"(
sm: {warps: 8, subcores: 1}
scheduler: {impl: two_level, count: 1, policy: gto, active: 1}
collector: {count: 2, src_slots: 3}
bank: {count: 4, entries: 64, slices: 1, ports: 1r1w, latency: 1}
exec: {sp: {count: 1, latency: 4, ii: 1}}
writeback: {ports: 2}
l1: {hit_latency: 20}
memory: {latency: 100, bytes_per_cycle: 32}
rfc: {impl: cache, entries: 6, liveness: true, bypass_long_latency: true}
)";

ScriptOp op(ScriptOp::Kind k, std::vector<uint16_t> dst, std::vector<uint16_t> src,
            uint32_t imm = 0) {
  ScriptOp o;
  o.kind = k;
  o.dst = std::move(dst);
  o.src = std::move(src);
  o.imm = imm;
  return o;
}

// Hints per pc: sources read for the last time, long-latency consumer.
struct Hint {
  std::vector<bool> last;
  bool consumes = false;
};

class HintedFrontend : public IFrontend {
public:
  HintedFrontend(std::vector<ScriptOp> prog, unsigned warps, std::map<unsigned, Hint> hints)
      : inner_(std::move(prog), warps, 16), hints_(std::move(hints)) {}
  void start(unsigned slots, IFunctionalMemory& mem) override { inner_.start(slots, mem); }
  const InstInfo* peek(unsigned warp) override {
    const InstInfo* i = inner_.peek(warp);
    return i ? patched(*i) : nullptr;
  }
  void execute(unsigned warp, WarpInst& out) override {
    inner_.execute(warp, out);
    out.info = patched(*out.info);
    for (unsigned k = 0; k < out.n_src; ++k) out.src[k].last_read = out.info->src_last_read[k];
  }
  void retire(const WarpInst& inst) override { inner_.retire(inst); }
  bool done() const override { return inner_.done(); }
  std::string describe_warp(unsigned w) const override { return inner_.describe_warp(w); }
  ScriptedFrontend inner_;

private:
  const InstInfo* patched(const InstInfo& i) {
    auto it = infos_.find(i.pc);
    if (it != infos_.end()) return &it->second;
    InstInfo c = i;
    auto h = hints_.find(i.pc);
    if (h != hints_.end()) {
      for (unsigned k = 0; k < h->second.last.size(); ++k) c.src_last_read[k] = h->second.last[k];
      c.consumes_long_latency = h->second.consumes;
    }
    return &(infos_[i.pc] = c);
  }
  std::map<unsigned, Hint> hints_;
  std::map<unsigned, InstInfo> infos_;
};

struct Sim {
  ConfigPtr cfg;
  HintedFrontend fe;
  RunResult r;
  Sim(std::vector<ScriptOp> prog, unsigned warps, std::map<unsigned, Hint> hints,
      std::vector<std::string> overrides = {})
      : cfg(parse_config_string(kPlatform, "test-platform")),
        fe(std::move(prog), warps, std::move(hints)) {
    for (auto& o : overrides) apply_override(*cfg, o);
    Simulation sim(*cfg, fe, 16);
    r = sim.run();
  }
  uint64_t stat(const std::string& group, const std::string& name, int i = -1) const {
    auto& s = r.stats.at(group).at(name);
    return i < 0 ? s.value("value", s.value("total", uint64_t(0)))
                 : s.at("values").at(i).get<uint64_t>();
  }
};

ScriptOp load(uint16_t dst, uint64_t base) {
  ScriptOp o = op(ScriptOp::Load, {dst}, {});
  o.base = base;
  return o;
}

// r1 is produced (RFC, dirty, live), a load's consumer suspends the warp (flush: r1 goes to
// the MRF), and r1 is read again after reactivation from the MRF; r5 is read for the last
// time before the suspension, so its write-back is elided.
std::vector<ScriptOp> suspend_program() {
  return {op(ScriptOp::Mov, {1}, {}, 5),      // 0
          op(ScriptOp::Mov, {5}, {}, 9),      // 1
          op(ScriptOp::Add, {6}, {5}, 1),     // 2: last read of r5
          load(2, 0x4000),                    // 3: long-latency producer
          op(ScriptOp::Add, {3}, {2}, 0),     // 4: consumes r2: suspend, flush
          op(ScriptOp::Add, {4}, {1, 3, 6})}; // 5: r1 and r6 from the MRF
}
std::map<unsigned, Hint> suspend_hints() { return {{2, {{true}, false}}, {4, {{false}, true}}}; }

} // namespace

TEST(GebhartRfc, SuspendedWarpsDirtyLiveValueSurvivesTheFlush) {
  Sim run(suspend_program(), 2, suspend_hints());
  ASSERT_TRUE(run.r.ok) << run.r.error; // the golden check passed for every operand
  const std::string rfc = "sm.sub0.rfc";
  EXPECT_GE(run.stat(rfc, "flushes"), 2u);          // each warp was suspended once
  EXPECT_GE(run.stat(rfc, "flush_writebacks"), 4u); // r1 and r6 of both warps
  EXPECT_GE(run.stat(rfc, "dead_elided"), 2u);      // r5 of both warps
  EXPECT_GE(run.stat(rfc, "misses"), 4u);           // r1, r6 read back from the MRF
  EXPECT_GE(run.stat(rfc, "reads"), 2u);            // r5 hit before the suspension
  EXPECT_GE(run.stat(rfc, "bypass"), 2u); // the loads bypass the RFC (warp suspended by then)
  EXPECT_GE(run.stat("sm.sub0.scheduler0", "deactivations", 0), 2u);
  for (unsigned w = 0; w < 2; ++w)
    for (unsigned l : {0u, 7u, 31u})
      EXPECT_EQ(run.fe.inner_.reg(w, 4)[l], (5 + l) + run.fe.inner_.reg(w, 2)[l] + (9 + l + 1));
}

TEST(GebhartRfc, TinyRfcEvictsAndReadsBackFromTheMrf) {
  // One entry per thread: every new result evicts the previous one (live: written back).
  Sim run({op(ScriptOp::Mov, {1}, {}, 1), op(ScriptOp::Mov, {2}, {}, 2),
           op(ScriptOp::Mov, {3}, {}, 3), op(ScriptOp::Add, {4}, {1, 2, 3})},
          4, {}, {"rfc.entries=1", "scheduler.active=4"});
  ASSERT_TRUE(run.r.ok) << run.r.error;
  EXPECT_GE(run.stat("sm.sub0.rfc", "writebacks"), 4u * 2);
  EXPECT_GE(run.stat("sm.sub0.rfc", "misses"), 4u * 2);
  EXPECT_EQ(run.fe.inner_.reg(3, 4)[2], (1u + 2) + (2 + 2) + (3 + 2));
}

TEST(GebhartRfc, WithoutLivenessDeadValuesAreWrittenBack) {
  Sim run(suspend_program(), 2, suspend_hints(), {"rfc.liveness=false"});
  ASSERT_TRUE(run.r.ok) << run.r.error;
  EXPECT_EQ(run.stat("sm.sub0.rfc", "dead_elided"), 0u);
}
