// Module tests of the writeback ("priority") alone, with stub exec/LSU, arbiter and
// schedulers and a stub front-end: write ports shared in pipe priority order, retirement
// only after every WriteDone. One simulation per process: run through ctest.
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpurf/modules/common/inst_pool.h"
#include "gpurf/modules/frontend/i_frontend.h"
#include "gpurf/modules/writeback/i_writeback.h"
#include "gpurf/platform/config.h"
#include "gpurf/policies/reg_mapping.h"
#include "gpurf/policies/row_tags.h"
#include "tests/support/stubs.h"

using namespace gpurf;
using namespace gpurf::test;

namespace {

struct StubFrontend : IFrontend {
  std::vector<const WarpInst*> retired;
  Occupancy start(const SmLimits&, unsigned, IFunctionalMemory&) override { return {}; }
  const InstInfo* peek(unsigned) override { return nullptr; }
  void execute(unsigned, WarpInst&) override {}
  void retire(const WarpInst& i) override { retired.push_back(&i); }
  bool done() const override { return false; }
  std::string describe_warp(unsigned) const override { return ""; }
};

struct Bench {
  SimClock clock;
  SmShape shape;
  std::unique_ptr<RegMapping> mapping;
  StubFrontend fe;
  InstPool pool;
  unsigned issue_wakes = 0;
  UnitConfig conf;
  std::unique_ptr<IWriteback> wb;
  StubInit exec{"exec"}, lsu{"lsu"}, arb_done{"arb_done"}, fwd{"fwd"};
  StubTarget arb{"arb", &clock}, sched0{"sched0", &clock}, sched1{"sched1", &clock};
  InstInfo info[kNumPipes];

  // `tags`: the CMRC mask buffer (impl cmrc: banks of 4 slices).
  explicit Bench(const std::string& yaml, const std::string& impl = "priority",
                 RowTags* tags = nullptr) {
    shape.banks = 4;
    shape.slices = tags ? 4 : 1;
    mapping = install_mapping(shape);
    wb = make_unit<IWriteback>(conf, yaml, "writeback.yaml", "writeback", impl, "writeback", clock,
                               &shape, [&](UnitContext& c) {
                                 c.frontend = &fe;
                                 c.pool = &pool;
                                 c.wake_issue = [this] { ++issue_wakes; };
                                 c.row_tags = tags;
                               });
    exec.sock.bind(wb->in);
    lsu.sock.bind(wb->in);
    arb_done.sock.bind(wb->write_done);
    wb->to_arb.bind(arb.sock);
    wb->to_sched.bind(sched0.sock);
    wb->to_sched.bind(sched1.sock);
    fwd.sock.bind(wb->forward);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
    for (unsigned i = 0; i < kNumPipes; ++i) {
      info[i].pipe = static_cast<Pipe>(i);
      info[i].pc = 100 + i;
    }
  }

  // A completed instruction of pipe `p` writing `dsts`, ready `latency` cycles after `now`.
  // Announce: the result's ready cycle comes later (answer()).
  WarpInst* complete(Cycle now, Pipe p, std::vector<uint16_t> dsts, unsigned latency,
                     unsigned warp = 3, unsigned scheduler = 1,
                     Txn::Kind kind = Txn::Kind::Complete) {
    clock.now = now;
    InstInfo& in = info[static_cast<unsigned>(p)];
    WarpInst* inst = pool.get();
    in.n_dst = inst->n_dst = static_cast<uint8_t>(dsts.size());
    for (unsigned k = 0; k < dsts.size(); ++k) {
      in.dst_reg[k] = dsts[k];
      inst->dst[k].reg = dsts[k];
    }
    inst->info = &in;
    inst->warp = warp;
    inst->scheduler = scheduler;
    Packet pk;
    pk.prepare(kind);
    pk.txn.inst = inst;
    pk.delay = clock.time(latency);
    (p == Pipe::MEM ? lsu : exec).sock->b_transport(pk.gp, pk.delay);
    EXPECT_EQ(pk.gp.get_response_status(), tlm::TLM_OK_RESPONSE);
    return inst;
  }
  // The memory answered the announced `inst` (AT): ready `latency` cycles after `now`.
  void answer(Cycle now, WarpInst* inst, unsigned latency) {
    clock.now = now;
    Packet pk;
    pk.prepare(Txn::Kind::Answered);
    pk.txn.inst = inst;
    pk.delay = clock.time(latency);
    lsu.sock->b_transport(pk.gp, pk.delay);
    EXPECT_FALSE(pk.txn.busy);
  }
  // The arbiter acknowledges the k-th write it received.
  void write_done(Cycle now, unsigned k) {
    clock.now = now;
    Packet pk;
    pk.prepare(Txn::Kind::WriteDone, tlm::TLM_WRITE_COMMAND);
    pk.txn = arb.seen.at(k).txn;
    pk.txn.kind = Txn::Kind::WriteDone;
    arb_done.sock->b_transport(pk.gp, pk.delay);
  }
  bool tick(Cycle now) {
    clock.now = now;
    if (wb->next_tick() > now) return false;
    wb->clear_tick();
    wb->tick(now);
    return true;
  }
};

} // namespace

