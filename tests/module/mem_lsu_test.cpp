// Module tests of the LSU ("coalescing") between a stub exec unit, a stub L1 and a stub
// writeback, driven by calling tick() with a hand-moved clock: coalescing into segments,
// store data and byte enables, shared-memory bank conflicts, the port schedule, the
// initiation interval and queue, retries of a busy L1 or writeback.
// One simulation per process: run through ctest (gtest_discover_tests).
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "gpurf/modules/lsu/i_lsu.h"
#include "gpurf/platform/config.h"
#include "tests/support/stubs.h"

using namespace gpurf;
using namespace gpurf::test;

namespace {

struct StubL1 : sc_core::sc_module {
  TargetSocket<StubL1> sock;
  SimClock* clock = nullptr;
  unsigned latency = 20;
  unsigned busy_times = 0; // refuse this many accesses first
  Cycle retry_at = 0;      // told with each refusal (Txn::retry_at)
  uint64_t skipped = 0;    // the LSU's skipped attempts told (Txn::skipped), summed
  std::vector<unsigned char> bytes = std::vector<unsigned char>(1 << 16, 0);
  struct Seen {
    Cycle at;
    tlm::tlm_command cmd;
    uint64_t addr;
    unsigned len;
    std::vector<unsigned char> be, data;
    WarpInst* inst;
  };
  std::vector<Seen> seen;
  explicit StubL1(sc_core::sc_module_name nm) : sc_module(nm), sock("sock") {
    sock.register_b_transport(this, &StubL1::b_transport);
    sock.register_transport_dbg(this, &StubL1::dbg);
  }
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& d) {
    Txn& t = txn_of(gp);
    skipped += t.skipped;
    if (busy_times) {
      --busy_times;
      t.busy = true;
      t.retry_at = retry_at;
      return;
    }
    const unsigned n = gp.get_data_length();
    Seen s{clock->now, gp.get_command(), gp.get_address(), n, {}, {}, t.inst};
    if (gp.get_byte_enable_ptr())
      s.be.assign(gp.get_byte_enable_ptr(), gp.get_byte_enable_ptr() + gp.get_byte_enable_length());
    s.data.assign(gp.get_data_ptr(), gp.get_data_ptr() + n);
    seen.push_back(std::move(s));
    d += clock->time(latency);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
  }
  unsigned dbg(tlm::tlm_generic_payload& gp) {
    if (gp.is_read())
      std::memcpy(gp.get_data_ptr(), &bytes.at(gp.get_address()), gp.get_data_length());
    return gp.get_data_length();
  }
};

struct StubWb : sc_core::sc_module {
  TargetSocket<StubWb> sock;
  SimClock* clock = nullptr;
  unsigned busy_times = 0;
  struct Done {
    Cycle at, delay;
    WarpInst* inst;
  };
  std::vector<Done> done;
  explicit StubWb(sc_core::sc_module_name nm) : sc_module(nm), sock("sock") {
    sock.register_b_transport(this, &StubWb::b_transport);
  }
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& d) {
    Txn& t = txn_of(gp);
    EXPECT_EQ(t.kind, Txn::Kind::Complete);
    if (busy_times) {
      --busy_times;
      t.busy = true;
      return;
    }
    done.push_back({clock->now, clock->cycles(d), t.inst});
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
  }
};

struct Bench {
  SimClock clock;
  UnitConfig conf;
  std::unique_ptr<ILsu> lsu;
  StubInit exec{"exec"};
  StubL1 l1{"l1"};
  StubWb wb{"wb"};
  std::vector<std::unique_ptr<InstInfo>> infos;
  std::vector<std::unique_ptr<WarpInst>> insts;
  unsigned wires = 0;   // calls of the sub-core's wire wake_dispatch
  Cycle retry_at = 0;   // what the last refused dispatch was told
  uint32_t skipped = 0; // told with the next dispatch

