// Module tests of the execution pipes ("pipes") alone, with stub collectors, a stub LSU and
// a stub writeback: initiation interval, unit count, Complete delay = latency, folding of a
// pipe without units onto SP through SmShape::pipe_map, MEM forwarded to the LSU, latency
// classes with their own latency, ii and pipe (SmShape::class_pipe).
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpurf/modules/exec/i_exec.h"
#include "gpurf/platform/config.h"
#include "tests/support/stubs.h"

using namespace gpurf;
using namespace gpurf::test;

namespace {

unsigned idx(Pipe p) { return static_cast<unsigned>(p); }

class Bench {
public:
  SimClock clock;
  SmShape shape;
  UnitConfig conf;
  std::unique_ptr<IExec> exec;
  StubInit col0{"col0"}, col1{"col1"};
  StubTarget lsu{"lsu", &clock}, wb{"wb", &clock};
  InstInfo info[kNumPipes];
  std::vector<std::unique_ptr<WarpInst>> insts;

public:
  explicit Bench(const std::string& yaml) {
    exec = make_unit<IExec>(conf, yaml, "exec.yaml", "exec", "pipes", "exec", clock, &shape);
    // As the SM builder does: pipes without units fold onto SP; classes go where exec puts them.
    for (unsigned i = 0; i < kNumPipes; ++i)
      if (static_cast<Pipe>(i) != Pipe::MEM && !exec->units(static_cast<Pipe>(i)))
        shape.pipe_map[i] = Pipe::SP;
    for (unsigned i = 0; i < kNumOpClasses; ++i)
      shape.class_pipe[i] = int8_t(exec->class_timing(static_cast<OpClass>(i)).pipe);
    col0.sock.bind(exec->in);
    col1.sock.bind(exec->in);
    exec->to_lsu.bind(lsu.sock);
    exec->to_wb.bind(wb.sock);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
    for (unsigned i = 0; i < kNumPipes; ++i) info[i].pipe = static_cast<Pipe>(i);
  }

  // Dispatches an instruction of pipe `p` at cycle `now`; true if accepted.
  bool dispatch(Cycle now, Pipe p, StubInit* from = nullptr) {
    return dispatch_info(now, &info[idx(p)], from);
  }
  // ... of latency class `c`, which the front-end put on pipe `p`.
  bool dispatch(Cycle now, OpClass c, Pipe p) {
    classed.push_back(std::make_unique<InstInfo>());
    classed.back()->op_class = c;
    classed.back()->pipe = p;
    return dispatch_info(now, classed.back().get(), nullptr);
  }
  // The results handed to the writeback (the Complete transfers; a pipe first asks for a
  // result slot).
  std::vector<StubTarget::Seen> completes() const {
    std::vector<StubTarget::Seen> v;
    for (const auto& x : wb.seen)
      if (x.txn.kind == Txn::Kind::Complete) v.push_back(x);
    return v;
  }
  Cycle last_latency() const { return clock.cycles(completes().back().delay); }
  std::vector<std::unique_ptr<InstInfo>> classed;

private:
  bool dispatch_info(Cycle now, const InstInfo* i, StubInit* from) {
    clock.now = now;
    insts.push_back(std::make_unique<WarpInst>());
    insts.back()->info = i;
    Packet pk;
    pk.prepare(Txn::Kind::Dispatch);
    pk.txn.inst = insts.back().get();
    (from ? from : &col0)->sock->b_transport(pk.gp, pk.delay);
    EXPECT_EQ(pk.gp.get_response_status(), tlm::TLM_OK_RESPONSE);
    return !pk.txn.busy;
  }
};

} // namespace

TEST(UnitExec, InitiationIntervalRefusesUntilItPasses) {
  Bench b("{sfu: {count: 1, latency: 20, ii: 4}}");
  EXPECT_EQ(b.exec->units(Pipe::SFU), 1u);
  EXPECT_TRUE(b.dispatch(10, Pipe::SFU));
  EXPECT_FALSE(b.dispatch(11, Pipe::SFU));
  EXPECT_FALSE(b.dispatch(12, Pipe::SFU, &b.col1));
  EXPECT_FALSE(b.dispatch(13, Pipe::SFU));
  EXPECT_TRUE(b.dispatch(14, Pipe::SFU));
  EXPECT_FALSE(b.dispatch(17, Pipe::SFU));
  EXPECT_TRUE(b.dispatch(18, Pipe::SFU));
  ASSERT_EQ(b.completes().size(), 3u);
  EXPECT_EQ(stat(*b.exec, "instructions", idx(Pipe::SFU)), 3u);
  EXPECT_EQ(stat(*b.exec, "busy_cycles", idx(Pipe::SFU)), 12u);
  // Another pipe is not held up by the busy SFU.
  EXPECT_TRUE(b.dispatch(19, Pipe::SP));
}

