// Every launch of the suite (workloads/*.yaml) run purely functionally through PtxFrontend, with
// no timing model: a trivial driver issues the warps round-robin and retires instructions a few
// steps later. Checks the reference outputs, the shadow register file (every source value
// equals what the allocated architectural register holds), CTA relaunch into freed slots, and
// the instruction records the timing model will see.
#include <deque>
#include <iostream>
#include <memory>

#include <gtest/gtest.h>

#include "gpurf/modules/frontend/launch.h"
#include "gpurf/modules/frontend/ptx/engine.h"
#include "gpurf/modules/frontend/ptx_frontend.h"
#include "tests/unit/compiler_test_util.h"

using namespace gpurf;

namespace {

struct Memory : IFunctionalMemory {
  ptx::SparseMemory m;
  void read(uint64_t a, void* d, unsigned n) override { m.read(a, d, n); }
  void write(uint64_t a, const void* s, unsigned n) override { m.write(a, s, n); }
};

struct Outcome {
  uint64_t instructions = 0;
  std::string verify;
};

// Runs the launch with `slots` warp slots; instructions retire `delay` issues later.
Outcome run(PtxFrontend& fe, unsigned slots, unsigned delay) {
  Memory mem;
  fe.start(SmLimits::slots(slots), 1, mem);
  std::deque<std::unique_ptr<WarpInst>> flight;
  Outcome o;
  unsigned idle = 0;
  while (!fe.done()) {
    bool progress = false;
    for (unsigned w = 0; w < slots; ++w) {
      const InstInfo* info = fe.peek(w);
      if (!info) continue;
      auto inst = std::make_unique<WarpInst>();
      fe.execute(w, *inst);
      EXPECT_EQ(inst->info, info);
      EXPECT_EQ(inst->n_src, info->n_src);
      for (unsigned k = 0; k < inst->n_src; ++k) EXPECT_LT(inst->src[k].reg, fe.regs_per_thread());
      if (info->mem == MemKind::None) {
        EXPECT_EQ(inst->access_bytes, 0u);
      }
      flight.push_back(std::move(inst));
      ++o.instructions;
      progress = true;
      if (flight.size() > delay) {
        fe.retire(*flight.front());
        flight.pop_front();
      }
    }
    if (!progress) {
      if (flight.empty() && ++idle > 1) {
        ADD_FAILURE() << "deadlock: nothing to issue, nothing in flight";
        break;
      }
      while (!flight.empty()) { // drain: completes CTAs, launches the next ones
        fe.retire(*flight.front());
        flight.pop_front();
      }
    }
  }
  EXPECT_TRUE(flight.empty());
  o.verify = fe.verify_outputs();
  return o;
}

class SuiteFunctional : public testing::TestWithParam<std::string> {};

} // namespace

TEST_P(SuiteFunctional, OutputsMatchReference) {
  const std::string name = GetParam();
  const LaunchSpec spec = load_launch(compilertest::workloads() + "/" + name + ".yaml");
  EXPECT_EQ(spec.name, name);
  PtxFrontend fe(spec);
  EXPECT_EQ(fe.kernel_name(), name);
  // A Fermi-sized SM (48 slots), instructions in flight for a while.
  const Outcome a = run(fe, 48, 13);
  EXPECT_EQ(a.verify, "") << name;
  EXPECT_GT(fe.operands_checked(), 0u);
  EXPECT_EQ(fe.issued(), fe.retired());
  std::printf("%-10s %3u regs, %2u warps/CTA, %2u CTAs resident, %8llu warp instructions, "
              "%9llu operands checked\n",
              name.c_str(), fe.regs_per_thread(), fe.warps_per_cta(), fe.resident_ctas(),
              (unsigned long long)a.instructions, (unsigned long long)fe.operands_checked());
  // One CTA at a time: every CTA is launched into the slots the previous one freed.
  PtxFrontend one(spec);
  const Outcome b = run(one, one.warps_per_cta() ? one.warps_per_cta() : 8, 3);
  EXPECT_EQ(b.verify, "") << name;
  // (Counts may differ between the two runs where atomics race: bfs.)
  EXPECT_GT(b.instructions, 0u);
}

INSTANTIATE_TEST_SUITE_P(Workloads, SuiteFunctional, testing::ValuesIn(compilertest::suite()),
                         [](const testing::TestParamInfo<std::string>& i) { return i.param; });

TEST(CompilerFrontend, StaticInfoTable) {
  const LaunchSpec spec = load_launch(compilertest::workloads() + "/reduce.yaml");
  PtxFrontend fe(spec);
  const std::string t = fe.info_table();
  std::cout << t;
  EXPECT_NE(t.find("kernel reduce"), std::string::npos);
  EXPECT_NE(t.find("LL-produce"), std::string::npos);
  EXPECT_NE(t.find("LL-consume"), std::string::npos);
  EXPECT_NE(t.find("barrier"), std::string::npos);
  const auto& info = fe.static_info();
  ASSERT_EQ(info.size(), spec.entry().instrs.size());
  for (size_t pc = 0; pc < info.size(); ++pc) {
    EXPECT_EQ(info[pc].pc, pc);
    EXPECT_EQ(info[pc].ptx_line, spec.entry().instrs[pc].ptx_line);
  }
  // The global load's value is consumed by the add right after it.
  for (size_t pc = 0; pc + 1 < info.size(); ++pc)
    if (info[pc].produces_long_latency && info[pc].space == MemSpace::Global &&
        info[pc].mem == MemKind::Load) {
      EXPECT_TRUE(info[pc + 1].consumes_long_latency) << pc;
      EXPECT_EQ(info[pc].n_dst, 1u);
    }
  // A call inside backprop: pcs of the callee follow the entry's.
  const LaunchSpec bp = load_launch(compilertest::workloads() + "/backprop.yaml");
  PtxFrontend fb(bp);
  EXPECT_GT(fb.static_info().size(), bp.entry().instrs.size());
}
