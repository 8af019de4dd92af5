// Module tests of the arbiter "warped_compression_mrf" alone (Warped-Compression's compressors
// at the MRF write port, behind Gebhart's RFC: docs/combined.md), with stub banks and a stub
// writeback: a write is granted after the compression stage, in its stored form only; a
// diverged value and a dummy MOV stay whole; the compressors are a pool; reads take the
// stored form's slices; the acknowledgement carries no buffer of the arbiter's.
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "gpurf/modules/arbiter/i_arbiter.h"
#include "gpurf/platform/config.h"
#include "gpurf/policies/bdi.h"
#include "gpurf/policies/row_tags.h"
#include "gpurf/policies/wc_tags.h"
#include "tests/support/stubs.h"

using namespace gpurf;
using namespace gpurf::test;

namespace {

struct Bench {
  SimClock clock;
  SmShape shape;
  RowTags tags{2, 16};
  UnitConfig conf;
  std::unique_ptr<IArbiter> arb;
  StubTarget bank{"bank", &clock}, bank1{"bank1", &clock}, wb{"wb", &clock};
  StubInit collectors{"collectors"}, writeback{"writeback"};
  WarpInst a, b; // two producers: a's value fits <4,1>, b's none

  explicit Bench(const std::string& yaml) {
    shape.slices = 8;
    arb = make_unit<IArbiter>(conf, yaml, "arbiter.yaml", "arbiter", "warped_compression_mrf",
                              "arbiter", clock, &shape,
                              [this](UnitContext& c) { c.row_tags = &tags; });
    for (StubTarget* k : {&bank, &bank1}) {
      arb->to_bank.bind(k->sock);
      arb->add_bank(8, true);
    }
    arb->to_wb.bind(wb.sock);
    collectors.sock.bind(arb->in);
    writeback.sock.bind(arb->in);
    for (unsigned l = 0; l < kWarpSize; ++l) {
      a.dst[0].value[l] = 1000 + 3 * l;        // deltas up to 93: <4,1>
      b.dst[0].value[l] = 0x01000000u * l + l; // deltas past 2 bytes: uncompressed
    }
    for (WarpInst* i : {&a, &b}) {
      i->n_dst = 1;
      i->active_mask = i->thread_mask = ~0u;
      i->seq = i == &a ? 7 : 8;
    }
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
  }
  void write(WarpInst& inst, unsigned row, unsigned bank_index = 0) {
    Packet p;
    p.prepare(Txn::Kind::Write, tlm::TLM_WRITE_COMMAND);
    p.txn.inst = &inst;
    p.txn.bank = bank_index;
    p.txn.row = row;
    p.txn.slice_mask = 0xff;
    p.txn.version = inst.seq;
    writeback.sock->b_transport(p.gp, p.delay);
    EXPECT_EQ(p.gp.get_response_status(), tlm::TLM_OK_RESPONSE);
  }
  void read(unsigned row) {
    Packet p;
    p.prepare(Txn::Kind::Read, tlm::TLM_READ_COMMAND);
    p.txn.inst = &a;
    p.txn.row = row;
    p.txn.slice_mask = 0xff;
    collectors.sock->b_transport(p.gp, p.delay);
  }
  void tick(Cycle now) {
    clock.now = now;
    ASSERT_LE(arb->next_tick(), now) << "arbiter asleep at cycle " << now;
    arb->clear_tick();
    arb->tick(now);
  }
  // Slices enabled in bank access k (16 B each).
  unsigned slices(size_t k) const {
    unsigned n = 0;
    for (unsigned char e : bank.seen.at(k).be) n += e == TLM_BYTE_ENABLED;
    return n / 16;
  }
};

} // namespace

TEST(UnitWcMrf, WriteLeavesTheCompressionStageInItsStoredForm) {
  Bench t("{compress_latency: 2}");
  t.write(t.a, 3);
  EXPECT_EQ(wc_choice(t.tags.get(0, 3)), bdi::Choice::B4D1); // the indicator as it enters
  EXPECT_GT(t.arb->next_tick(), 1u);                         // nothing before the stage ends
  t.tick(2);
  ASSERT_EQ(t.bank.count(tlm::TLM_WRITE_COMMAND), 1u);
  EXPECT_EQ(t.slices(0), 3u); // <4,1>: 4 + 31 B = 3 slices of 16 B
  ASSERT_EQ(t.wb.seen.size(), 1u);
  EXPECT_EQ(t.wb.seen[0].txn.data, nullptr); // its buffer stays the arbiter's
  EXPECT_EQ(stat(*t.arb, "stored_forms", 1), 1u);
  t.read(3);
  t.tick(3);
  ASSERT_EQ(t.bank.count(tlm::TLM_READ_COMMAND), 1u);
  EXPECT_EQ(t.slices(1), 3u);
}

TEST(UnitWcMrf, DivergedValuesAndMovsStayWholeWithoutACompressor) {
  Bench t("{compress_latency: 1}");
  t.tags.set(0, 1, wc_tag(bdi::Choice::B4D0)); // an older compressed value
  t.a.active_mask = 0x0000ffffu; // the producer diverged (an RFC write-back carries its masks)
  t.write(t.a, 1);
  t.b.injected = true; // a dummy MOV
  t.write(t.b, 2);
  t.tick(1);
  ASSERT_EQ(t.bank.count(tlm::TLM_WRITE_COMMAND), 1u); // one write port per cycle
  t.tick(2);
  ASSERT_EQ(t.bank.count(tlm::TLM_WRITE_COMMAND), 2u);
  EXPECT_EQ(t.slices(0), 8u);
  EXPECT_EQ(t.slices(1), 8u);
  EXPECT_EQ(stat(*t.arb, "divergent_writes"), 2u);
  EXPECT_EQ(stat(*t.arb, "stored_forms", 3), 2u);
  EXPECT_EQ(wc_choice(t.tags.get(0, 1)), bdi::Choice::Uncompressed);
}

// Two writes to two banks in one cycle: two compressors take both, one takes them in turn.
void writes_to_two_banks(unsigned compressors) {
  Bench t("{compressors: " + std::to_string(compressors) + ", compress_latency: 0}");
  t.write(t.a, 1, 0);
  t.write(t.a, 1, 1);
  EXPECT_EQ(stat(*t.arb, "compressor_wait_cycles"), compressors == 1 ? 1u : 0u);
  t.tick(0);
  EXPECT_EQ(t.bank.seen.size() + t.bank1.seen.size(), compressors == 1 ? 1u : 2u);
  if (compressors == 1) {
    t.tick(1);
    EXPECT_EQ(t.bank1.count(tlm::TLM_WRITE_COMMAND), 1u);
  }
}
TEST(UnitWcMrf, OneCompressorTakesOneRegisterPerCycle) { writes_to_two_banks(1); }
TEST(UnitWcMrf, TwoCompressorsTakeTwo) { writes_to_two_banks(2); }
