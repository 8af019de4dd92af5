// Module tests of the warp scheduler ("standard") alone, with a stub allocator, stub
// notifiers (collector, writeback) and a stub front-end: RAW and WAW hazards stall as
// scoreboard, WAR as war, a full allocator as collector_full, released by notifications.
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpurf/modules/common/inst_pool.h"
#include "gpurf/modules/frontend/i_frontend.h"
#include "gpurf/modules/scheduler/i_scheduler.h"
#include "gpurf/platform/config.h"
#include "tests/support/stubs.h"

using namespace gpurf;
using namespace gpurf::test;

namespace {

enum { kScoreboard, kWar, kCollectorFull, kNoInstruction };

// Per warp a straight-line program of hand-built instructions.
struct StubFrontend : IFrontend {
  std::vector<std::vector<InstInfo>> prog;
  std::vector<unsigned> pc;
  std::vector<bool> held; // warps with nothing to offer now (no CTA, at a barrier)
  uint64_t offer = 0;     // offer_epoch(): 0, untracked, unless a test sets it
  unsigned peeks = 0;
  Occupancy start(const SmLimits&, unsigned, IFunctionalMemory&) override { return {}; }
  uint64_t offer_epoch() const override { return offer; }
  const InstInfo* peek(unsigned w) override {
    ++peeks;
    if (w < held.size() && held[w]) return nullptr;
    return w < prog.size() && pc[w] < prog[w].size() ? &prog[w][pc[w]] : nullptr;
  }
  void execute(unsigned w, WarpInst& out) override {
    const InstInfo& i = prog[w][pc[w]++];
    out.info = &i;
    out.n_src = i.n_src;
    out.n_dst = i.n_dst;
    for (unsigned k = 0; k < i.n_src; ++k) out.src[k].reg = i.src_reg[k];
    for (unsigned k = 0; k < i.n_dst; ++k) out.dst[k].reg = i.dst_reg[k];
  }
  void retire(const WarpInst&) override {}
  bool done() const override { return false; }
  std::string describe_warp(unsigned w) const override { return "pc " + std::to_string(pc[w]); }
};

InstInfo inst(std::vector<uint16_t> dst, std::vector<uint16_t> src) {
  static uint32_t pc = 0;
  InstInfo i;
  i.pc = pc++;
  i.n_dst = static_cast<uint8_t>(dst.size());
  i.n_src = static_cast<uint8_t>(src.size());
  for (unsigned k = 0; k < dst.size(); ++k) i.dst_reg[k] = dst[k];
  for (unsigned k = 0; k < src.size(); ++k) i.src_reg[k] = src[k];
  return i;
}

uint64_t stall(Unit& u, int kind) {
  for (const Stat& s : u.stats().stats())
    if (s.name == "stall_cycles") return s.values.at(kind);
  ADD_FAILURE() << "no stall_cycles";
  return 0;
}

struct Bench {
  SimClock clock;
  SmShape shape;
  StubFrontend fe;
  InstPool pool;
  UnitConfig conf;
  std::unique_ptr<IScheduler> sch;
  StubTarget alloc{"alloc", &clock};
  StubInit collector{"collector"}, writeback{"writeback"};

  Bench(std::vector<std::vector<InstInfo>> prog, const std::string& yaml = "{policy: lrr}") {
    shape.warps = static_cast<unsigned>(prog.size());
    shape.subcores = 1;
    shape.schedulers = 1;
    shape.regs_per_thread = 16;
    fe.prog = std::move(prog);
    fe.pc.assign(fe.prog.size(), 0);
    sch = make_unit<IScheduler>(conf, yaml, "scheduler.yaml", "scheduler", "standard", "scheduler0",
                                clock, &shape, [&](UnitContext& c) {
                                  c.frontend = &fe;
                                  c.pool = &pool;
                                });
    sch->to_alloc.bind(alloc.sock);
    collector.sock.bind(sch->notify);
    writeback.sock.bind(sch->notify);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
  }

