// Module tests of the bank arbiter ("write_first") alone, with stub banks, a stub writeback
// and stub requesters: write priority, conflicts by kind, 1r1w banks, collector ports and
// the slice-port rule. One simulation per process: run through ctest.
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpurf/modules/arbiter/i_arbiter.h"
#include "gpurf/platform/config.h"
#include "tests/support/stubs.h"

using namespace gpurf;
using namespace gpurf::test;

namespace {

enum { kReadRead, kReadWrite, kWriteWrite, kCollectorPort };

struct Bank {
  unsigned slices;
  bool split;
  unsigned read_ports = 1;
};

struct Bench {
  SimClock clock;
  UnitConfig conf;
  std::unique_ptr<IArbiter> arb;
  std::vector<std::unique_ptr<StubTarget>> banks;
  StubTarget wb{"wb", &clock};
  StubInit collectors{"collectors"}, writeback{"writeback"};
  WarpInst inst; // the instruction the writes come from

  Bench(std::vector<Bank> layout, const std::string& yaml = "{}",
        const std::string& impl = "write_first") {
    arb = make_unit<IArbiter>(conf, yaml, "arbiter.yaml", "arbiter", impl, "arbiter", clock);
    for (unsigned b = 0; b < layout.size(); ++b) {
      banks.push_back(std::make_unique<StubTarget>(("bank" + std::to_string(b)).c_str(), &clock));
      arb->to_bank.bind(banks.back()->sock);
      arb->add_bank(layout[b].slices, layout[b].split, layout[b].read_ports);
    }
    arb->to_wb.bind(wb.sock);
    collectors.sock.bind(arb->in);
    writeback.sock.bind(arb->in);
    for (auto& d : inst.dst) d.value.fill(0x5a5a5a5a);
    inst.n_dst = 2;
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
  }

  void read(unsigned bank, unsigned row, unsigned collector, unsigned mask = 0x1) {
    Packet p;
    p.prepare(Txn::Kind::Read, tlm::TLM_READ_COMMAND);
    p.txn.inst = &inst;
    p.txn.bank = bank;
    p.txn.row = row;
    p.txn.collector = collector;
    p.txn.slice_mask = mask;
    collectors.sock->b_transport(p.gp, p.delay);
    EXPECT_EQ(p.gp.get_response_status(), tlm::TLM_OK_RESPONSE);
  }
  void write(unsigned bank, unsigned row, unsigned mask = 0x1, unsigned operand = 0,
             WarpInst* from = nullptr) {
    Packet p;
    p.prepare(Txn::Kind::Write, tlm::TLM_WRITE_COMMAND);
    p.txn.inst = from ? from : &inst;
    p.txn.bank = bank;
    p.txn.row = row;
    p.txn.slice_mask = mask;
    p.txn.operand = operand;
    writeback.sock->b_transport(p.gp, p.delay);
    EXPECT_EQ(p.gp.get_response_status(), tlm::TLM_OK_RESPONSE);
  }
  // Runs the cycle `now` if the arbiter asked for it.
  void tick(Cycle now) {
    clock.now = now;
    ASSERT_LE(arb->next_tick(), now) << "arbiter asleep at cycle " << now;
    arb->clear_tick();
    arb->tick(now);
  }
  uint64_t conflicts(int kind) { return stat(*arb, "conflicts", kind); }
};

} // namespace