  explicit Bench(const std::string& yaml) {
    lsu = make_unit<ILsu>(conf, yaml, "lsu.yaml", "lsu", "coalescing", "lsu", clock, nullptr,
                          [&](UnitContext& c) { c.wake_dispatch = [&] { ++wires; }; });
    l1.clock = wb.clock = &clock;
    exec.sock.bind(lsu->in);
    lsu->to_l1.bind(l1.sock);
    lsu->to_wb.bind(wb.sock);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
  }

  // An instruction whose active lane i accesses addr(i).
  template <class F>
  WarpInst* inst(MemSpace space, MemKind kind, unsigned bytes, F addr,
                 uint32_t mask = 0xffffffffu) {
    infos.push_back(std::make_unique<InstInfo>());
    InstInfo& info = *infos.back();
    info.pipe = Pipe::MEM;
    info.space = space;
    info.mem = kind;
    insts.push_back(std::make_unique<WarpInst>());
    WarpInst& w = *insts.back();
    w.info = &info;
    w.seq = insts.size();
    w.active_mask = mask;
    w.access_bytes = static_cast<uint8_t>(bytes);
    for (unsigned i = 0; i < kWarpSize; ++i) w.addr[i] = addr(i);
    return &w;
  }

  // Dispatches at the current cycle; true if accepted.
  bool dispatch(WarpInst* w) {
    Packet p;
    p.prepare(Txn::Kind::Dispatch);
    p.txn.inst = w;
    p.txn.skipped = std::exchange(skipped, 0);
    exec.sock->b_transport(p.gp, p.delay);
    retry_at = p.txn.retry_at;
    return !p.txn.busy;
  }

  // Ticks the LSU in the cycles it asked for, up to and including `last`.
  void run_to(Cycle last) {
    for (Cycle c = clock.now; c <= last; ++c) {
      clock.now = c;
      if (lsu->next_tick() <= c) {
        EXPECT_EQ(lsu->next_tick(), c) << "a wake-up in the past";
        lsu->clear_tick();
        lsu->tick(c);
      }
    }
  }
};

} // namespace

TEST(MemLsu, ConsecutiveWordsCoalesceIntoOneSegment) {
  Bench b("latency: 1\n");
  WarpInst* w =
      b.inst(MemSpace::Global, MemKind::Load, 4, [](unsigned i) { return 0x1000 + 4 * i; });
  ASSERT_TRUE(b.dispatch(w));
  b.run_to(100);
  ASSERT_EQ(b.l1.seen.size(), 1u);
  const auto& s = b.l1.seen[0];
  EXPECT_EQ(s.at, 1u); // after the pipeline latency
  EXPECT_EQ(s.cmd, tlm::TLM_READ_COMMAND);
  EXPECT_EQ(s.addr, 0x1000u);
  EXPECT_EQ(s.len, 128u);
  EXPECT_EQ(s.inst, w);
  EXPECT_EQ(s.be, std::vector<unsigned char>(128, TLM_BYTE_ENABLED));
  ASSERT_EQ(b.wb.done.size(), 1u);
  EXPECT_EQ(b.wb.done[0].inst, w);
  EXPECT_EQ(b.wb.done[0].at, 1u);
  EXPECT_EQ(b.wb.done[0].delay, 20u); // the L1's delay: ready at cycle 21
  EXPECT_EQ(stat(*b.lsu, "segments"), 1u);
  EXPECT_EQ(stat(*b.lsu, "instructions", 1), 1u);
  EXPECT_EQ(stat(*b.lsu, "latency_total"), 21u);
}

