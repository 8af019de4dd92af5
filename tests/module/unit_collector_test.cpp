// Module tests of the operand collector ("ocu", and Malekeh's "ccu" where noted) alone, with stub
// allocator, arbiter, crossbar, exec and schedulers: distinct sources requested once, src_slots in
// flight, dispatch only with every operand in, the golden check, and dispatch retry when the pipe
// is busy. One simulation per process: run through ctest.
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpurf/modules/collector/i_collector.h"
#include "gpurf/platform/config.h"
#include "gpurf/policies/reg_mapping.h"
#include "tests/support/stubs.h"

using namespace gpurf;
using namespace gpurf::test;

namespace {

LaneValues lanes(uint32_t base) {
  LaneValues v;
  for (unsigned l = 0; l < kWarpSize; ++l) v[l] = base * 1000 + l;
  return v;
}

struct Bench {
  SimClock clock;
  SmShape shape;
  std::unique_ptr<RegMapping> mapping;
  UnitConfig conf;
  std::unique_ptr<ICollector> col;
  StubInit alloc{"alloc"}, xbar{"xbar"}, wb{"wb"};
  StubTarget arb{"arb", &clock}, exec{"exec", &clock}, release{"release", &clock},
      sched0{"sched0", &clock}, sched1{"sched1", &clock}, results{"results", &clock};
  InstInfo info;
  WarpInst inst;

  // An instruction of warp 5 at pc 12 reading `srcs` (duplicates allowed).
  Bench(const std::string& yaml, std::vector<uint16_t> srcs, unsigned slices = 1,
        const char* impl = "ocu") {
    shape.banks = 4;
    shape.slices = slices;
    shape.subcores = 1;
    mapping = install_mapping(shape);
    col = make_unit<ICollector>(conf, yaml, "collector.yaml", "collector", impl, "collector2",
                                clock, &shape, [&](UnitContext& c) { c.index = 2; });
    alloc.sock.bind(col->in);
    xbar.sock.bind(col->from_xbar);
    wb.sock.bind(col->from_wb);
    col->to_arb.bind(arb.sock);
    col->to_exec.bind(exec.sock);
    col->to_alloc.bind(release.sock);
    col->to_sched.bind(sched0.sock);
    col->to_sched.bind(sched1.sock);
    results.full = true; // no result in flight: nothing to forward
    col->to_fwd.bind(results.sock);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);

    info.pc = 12;
    info.ptx_line = 77;
    info.opname = "fma";
    info.n_src = inst.n_src = static_cast<uint8_t>(srcs.size());
    for (unsigned k = 0; k < srcs.size(); ++k) {
      info.src_reg[k] = srcs[k];
      inst.src[k].reg = srcs[k];
      inst.src[k].value = lanes(srcs[k]);
    }
    info.n_dst = inst.n_dst = 1;
    info.dst_reg[0] = 9;
    inst.info = &info;
    inst.warp = 5;
    inst.scheduler = 1;
    inst.active_mask = ~0u;
  }

  void issue(Cycle now) {
    clock.now = now;
    Packet p;
    p.prepare(Txn::Kind::Issue);
    p.txn.inst = &inst;
    alloc.sock->b_transport(p.gp, p.delay);
    EXPECT_EQ(p.gp.get_response_status(), tlm::TLM_OK_RESPONSE);
  }
  // The crossbar delivers the operand the k-th recorded read asked for.
  void deliver(Cycle now, unsigned k, LaneValues value, unsigned delay_cycles = 0) {
    clock.now = now;
    ASSERT_LT(k, arb.seen.size());
    Packet p;
    p.prepare(Txn::Kind::Read, tlm::TLM_READ_COMMAND);
    p.txn = arb.seen[k].txn;
    p.gp.set_data_ptr(reinterpret_cast<unsigned char*>(value.data()));
    p.gp.set_data_length(kRegBytes);
    p.delay = clock.time(delay_cycles);
    xbar.sock->b_transport(p.gp, p.delay);
  }
  void deliver_right(Cycle now, unsigned k, unsigned delay_cycles = 0) {
    deliver(now, k, lanes(arb.seen.at(k).txn.reg), delay_cycles);
  }
  // Ticks the collector at `now` if it asked to be.
  bool tick(Cycle now) {
    clock.now = now;
    if (col->next_tick() > now) return false;
    col->clear_tick();
    col->tick(now);
    return true;
  }
};

} // namespace