  bool tick(Cycle now) {
    clock.now = now;
    if (sch->next_tick() > now) return false;
    sch->clear_tick();
    sch->tick(now);
    return true;
  }
  void notify(Cycle now, Txn::Kind k, WarpInst* i) {
    clock.now = now;
    Packet p;
    p.prepare(k);
    p.txn.inst = i;
    (k == Txn::Kind::OperandsRead ? collector : writeback).sock->b_transport(p.gp, p.delay);
    EXPECT_EQ(p.gp.get_response_status(), tlm::TLM_OK_RESPONSE);
  }
};

} // namespace

TEST(UnitScheduler, RawHazardStallsAsScoreboard) {
  // r1 = r2 + r3; r4 = r1 + r5 (reads r1 before it is written)
  Bench b({{inst({1}, {2, 3}), inst({4}, {1, 5})}});
  EXPECT_TRUE(b.tick(0));
  ASSERT_EQ(b.alloc.seen.size(), 1u);
  WarpInst* first = b.alloc.seen[0].txn.inst;
  EXPECT_EQ(first->issue_cycle, 0u);
  EXPECT_TRUE(b.tick(1));
  EXPECT_EQ(b.alloc.seen.size(), 1u);
  EXPECT_EQ(stall(*b.sch, kScoreboard), 1u);
  EXPECT_EQ(stall(*b.sch, kWar), 0u);
  EXPECT_EQ(b.sch->next_tick(), kNever);       // sleeps until a notification
  b.notify(3, Txn::Kind::OperandsRead, first); // not enough: r1 is still being written
  EXPECT_TRUE(b.tick(3));
  EXPECT_EQ(b.alloc.seen.size(), 1u);
  EXPECT_EQ(stall(*b.sch, kScoreboard), 3u); // cycles 1, 2 (slept) and 3
  b.notify(5, Txn::Kind::Written, first);
  EXPECT_TRUE(b.tick(5));
  ASSERT_EQ(b.alloc.seen.size(), 2u);
  EXPECT_EQ(b.alloc.seen[1].info->pc, b.fe.prog[0][1].pc);
  EXPECT_EQ(b.alloc.seen[1].at, 5u);
  EXPECT_EQ(stall(*b.sch, kScoreboard), 4u); // and 4 (slept); 5 issued
  EXPECT_EQ(stat(*b.sch, "issued"), 2u);
}

TEST(UnitScheduler, WawHazardStallsAsScoreboard) {
  Bench b({{inst({1}, {2}), inst({1}, {3})}});
  b.tick(0);
  b.notify(0, Txn::Kind::OperandsRead, b.alloc.seen[0].txn.inst);
  b.tick(1);
  EXPECT_EQ(b.alloc.seen.size(), 1u);
  EXPECT_EQ(stall(*b.sch, kScoreboard), 1u);
  EXPECT_EQ(stall(*b.sch, kWar), 0u);
}

TEST(UnitScheduler, WarHazardStallsAsWar) {
  // r1 = r2 + r3; r2 = r5 (overwrites r2 before the first has read it)
  Bench b({{inst({1}, {2, 3}), inst({2}, {5})}});
  b.tick(0);
  ASSERT_EQ(b.alloc.seen.size(), 1u);
  WarpInst* first = b.alloc.seen[0].txn.inst;
  EXPECT_TRUE(b.tick(1));
  EXPECT_EQ(b.alloc.seen.size(), 1u);
  EXPECT_EQ(stall(*b.sch, kWar), 1u);
  EXPECT_EQ(stall(*b.sch, kScoreboard), 0u);
  b.notify(2, Txn::Kind::OperandsRead, first); // sources read: r2 may be overwritten
  EXPECT_TRUE(b.tick(2));
  ASSERT_EQ(b.alloc.seen.size(), 2u);
  EXPECT_EQ(stall(*b.sch, kWar), 1u);
  EXPECT_EQ(stall(*b.sch, kScoreboard), 0u);
}

