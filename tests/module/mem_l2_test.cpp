// Module tests of the L2 ("set_assoc") between the real L1 ("set_assoc") and the "simple"
// memory, driven by a stub LSU: the latencies of an L1 miss that hits or misses in the L2,
// dirty write-backs on eviction, write-through, atomics performed in a write-back L2, the
// bytes the L1 sees, and parameter errors. One simulation per process (ctest).
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpurf/modules/l1/i_l1.h"
#include "gpurf/modules/l2/i_l2.h"
#include "gpurf/modules/memory/i_memory.h"
#include "gpurf/platform/config.h"
#include "tests/support/stubs.h"

using namespace gpurf;
using namespace gpurf::test;

namespace {

InstInfo load_info, store_info, atomic_info;

// L1: 1 set x 1 way (every new line evicts the previous), hit 20. Memory: latency 100,
// 32 B/cycle (a 128 B line takes 4 cycles).
struct Bench {
  SimClock clock;
  UnitConfig c1, c2, cm;
  std::unique_ptr<IL1> l1;
  std::unique_ptr<IL2> l2;
  std::unique_ptr<IMemory> mem;
  StubInit lsu{"lsu"};

  explicit Bench(const std::string& l2_yaml,
                 const std::string& l1_yaml = "sets: 1\nways: 1\nhit_latency: 20\n") {
    load_info.space = store_info.space = atomic_info.space = MemSpace::Global;
    load_info.mem = MemKind::Load;
    store_info.mem = MemKind::Store;
    atomic_info.mem = MemKind::Atomic;
    l1 = make_unit<IL1>(c1, l1_yaml, "l1.yaml", "l1", "set_assoc", "l1", clock);
    l2 = make_unit<IL2>(c2, l2_yaml, "l2.yaml", "l2", "set_assoc", "l2", clock);
    mem = make_unit<IMemory>(cm, "latency: 100\nbytes_per_cycle: 32\n", "mem.yaml", "memory",
                             "simple", "mem", clock);
    lsu.sock.bind(l1->in);
    l1->mem.bind(l2->in);
    l2->mem.bind(mem->socket);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
  }

  // One 128 B access at cycle `at` through the L1; returns its delay in cycles.
  uint64_t access(uint64_t at, tlm::tlm_command cmd, uint64_t addr, const InstInfo* info,
                  unsigned char* data = nullptr, unsigned len = 128) {
    clock.now = at;
    std::vector<unsigned char> scratch(len, 0);
    WarpInst inst;
    inst.info = info;
    Packet p;
    p.prepare(Txn::Kind::Dispatch, cmd);
    p.txn.inst = &inst;
    p.gp.set_address(addr);
    p.gp.set_data_ptr(data ? data : scratch.data());
    p.gp.set_data_length(len);
    p.gp.set_streaming_width(len);
    p.gp.set_byte_enable_ptr(nullptr);
    p.gp.set_byte_enable_length(0);
    lsu.sock->b_transport(p.gp, p.delay);
    EXPECT_TRUE(p.gp.is_response_ok()) << p.gp.get_response_string();
    EXPECT_FALSE(p.txn.busy);
    return clock.cycles(p.delay);
  }
  uint64_t read(uint64_t at, uint64_t addr, unsigned char* data = nullptr, unsigned len = 128) {
    return access(at, tlm::TLM_READ_COMMAND, addr, &load_info, data, len);
  }
};

const char* kWriteBack = "sets: 4\nways: 2\nhit_latency: 50\nbanks: 1\nmshrs: 4\n";

} // namespace

TEST(MemL2, L1MissHitsOrMissesInTheL2) {
  Bench b(kWriteBack);
  // Cold: L1 lookup 20 + L2 lookup 50 + memory 100 + 4 cycles of transfer.
  EXPECT_EQ(b.read(1000, 0x0), 20u + 50u + 100u + 4u);
  EXPECT_EQ(b.read(2000, 0x80), 20u + 50u + 100u + 4u); // evicts 0x0 from the L1
  // 0x0: L1 miss, L2 hit.
  EXPECT_EQ(b.read(3000, 0x0), 20u + 50u);
  EXPECT_EQ(b.read(3100, 0x0), 20u); // L1 hit
  EXPECT_EQ(stat(*b.l1, "misses"), 3u);
  EXPECT_EQ(stat(*b.l2, "reads"), 3u);
  EXPECT_EQ(stat(*b.l2, "hits"), 1u);
  EXPECT_EQ(stat(*b.l2, "misses"), 2u);
  EXPECT_EQ(stat(*b.mem, "reads"), 2u);
  EXPECT_EQ(stat(*b.l2, "bytes_from_memory"), stat(*b.mem, "bytes_read"));
}

