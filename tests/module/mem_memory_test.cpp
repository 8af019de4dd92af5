// Module tests of the memory ("simple"): base protocol (byte enables, streaming, address
// errors, IGNORE, debug transport, DMI refused) and timing (latency, bandwidth, queueing).
// One simulation per process: run through ctest (gtest_discover_tests).
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpurf/modules/memory/i_memory.h"
#include "gpurf/platform/config.h"
#include "tests/support/stubs.h"

using namespace gpurf;
using namespace gpurf::test;

namespace {

struct Bench {
  SimClock clock;
  UnitConfig conf;
  std::unique_ptr<IMemory> mem;
  StubInit init{"init"};

  explicit Bench(const std::string& yaml) {
    mem = make_unit<IMemory>(conf, yaml, "test.yaml", "memory", "simple", "mem", clock);
    init.sock.bind(mem->socket);
    sc_core::sc_start(sc_core::SC_ZERO_TIME); // elaboration: sockets become usable
  }

  // Blocking access; returns the annotated delay in cycles (from delay_in).
  uint64_t access(tlm::tlm_command cmd, uint64_t addr, unsigned char* data, unsigned len,
                  tlm::tlm_response_status* st = nullptr, const unsigned char* be = nullptr,
                  unsigned be_len = 0, unsigned sw = 0, uint64_t delay_in = 0) {
    tlm::tlm_generic_payload gp;
    gp.set_command(cmd);
    gp.set_address(addr);
    gp.set_data_ptr(data);
    gp.set_data_length(len);
    gp.set_streaming_width(sw ? sw : len);
    gp.set_byte_enable_ptr(const_cast<unsigned char*>(be));
    gp.set_byte_enable_length(be_len);
    gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time d = clock.time(delay_in);
    init.sock->b_transport(gp, d);
    if (st)
      *st = gp.get_response_status();
    else
      EXPECT_EQ(gp.get_response_status(), tlm::TLM_OK_RESPONSE);
    return clock.cycles(d);
  }
};

} // namespace

TEST(MemMemory, UnwrittenReadsZeroAndWriteReadBack) {
  Bench b("");
  std::vector<unsigned char> buf(64, 0xaa);
  b.access(tlm::TLM_READ_COMMAND, 0x12345678, buf.data(), 64);
  for (unsigned char c : buf) EXPECT_EQ(c, 0);
  // A write across a 4 KiB page boundary.
  std::vector<unsigned char> w(100);
  for (unsigned i = 0; i < w.size(); ++i) w[i] = static_cast<unsigned char>(i + 1);
  b.access(tlm::TLM_WRITE_COMMAND, 0x1fd0, w.data(), 100);
  std::vector<unsigned char> r(100, 0);
  b.access(tlm::TLM_READ_COMMAND, 0x1fd0, r.data(), 100);
  EXPECT_EQ(r, w);
  EXPECT_EQ(stat(*b.mem, "writes"), 1u);
  EXPECT_EQ(stat(*b.mem, "reads"), 2u);
  EXPECT_EQ(stat(*b.mem, "bytes_written"), 100u);
  EXPECT_EQ(stat(*b.mem, "bytes_read"), 164u);
}

TEST(MemMemory, ByteEnablesOnWriteAndReadWithWrapping) {
  Bench b("");
  std::vector<unsigned char> init(8, 0x11);
  b.access(tlm::TLM_WRITE_COMMAND, 0x100, init.data(), 8);
  // Byte enables of length 2 wrap: enable bytes 0, 2, 4, 6.
  const unsigned char be[2] = {TLM_BYTE_ENABLED, TLM_BYTE_DISABLED};
  std::vector<unsigned char> w = {1, 2, 3, 4, 5, 6, 7, 8};
  b.access(tlm::TLM_WRITE_COMMAND, 0x100, w.data(), 8, nullptr, be, 2);
  std::vector<unsigned char> r(8, 0);
  b.access(tlm::TLM_READ_COMMAND, 0x100, r.data(), 8);
  EXPECT_EQ(r, (std::vector<unsigned char>{1, 0x11, 3, 0x11, 5, 0x11, 7, 0x11}));
  // Read with byte enables: disabled bytes of the buffer are left alone.
  const unsigned char be2[4] = {TLM_BYTE_DISABLED, TLM_BYTE_ENABLED, TLM_BYTE_ENABLED,
                                TLM_BYTE_DISABLED};
  std::vector<unsigned char> r2(4, 0xee);
  b.access(tlm::TLM_READ_COMMAND, 0x100, r2.data(), 4, nullptr, be2, 4);
  EXPECT_EQ(r2, (std::vector<unsigned char>{0xee, 0x11, 3, 0xee}));
}

TEST(MemMemory, StreamingWidth) {
  Bench b("");
  // Streaming width 4: 8 bytes written to the same 4-byte window; the last write wins.
  std::vector<unsigned char> w = {1, 2, 3, 4, 5, 6, 7, 8};
  b.access(tlm::TLM_WRITE_COMMAND, 0x40, w.data(), 8, nullptr, nullptr, 0, 4);
  std::vector<unsigned char> r(8, 0xee);
  b.access(tlm::TLM_READ_COMMAND, 0x40, r.data(), 8);
  EXPECT_EQ(r, (std::vector<unsigned char>{5, 6, 7, 8, 0, 0, 0, 0}));
  std::vector<unsigned char> r2(8, 0xee);
  b.access(tlm::TLM_READ_COMMAND, 0x40, r2.data(), 8, nullptr, nullptr, 0, 4);
  EXPECT_EQ(r2, (std::vector<unsigned char>{5, 6, 7, 8, 5, 6, 7, 8}));
}