TEST(UnitCollector, RequestsEachDistinctSourceOnce) {
  Bench b("{src_slots: 8}", {3, 6, 3, 6, 10});
  b.issue(0);
  EXPECT_TRUE(b.arb.seen.empty()); // requests start the cycle after the issue
  EXPECT_TRUE(b.tick(1));
  ASSERT_EQ(b.arb.seen.size(), 3u);
  const uint16_t want[] = {3, 6, 10};
  for (unsigned k = 0; k < 3; ++k) {
    const Txn& t = b.arb.seen[k].txn;
    EXPECT_EQ(t.kind, Txn::Kind::Read);
    EXPECT_EQ(t.reg, want[k]);
    EXPECT_EQ(t.warp, 5u);
    EXPECT_EQ(t.collector, 2u); // this collector's index
    EXPECT_EQ(t.operand, k);
    EXPECT_EQ(t.inst, &b.inst);
    const BankLoc loc = b.mapping->map(b.shape.local_warp(5), want[k]);
    EXPECT_EQ(t.bank, loc.bank);
    EXPECT_EQ(t.row, loc.row);
    EXPECT_EQ(t.slice_mask, 0x1);
  }
  EXPECT_EQ(stat(*b.col, "reads_requested"), 3u);
  for (unsigned k = 0; k < 3; ++k) b.deliver_right(2, k);
  EXPECT_TRUE(b.tick(2));
  EXPECT_EQ(b.arb.seen.size(), 3u); // nothing requested twice
  ASSERT_EQ(b.exec.seen.size(), 1u);
  EXPECT_EQ(stat(*b.col, "operands_checked"), 5u); // every source slot checked
}

TEST(UnitCollector, ReadsCoverEverySliceOfTheBank) {
  Bench b("{}", {1}, 4);
  b.issue(0);
  b.tick(1);
  ASSERT_EQ(b.arb.seen.size(), 1u);
  EXPECT_EQ(b.arb.seen[0].txn.slice_mask, 0xf);
}

TEST(UnitCollector, AtMostSrcSlotsOutstanding) {
  Bench b("{src_slots: 2}", {1, 2, 3, 4, 5});
  b.issue(0);
  b.tick(1);
  EXPECT_EQ(b.arb.seen.size(), 2u);
  EXPECT_FALSE(b.tick(2)); // waits for an operand
  EXPECT_EQ(b.arb.seen.size(), 2u);
  b.deliver_right(3, 0);
  EXPECT_TRUE(b.tick(3));
  EXPECT_EQ(b.arb.seen.size(), 3u); // one slot freed, one more request
  EXPECT_EQ(b.arb.seen[2].txn.reg, 3u);
  b.deliver_right(4, 1);
  b.deliver_right(4, 2);
  EXPECT_TRUE(b.tick(4));
  EXPECT_EQ(b.arb.seen.size(), 5u);
  EXPECT_TRUE(b.exec.seen.empty());
  b.deliver_right(5, 3);
  b.deliver_right(5, 4);
  EXPECT_TRUE(b.tick(5));
  EXPECT_EQ(b.exec.seen.size(), 1u);
  EXPECT_EQ(stat(*b.col, "reads_requested"), 5u);
}

TEST(UnitCollector, DispatchesOnlyWhenEveryOperandArrived) {
  Bench b("{src_slots: 4}", {4, 8, 12});
  b.issue(10);
  b.tick(11);
  ASSERT_EQ(b.arb.seen.size(), 3u);
  b.deliver_right(11, 0);
  b.deliver_right(11, 2);
  b.tick(11);
  b.tick(12);
  EXPECT_TRUE(b.exec.seen.empty());
  EXPECT_TRUE(b.sched1.seen.empty()); // no OperandsRead before every source is in
  EXPECT_TRUE(b.release.seen.empty());
  b.deliver_right(13, 1, 2); // arrives with 2 cycles of delay: usable at 15
  EXPECT_FALSE(b.tick(13));
  EXPECT_FALSE(b.tick(14));
  EXPECT_TRUE(b.tick(15));
  ASSERT_EQ(b.exec.seen.size(), 1u);
  EXPECT_EQ(b.exec.seen[0].txn.kind, Txn::Kind::Dispatch);
  EXPECT_EQ(b.exec.seen[0].txn.inst, &b.inst);
  EXPECT_EQ(b.exec.seen[0].at, 15u);
  EXPECT_EQ(b.inst.dispatch_cycle, 15u);
  // OperandsRead to the instruction's scheduler (1), release to the allocator.
  EXPECT_TRUE(b.sched0.seen.empty());
  ASSERT_EQ(b.sched1.seen.size(), 1u);
  EXPECT_EQ(b.sched1.seen[0].txn.kind, Txn::Kind::OperandsRead);
  ASSERT_EQ(b.release.seen.size(), 1u);
  EXPECT_EQ(b.release.seen[0].txn.kind, Txn::Kind::Release);
  EXPECT_EQ(stat(*b.col, "dispatched"), 1u);
  EXPECT_EQ(stat(*b.col, "oc_writes"), 3u);
  EXPECT_EQ(b.col->next_tick(), kNever); // free and asleep
  // Allocated at 10, dispatched at 15: one sample of 5 cycles.
  const Distribution& lat = dist(*b.col, "collection_latency");
  EXPECT_EQ(lat.count, 1u);
  EXPECT_EQ(lat.min, 5u);
  EXPECT_EQ(lat.max, 5u);
  EXPECT_EQ(lat.percentile(50), 5u);
}