TEST(MemL2, SameLineMissesMergeInTheL2) {
  // 64 B L1 lines: the two halves of a 128 B L2 line are two L1 misses.
  Bench b(kWriteBack, "sets: 1\nways: 1\nline_bytes: 64\nhit_latency: 20\n");
  EXPECT_EQ(b.read(1000, 0x0, nullptr, 4), 174u); // the L2 line's fill arrives at 1174
  // L2 lookup at 1021 + 50: merged with the fill in flight, no second memory READ.
  EXPECT_EQ(b.read(1001, 0x40, nullptr, 4), 1174u - 1001u);
  EXPECT_EQ(stat(*b.l2, "misses"), 1u);
  EXPECT_EQ(stat(*b.l2, "mshr_merges"), 1u);
  EXPECT_EQ(stat(*b.mem, "reads"), 1u);
}

TEST(MemL2, DirtyLinesAreWrittenBackOnEviction) {
  Bench b("sets: 1\nways: 1\nhit_latency: 10\n");
  std::vector<unsigned char> v(128, 0xab), got(128, 0);
  // A whole-line write allocates without a fetch; posted at the L1 (20 cycles).
  EXPECT_EQ(b.access(1000, tlm::TLM_WRITE_COMMAND, 0x100, &store_info, v.data()), 20u);
  EXPECT_EQ(stat(*b.l2, "write_misses"), 1u);
  EXPECT_EQ(stat(*b.l2, "write_fetches"), 0u);
  EXPECT_EQ(stat(*b.mem, "writes"), 0u); // still in the L2
  EXPECT_EQ(stat(*b.mem, "reads"), 0u);
  // Reading another line evicts it: one WRITE of the dirty line, one READ of the new one.
  b.read(2000, 0x200);
  EXPECT_EQ(stat(*b.l2, "writebacks"), 1u);
  EXPECT_EQ(stat(*b.mem, "writes"), 1u);
  EXPECT_EQ(stat(*b.mem, "bytes_written"), 128u);
  // The written bytes are what the memory holds, and what a later read returns.
  b.read(3000, 0x100, got.data());
  EXPECT_EQ(got, v);
  // A partial write miss fetches the line first.
  b.access(4000, tlm::TLM_WRITE_COMMAND, 0x300, &store_info, v.data(), 4);
  EXPECT_EQ(stat(*b.l2, "write_fetches"), 1u);
}

TEST(MemL2, WriteThroughForwardsEveryWrite) {
  Bench b("sets: 4\nways: 2\nhit_latency: 10\nwrite_policy: write_through\n");
  b.read(1000, 0x0);
  b.access(2000, tlm::TLM_WRITE_COMMAND, 0x0, &store_info);
  b.access(2100, tlm::TLM_WRITE_COMMAND, 0x400, &store_info);
  EXPECT_EQ(stat(*b.l2, "write_hits"), 1u);
  EXPECT_EQ(stat(*b.l2, "write_misses"), 1u);
  EXPECT_EQ(stat(*b.mem, "writes"), 2u);
  EXPECT_EQ(stat(*b.l2, "writebacks"), 0u);
  // No allocation on a write miss: 0x400 still misses.
  b.read(3000, 0x400);
  EXPECT_EQ(stat(*b.l2, "misses"), 2u);
}

TEST(MemL2, AtomicsArePerformedInAWriteBackL2) {
  Bench b(kWriteBack);
  b.read(1000, 0x0);
  b.read(2000, 0x80); // 0x0 leaves the L1
  // The L1 forwards the atomic (L1 lookup 20); the L2 has the line: 50 more, no memory.
  EXPECT_EQ(b.access(3000, tlm::TLM_READ_COMMAND, 0x0, &atomic_info, nullptr, 4), 20u + 50u);
  EXPECT_EQ(stat(*b.l2, "atomics"), 1u);
  EXPECT_EQ(stat(*b.mem, "reads"), 2u);
  EXPECT_EQ(stat(*b.l1, "atomics"), 1u);
}

TEST(MemL2, BadParametersNameTheKey) {
  SimClock clock;
  UnitConfig c;
  try {
    make_unit<IL2>(c, "line_bytes: 96\n", "l2.yaml", "l2", "set_assoc", "l2", clock);
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("l2.line_bytes"), std::string::npos) << e.what();
  }
  try {
    make_unit<IL2>(c, "write_policy: write_around\n", "l2.yaml", "l2", "set_assoc", "l22", clock);
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("write_through"), std::string::npos) << e.what();
  }
}
