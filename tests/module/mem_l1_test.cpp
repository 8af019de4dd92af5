// Module tests of the L1 ("set_assoc") with stub initiators (the LSUs) and either a stub
// memory target or the "simple" memory: hit/miss latencies, MSHR merging and exhaustion,
// write-through without allocation, LRU, atomics, byte enables, debug access and errors.
// One simulation per process: run through ctest (gtest_discover_tests).
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "gpurf/modules/l1/i_l1.h"
#include "gpurf/modules/memory/i_memory.h"
#include "gpurf/platform/config.h"
#include "tests/support/stubs.h"

using namespace gpurf;
using namespace gpurf::test;

namespace {

// A memory that records what reaches it: fixed latency, contents in a byte map.
struct StubMem : sc_core::sc_module {
  tlm_utils::simple_target_socket<StubMem> sock;
  unsigned latency = 50;
  std::vector<unsigned char> bytes = std::vector<unsigned char>(1 << 16, 0);
  struct Seen {
    tlm::tlm_command cmd;
    uint64_t addr;
    unsigned len;
    bool has_be;
    uint64_t delay_in;
  };
  std::vector<Seen> seen;
  tlm::tlm_response_status reply = tlm::TLM_OK_RESPONSE;
  explicit StubMem(sc_core::sc_module_name nm) : sc_module(nm), sock("sock") {
    sock.register_b_transport(this, &StubMem::b_transport);
    sock.register_transport_dbg(this, &StubMem::dbg);
  }
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& d) {
    seen.push_back({gp.get_command(), gp.get_address(), gp.get_data_length(),
                    gp.get_byte_enable_ptr() != nullptr,
                    static_cast<uint64_t>(d / sc_core::sc_time(1, sc_core::SC_NS))});
    if (reply != tlm::TLM_OK_RESPONSE) {
      gp.set_response_status(reply);
      return;
    }
    dbg(gp, true);
    d += sc_core::sc_time(latency, sc_core::SC_NS);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
  }
  unsigned dbg(tlm::tlm_generic_payload& gp) { return dbg(gp, false); }
  unsigned dbg(tlm::tlm_generic_payload& gp, bool use_be) {
    const unsigned char* be = use_be ? gp.get_byte_enable_ptr() : nullptr;
    for (unsigned i = 0; i < gp.get_data_length(); ++i) {
      if (be && be[i % gp.get_byte_enable_length()] != TLM_BYTE_ENABLED) continue;
      unsigned char& m = bytes.at(gp.get_address() + i);
      if (gp.is_write())
        m = gp.get_data_ptr()[i];
      else
        gp.get_data_ptr()[i] = m;
    }
    return gp.get_data_length();
  }
  size_t count(tlm::tlm_command c) const {
    size_t n = 0;
    for (const Seen& s : seen) n += s.cmd == c;
    return n;
  }
};

InstInfo load_info, store_info, atomic_info;

struct Bench {
  SimClock clock;
  UnitConfig conf, mconf;
  std::unique_ptr<IL1> l1;
  std::unique_ptr<IMemory> real_mem;
  std::unique_ptr<StubMem> stub_mem;
  StubInit lsu0{"lsu0"}, lsu1{"lsu1"};

  // `mem_yaml` non-empty: the "simple" memory with these parameters; else the stub.
  Bench(const std::string& yaml, const std::string& mem_yaml = "") {
    load_info.space = store_info.space = atomic_info.space = MemSpace::Global;
    load_info.mem = MemKind::Load;
    store_info.mem = MemKind::Store;
    atomic_info.mem = MemKind::Atomic;
    l1 = make_unit<IL1>(conf, yaml, "l1.yaml", "l1", "set_assoc", "l1", clock);
    if (!mem_yaml.empty()) {
      real_mem = make_unit<IMemory>(mconf, mem_yaml, "mem.yaml", "memory", "simple", "mem", clock);
      l1->mem.bind(real_mem->socket);
    } else {
      stub_mem = std::make_unique<StubMem>("stub_mem");
      l1->mem.bind(stub_mem->sock);
    }
    lsu0.sock.bind(l1->in);
    lsu1.sock.bind(l1->in);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
  }