// Two instructions in flight read r2; the writer of r2 waits until both have read it, not
// just the first (the WAR entry counts readers).
TEST(UnitScheduler, WarWaitsForEveryOutstandingReader) {
  Bench b({{inst({1}, {2}), inst({3}, {2}), inst({2}, {5})}});
  EXPECT_TRUE(b.tick(0));
  EXPECT_TRUE(b.tick(1));
  ASSERT_EQ(b.alloc.seen.size(), 2u);
  WarpInst* first = b.alloc.seen[0].txn.inst;
  WarpInst* second = b.alloc.seen[1].txn.inst;
  EXPECT_TRUE(b.tick(2)); // the writer waits for both readers
  b.notify(3, Txn::Kind::OperandsRead, first);
  EXPECT_TRUE(b.tick(3));
  EXPECT_EQ(b.alloc.seen.size(), 2u); // the second reader still has to read r2
  EXPECT_EQ(stall(*b.sch, kWar), 2u); // cycles 2 and 3
  b.notify(4, Txn::Kind::OperandsRead, second);
  EXPECT_TRUE(b.tick(4));
  EXPECT_EQ(b.alloc.seen.size(), 3u);
}

TEST(UnitScheduler, IndependentInstructionsIssueBackToBack) {
  Bench b({{inst({1}, {2}), inst({3}, {4}), inst({5}, {2})}});
  for (Cycle c = 0; c < 3; ++c) EXPECT_TRUE(b.tick(c));
  EXPECT_EQ(b.alloc.seen.size(), 3u);
  for (int k : {kScoreboard, kWar, kCollectorFull}) EXPECT_EQ(stall(*b.sch, k), 0u);
  EXPECT_EQ(stat(*b.sch, "active_cycles"), 3u);
}

TEST(UnitScheduler, FullAllocatorStallsAsCollectorFull) {
  Bench b({{inst({1}, {2})}});
  b.alloc.full = true;
  b.tick(0);
  EXPECT_TRUE(b.alloc.seen.empty());
  EXPECT_EQ(stall(*b.sch, kCollectorFull), 1u);
  EXPECT_EQ(b.pool.in_flight(), 0u); // the refused record went back
  EXPECT_EQ(b.fe.pc[0], 0u);         // and was not executed
  b.alloc.full = false;
  b.sch->issue_event(); // the allocator's release wakes issue
  b.tick(1);
  EXPECT_EQ(b.alloc.seen.size(), 1u);
  EXPECT_EQ(b.fe.pc[0], 1u);
}

// Warp 0 waits on the scoreboard, warp 1 could issue but finds no collector: the cycle is
// blamed on the most structural reason, the full collectors.
TEST(UnitScheduler, AFullAllocatorIsBlamedBeforeAHazard) {
  Bench b({{inst({1}, {2}), inst({4}, {1})}, {inst({5}, {6}), inst({7}, {8})}});
  EXPECT_TRUE(b.tick(0)); // each warp issues its first instruction
  EXPECT_TRUE(b.tick(1));
  ASSERT_EQ(b.alloc.seen.size(), 2u);
  b.alloc.full = true;
  b.tick(2); // warp 0 waits for r1, warp 1 for a collector
  EXPECT_EQ(b.alloc.refused, 1u);
  EXPECT_EQ(stall(*b.sch, kCollectorFull), 1u);
  EXPECT_EQ(stall(*b.sch, kScoreboard), 0u);
}