TEST(UnitExec, CompleteDelayIsTheLatency) {
  Bench b("{sp: {count: 1, latency: 6, ii: 1}, sfu: {count: 1, latency: 23, ii: 2}}");
  EXPECT_TRUE(b.dispatch(5, Pipe::SFU));
  EXPECT_TRUE(b.dispatch(5, Pipe::SP));
  ASSERT_EQ(b.completes().size(), 2u);
  EXPECT_EQ(b.completes().at(0).txn.kind, Txn::Kind::Complete);
  EXPECT_EQ(b.completes().at(0).txn.inst, b.insts[0].get());
  EXPECT_EQ(b.completes().at(0).at, 5u);
  EXPECT_EQ(b.clock.cycles(b.completes().at(0).delay), 23u);
  EXPECT_EQ(b.clock.cycles(b.completes().at(1).delay), 6u);
  EXPECT_EQ(b.completes().at(1).txn.inst, b.insts[1].get());
}

TEST(UnitExec, EveryUnitTakesOneInstruction) {
  Bench b("{sp: {count: 2, latency: 4, ii: 3}}");
  EXPECT_TRUE(b.dispatch(0, Pipe::SP));
  EXPECT_TRUE(b.dispatch(0, Pipe::SP, &b.col1));
  EXPECT_FALSE(b.dispatch(0, Pipe::SP));
  EXPECT_FALSE(b.dispatch(2, Pipe::SP));
  EXPECT_TRUE(b.dispatch(3, Pipe::SP));
  EXPECT_TRUE(b.dispatch(3, Pipe::SP));
  EXPECT_FALSE(b.dispatch(3, Pipe::SP));
  EXPECT_EQ(stat(*b.exec, "instructions", idx(Pipe::SP)), 4u);
}

// A writeback with no room for another result holds dispatch back (busy) without using the
// unit; once it has room the instruction goes.
TEST(UnitExec, FullWritebackHoldsDispatchBack) {
  Bench b("{sp: {count: 1, latency: 4, ii: 1}}");
  b.wb.full = true;
  EXPECT_FALSE(b.dispatch(0, Pipe::SP));
  EXPECT_TRUE(b.completes().empty());
  EXPECT_EQ(stat(*b.exec, "instructions", idx(Pipe::SP)), 0u);
  b.wb.full = false;
  EXPECT_TRUE(b.dispatch(1, Pipe::SP));
  ASSERT_EQ(b.completes().size(), 1u);
  EXPECT_EQ(b.completes().at(0).at, 1u);
}

TEST(UnitExec, PipeWithoutUnitsFoldsOntoSp) {
  Bench b("{sp: {count: 1, latency: 7, ii: 2}, int: {count: 0, latency: 3}}");
  EXPECT_EQ(b.exec->units(Pipe::INT), 0u);
  ASSERT_EQ(b.shape.pipe_for(Pipe::INT), Pipe::SP);
  EXPECT_TRUE(b.dispatch(0, Pipe::INT));
  ASSERT_EQ(b.completes().size(), 1u);
  EXPECT_EQ(b.clock.cycles(b.completes().at(0).delay), 7u); // SP's latency, not INT's
  EXPECT_EQ(stat(*b.exec, "instructions", idx(Pipe::SP)), 1u);
  EXPECT_EQ(stat(*b.exec, "instructions", idx(Pipe::INT)), 0u);
  // It occupies the SP unit: an SP instruction must wait out the interval.
  EXPECT_FALSE(b.dispatch(1, Pipe::SP));
  EXPECT_TRUE(b.dispatch(2, Pipe::SP));
}

TEST(UnitExec, PipeWithUnitsIsItsOwn) {
  Bench b("{sp: {count: 1, latency: 7, ii: 2}, int: {count: 1, latency: 3, ii: 1}}");
  EXPECT_EQ(b.shape.pipe_for(Pipe::INT), Pipe::INT);
  EXPECT_TRUE(b.dispatch(0, Pipe::INT));
  EXPECT_TRUE(b.dispatch(0, Pipe::SP));
  EXPECT_EQ(b.clock.cycles(b.completes().at(0).delay), 3u);
  EXPECT_EQ(stat(*b.exec, "instructions", idx(Pipe::INT)), 1u);
}