TEST(UnitArbiter, WriteBeatsReadOnASharedPort) {
  Bench b({{1, false}, {1, false}});
  b.read(0, 3, 0);
  b.write(0, 7);
  b.tick(0);
  auto& bank = *b.banks[0];
  ASSERT_EQ(bank.seen.size(), 1u);
  EXPECT_EQ(bank.seen[0].cmd, tlm::TLM_WRITE_COMMAND);
  EXPECT_EQ(bank.seen[0].addr, 7u * kRegBytes);
  ASSERT_EQ(b.wb.seen.size(), 1u); // WriteDone to the writeback in the same cycle
  EXPECT_EQ(b.wb.seen[0].txn.kind, Txn::Kind::WriteDone);
  EXPECT_EQ(b.wb.seen[0].txn.inst, &b.inst);
  EXPECT_EQ(b.conflicts(kReadWrite), 1u);
  EXPECT_EQ(b.conflicts(kReadRead), 0u);
  EXPECT_EQ(b.arb->next_tick(), 1u); // the read is still queued
  b.tick(1);
  ASSERT_EQ(bank.seen.size(), 2u);
  EXPECT_EQ(bank.seen[1].cmd, tlm::TLM_READ_COMMAND);
  EXPECT_EQ(bank.seen[1].addr, 3u * kRegBytes);
  EXPECT_EQ(bank.seen[1].at, 1u);
  EXPECT_EQ(b.conflicts(kReadWrite), 1u);
  EXPECT_EQ(stat(*b.arb, "reads_granted"), 1u);
  EXPECT_EQ(stat(*b.arb, "writes_granted"), 1u);
  EXPECT_EQ(b.arb->next_tick(), kNever); // nothing left: asleep
  EXPECT_TRUE(b.banks[1]->seen.empty());
}

TEST(UnitArbiter, TwoReadsToOneBankConflict) {
  Bench b({{1, false}, {1, false}}, "{collector_ports: 2}");
  b.read(1, 0, 0);
  b.read(1, 5, 1);
  b.tick(0);
  ASSERT_EQ(b.banks[1]->seen.size(), 1u);
  EXPECT_EQ(b.banks[1]->seen[0].addr, 0u); // FIFO: the first request goes first
  EXPECT_EQ(b.conflicts(kReadRead), 1u);
  EXPECT_EQ(b.conflicts(kReadWrite), 0u);
  EXPECT_EQ(b.conflicts(kCollectorPort), 0u);
  b.tick(1);
  ASSERT_EQ(b.banks[1]->seen.size(), 2u);
  EXPECT_EQ(b.banks[1]->seen[1].addr, 5u * kRegBytes);
  EXPECT_EQ(b.conflicts(kReadRead), 1u);
}

// Each read samples the requests (reads and writes) already queued at its bank: 0 in an empty
// bank, and behind a read and a write 2; what is left after a cycle's grants is what the next
// read finds.
TEST(UnitArbiter, EachReadSamplesTheQueueItJoins) {
  Bench b({{1, false}, {1, false}}, "{collector_ports: 2}");
  b.read(1, 0, 0); // 0
  b.write(1, 3);   // writes are not sampled
  b.read(1, 5, 1); // 2: the read and the write ahead
  b.read(0, 1, 0); // 0: bank 0 is empty
  b.tick(0);       // bank 1 grants the write; both reads wait (one shared port)
  b.read(1, 6, 1); // 2: the two reads left
  const Distribution& d = dist(*b.arb, "read_queue_depth");
  EXPECT_EQ(d.count, 4u);
  EXPECT_EQ(d.sum, 4u);
  EXPECT_EQ(d.counts[0], 2u);
  EXPECT_EQ(d.counts[2], 2u);
  EXPECT_EQ(d.percentile(50), 0u);
  EXPECT_EQ(d.percentile(99), 2u);
}

// bank.ports 2r1w (the modern core's "2R" experiment): a bank grants two reads per slice and
// cycle, a third waits as a read-read conflict, and the port cycles count both read ports.
TEST(UnitArbiter, TwoReadPortsGrantTwoReadsPerCycle) {
  Bench b({{1, true, 2}}, "{collector_ports: 4}");
  b.read(0, 0, 0);
  b.read(0, 5, 1);
  b.read(0, 9, 2);
  b.write(0, 3);
  b.tick(0);
  EXPECT_EQ(b.banks[0]->count(tlm::TLM_READ_COMMAND), 2u);
  EXPECT_EQ(b.banks[0]->count(tlm::TLM_WRITE_COMMAND), 1u); // its own port
  EXPECT_EQ(b.conflicts(kReadRead), 1u);
  EXPECT_EQ(stat(*b.arb, "bank_accesses"), 3u); // two read ports and the write port
  b.tick(1);
  EXPECT_EQ(b.banks[0]->count(tlm::TLM_READ_COMMAND), 3u);
  EXPECT_EQ(b.conflicts(kReadRead), 1u);
  EXPECT_EQ(stat(*b.arb, "bank_accesses"), 4u);
}