  struct Result {
    uint64_t delay;
    bool busy;
    tlm::tlm_response_status status;
    Cycle retry_at; // told with a refusal
  };
  uint32_t skipped = 0; // told with the next access (Txn::skipped)
  // One access with a Txn carrying an instruction of kind `info` (nullptr: no Txn).
  Result access(tlm::tlm_command cmd, uint64_t addr, unsigned len, unsigned char* data = nullptr,
                const InstInfo* info = &load_info, StubInit* who = nullptr,
                const unsigned char* be = nullptr) {
    std::vector<unsigned char> scratch(len);
    WarpInst inst;
    inst.info = info;
    Packet p;
    p.prepare(Txn::Kind::Dispatch, cmd);
    p.txn.inst = &inst;
    p.txn.skipped = std::exchange(skipped, 0);
    if (!info) p.gp.clear_extension(&p.txn);
    p.gp.set_address(addr);
    p.gp.set_data_ptr(data ? data : scratch.data());
    p.gp.set_data_length(len);
    p.gp.set_streaming_width(len);
    p.gp.set_byte_enable_ptr(const_cast<unsigned char*>(be));
    p.gp.set_byte_enable_length(be ? len : 0);
    (who ? who : &lsu0)->sock->b_transport(p.gp, p.delay);
    Result r{clock.cycles(p.delay), p.txn.busy, p.gp.get_response_status(), p.txn.retry_at};
    if (!info) p.gp.set_extension(&p.txn); // Packet's destructor clears it
    return r;
  }
};

} // namespace

TEST(MemL1, HitAndMissLatencyWithTheSimpleMemory) {
  Bench b("hit_latency: 20\n", "latency: 100\nbytes_per_cycle: 32\n");
  // Miss: hit_latency + memory latency + serialisation of the 128 B line.
  auto r = b.access(tlm::TLM_READ_COMMAND, 0x1000, 128);
  EXPECT_EQ(r.status, tlm::TLM_OK_RESPONSE);
  EXPECT_FALSE(r.busy);
  EXPECT_EQ(r.delay, 20u + 100u + 4u);
  b.clock.now = 200; // after the fill
  EXPECT_EQ(b.access(tlm::TLM_READ_COMMAND, 0x1000, 128).delay, 20u);
  EXPECT_EQ(b.access(tlm::TLM_READ_COMMAND, 0x1040, 4).delay, 20u);
  EXPECT_EQ(stat(*b.l1, "hits"), 2u);
  EXPECT_EQ(stat(*b.l1, "misses"), 1u);
  EXPECT_EQ(stat(*b.l1, "bytes_from_memory"), 128u);
}

TEST(MemL1, MissDataAndByteEnablesReachThePayload) {
  Bench b("");
  for (unsigned i = 0; i < 256; ++i) b.stub_mem->bytes[0x200 + i] = static_cast<unsigned char>(i);
  std::vector<unsigned char> buf(128, 0xee), be(128, TLM_BYTE_DISABLED);
  be[4] = be[5] = be[127] = TLM_BYTE_ENABLED;
  b.access(tlm::TLM_READ_COMMAND, 0x200, 128, buf.data(), &load_info, nullptr, be.data());
  EXPECT_EQ(buf[4], 4);
  EXPECT_EQ(buf[5], 5);
  EXPECT_EQ(buf[127], 127);
  EXPECT_EQ(buf[6], 0xee);
  // The fill read the whole line, without byte enables.
  ASSERT_EQ(b.stub_mem->seen.size(), 1u);
  EXPECT_EQ(b.stub_mem->seen[0].addr, 0x200u);
  EXPECT_EQ(b.stub_mem->seen[0].len, 128u);
  EXPECT_FALSE(b.stub_mem->seen[0].has_be);
  // The fill is sent after the tag lookup (hit_latency 20).
  EXPECT_EQ(b.stub_mem->seen[0].delay_in, 20u);
  // A hit returns the data too.
  b.clock.now = 1000;
  std::vector<unsigned char> hit(8, 0);
  EXPECT_EQ(b.access(tlm::TLM_READ_COMMAND, 0x248, 8, hit.data()).delay, 20u);
  EXPECT_EQ(hit[0], 0x48);
  EXPECT_EQ(hit[7], 0x4f);
  EXPECT_EQ(b.stub_mem->seen.size(), 1u);
}

TEST(MemL1, MshrMergeCompletesWithTheFirstMiss) {
  Bench b("hit_latency: 20\n");
  b.clock.now = 10;
  EXPECT_EQ(b.access(tlm::TLM_READ_COMMAND, 0x400, 128).delay, 70u); // fill at cycle 80
  b.clock.now = 15;
  // The other sub-core's LSU reads the same line: merged, ready at cycle 80.
  auto r = b.access(tlm::TLM_READ_COMMAND, 0x440, 4, nullptr, &load_info, &b.lsu1);
  EXPECT_EQ(r.delay, 65u);
  EXPECT_EQ(b.stub_mem->count(tlm::TLM_READ_COMMAND), 1u);
  EXPECT_EQ(stat(*b.l1, "mshr_merges"), 1u);
  // Close to the fill, a merged access still pays the lookup.
  b.clock.now = 75;
  EXPECT_EQ(b.access(tlm::TLM_READ_COMMAND, 0x400, 4).delay, 20u);
  // After the fill, a hit.
  b.clock.now = 80;
  EXPECT_EQ(b.access(tlm::TLM_READ_COMMAND, 0x400, 4).delay, 20u);
  EXPECT_EQ(stat(*b.l1, "hits"), 1u);
  EXPECT_EQ(stat(*b.l1, "mshr_merges"), 2u);
}

