// Module tests of the register bank ("sliced") alone, with a stub arbiter (initiator) and a
// stub crossbar (the `out` target): byte enables select the slices, slice counters, address
// errors, read data and delay forwarded to the crossbar. One simulation per process.
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpurf/modules/bank/i_bank.h"
#include "gpurf/platform/config.h"
#include "tests/support/stubs.h"

using namespace gpurf;
using namespace gpurf::test;

namespace {

using Row = std::array<unsigned char, kRegBytes>;

struct Bench {
  SimClock clock;
  UnitConfig conf;
  std::unique_ptr<IBank> bank;
  StubInit arb{"arb"};
  StubTarget xbar{"xbar", &clock};

  explicit Bench(const std::string& yaml) {
    bank = make_unit<IBank>(conf, yaml, "bank.yaml", "bank", "sliced", "bank0", clock);
    xbar.keep_data = true;
    arb.sock.bind(bank->in);
    bank->out.bind(xbar.sock);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
  }

  // One access as the arbiter makes it: address row * 128, slice mask as byte enables.
  tlm::tlm_response_status access(tlm::tlm_command cmd, uint64_t addr, unsigned char* data,
                                  unsigned mask, sc_core::sc_time* delay = nullptr,
                                  unsigned len = kRegBytes) {
    const unsigned slice_bytes = kRegBytes / bank->slices();
    std::vector<unsigned char> be(kRegBytes);
    for (unsigned i = 0; i < kRegBytes; ++i)
      be[i] = (mask >> (i / slice_bytes)) & 1 ? TLM_BYTE_ENABLED : TLM_BYTE_DISABLED;
    Packet p;
    p.prepare(cmd == tlm::TLM_READ_COMMAND ? Txn::Kind::Read : Txn::Kind::Write, cmd);
    p.txn.slice_mask = mask;
    p.txn.collector = 3;
    p.gp.set_address(addr);
    p.gp.set_data_ptr(data);
    p.gp.set_data_length(len);
    p.gp.set_streaming_width(len);
    p.gp.set_byte_enable_ptr(be.data());
    p.gp.set_byte_enable_length(kRegBytes);
    if (delay) p.delay = *delay;
    arb.sock->b_transport(p.gp, p.delay);
    if (delay) *delay = p.delay;
    return p.gp.get_response_status();
  }
};

Row pattern(unsigned char base) {
  Row r;
  for (unsigned i = 0; i < kRegBytes; ++i) r[i] = static_cast<unsigned char>(base + i);
  return r;
}

} // namespace

TEST(UnitBank, DescribesItsShape) {
  Bench b("{entries: 16, slices: 4, ports: 1r1w, latency: 3}");
  EXPECT_EQ(b.bank->rows(), 16u);
  EXPECT_EQ(b.bank->slices(), 4u);
  EXPECT_TRUE(b.bank->separate_write_port());
  EXPECT_EQ(b.bank->latency(), 3u);
}

TEST(UnitBank, WriteTouchesOnlyEnabledSlices) {
  Bench b("{entries: 16, slices: 4}");
  Row w = pattern(1);
  EXPECT_EQ(b.access(tlm::TLM_WRITE_COMMAND, 5 * kRegBytes, w.data(), 0x5), tlm::TLM_OK_RESPONSE);
  EXPECT_EQ(stat(*b.bank, "writes"), 1u);
  EXPECT_EQ(stat(*b.bank, "slice_writes"), 2u);
  EXPECT_TRUE(b.xbar.seen.empty()); // writes are not forwarded
  Row r;
  r.fill(0xee);
  EXPECT_EQ(b.access(tlm::TLM_READ_COMMAND, 5 * kRegBytes, r.data(), 0xf), tlm::TLM_OK_RESPONSE);
  for (unsigned i = 0; i < kRegBytes; ++i) {
    const unsigned slice = i / 32;
    EXPECT_EQ(r[i], slice == 0 || slice == 2 ? w[i] : 0) << "byte " << i;
  }
  EXPECT_EQ(stat(*b.bank, "reads"), 1u);
  EXPECT_EQ(stat(*b.bank, "slice_reads"), 4u);
}