TEST(UnitArbiter, TwoWritesToOneBankConflict) {
  Bench b({{1, false}});
  b.write(0, 1, 0x1, 0);
  b.write(0, 2, 0x1, 1);
  b.tick(0);
  EXPECT_EQ(b.banks[0]->count(tlm::TLM_WRITE_COMMAND), 1u);
  EXPECT_EQ(b.conflicts(kWriteWrite), 1u);
  b.tick(1);
  EXPECT_EQ(b.banks[0]->count(tlm::TLM_WRITE_COMMAND), 2u);
  ASSERT_EQ(b.wb.seen.size(), 2u);
  EXPECT_EQ(b.wb.seen[1].txn.operand, 1u);
}

TEST(UnitArbiter, SeparateWritePortGrantsReadAndWriteTogether) {
  Bench b({{1, true}});
  b.read(0, 3, 0);
  b.write(0, 7);
  b.tick(0);
  EXPECT_EQ(b.banks[0]->count(tlm::TLM_WRITE_COMMAND), 1u);
  EXPECT_EQ(b.banks[0]->count(tlm::TLM_READ_COMMAND), 1u);
  for (int k : {kReadRead, kReadWrite, kWriteWrite, kCollectorPort})
    EXPECT_EQ(b.conflicts(k), 0u) << "kind " << k;
  EXPECT_EQ(b.arb->next_tick(), kNever);
}

TEST(UnitArbiter, OneCollectorPortLimitsOperandsPerCycle) {
  Bench b({{1, false}, {1, false}});
  b.read(0, 0, 2);
  b.read(1, 0, 2);
  b.tick(0);
  EXPECT_EQ(b.banks[0]->seen.size() + b.banks[1]->seen.size(), 1u);
  EXPECT_EQ(b.conflicts(kCollectorPort), 1u);
  EXPECT_EQ(b.conflicts(kReadRead), 0u);
  b.tick(1);
  EXPECT_EQ(b.banks[0]->seen.size() + b.banks[1]->seen.size(), 2u);
  EXPECT_EQ(b.conflicts(kCollectorPort), 1u);
}

TEST(UnitArbiter, TwoCollectorPortsTakeTwoOperands) {
  Bench b({{1, false}, {1, false}}, "{collector_ports: 2}");
  b.read(0, 0, 2);
  b.read(1, 0, 2);
  b.tick(0);
  EXPECT_EQ(b.banks[0]->seen.size(), 1u);
  EXPECT_EQ(b.banks[1]->seen.size(), 1u);
  EXPECT_EQ(b.conflicts(kCollectorPort), 0u);
}

TEST(UnitArbiter, CollectorPortsFreeAgainNextCycle) {
  Bench b({{1, false}, {1, false}});
  b.read(0, 0, 1);
  b.tick(0);
  b.clock.now = 1;
  b.read(1, 0, 1); // same collector, next cycle: its port is free again
  b.tick(1);
  EXPECT_EQ(b.banks[1]->seen.size(), 1u);
  EXPECT_EQ(b.conflicts(kCollectorPort), 0u);
}