TEST(UnitCollector, WrongOperandValueStopsWithWarpPcRegisterAndLane) {
  Bench b("{}", {2, 7});
  b.issue(0);
  b.tick(1);
  ASSERT_EQ(b.arb.seen.size(), 2u);
  b.deliver_right(2, 0);
  LaneValues bad = lanes(7);
  bad[19] ^= 0x100;
  b.deliver(2, 1, bad);
  try {
    b.tick(2);
    FAIL() << "no exception for a wrong operand";
  } catch (const std::runtime_error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("warp 5"), std::string::npos) << m;
    EXPECT_NE(m.find("pc 12"), std::string::npos) << m;
    EXPECT_NE(m.find("r7"), std::string::npos) << m;
    EXPECT_NE(m.find("lane 19"), std::string::npos) << m;
    EXPECT_NE(m.find("PTX line 77"), std::string::npos) << m;
  }
  EXPECT_TRUE(b.exec.seen.empty());
}

TEST(UnitCollector, BusyExecIsRetriedAndCounted) {
  Bench b("{}", {1, 2});
  b.exec.busy_for = 3;
  b.issue(0);
  b.tick(1);
  b.deliver_right(1, 0);
  b.deliver_right(1, 1);
  EXPECT_TRUE(b.tick(2)); // refused
  EXPECT_TRUE(b.tick(3)); // refused
  EXPECT_TRUE(b.tick(4)); // refused
  EXPECT_TRUE(b.exec.seen.empty());
  EXPECT_EQ(stat(*b.col, "dispatch_stall_cycles"), 3u);
  EXPECT_TRUE(b.release.seen.empty()); // still holding the instruction
  EXPECT_TRUE(b.tick(5));
  ASSERT_EQ(b.exec.seen.size(), 1u);
  EXPECT_EQ(b.exec.seen[0].at, 5u);
  EXPECT_EQ(b.exec.refused, 3u);
  EXPECT_EQ(stat(*b.col, "dispatch_stall_cycles"), 3u);
  EXPECT_EQ(stat(*b.col, "dispatched"), 1u);
  EXPECT_EQ(b.sched1.seen.size(), 1u); // OperandsRead sent once, not per retry
  EXPECT_EQ(b.release.seen.size(), 1u);
  EXPECT_EQ(b.arb.seen.size(), 2u);
}

// A pipe that names the cycle it frees (Txn::retry_at): the collector sleeps until then, and
// counts the cycles it slept as the refused retries they replace, here and at the pipe.
TEST(UnitCollector, RefusedDispatchSleepsUntilThePipesCycle) {
  Bench b("{}", {1, 2});
  b.exec.full = true;
  b.exec.retry_at = 9;
  b.issue(0);
  b.tick(1);
  b.deliver_right(1, 0);
  b.deliver_right(1, 1);
  EXPECT_TRUE(b.tick(2)); // refused
  EXPECT_EQ(b.col->next_tick(), 9u);
  for (Cycle c = 3; c < 9; ++c) EXPECT_FALSE(b.tick(c));
  EXPECT_EQ(b.exec.refused, 1u);
  b.exec.full = false;
  EXPECT_TRUE(b.tick(9));
  ASSERT_EQ(b.exec.seen.size(), 1u);
  EXPECT_EQ(b.exec.seen[0].at, 9u);
  EXPECT_EQ(b.exec.skipped, 6u); // cycles 3-8
  EXPECT_EQ(stat(*b.col, "dispatch_stall_cycles"), 7u);
  EXPECT_EQ(b.release.seen.size(), 1u);
}