TEST(MemLsu, Stride128BytesGives32Segments) {
  Bench b("latency: 2\n");
  WarpInst* w =
      b.inst(MemSpace::Global, MemKind::Load, 4, [](unsigned i) { return 0x10000 + 128 * i; });
  ASSERT_TRUE(b.dispatch(w));
  b.run_to(200);
  ASSERT_EQ(b.l1.seen.size(), 32u);
  for (unsigned i = 0; i < 32; ++i) {
    EXPECT_EQ(b.l1.seen[i].at, 2u + i); // one access per cycle
    EXPECT_EQ(b.l1.seen[i].addr, 0x10000u + 128 * i);
    unsigned enabled = 0;
    for (unsigned char c : b.l1.seen[i].be) enabled += c == TLM_BYTE_ENABLED;
    EXPECT_EQ(enabled, 4u);
  }
  ASSERT_EQ(b.wb.done.size(), 1u);
  EXPECT_EQ(b.wb.done[0].at, 33u);
  EXPECT_EQ(b.wb.done[0].delay, 20u);
  EXPECT_EQ(stat(*b.lsu, "segments"), 32u);
  EXPECT_EQ(stat(*b.lsu, "busy_cycles"), 32u);
}

TEST(MemLsu, MisalignedAndPartialWarps) {
  Bench b("");
  // Shifted by 8 bytes: two segments; 16-byte lanes (v4) of half a warp: 256 B, 2 segments.
  WarpInst* w1 =
      b.inst(MemSpace::Global, MemKind::Load, 4, [](unsigned i) { return 0x2008 + 4 * i; });
  WarpInst* w2 = b.inst(
      MemSpace::Local, MemKind::Load, 16, [](unsigned i) { return 0x3000 + 16 * i; }, 0x0000ffffu);
  ASSERT_TRUE(b.dispatch(w1));
  b.clock.now = 1;
  ASSERT_TRUE(b.dispatch(w2));
  b.run_to(100);
  ASSERT_EQ(b.l1.seen.size(), 4u);
  EXPECT_EQ(b.l1.seen[0].addr, 0x2000u);
  EXPECT_EQ(b.l1.seen[0].be[7], TLM_BYTE_DISABLED);
  EXPECT_EQ(b.l1.seen[0].be[8], TLM_BYTE_ENABLED);
  EXPECT_EQ(b.l1.seen[1].addr, 0x2080u);
  EXPECT_EQ(b.l1.seen[1].be[7], TLM_BYTE_ENABLED);
  EXPECT_EQ(b.l1.seen[1].be[8], TLM_BYTE_DISABLED);
  EXPECT_EQ(b.l1.seen[2].addr, 0x3000u);
  EXPECT_EQ(b.l1.seen[3].addr, 0x3080u);
  EXPECT_EQ(b.l1.seen[3].be[127], TLM_BYTE_ENABLED);
  // In order: the second instruction uses the port after the first.
  EXPECT_EQ(b.l1.seen[2].at, 3u);
  ASSERT_EQ(b.wb.done.size(), 2u);
  EXPECT_EQ(b.wb.done[0].inst, w1);
  EXPECT_EQ(b.wb.done[1].inst, w2);
  EXPECT_EQ(stat(*b.lsu, "instructions", 3), 1u); // local
}

TEST(MemLsu, StoresCarryTheMemoryBytesWithLaneByteEnables) {
  Bench b("");
  for (unsigned i = 0; i < 256; ++i) b.l1.bytes[0x4000 + i] = static_cast<unsigned char>(i ^ 0x5a);
  // Even lanes only, 8 bytes each, stride 16.
  WarpInst* w = b.inst(
      MemSpace::Global, MemKind::Store, 8, [](unsigned i) { return 0x4000 + 16 * i; }, 0x55555555u);
  ASSERT_TRUE(b.dispatch(w));
  b.run_to(100);
  ASSERT_EQ(b.l1.seen.size(), 4u); // 512 B span
  for (unsigned k = 0; k < 4; ++k) {
    const auto& s = b.l1.seen[k];
    EXPECT_EQ(s.cmd, tlm::TLM_WRITE_COMMAND);
    EXPECT_EQ(s.addr, 0x4000u + 128 * k);
    for (unsigned j = 0; j < 128; ++j) {
      const unsigned off = 128 * k + j;
      const bool on = (off / 16) % 2 == 0 && off % 16 < 8;
      EXPECT_EQ(s.be[j] == TLM_BYTE_ENABLED, on) << off;
      if (on && off < 256) {
        EXPECT_EQ(s.data[j], static_cast<unsigned char>(off ^ 0x5a)) << off;
      }
    }
  }
  ASSERT_EQ(b.wb.done.size(), 1u);
}