TEST(UnitArbiter, DisjointSliceMasksShareABank) {
  Bench b({{4, false}}, "{collector_ports: 1}");
  b.read(0, 2, 0, 0x3);
  b.read(0, 9, 1, 0xc);
  b.tick(0);
  auto& seen = b.banks[0]->seen;
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(b.conflicts(kReadRead), 0u);
  // The slice mask travels as byte enables: 32 B per slice.
  ASSERT_EQ(seen[0].be.size(), kRegBytes);
  ASSERT_EQ(seen[1].be.size(), kRegBytes);
  for (unsigned i = 0; i < kRegBytes; ++i) {
    EXPECT_EQ(seen[0].be[i], i < 64 ? TLM_BYTE_ENABLED : TLM_BYTE_DISABLED) << i;
    EXPECT_EQ(seen[1].be[i], i >= 64 ? TLM_BYTE_ENABLED : TLM_BYTE_DISABLED) << i;
  }
  EXPECT_EQ(seen[0].txn.slice_mask, 0x3);
  EXPECT_EQ(seen[1].txn.slice_mask, 0xc);
}

TEST(UnitArbiter, OverlappingSliceMasksConflict) {
  Bench b({{4, false}}, "{collector_ports: 2}");
  b.read(0, 2, 0, 0x3);
  b.read(0, 9, 1, 0x6);
  b.read(0, 4, 2, 0x8); // disjoint from the first: granted past the blocked one
  b.tick(0);
  auto& seen = b.banks[0]->seen;
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].addr, 2u * kRegBytes);
  EXPECT_EQ(seen[1].addr, 4u * kRegBytes);
  EXPECT_EQ(b.conflicts(kReadRead), 1u);
}

TEST(UnitArbiter, PartialWriteBlocksOnlyItsSlices) {
  Bench b({{4, false}});
  b.write(0, 1, 0x1);
  b.read(0, 2, 0, 0x1); // needs the written slice: waits
  b.read(0, 3, 1, 0x2); // another slice: granted
  b.tick(0);
  EXPECT_EQ(b.banks[0]->count(tlm::TLM_WRITE_COMMAND), 1u);
  EXPECT_EQ(b.banks[0]->count(tlm::TLM_READ_COMMAND), 1u);
  EXPECT_EQ(b.conflicts(kReadWrite), 1u);
  EXPECT_EQ(b.conflicts(kReadRead), 0u);
}

TEST(UnitArbiter, RequestForAMissingBankThrows) {
  Bench b({{1, false}});
  Packet p;
  p.prepare(Txn::Kind::Read, tlm::TLM_READ_COMMAND);
  p.txn.bank = 3;
  EXPECT_THROW(b.collectors.sock->b_transport(p.gp, p.delay), std::runtime_error);
}

// CMRC's coalescing arbiter looks `window` requests past the primary for a partner with
// disjoint slices: the partner two places behind is found with window 2, not with window 1.
void coalesce_within(unsigned window) {
  Bench b({{4, false}}, "{window: " + std::to_string(window) + "}", "coalescing");
  b.read(0, 2, 0, 0x3);
  b.read(0, 5, 1, 0x3); // overlaps the primary: no partner
  b.read(0, 9, 2, 0xc); // disjoint: a partner, two places behind
  b.tick(0);
  EXPECT_EQ(b.banks[0]->seen.size(), window >= 2 ? 2u : 1u);
  EXPECT_EQ(stat(*b.arb, "bank_accesses"), 1u);
  EXPECT_EQ(stat(*b.arb, "coalesced"), window >= 2 ? 1u : 0u);
}
TEST(UnitArbiter, CoalescingWindowOneMissesAPartnerTwoBehind) { coalesce_within(1); }
TEST(UnitArbiter, CoalescingWindowTwoFindsIt) { coalesce_within(2); }

// Bank 1's oldest read waits for collector 0's port (bank 0 fills it this cycle). `search`
// grants the younger read behind it; `head_only` (GPGPU-Sim's FIFO bank queues) does not.
void younger_read_past_a_blocked_head(const std::string& order) {
  Bench b({{1, false}, {1, false}}, "{order: " + order + "}");
  b.read(0, 1, 0);
  b.read(1, 2, 0);
  b.read(1, 3, 1);
  b.tick(0);
  EXPECT_EQ(b.banks[1]->seen.size(), order == "search" ? 1u : 0u);
  EXPECT_EQ(b.conflicts(kCollectorPort), order == "search" ? 1u : 2u);
  b.tick(1);
  EXPECT_EQ(b.banks[1]->seen.size(), order == "search" ? 2u : 1u);
}
TEST(UnitArbiter, SearchGrantsAYoungerReadPastABlockedHead) {
  younger_read_past_a_blocked_head("search");
}
TEST(UnitArbiter, HeadOnlyKeepsTheBankQueueInOrder) {
  younger_read_past_a_blocked_head("head_only");
}