TEST(UnitExec, MemGoesToTheLsu) {
  Bench b("{}");
  EXPECT_TRUE(b.dispatch(4, Pipe::MEM));
  ASSERT_EQ(b.lsu.seen.size(), 1u);
  EXPECT_EQ(b.lsu.seen[0].txn.inst, b.insts[0].get());
  EXPECT_TRUE(b.completes().empty());
}

TEST(UnitExec, SpNeedsAUnit) {
  auto cfg = parse_config_string("{sp: {count: 0}}", "exec.yaml");
  Params p(cfg.get(), "exec");
  try {
    IExec::Registry::create("pipes", p, default_context("exec"));
    FAIL() << "no ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("exec.sp"), std::string::npos) << e.what();
  }
}

TEST(UnitExec, AClassHasItsOwnLatencyAndIi) {
  Bench b("{sp: {count: 1, latency: 4, ii: 1}, classes: {fp_fma: {latency: 6, ii: 3}}}");
  EXPECT_TRUE(b.dispatch(10, OpClass::FpFma, Pipe::SP));
  EXPECT_EQ(b.last_latency(), 6u);
  // fp_fma holds the SP unit for its ii 3, whatever class comes next.
  EXPECT_FALSE(b.dispatch(11, OpClass::IntAdd, Pipe::SP));
  EXPECT_FALSE(b.dispatch(12, OpClass::FpAdd, Pipe::SP));
  EXPECT_TRUE(b.dispatch(13, OpClass::IntAdd, Pipe::SP));
  EXPECT_EQ(b.last_latency(), 4u); // a class without its own timing: the pipe's
  EXPECT_TRUE(b.dispatch(14, OpClass::IntAdd, Pipe::SP));
  EXPECT_EQ(stat(*b.exec, "busy_cycles", idx(Pipe::SP)), 5u);
  EXPECT_EQ(stat(*b.exec, "class_instructions", unsigned(OpClass::FpFma)), 1u);
  EXPECT_EQ(stat(*b.exec, "class_instructions", unsigned(OpClass::IntAdd)), 2u);
}

TEST(UnitExec, AClassRunsOnTheSfuInsteadOfItsFoldedPipe) {
  // dp has no units (it would fold onto sp); dp_fma runs on the SFU at 8/8, int_mul on the
  // SFU with the SFU's own timing.
  Bench b("{sp: {count: 1, latency: 4, ii: 1}, dp: {count: 0}, sfu: {count: 1, latency: 20, "
          "ii: 4}, classes: {dp_fma: {pipe: sfu, latency: 8, ii: 8}, int_mul: {pipe: sfu}}}");
  EXPECT_TRUE(b.dispatch(0, OpClass::DpFma, Pipe::DP));
  EXPECT_EQ(b.last_latency(), 8u);
  EXPECT_EQ(stat(*b.exec, "instructions", idx(Pipe::SFU)), 1u);
  EXPECT_EQ(stat(*b.exec, "instructions", idx(Pipe::SP)), 0u);
  EXPECT_TRUE(b.dispatch(0, OpClass::DpAdd, Pipe::DP)); // not moved: folded onto sp
  EXPECT_EQ(b.last_latency(), 4u);
  EXPECT_FALSE(b.dispatch(7, OpClass::IntMul, Pipe::INT)); // the SFU is held for dp_fma's 8
  EXPECT_TRUE(b.dispatch(8, OpClass::IntMul, Pipe::INT));
  EXPECT_EQ(b.last_latency(), 20u);
  EXPECT_FALSE(b.dispatch(11, Pipe::SFU)); // and for the SFU's ii 4 after int_mul
  EXPECT_TRUE(b.dispatch(12, Pipe::SFU));
  EXPECT_EQ(b.shape.pipe_for(*b.classed[0]), Pipe::SFU);
}

TEST(UnitExec, BadClassesAreConfigErrors) {
  for (const char* yaml :
       {"{classes: {fp_fmaa: {latency: 5}}}", "{classes: {fp_fma: {latency: 5, iii: 2}}}",
        "{classes: {fp_fma: {pipe: gpu}}}", "{classes: {mem: {latency: 3}}}",
        "{classes: {shfl: {latency: 3}}}", "{classes: {fp_fma: {latency: 20000}}}"}) {
    auto cfg = parse_config_string(yaml, "exec.yaml");
    Params p(cfg.get(), "exec");
    try {
      auto e = IExec::Registry::create("pipes", p, default_context("exec"));
      p.check_unused();
      ADD_FAILURE() << "no ConfigError for " << yaml;
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find("exec.classes"), std::string::npos) << e.what();
    }
  }
}