TEST(MemL1, MshrFullSetsBusyThenFreesOnCompletion) {
  Bench b("mshrs: 2\nhit_latency: 20\n");
  b.clock.now = 0;
  EXPECT_EQ(b.access(tlm::TLM_READ_COMMAND, 0x0000, 128).delay, 70u);
  b.clock.now = 1;
  EXPECT_EQ(b.access(tlm::TLM_READ_COMMAND, 0x1000, 128).delay, 70u); // fill at 71
  b.clock.now = 2;
  auto r = b.access(tlm::TLM_READ_COMMAND, 0x2000, 128);
  EXPECT_TRUE(r.busy);
  EXPECT_EQ(r.retry_at, 70u); // the first fill frees its MSHR then
  EXPECT_EQ(stat(*b.l1, "mshr_full_stalls"), 1u);
  EXPECT_EQ(b.stub_mem->seen.size(), 2u);
  // A merge or a hit needs no MSHR.
  EXPECT_FALSE(b.access(tlm::TLM_READ_COMMAND, 0x0010, 4).busy);
  // Retried until the first MSHR frees at cycle 70.
  b.clock.now = 69;
  EXPECT_TRUE(b.access(tlm::TLM_READ_COMMAND, 0x2000, 128).busy);
  b.clock.now = 70;
  b.skipped = 10; // refusals an LSU asleep on retry_at skipped: counted as refused
  r = b.access(tlm::TLM_READ_COMMAND, 0x2000, 128);
  EXPECT_FALSE(r.busy);
  EXPECT_EQ(r.delay, 70u);
  EXPECT_EQ(stat(*b.l1, "mshr_full_stalls"), 12u);
}