// Bank 1's two oldest reads wait for collector 0's port (bank 0 fills it this cycle); the
// third, for collector 1, is granted only when the search window reaches past both.
void read_behind_two_blocked(unsigned window) {
  Bench b({{1, false}, {1, false}}, "{search_window: " + std::to_string(window) + "}");
  b.read(0, 1, 0);
  b.read(1, 2, 0);
  b.read(1, 3, 0);
  b.read(1, 4, 1);
  b.tick(0);
  const bool reached = window == 0 || window > 2;
  EXPECT_EQ(b.banks[1]->seen.size(), reached ? 1u : 0u);
  EXPECT_EQ(b.conflicts(kCollectorPort), reached ? 2u : 3u);
}
TEST(UnitArbiter, SearchWindowTwoStopsAtTheSecondBlockedRead) { read_behind_two_blocked(2); }
TEST(UnitArbiter, SearchWindowThreeReachesTheThirdRead) { read_behind_two_blocked(3); }
TEST(UnitArbiter, SearchWindowZeroSearchesTheWholeQueue) { read_behind_two_blocked(0); }

// `unpaired` names why a port cycle served one request only, by the closest partner seen;
// with `coalesced` it adds up to the bank accesses.
namespace {
enum { kFullWidth, kAlone, kTooWide, kSameParity, kKindOff, kCollectorBusy };
uint64_t unpaired(Bench& b, int why) { return stat(*b.arb, "unpaired", why); }
void expect_one_unpaired(Bench& b, int why) {
  for (int k = kFullWidth; k <= kCollectorBusy; ++k)
    EXPECT_EQ(unpaired(b, k), k == why ? 1u : 0u) << "label " << k;
  EXPECT_EQ(stat(*b.arb, "coalesced") + 1u, stat(*b.arb, "bank_accesses"));
}
} // namespace

TEST(UnitArbiter, UnpairedAloneInTheQueue) {
  Bench b({{4, false}}, "{window: 8}", "coalescing");
  b.read(0, 2, 0, 0x1);
  b.tick(0);
  expect_one_unpaired(b, kAlone);
}
TEST(UnitArbiter, UnpairedFullWidthPrimary) {
  Bench b({{4, false}}, "{window: 8}", "coalescing");
  b.read(0, 2, 0, 0xf);
  b.read(0, 3, 1, 0x8);
  b.tick(0);
  expect_one_unpaired(b, kFullWidth);
}
TEST(UnitArbiter, UnpairedWidthsAddPastFourBytes) {
  Bench b({{4, false}}, "{window: 8}", "coalescing");
  b.read(0, 2, 0, 0x7); // even row, 3 bytes
  b.read(0, 3, 1, 0xc); // odd row, 2 bytes
  b.tick(0);
  expect_one_unpaired(b, kTooWide);
}
TEST(UnitArbiter, UnpairedSameParityBeatsTooWide) {
  Bench b({{4, false}}, "{window: 8}", "coalescing");
  b.read(0, 2, 0, 0x1);
  b.read(0, 3, 1, 0xf); // too wide
  b.read(0, 4, 2, 0x1); // narrow, but even like the primary
  b.tick(0);
  expect_one_unpaired(b, kSameParity);
}
TEST(UnitArbiter, UnpairedKindOff) {
  Bench b({{4, false}}, "{window: 8, kinds: [read_read_same_inst]}", "coalescing");
  b.write(0, 2, 0x1);
  b.read(0, 3, 0, 0x8); // disjoint, but read + write is off
  b.tick(0);
  expect_one_unpaired(b, kKindOff);
}
// Two narrow results of one instruction (disjoint slices) are no Table I kind: two accesses.
// Two writes of different instructions share one.
TEST(UnitArbiter, TwoWritesOfOneInstructionTakeTwoAccesses) {
  Bench b({{4, false}}, "{window: 8}", "coalescing");
  b.write(0, 2, 0x1, 0);
  b.write(0, 3, 0x8, 1);
  b.tick(0);
  expect_one_unpaired(b, kKindOff);
  b.tick(1);
  EXPECT_EQ(stat(*b.arb, "bank_accesses"), 2u);
  EXPECT_EQ(stat(*b.arb, "coalesced"), 0u);
}
TEST(UnitArbiter, TwoWritesOfTwoInstructionsShareAnAccess) {
  Bench b({{4, false}}, "{window: 8}", "coalescing");
  WarpInst other;
  other.n_dst = 1;
  other.dst[0].value.fill(0x5a5a5a5a);
  b.write(0, 2, 0x1, 0);
  b.write(0, 3, 0x8, 0, &other);
  b.tick(0);
  EXPECT_EQ(stat(*b.arb, "bank_accesses"), 1u);
  EXPECT_EQ(stat(*b.arb, "coalesced", 2), 1u); // write_write
}