TEST(UnitBank, ReadFillsOnlyEnabledSlices) {
  Bench b("{entries: 16, slices: 8}");
  Row w = pattern(7);
  b.access(tlm::TLM_WRITE_COMMAND, 2 * kRegBytes, w.data(), 0xff);
  EXPECT_EQ(stat(*b.bank, "slice_writes"), 8u);
  Row r;
  r.fill(0xee);
  b.access(tlm::TLM_READ_COMMAND, 2 * kRegBytes, r.data(), 0x82);
  for (unsigned i = 0; i < kRegBytes; ++i) {
    const unsigned slice = i / 16;
    EXPECT_EQ(r[i], slice == 1 || slice == 7 ? w[i] : 0xee) << "byte " << i;
  }
  EXPECT_EQ(stat(*b.bank, "slice_reads"), 2u);
  // Another row is untouched.
  Row z;
  z.fill(0xee);
  b.access(tlm::TLM_READ_COMMAND, 3 * kRegBytes, z.data(), 0xff);
  for (unsigned i = 0; i < kRegBytes; ++i) EXPECT_EQ(z[i], 0) << i;
  EXPECT_EQ(stat(*b.bank, "slice_reads"), 10u);
  EXPECT_EQ(stat(*b.bank, "reads"), 2u);
}

TEST(UnitBank, AddressBeyondEntriesIsAnAddressError) {
  Bench b("{entries: 8, slices: 1}");
  Row d{};
  EXPECT_EQ(b.access(tlm::TLM_WRITE_COMMAND, 8 * kRegBytes, d.data(), 1),
            tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(b.access(tlm::TLM_READ_COMMAND, 100 * kRegBytes, d.data(), 1),
            tlm::TLM_ADDRESS_ERROR_RESPONSE);
  EXPECT_EQ(b.access(tlm::TLM_READ_COMMAND, 3 * kRegBytes + 4, d.data(), 1),
            tlm::TLM_ADDRESS_ERROR_RESPONSE); // not row-aligned
  EXPECT_EQ(b.access(tlm::TLM_READ_COMMAND, 0, d.data(), 1, nullptr, 64),
            tlm::TLM_ADDRESS_ERROR_RESPONSE); // not one 128 B register
  EXPECT_EQ(stat(*b.bank, "reads") + stat(*b.bank, "writes"), 0u);
  EXPECT_TRUE(b.xbar.seen.empty());
  EXPECT_EQ(b.access(tlm::TLM_READ_COMMAND, 7 * kRegBytes, d.data(), 1), tlm::TLM_OK_RESPONSE);
}

TEST(UnitBank, ReadForwardsDataWithLatency) {
  Bench b("{entries: 16, slices: 4, latency: 3}");
  Row w = pattern(40);
  b.access(tlm::TLM_WRITE_COMMAND, 9 * kRegBytes, w.data(), 0xf);
  Row r{};
  sc_core::sc_time d(2, sc_core::SC_NS);
  b.access(tlm::TLM_READ_COMMAND, 9 * kRegBytes, r.data(), 0xf, &d);
  ASSERT_EQ(b.xbar.seen.size(), 1u);
  EXPECT_EQ(b.xbar.seen[0].delay, sc_core::sc_time(5, sc_core::SC_NS)); // 2 + latency 3
  EXPECT_EQ(d, sc_core::sc_time(5, sc_core::SC_NS));
  EXPECT_EQ(b.clock.cycles(b.xbar.seen[0].delay), 5u);
  EXPECT_EQ(b.xbar.seen[0].txn.collector, 3u); // the Txn rides along
  ASSERT_EQ(b.xbar.seen[0].data.size(), kRegBytes);
  for (unsigned i = 0; i < kRegBytes; ++i) EXPECT_EQ(b.xbar.seen[0].data[i], w[i]) << i;
}

TEST(UnitBank, SlicesMustSplitARegister) {
  auto cfg = parse_config_string("{slices: 3}", "bank.yaml");
  Params p(cfg.get(), "bank");
  UnitContext c = default_context("bank0");
  try {
    IBank::Registry::create("sliced", p, c);
    FAIL() << "no ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("bank.slices"), std::string::npos) << e.what();
  }
}