TEST(UnitWriteback, HigherPriorityPipeWritesFirst) {
  Bench b("{ports: 1, priority: [sfu, sp]}");
  WarpInst* sp = b.complete(0, Pipe::SP, {4}, 4);
  WarpInst* sfu = b.complete(2, Pipe::SFU, {7}, 2); // both ready at cycle 4
  EXPECT_EQ(sp->complete_cycle, 4u);
  EXPECT_EQ(sfu->complete_cycle, 4u);
  EXPECT_FALSE(b.tick(3));
  EXPECT_TRUE(b.tick(4));
  ASSERT_EQ(b.arb.seen.size(), 1u);
  EXPECT_EQ(b.arb.seen[0].txn.inst, sfu);
  EXPECT_EQ(b.arb.seen[0].txn.reg, 7u);
  EXPECT_EQ(stat(*b.wb, "port_stall_cycles"), 1u);
  EXPECT_TRUE(b.tick(5));
  ASSERT_EQ(b.arb.seen.size(), 2u);
  EXPECT_EQ(b.arb.seen[1].txn.inst, sp);
  EXPECT_EQ(b.arb.seen[1].at, 5u);
  EXPECT_EQ(stat(*b.wb, "register_writes"), 2u);
}

TEST(UnitWriteback, PriorityOrderIsConfigurable) {
  Bench b("{ports: 1, priority: [sp, sfu]}");
  WarpInst* sp = b.complete(0, Pipe::SP, {4}, 1);
  b.complete(0, Pipe::SFU, {7}, 1);
  b.tick(1);
  ASSERT_EQ(b.arb.seen.size(), 1u);
  EXPECT_EQ(b.arb.seen[0].txn.inst, sp);
}

TEST(UnitWriteback, WriteCarriesTheMappedLocation) {
  Bench b("{ports: 2}");
  WarpInst* i = b.complete(0, Pipe::SP, {9, 10}, 1, 6);
  b.tick(1);
  ASSERT_EQ(b.arb.seen.size(), 2u); // two ports: both destinations in one cycle
  for (unsigned k = 0; k < 2; ++k) {
    const Txn& t = b.arb.seen[k].txn;
    EXPECT_EQ(t.kind, Txn::Kind::Write);
    EXPECT_EQ(t.inst, i);
    EXPECT_EQ(t.warp, 6u);
    EXPECT_EQ(t.operand, k);
    const BankLoc loc = b.mapping->map(6, 9 + k);
    EXPECT_EQ(t.bank, loc.bank);
    EXPECT_EQ(t.row, loc.row);
    EXPECT_EQ(t.slice_mask, 0x1);
  }
}

TEST(UnitWriteback, RetiresOnlyAfterEveryWriteDone) {
  Bench b("{ports: 1}");
  WarpInst* i = b.complete(0, Pipe::SP, {2, 3}, 1);
  b.tick(1);
  ASSERT_EQ(b.arb.seen.size(), 1u);
  b.write_done(1, 0);
  EXPECT_TRUE(b.fe.retired.empty()); // the second destination is not even sent
  EXPECT_TRUE(b.sched1.seen.empty());
  EXPECT_TRUE(b.tick(2));
  ASSERT_EQ(b.arb.seen.size(), 2u);
  EXPECT_EQ(b.arb.seen[1].txn.operand, 1u);
  EXPECT_TRUE(b.fe.retired.empty()); // sent, not yet in the bank
  EXPECT_EQ(b.pool.in_flight(), 1u);
  b.write_done(4, 1);
  ASSERT_EQ(b.fe.retired.size(), 1u);
  EXPECT_EQ(b.fe.retired[0], i);
  ASSERT_EQ(b.sched1.seen.size(), 1u); // Written to the instruction's scheduler
  EXPECT_EQ(b.sched1.seen[0].txn.kind, Txn::Kind::Written);
  EXPECT_EQ(b.sched1.seen[0].txn.inst, i);
  EXPECT_TRUE(b.sched0.seen.empty());
  EXPECT_EQ(stat(*b.wb, "retired"), 1u);
  EXPECT_EQ(b.pool.in_flight(), 0u);
  EXPECT_GE(b.issue_wakes, 1u);
}

TEST(UnitWriteback, WriteDonesInAnyOrder) {
  Bench b("{ports: 2}");
  WarpInst* i = b.complete(0, Pipe::SP, {2, 3}, 1);
  b.tick(1);
  ASSERT_EQ(b.arb.seen.size(), 2u);
  b.write_done(2, 1);
  EXPECT_TRUE(b.fe.retired.empty());
  b.write_done(3, 0);
  ASSERT_EQ(b.fe.retired.size(), 1u);
  EXPECT_EQ(b.fe.retired[0], i);
}

TEST(UnitWriteback, NoDestinationRetiresWhenReady) {
  Bench b("{ports: 1}");
  WarpInst* i = b.complete(0, Pipe::MEM, {}, 3, 3, 0);
  EXPECT_FALSE(b.tick(2));
  EXPECT_TRUE(b.tick(3));
  EXPECT_TRUE(b.arb.seen.empty());
  ASSERT_EQ(b.fe.retired.size(), 1u);
  EXPECT_EQ(b.fe.retired[0], i);
  ASSERT_EQ(b.sched0.seen.size(), 1u);
}