TEST(MemMemory, AddressErrorOutsideTheMemory) {
  Bench b("size_bytes: 4096\nbase_address: 0x10000\n");
  std::vector<unsigned char> buf(16, 0);
  tlm::tlm_response_status st;
  b.access(tlm::TLM_READ_COMMAND, 0x10000 + 4096 - 8, buf.data(), 16, &st);
  EXPECT_EQ(st, tlm::TLM_ADDRESS_ERROR_RESPONSE);
  b.access(tlm::TLM_WRITE_COMMAND, 0xfff8, buf.data(), 4, &st);
  EXPECT_EQ(st, tlm::TLM_ADDRESS_ERROR_RESPONSE);
  b.access(tlm::TLM_READ_COMMAND, 0x10000 + 4096 - 16, buf.data(), 16, &st);
  EXPECT_EQ(st, tlm::TLM_OK_RESPONSE);
  // Streaming keeps the access inside the window: 16 bytes streamed over the last 4.
  b.access(tlm::TLM_READ_COMMAND, 0x10000 + 4096 - 4, buf.data(), 16, &st, nullptr, 0, 4);
  EXPECT_EQ(st, tlm::TLM_OK_RESPONSE);
}

TEST(MemMemory, IgnoreCommandIsOkWithoutEffect) {
  Bench b("");
  std::vector<unsigned char> buf(4, 7);
  tlm::tlm_response_status st;
  EXPECT_EQ(b.access(tlm::TLM_IGNORE_COMMAND, 0x0, buf.data(), 4, &st), 0u);
  EXPECT_EQ(st, tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(stat(*b.mem, "reads") + stat(*b.mem, "writes"), 0u);
}

TEST(MemMemory, LatencyAndSerialisation) {
  Bench b("latency: 100\nbytes_per_cycle: 32\n");
  std::vector<unsigned char> buf(128);
  EXPECT_EQ(b.access(tlm::TLM_READ_COMMAND, 0, buf.data(), 128), 100u + 4u);
  EXPECT_EQ(b.access(tlm::TLM_READ_COMMAND, 0, buf.data(), 4, nullptr, nullptr, 0, 0, 1000),
            1000u + 100u + 1u);
}

TEST(MemMemory, BandwidthSerialisesBackToBackTransfers) {
  Bench b("latency: 100\nbytes_per_cycle: 32\n");
  std::vector<unsigned char> buf(128);
  b.clock.now = 10;
  // Three 128 B transfers at cycle 10: each occupies the channel 4 cycles.
  EXPECT_EQ(b.access(tlm::TLM_READ_COMMAND, 0, buf.data(), 128), 104u);
  EXPECT_EQ(b.access(tlm::TLM_WRITE_COMMAND, 128, buf.data(), 128), 108u);
  EXPECT_EQ(b.access(tlm::TLM_READ_COMMAND, 256, buf.data(), 128), 112u);
  // One arriving (annotated delay) after the channel is free is not delayed.
  EXPECT_EQ(b.access(tlm::TLM_READ_COMMAND, 0, buf.data(), 64, nullptr, nullptr, 0, 0, 2),
            2u + 10u + 100u + 2u); // channel busy until 22: arrival 12 waits 10
  b.clock.now = 100;
  EXPECT_EQ(b.access(tlm::TLM_READ_COMMAND, 0, buf.data(), 64), 102u);
  EXPECT_EQ(stat(*b.mem, "busy_cycles"), 4u + 4u + 4u + 2u + 2u);
  EXPECT_EQ(stat(*b.mem, "queue_cycles"), 4u + 8u + 10u);
}

TEST(MemMemory, DebugTransportAndNoDmi) {
  Bench b("size_bytes: 256\n");
  std::vector<unsigned char> w(16);
  for (unsigned i = 0; i < 16; ++i) w[i] = static_cast<unsigned char>(0xf0 + i);
  tlm::tlm_generic_payload gp;
  gp.set_command(tlm::TLM_WRITE_COMMAND);
  gp.set_address(248);
  gp.set_data_ptr(w.data());
  gp.set_data_length(16);
  EXPECT_EQ(b.init.sock->transport_dbg(gp), 8u); // clipped at the end of the memory
  std::vector<unsigned char> r(8, 0);
  gp.set_command(tlm::TLM_READ_COMMAND);
  gp.set_data_ptr(r.data());
  gp.set_data_length(8);
  EXPECT_EQ(b.init.sock->transport_dbg(gp), 8u);
  EXPECT_EQ(std::memcmp(r.data(), w.data(), 8), 0);
  gp.set_address(256);
  EXPECT_EQ(b.init.sock->transport_dbg(gp), 0u);
  EXPECT_EQ(stat(*b.mem, "reads") + stat(*b.mem, "writes"), 0u); // untimed, not counted
  tlm::tlm_dmi dmi;
  gp.set_address(0);
  EXPECT_FALSE(b.init.sock->get_direct_mem_ptr(gp, dmi));
}