TEST(MemLsu, SharedMemoryBankConflictDegree) {
  Bench b("shared_latency: 20\nshared_banks: 32\nshared_bank_bytes: 4\nlatency: 1\n");
  auto shared = [&](unsigned stride_bytes) {
    return b.inst(MemSpace::Shared, MemKind::Load, 4,
                  [stride_bytes](unsigned i) { return uint64_t(stride_bytes) * i; });
  };
  WarpInst* conflict_free = shared(4); // degree 1
  WarpInst* two_way = shared(8);       // degree 2
  WarpInst* broadcast = shared(0);     // degree 1 (same word)
  WarpInst* all_in_one = shared(128);  // degree 32
  Cycle t = 0;
  for (WarpInst* w : {conflict_free, two_way, broadcast, all_in_one}) {
    b.clock.now = t;
    ASSERT_TRUE(b.dispatch(w));
    b.run_to(t + 100);
    t += 200;
  }
  ASSERT_EQ(b.wb.done.size(), 4u);
  EXPECT_TRUE(b.l1.seen.empty());
  const unsigned degree[] = {1, 2, 1, 32};
  for (unsigned k = 0; k < 4; ++k) {
    // Port from dispatch + 1, held `degree` cycles; the Complete leaves on the last one.
    EXPECT_EQ(b.wb.done[k].at, 200 * k + 1 + degree[k] - 1) << k;
    EXPECT_EQ(b.wb.done[k].delay, 20u) << k;
    EXPECT_EQ(b.wb.done[k].at + b.wb.done[k].delay - (200 * k + 1), 20 + degree[k] - 1) << k;
  }
  EXPECT_EQ(stat(*b.lsu, "shared_bank_conflict_cycles"), 1u + 31u);
  EXPECT_EQ(stat(*b.lsu, "instructions", 2), 4u);
}

TEST(MemLsu, ConstAndParamLatencies) {
  Bench b("const_latency: 8\nparam_latency: 3\n");
  WarpInst* c = b.inst(MemSpace::Const, MemKind::Load, 4, [](unsigned) { return 0; });
  WarpInst* p = b.inst(MemSpace::Param, MemKind::Load, 4, [](unsigned) { return 0; });
  ASSERT_TRUE(b.dispatch(c));
  b.clock.now = 1;
  ASSERT_TRUE(b.dispatch(p));
  b.run_to(50);
  ASSERT_EQ(b.wb.done.size(), 2u);
  EXPECT_EQ(b.wb.done[0].at, 1u);
  EXPECT_EQ(b.wb.done[0].delay, 8u);
  EXPECT_EQ(b.wb.done[1].at, 2u);
  EXPECT_EQ(b.wb.done[1].delay, 3u);
  EXPECT_TRUE(b.l1.seen.empty());
}

TEST(MemLsu, InitiationIntervalAndQueueDepth) {
  Bench b("initiation_interval: 2\nqueue_depth: 2\n");
  auto strided = [&] {
    return b.inst(MemSpace::Global, MemKind::Load, 4, [](unsigned i) { return 128 * i; });
  };
  ASSERT_TRUE(b.dispatch(strided()));
  EXPECT_FALSE(b.dispatch(strided())); // same cycle
  b.run_to(1);
  EXPECT_FALSE(b.dispatch(strided())); // interval 2
  b.run_to(2);
  EXPECT_TRUE(b.dispatch(strided()));
  b.run_to(4);
  EXPECT_FALSE(b.dispatch(strided())); // queue full (first still on the port)
  EXPECT_EQ(stat(*b.lsu, "stall_cycles"), 3u);
  b.run_to(33); // first instruction's 32 segments: cycles 1..32
  EXPECT_EQ(b.wb.done.size(), 1u);
  EXPECT_TRUE(b.dispatch(strided()));
  b.run_to(200);
  EXPECT_EQ(b.wb.done.size(), 3u);
  EXPECT_EQ(b.l1.seen.size(), 96u);
}