TEST(UnitArbiter, UnpairedCollectorBusy) {
  Bench b({{4, false}, {4, false}}, "{window: 8}", "coalescing");
  b.read(0, 1, 1, 0x8); // bank 0 fills collector 1's slice 3 this cycle
  b.read(1, 2, 0, 0x1);
  b.read(1, 3, 1, 0x8); // disjoint from bank 1's primary, but collector 1's slice 3 is taken
  b.tick(0);
  EXPECT_EQ(unpaired(b, kCollectorBusy), 1u);
  EXPECT_EQ(unpaired(b, kAlone), 1u); // bank 0's read
  EXPECT_EQ(stat(*b.arb, "bank_accesses"), 2u);
}

// frontend.reg64: one_operand: a request carrying its 64-bit operand's high half (Txn::hi)
// accesses both rows in one port cycle: the high half's row in its own bank, as a companion
// (operand + 1), counted as a granted request but not as an access; the collector's port is
// taken once. A second request of the low half's bank still waits for the next cycle.
TEST(UnitArbiter, HighHalfRidesItsLowHalfsAccess) {
  Bench b({{1, false}, {1, false}});
  auto pair_read = [&](unsigned row, unsigned collector) {
    Packet p;
    p.prepare(Txn::Kind::Read, tlm::TLM_READ_COMMAND);
    p.txn.inst = &b.inst;
    p.txn.bank = 0;
    p.txn.row = row;
    p.txn.collector = collector;
    p.txn.slice_mask = 0x1;
    p.txn.operand = 2;
    p.txn.hi = {true, 9, 1, row + 64, 0x1, nullptr};
    b.collectors.sock->b_transport(p.gp, p.delay);
  };
  pair_read(4, 0);
  b.read(0, 6, 1);
  b.tick(0);
  ASSERT_EQ(b.banks[0]->seen.size(), 1u);
  ASSERT_EQ(b.banks[1]->seen.size(), 1u);
  const auto& hi = b.banks[1]->seen[0];
  EXPECT_EQ(hi.addr, 68u * kRegBytes);
  EXPECT_TRUE(hi.txn.companion);
  EXPECT_EQ(hi.txn.operand, 3u);
  EXPECT_EQ(hi.txn.reg, 9u);
  EXPECT_EQ(hi.at, 0u);
  EXPECT_FALSE(b.banks[0]->seen[0].txn.companion);
  EXPECT_EQ(stat(*b.arb, "bank_accesses"), 1u);
  EXPECT_EQ(stat(*b.arb, "reads_granted"), 2u);
  EXPECT_EQ(b.conflicts(kReadRead), 1u); // the other read of bank 0
  b.tick(1);
  EXPECT_EQ(stat(*b.arb, "bank_accesses"), 2u);
}
