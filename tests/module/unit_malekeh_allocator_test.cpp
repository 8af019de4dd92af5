// Module tests of Malekeh's CCU allocator (modules/allocator/impl/malekeh.cpp) with a hand-set
// port R (policies/ccu_board.h) and a stub front-end that says when a warp slot's CTA has
// retired: a table of a finished warp is neither its slot's holder nor near, so a warp takes
// it at once instead of waiting for STHLD; the waiting counter of Fig. 6 is the paper's
// per-core (per-SM) counter, shared by the sub-cores' allocators.
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpurf/modules/allocator/i_allocator.h"
#include "gpurf/modules/frontend/i_frontend.h"
#include "gpurf/policies/ccu_board.h"
#include "tests/support/stubs.h"

using namespace gpurf;
using namespace gpurf::test;

namespace {

// Only warps_finished matters to the allocator and the board.
struct FinishedWarps : IFrontend {
  std::vector<uint64_t> finished = std::vector<uint64_t>(32, 0);
  Occupancy start(const SmLimits&, unsigned, IFunctionalMemory&) override { return {}; }
  const InstInfo* peek(unsigned) override { return nullptr; }
  void execute(unsigned, WarpInst&) override {}
  void retire(const WarpInst&) override {}
  bool done() const override { return false; }
  std::string describe_warp(unsigned) const override { return ""; }
  uint64_t warps_finished(unsigned w) const override { return finished[w]; }
};

// One sub-core's allocator with its two CCUs (stub targets); 4 sub-cores, 32 warps.
struct SubcoreAllocator {
  UnitConfig conf;
  std::unique_ptr<IAllocator> al;
  std::unique_ptr<StubInit> sched;
  std::vector<std::unique_ptr<StubInit>> release;
  std::vector<std::unique_ptr<StubTarget>> col;
  InstInfo sp;
  WarpInst inst;

  SubcoreAllocator(unsigned sub, const std::string& yaml, SimClock& clock, SmShape& shape,
                   CcuBoard& board, FinishedWarps& fe) {
    const std::string n = "sub" + std::to_string(sub);
    sched = std::make_unique<StubInit>((n + "_sched").c_str());
    al = make_unit<IAllocator>(conf, yaml, "allocator.yaml", "allocator", "malekeh",
                               n + "_allocator", clock, &shape, [&](UnitContext& c) {
                                 c.subcore = sub;
                                 c.ccus = &board;
                                 c.frontend = &fe;
                               });
    sched->sock.bind(al->in);
    for (unsigned i = 0; i < 2; ++i) {
      const std::string m = n + "_col" + std::to_string(i);
      col.push_back(std::make_unique<StubTarget>(m.c_str(), &clock));
      release.push_back(std::make_unique<StubInit>((m + "_rel").c_str()));
      al->to_collector.bind(col[i]->sock);
      release[i]->sock.bind(al->release);
      al->add_collector(~0u);
    }
  }
  // The CCU warp `w`'s instruction was bound to, or -1 when the allocator refused it.
  int issue(unsigned w) {
    inst.info = &sp;
    inst.warp = w;
    Packet p;
    p.prepare(Txn::Kind::Issue);
    p.txn.inst = &inst;
    sched->sock->b_transport(p.gp, p.delay);
    if (p.txn.busy) return -1;
    for (unsigned i = 0; i < col.size(); ++i)
      if (!col[i]->seen.empty() && col[i]->seen.back().txn.inst == &inst) {
        col[i]->seen.clear();
        return int(i);
      }
    return -2;
  }
};

struct Bench {
  SimClock clock;
  SmShape shape;
  CcuBoard board;
  FinishedWarps fe;
  std::vector<std::unique_ptr<SubcoreAllocator>> sub;

  Bench(unsigned subcores, const std::string& yaml) {
    shape.subcores = 4;
    shape.warps = 32;
    shape.collectors = 2;
    for (unsigned s = 0; s < subcores; ++s)
      sub.push_back(std::make_unique<SubcoreAllocator>(s, yaml, clock, shape, board, fe));
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
  }
  // CCU c of sub-core s holds registers of `warp` (filled before any warp finished).
  void holds(unsigned s, unsigned c, unsigned warp, bool near) {
    CcuBoard::Ccu& r = board.at(s, c);
    r.warp = int(warp);
    r.near = near;
  }
};

} // namespace

// Both free CCUs of sub-core 0 hold near values of warps 4 and 8: warp 12 waits (STHLD 1000).
// Once warp 4's CTA has retired, its table holds dead values: warp 12 takes that CCU at once,
// and the next warp of slot 4 is no holder of it.
TEST(UnitMalekehAllocator, AFinishedWarpsTableIsFreeAndFar) {
  Bench b(1, "sthld_policy: static\nsthld: 1000\n");
  b.holds(0, 0, 4, true);
  b.holds(0, 1, 8, true);
  b.clock.now = 1;
  EXPECT_EQ(b.sub[0]->issue(12), -1) << "near values of live warps: wait for STHLD";
  EXPECT_EQ(b.board.holder(0, 4), 0);
  b.fe.finished[4] = 1; // warp 4's CTA retired
  EXPECT_EQ(b.board.holder(0, 4), -1) << "the slot's next warp holds nothing";
  b.clock.now = 2;
  EXPECT_EQ(b.sub[0]->issue(12), 0) << "the finished warp's table is far: no wait";
}

// The paper's "per-core counter" (Sec. IV-B2; its core is the SM, with the 256 KB RF of
// Table I): the sub-cores' waits advance one counter, and the allocation that reaches STHLD
// resets it for all of them.
TEST(UnitMalekehAllocator, TheWaitingCounterIsTheSms) {
  Bench b(2, "sthld_policy: static\nsthld: 2\n");
  for (unsigned s = 0; s < 2; ++s) {
    b.holds(s, 0, 4 + s, true);
    b.holds(s, 1, 8 + s, true);
  }
  b.clock.now = 1;
  EXPECT_EQ(b.sub[0]->issue(12), -1); // counter 1
  EXPECT_EQ(b.sub[1]->issue(13), -1); // counter 2
  b.clock.now = 2;
  EXPECT_GE(b.sub[0]->issue(12), 0) << "STHLD reached by the two sub-cores' waits";
  EXPECT_EQ(b.sub[1]->issue(13), -1) << "the counter was reset by sub-core 0's allocation";
}

// `sthld_counter: subcore`, the measured alternative: each sub-core counts its own waits.
TEST(UnitMalekehAllocator, PerSubcoreCounterWhenAsked) {
  Bench b(2, "sthld_policy: static\nsthld: 2\nsthld_counter: subcore\n");
  for (unsigned s = 0; s < 2; ++s) {
    b.holds(s, 0, 4 + s, true);
    b.holds(s, 1, 8 + s, true);
  }
  b.clock.now = 1;
  EXPECT_EQ(b.sub[0]->issue(12), -1);
  EXPECT_EQ(b.sub[1]->issue(13), -1);
  b.clock.now = 2;
  EXPECT_EQ(b.sub[0]->issue(12), -1) << "sub-core 0 has waited once only";
  b.clock.now = 3;
  EXPECT_GE(b.sub[0]->issue(12), 0);
}