TEST(MemL1, WithoutTxnAFullMshrFileSerialises) {
  Bench b("mshrs: 1\nhit_latency: 20\n");
  EXPECT_EQ(b.access(tlm::TLM_READ_COMMAND, 0x0000, 128).delay, 70u);
  // An external initiator (no Txn) waits for the MSHR (cycle 70), then misses: 70 + 70.
  auto r = b.access(tlm::TLM_READ_COMMAND, 0x1000, 128, nullptr, nullptr);
  EXPECT_FALSE(r.busy);
  EXPECT_EQ(r.status, tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(r.delay, 140u);
  EXPECT_EQ(b.stub_mem->seen.back().delay_in, 90u); // sent at 70 + the lookup
}

TEST(MemL1, WriteThroughNoWriteAllocate) {
  Bench b("hit_latency: 20\n");
  std::vector<unsigned char> w(128, 0), be(128, TLM_BYTE_DISABLED);
  w[8] = 0x5a;
  be[8] = TLM_BYTE_ENABLED;
  // Write miss: forwarded with data and byte enables; the line is not allocated.
  auto r = b.access(tlm::TLM_WRITE_COMMAND, 0x800, 128, w.data(), &store_info, nullptr, be.data());
  EXPECT_EQ(r.delay, 20u); // posted
  ASSERT_EQ(b.stub_mem->seen.size(), 1u);
  EXPECT_EQ(b.stub_mem->seen[0].cmd, tlm::TLM_WRITE_COMMAND);
  EXPECT_TRUE(b.stub_mem->seen[0].has_be);
  EXPECT_EQ(b.stub_mem->bytes[0x808], 0x5a);
  EXPECT_EQ(b.stub_mem->bytes[0x807], 0); // disabled byte not written
  b.clock.now = 100;
  EXPECT_EQ(b.access(tlm::TLM_READ_COMMAND, 0x800, 4).delay, 70u); // still a miss
  // Write hit: written through; the line stays cached and the next read hits with new data.
  b.clock.now = 200;
  std::vector<unsigned char> v = {1, 2, 3, 4};
  b.access(tlm::TLM_WRITE_COMMAND, 0x810, 4, v.data(), &store_info);
  EXPECT_EQ(stat(*b.l1, "write_hits"), 1u);
  std::vector<unsigned char> rd(4, 0);
  EXPECT_EQ(b.access(tlm::TLM_READ_COMMAND, 0x810, 4, rd.data()).delay, 20u);
  EXPECT_EQ(rd, v);
  EXPECT_EQ(stat(*b.l1, "writes"), 2u);
  EXPECT_EQ(stat(*b.l1, "bytes_to_memory"), 132u);
}

TEST(MemL1, NonPostedWritesWaitForTheMemory) {
  Bench b("hit_latency: 20\nposted_writes: false\n");
  std::vector<unsigned char> v(4, 1);
  EXPECT_EQ(b.access(tlm::TLM_WRITE_COMMAND, 0x0, 4, v.data(), &store_info).delay, 70u);
}

TEST(MemL1, LruReplacement) {
  Bench b("sets: 1\nways: 2\nhit_latency: 1\n");
  b.stub_mem->latency = 10;
  auto miss = [&](uint64_t a) { return b.access(tlm::TLM_READ_COMMAND, a, 4).delay == 11; };
  auto step = [&] { b.clock.now += 100; };
  EXPECT_TRUE(miss(0x000));
  step();
  EXPECT_TRUE(miss(0x080));
  step();
  EXPECT_FALSE(miss(0x000)); // hit; 0x080 is now the LRU line
  step();
  EXPECT_TRUE(miss(0x100)); // evicts 0x080
  step();
  EXPECT_FALSE(miss(0x000));
  step();
  EXPECT_TRUE(miss(0x080));
}

TEST(MemL1, AtomicsAreForwardedAsReadsAndNotCached) {
  Bench b("hit_latency: 20\n");
  b.stub_mem->bytes[0x40] = 9;
  b.access(tlm::TLM_READ_COMMAND, 0x0, 128); // caches the line
  b.clock.now = 100;
  std::vector<unsigned char> d(4, 0);
  auto r = b.access(tlm::TLM_READ_COMMAND, 0x40, 4, d.data(), &atomic_info);
  EXPECT_EQ(r.delay, 70u);
  EXPECT_EQ(d[0], 9);
  EXPECT_EQ(b.stub_mem->seen.back().cmd, tlm::TLM_READ_COMMAND);
  EXPECT_EQ(b.stub_mem->seen.back().len, 4u);
  EXPECT_EQ(b.stub_mem->bytes[0x40], 9); // unchanged
  EXPECT_EQ(stat(*b.l1, "atomics"), 1u);
  // The line was invalidated: the next read misses.
  b.clock.now = 200;
  EXPECT_EQ(b.access(tlm::TLM_READ_COMMAND, 0x0, 4).delay, 70u);
}

TEST(MemL1, RequestSpanningTwoLines) {
  Bench b("hit_latency: 20\nline_bytes: 64\n");
  auto r = b.access(tlm::TLM_READ_COMMAND, 0x20, 64);
  EXPECT_EQ(r.delay, 70u);
  EXPECT_EQ(stat(*b.l1, "misses"), 2u);
  EXPECT_EQ(b.stub_mem->count(tlm::TLM_READ_COMMAND), 2u);
}

TEST(MemL1, FunctionalAccessThroughDebugTransport) {
  Bench b("", "size_bytes: 4096\n");
  IFunctionalMemory& fm = *b.l1;
  const uint32_t v = 0xdeadbeef;
  fm.write(0x100, &v, 4);
  uint32_t r = 0;
  fm.read(0x100, &r, 4);
  EXPECT_EQ(r, v);
  EXPECT_EQ(stat(*b.real_mem, "reads") + stat(*b.real_mem, "writes"), 0u);
  EXPECT_THROW(b.l1->debug_read(4094, &r, 4), WorkloadError);
  // Debug transport through the L1's target socket reaches the memory.
  tlm::tlm_generic_payload gp;
  gp.set_command(tlm::TLM_READ_COMMAND);
  gp.set_address(0x100);
  gp.set_data_ptr(reinterpret_cast<unsigned char*>(&r));
  gp.set_data_length(4);
  r = 0;
  EXPECT_EQ(b.lsu1.sock->transport_dbg(gp), 4u);
  EXPECT_EQ(r, v);
}

TEST(MemL1, MemoryErrorRaisesWorkloadError) {
  Bench b("", "size_bytes: 4096\n");
  try {
    b.access(tlm::TLM_READ_COMMAND, 0x2000, 4);
    FAIL() << "no WorkloadError";
  } catch (const WorkloadError& e) {
    EXPECT_NE(std::string(e.what()).find("0x2000"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("ADDRESS_ERROR"), std::string::npos) << e.what();
  }
}

TEST(MemL1, StreamingReadIsABurstError) {
  Bench b("");
  std::vector<unsigned char> d(8);
  tlm::tlm_generic_payload gp;
  gp.set_command(tlm::TLM_READ_COMMAND);
  gp.set_address(0);
  gp.set_data_ptr(d.data());
  gp.set_data_length(8);
  gp.set_streaming_width(4);
  sc_core::sc_time t = sc_core::SC_ZERO_TIME;
  b.lsu0.sock->b_transport(gp, t);
  EXPECT_EQ(gp.get_response_status(), tlm::TLM_BURST_ERROR_RESPONSE);
}