// With `results: 1` the writeback holds one produced result: while it is announced for a
// later cycle it takes no entry; from its ready cycle to its retirement another pipe's
// request for a result slot, and a Complete, are refused.
TEST(UnitWriteback, FullResultBufferRefusesUntilARetirement) {
  Bench b("{ports: 1, results: 1}");
  b.complete(0, Pipe::SP, {4}, 2);
  auto refused = [&](Cycle now, Txn::Kind k) {
    b.clock.now = now;
    Packet pk;
    pk.prepare(k);
    pk.txn.inst = b.pool.get();
    pk.txn.inst->info = &b.info[0];
    b.exec.sock->b_transport(pk.gp, pk.delay);
    b.pool.put(pk.txn.inst);
    return pk.txn.busy;
  };
  EXPECT_FALSE(refused(1, Txn::Kind::ResultSlot)); // ready only at cycle 2
  EXPECT_TRUE(refused(2, Txn::Kind::ResultSlot));
  EXPECT_TRUE(refused(2, Txn::Kind::Complete));
  EXPECT_TRUE(b.tick(2)); // the write leaves
  EXPECT_TRUE(refused(2, Txn::Kind::ResultSlot));
  b.write_done(3, 0); // retires
  EXPECT_FALSE(refused(3, Txn::Kind::ResultSlot));
}

// A load the memory answers later (AT) is announced when the LSU finishes it and keeps that
// place among the pipe's results: answered in the cycle a younger result is ready, it takes
// the write port first, as the direct port's load (handed over with its ready cycle) does.
// Until it is ready it takes no entry of the result buffer.
TEST(UnitWriteback, AnAnnouncedResultKeepsItsPlace) {
  Bench b("{ports: 1, results: 1}");
  WarpInst* load = b.complete(0, Pipe::MEM, {4}, 0, 3, 1, Txn::Kind::Announce);
  WarpInst* younger = b.complete(5, Pipe::MEM, {7}, 5); // ready at 10; the buffer had room
  EXPECT_FALSE(b.tick(9));
  b.answer(10, load, 0);
  EXPECT_EQ(load->complete_cycle, 10u);
  EXPECT_TRUE(b.tick(10));
  ASSERT_EQ(b.arb.seen.size(), 1u);
  EXPECT_EQ(b.arb.seen[0].txn.inst, load);
  EXPECT_TRUE(b.tick(11));
  ASSERT_EQ(b.arb.seen.size(), 2u);
  EXPECT_EQ(b.arb.seen[1].txn.inst, younger);
}

// CMRC (docs/cmrc.md, Divergence): a divergent result that fits its register's stored width
// is written at that width (the inactive lanes keep their stored bytes); one wider than it is
// written full width. warp 0: r4 -> bank 0 row 1 (odd), r8 -> bank 0 row 2 (even).
TEST(UnitWriteback, CmrcDivergentResultKeepsTheStoredWidthWhenItFits) {
  RowTags masks(4, 64);
  Bench b("{ports: 2}", "cmrc", &masks);
  masks.set(0, 2, 0b001); // r8 holds a 2-byte value
  WarpInst* i = b.complete(0, Pipe::SP, {4, 8}, 1, 0);
  i->active_mask = 0x0000ffffu; // divergent: 16 of 32 lanes
  i->dst[0].value.fill(0x7f);   // 1 byte; r4 never written (stored width 1 byte)
  i->dst[1].value.fill(0x12);   // 1 byte, narrower than r8's 2 bytes
  b.tick(1);
  ASSERT_EQ(b.arb.seen.size(), 2u);
  EXPECT_EQ(b.arb.seen[0].txn.slice_mask, 0x8); // odd row, 1 byte: slice 3
  EXPECT_EQ(b.arb.seen[1].txn.slice_mask, 0x3); // even row, r8's 2 bytes: slices 0-1
  EXPECT_EQ(masks.get(0, 1), 0b000);
  EXPECT_EQ(masks.get(0, 2), 0b001);
  EXPECT_EQ(stat(*b.wb, "divergent_full_writes"), 0u);
}
TEST(UnitWriteback, CmrcDivergentResultWiderThanStoredIsFullWidth) {
  RowTags masks(4, 64);
  Bench b("{ports: 2}", "cmrc", &masks);
  WarpInst* i = b.complete(0, Pipe::SP, {8}, 1, 0);
  i->active_mask = 0x0000ffffu;
  i->dst[0].value.fill(0x1234); // 2 bytes, r8 stores 1
  b.tick(1);
  ASSERT_EQ(b.arb.seen.size(), 1u);
  EXPECT_EQ(b.arb.seen[0].txn.slice_mask, 0xf);
  EXPECT_EQ(masks.get(0, 2), 0b111);
  EXPECT_EQ(stat(*b.wb, "divergent_full_writes"), 1u);
}