// A pipe refusing until its wire (retry_at kNever, the LSU's full queue): asleep until
// dispatch_event(); a time series settling it mid-sleep counts the cycles slept so far.
TEST(UnitCollector, RefusedDispatchSleepsUntilTheWire) {
  Bench b("{}", {1});
  b.exec.full = true;
  b.exec.retry_at = kNever;
  b.issue(0);
  b.tick(1);
  b.deliver_right(1, 0);
  EXPECT_TRUE(b.tick(2)); // refused
  EXPECT_EQ(b.col->next_tick(), kNever);
  b.col->settle(5); // cycles 3 and 4
  EXPECT_EQ(stat(*b.col, "dispatch_stall_cycles"), 3u);
  b.clock.now = 7;
  b.col->dispatch_event();
  EXPECT_EQ(b.col->next_tick(), 7u);
  b.exec.full = false;
  EXPECT_TRUE(b.tick(7));
  ASSERT_EQ(b.exec.seen.size(), 1u);
  EXPECT_EQ(b.exec.skipped, 4u); // cycles 3-6
  EXPECT_EQ(stat(*b.col, "dispatch_stall_cycles"), 5u);
  // No refusal outstanding: the wire wakes nothing.
  b.col->clear_tick();
  b.col->dispatch_event();
  EXPECT_EQ(b.col->next_tick(), kNever);
}

TEST(UnitCollector, InstructionWithoutSourcesDispatchesNextCycle) {
  Bench b("{}", {});
  b.issue(3);
  EXPECT_TRUE(b.tick(4));
  EXPECT_TRUE(b.arb.seen.empty());
  ASSERT_EQ(b.exec.seen.size(), 1u);
  EXPECT_EQ(b.exec.seen[0].at, 4u);
}

TEST(UnitCollector, TakesANewInstructionAfterRelease) {
  Bench b("{}", {1});
  b.issue(0);
  b.tick(1);
  b.deliver_right(1, 0);
  b.tick(2);
  ASSERT_EQ(b.release.seen.size(), 1u);
  b.info.src_reg[0] = 6;
  b.inst.src[0].value = lanes(6);
  b.issue(3);
  b.tick(4);
  ASSERT_EQ(b.arb.seen.size(), 2u);
  EXPECT_EQ(b.arb.seen[1].txn.reg, 6u);
  EXPECT_EQ(b.arb.seen[1].txn.operand, 0u);
  b.deliver_right(4, 1);
  b.tick(5);
  EXPECT_EQ(b.exec.seen.size(), 2u);
}

// A tensor-core instruction has more source registers than the OCU's 6 slots (m16n8k16 f32:
// 4 + 2 + 4) and than a CCU's 8 entries (docs/malekeh.md, "Source slots"): the CCU collects
// every source, at most src_slots in flight, and caches the first `entries` of them; the same
// instruction again finds those in the table and reads only the rest.
TEST(UnitCollector, CcuCollectsMoreSourcesThanSlotsAndEntries) {
  Bench b("{src_slots: 6, entries: 8}", {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 1, "ccu");
  b.issue(0);
  EXPECT_TRUE(b.tick(1));
  EXPECT_EQ(b.arb.seen.size(), 6u); // src_slots in flight
  for (unsigned k = 0; k < 6; ++k) b.deliver_right(2, k);
  b.tick(2);
  ASSERT_EQ(b.arb.seen.size(), 10u);
  EXPECT_TRUE(b.exec.seen.empty());
  for (unsigned k = 6; k < 10; ++k) b.deliver_right(3, k);
  b.tick(3);
  ASSERT_EQ(b.exec.seen.size(), 1u);
  EXPECT_EQ(stat(*b.col, "operands_checked"), 10u);
  EXPECT_EQ(stat(*b.col, "ccu_hits"), 0u);
  ASSERT_EQ(b.release.seen.size(), 1u);

  b.issue(5); // the same warp: no flush
  b.tick(6);
  ASSERT_EQ(b.arb.seen.size(), 12u); // only the two the table could not hold
  EXPECT_EQ(b.arb.seen[10].txn.reg, 9u);
  EXPECT_EQ(b.arb.seen[11].txn.reg, 10u);
  b.deliver_right(6, 10);
  b.deliver_right(6, 11);
  b.tick(7);
  ASSERT_EQ(b.exec.seen.size(), 2u);
  EXPECT_EQ(stat(*b.col, "ccu_hits"), 8u);
  EXPECT_EQ(stat(*b.col, "source_operands"), 20u);
  EXPECT_EQ(stat(*b.col, "operands_checked"), 20u);
}