// An allocator refusal that holds for the pipe (Txn::refuses_pipe): the other ready warps of
// that pipe are not sent this cycle, and the allocator is told how many it would have refused.
TEST(UnitScheduler, APipeWideRefusalIsNotAskedAgainInTheCycle) {
  InstInfo sfu = inst({9}, {10});
  sfu.pipe = Pipe::SFU;
  Bench b({{inst({1}, {2})}, {inst({3}, {4})}, {sfu}, {inst({5}, {6})}});
  b.alloc.full = true;
  b.alloc.refuses_pipe = true;
  b.tick(0);
  EXPECT_EQ(b.alloc.refused, 2u);      // the first SP warp and the SFU warp
  EXPECT_EQ(b.alloc.told_refused, 2u); // the two other SP warps, in one transfer
  EXPECT_EQ(stall(*b.sch, kCollectorFull), 1u);
  EXPECT_EQ(b.pool.in_flight(), 0u);
  // Without the hint every ready warp is asked.
  b.alloc.refuses_pipe = false;
  b.sch->issue_event();
  b.tick(1);
  EXPECT_EQ(b.alloc.refused, 6u);
  EXPECT_EQ(b.alloc.told_refused, 2u);
}

TEST(UnitScheduler, AHazardInOneWarpDoesNotBlockAnother) {
  Bench b({{inst({1}, {2}), inst({4}, {1})}, {inst({1}, {2})}});
  b.tick(0); // lrr starts after warp 0: warp 1
  b.tick(1); // warp 0
  b.tick(2); // warp 0's RAW: stalled, nothing else to issue
  ASSERT_EQ(b.alloc.seen.size(), 2u);
  EXPECT_EQ(b.alloc.seen[0].txn.inst->warp, 1u);
  EXPECT_EQ(b.alloc.seen[1].txn.inst->warp, 0u);
  EXPECT_EQ(stall(*b.sch, kScoreboard), 1u);
}

TEST(UnitScheduler, IdleWarpIsLookedAtAgainAfterAnIssueEvent) {
  Bench b({{inst({1}, {2})}});
  b.fe.held = {true};
  EXPECT_TRUE(b.tick(0));
  EXPECT_TRUE(b.alloc.seen.empty());
  EXPECT_EQ(stall(*b.sch, kNoInstruction), 1u);
  EXPECT_EQ(b.sch->next_tick(), kNever);
  b.fe.held = {false}; // e.g. a CTA launched into the slot
  b.clock.now = 4;
  b.sch->issue_event();
  EXPECT_FALSE(b.tick(4));
  EXPECT_TRUE(b.tick(5));
  ASSERT_EQ(b.alloc.seen.size(), 1u);
  EXPECT_EQ(b.alloc.seen[0].at, 5u);
}

// With a front-end that tracks its offer, a warp found idle is not peeked again after an
// issue event while the offer is the one it was found idle at (the scan skips it, and still
// counts its no_instruction stall), and is peeked, and issues, once the offer changed.
TEST(UnitScheduler, IdleWarpIsPeekedAgainOnlyWhenTheOfferChanged) {
  Bench b({{inst({1}, {2})}, {inst({3}, {4})}});
  b.fe.offer = 1;
  b.fe.held = {true, true};
  EXPECT_TRUE(b.tick(0));
  EXPECT_EQ(b.fe.peeks, 2u);
  EXPECT_EQ(stall(*b.sch, kNoInstruction), 1u);
  b.clock.now = 4;
  b.sch->issue_event(); // e.g. a collector freed: nothing for these warps
  EXPECT_TRUE(b.tick(5));
  EXPECT_EQ(b.fe.peeks, 2u);
  EXPECT_TRUE(b.alloc.seen.empty());
  EXPECT_EQ(stall(*b.sch, kNoInstruction), 6u); // cycles 0-5: 4 slept, 2 ticked
  b.fe.held = {true, false};                    // a CTA launched into warp 1's slot: a new offer
  b.fe.offer = 2;
  b.clock.now = 8;
  b.sch->issue_event();
  EXPECT_TRUE(b.tick(9));
  ASSERT_EQ(b.alloc.seen.size(), 1u);
  EXPECT_EQ(b.alloc.seen[0].txn.inst->warp, 1u);
  EXPECT_EQ(b.fe.peeks, 3u); // warp 1 looked at again (first in LRR order), and issued
}