TEST(MemLsu, BusyL1AndWritebackAreRetried) {
  Bench b("");
  b.l1.busy_times = 2;
  b.wb.busy_times = 1;
  WarpInst* w = b.inst(MemSpace::Global, MemKind::Load, 4, [](unsigned i) { return 4 * i; });
  ASSERT_TRUE(b.dispatch(w));
  b.run_to(100);
  ASSERT_EQ(b.l1.seen.size(), 1u);
  EXPECT_EQ(b.l1.seen[0].at, 3u); // refused at cycles 1 and 2
  ASSERT_EQ(b.wb.done.size(), 1u);
  EXPECT_EQ(b.wb.done[0].at, 4u);     // the writeback refused at cycle 3
  EXPECT_EQ(b.wb.done[0].delay, 19u); // still ready at 3 + 20
  EXPECT_EQ(stat(*b.lsu, "l1_busy_cycles"), 2u);
  EXPECT_EQ(stat(*b.lsu, "wb_busy_cycles"), 1u);
}

// A refused dispatch is told when to try again: the end of the initiation interval, or, with
// the queue full, never before the wire (wake_dispatch) that the head's leaving fires; the
// attempts a collector skipped asleep count as refused.
TEST(MemLsu, RefusalsNameTheirRetry) {
  Bench b("initiation_interval: 3\nqueue_depth: 1\n");
  auto one = [&] {
    return b.inst(MemSpace::Global, MemKind::Load, 4, [](unsigned i) { return 4 * i; });
  };
  ASSERT_TRUE(b.dispatch(one()));
  EXPECT_FALSE(b.dispatch(one()));
  EXPECT_EQ(b.retry_at, kNever); // the queue is full
  EXPECT_EQ(b.wires, 0u);
  b.run_to(1); // the head sends its segment and completes at cycle 1
  EXPECT_EQ(b.wires, 1u);
  EXPECT_FALSE(b.dispatch(one())); // room, but the interval ends at cycle 3
  EXPECT_EQ(b.retry_at, 3u);
  b.run_to(3);
  b.skipped = 1;
  EXPECT_TRUE(b.dispatch(one()));
  EXPECT_EQ(stat(*b.lsu, "stall_cycles"), 3u); // 2 refused + 1 skipped
  b.run_to(10);
  EXPECT_EQ(b.wires, 1u); // no refusal on a full queue since
}

// An L1 that names the cycle an MSHR frees: the head sleeps until then, and the cycles it
// slept count as port cycles and refused accesses, here and (told) at the L1.
TEST(MemLsu, BusyL1WithARetryCycleIsSleptOn) {
  Bench b("");
  b.l1.busy_times = 1;
  b.l1.retry_at = 9;
  WarpInst* w = b.inst(MemSpace::Global, MemKind::Load, 4, [](unsigned i) { return 4 * i; });
  ASSERT_TRUE(b.dispatch(w));
  b.run_to(1);
  EXPECT_EQ(b.lsu->next_tick(), 9u);
  b.lsu->settle(4); // a time series mid-sleep: cycles 2 and 3
  EXPECT_EQ(stat(*b.lsu, "l1_busy_cycles"), 3u);
  b.run_to(100);
  ASSERT_EQ(b.l1.seen.size(), 1u);
  EXPECT_EQ(b.l1.seen[0].at, 9u);
  EXPECT_EQ(b.l1.skipped, 7u); // cycles 2-8
  EXPECT_EQ(stat(*b.lsu, "l1_busy_cycles"), 8u);
  EXPECT_EQ(stat(*b.lsu, "busy_cycles"), 9u); // cycles 1-9
}
