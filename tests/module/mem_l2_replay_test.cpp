// Replays access streams through the real "set_assoc" L2's sockets and through the
// reference model (tests/support/reference_l2.h), and compares every access's outcome: hit /
// miss / merge / write hit / write miss / write fetch / write-back counts, error, delay and
// the requests it sent to the memory. The L2 is driven as the L1 drives it: reads without a
// Txn (line fills), writes and atomics with the LSU's Txn. Every read's bytes are compared
// with the memory's. Write-back and write-through, with banks, MSHR waits and evictions.
// One simulation per process: run through ctest (gtest_discover_tests).
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpurf/modules/l2/i_l2.h"
#include "tests/support/recording_mem.h"
#include "tests/support/reference_l2.h"
#include "tests/support/stubs.h"

using namespace gpurf;
using namespace gpurf::test;

namespace {

enum class Op { Read, Write, Atomic };

struct Access {
  Op op;
  uint64_t at, addr;
  unsigned len;
};

InstInfo store_info, atomic_info;

struct Bench {
  SimClock clock;
  UnitConfig conf;
  std::unique_ptr<IL2> l2;
  RecordingMem mem;
  StubInit l1{"l1"};

  explicit Bench(const RefL2Config& c) : mem("mem", &clock, c.mem_latency) {
    store_info.space = atomic_info.space = MemSpace::Global;
    store_info.mem = MemKind::Store;
    atomic_info.mem = MemKind::Atomic;
    std::ostringstream y;
    y << "sets: " << c.sets << "\nways: " << c.ways << "\nline_bytes: " << c.line_bytes
      << "\nbanks: " << c.banks << "\nmshrs: " << c.mshrs << "\nhit_latency: " << c.hit_latency
      << "\nwrite_policy: " << (c.write_back ? "write_back" : "write_through") << "\n";
    l2 = make_unit<IL2>(conf, y.str(), "l2.yaml", "l2", "set_assoc", "l2", clock);
    l2->mem.bind(mem.sock);
    l1.sock.bind(l2->in);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
  }

  RefL2Outcome observe(const Access& a, std::string& odd) {
    static const char* names[] = {"hits",         "misses",        "mshr_merges", "write_hits",
                                  "write_misses", "write_fetches", "writebacks",  "reads",
                                  "writes",       "atomics"};
    uint64_t before[10], after[10];
    for (int i = 0; i < 10; ++i) before[i] = stat(*l2, names[i]);
    clock.now = a.at;
    mem.seen.clear();
    std::vector<unsigned char> data(a.len, 0x5a);
    WarpInst inst;
    inst.info = a.op == Op::Write ? &store_info : &atomic_info;
    Packet p;
    p.prepare(Txn::Kind::Dispatch,
              a.op == Op::Write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    p.txn.inst = &inst;
    if (a.op == Op::Read) p.gp.clear_extension(&p.txn); // an L1 line fill
    p.gp.set_address(a.addr);
    p.gp.set_data_ptr(data.data());
    p.gp.set_data_length(a.len);
    p.gp.set_streaming_width(a.len);
    p.gp.set_byte_enable_ptr(nullptr);
    p.gp.set_byte_enable_length(0);
    l1.sock->b_transport(p.gp, p.delay);
    if (a.op == Op::Read) p.gp.set_extension(&p.txn); // Packet's destructor clears it
    for (int i = 0; i < 10; ++i) after[i] = stat(*l2, names[i]);

    RefL2Outcome got;
    got.status = p.gp.is_response_ok() ? RefStatus::Ok : RefStatus::Error;
    unsigned* out[] = {&got.hits,         &got.misses,        &got.merges,    &got.write_hits,
                       &got.write_misses, &got.write_fetches, &got.writebacks};
    for (int i = 0; i < 7; ++i) *out[i] = unsigned(after[i] - before[i]);
    got.delay = clock.cycles(p.delay);
    got.mem = mem.seen;
    std::ostringstream os;
    const bool ok = got.status == RefStatus::Ok;
    const uint64_t want[3] = {a.op == Op::Read && ok, a.op == Op::Write, a.op == Op::Atomic};
    for (int i = 0; i < 3; ++i)
      if (after[7 + i] - before[7 + i] != want[i])
        os << " stat " << names[7 + i] << " moved by " << after[7 + i] - before[7 + i];
    if (ok && a.op == Op::Read) { // the bytes the memory holds
      std::vector<unsigned char> truth(a.len);
      tlm::tlm_generic_payload g;
      g.set_command(tlm::TLM_READ_COMMAND);
      g.set_address(a.addr);
      g.set_data_ptr(truth.data());
      g.set_data_length(a.len);
      mem.transport_dbg(g);
      if (truth != data) os << " read data differs from the memory's";
    }
    odd = os.str();
    return got;
  }
};

RefL2Outcome expected_of(ReferenceL2& ref, const Access& a) {
  switch (a.op) {
  case Op::Read:
    return ref.read(a.at, a.addr, a.len);
  case Op::Write:
    return ref.write(a.at, a.addr, a.len);
  case Op::Atomic:
    return ref.atomic(a.at, a.addr, a.len);
  }
  return {};
}

struct Coverage {
  uint64_t hits = 0, misses = 0, merges = 0, write_hits = 0, write_misses = 0, fetches = 0,
           writebacks = 0, waits = 0;
};

// Seeded random stream over a pool of about three times the cache's lines: line fills of
// the L1's line size, partial and whole-line writes, atomics, same-cycle bursts.
std::vector<Access> stream(const RefL2Config& c, uint64_t seed, size_t n) {
  std::mt19937_64 rng(seed);
  auto below = [&](uint64_t k) { return std::uniform_int_distribution<uint64_t>(0, k - 1)(rng); };
  const uint64_t pool = std::max<uint64_t>(3 * c.sets * c.ways, 8);
  std::vector<uint64_t> lines;
  for (uint64_t i = 0; i < pool; ++i) lines.push_back(below(pool * 2) | (below(4) << 41));
  std::vector<Access> s;
  uint64_t t = 100;
  while (s.size() < n) {
    const uint64_t g = below(100);
    t += g < 40 ? 0 : g < 80 ? 1 + below(4) : 5 + below(60);
    const uint64_t base = lines[below(lines.size())] * c.line_bytes;
    const uint64_t k = below(100);
    if (k < 60) // an L1 fill: half a line, a line or two lines
      s.push_back({Op::Read, t, base, unsigned(c.line_bytes) << below(2) >> below(2)});
    else if (k < 90) // a write-through: whole line or a few words
      s.push_back({Op::Write, t, base + (below(2) ? 0 : 4 * below(c.line_bytes / 8)),
                   below(2) ? unsigned(c.line_bytes) : 4u * unsigned(1 + below(4))});
    else
      s.push_back({Op::Atomic, t, base + 4 * below(c.line_bytes / 4), 4});
  }
  return s;
}

struct Case {
  const char* name;
  RefL2Config config;
};
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

RefL2Config make(uint64_t sets, uint64_t ways, uint64_t line, uint64_t banks, uint64_t mshrs,
                 uint64_t hit, uint64_t mem, bool wb) {
  RefL2Config c;
  c.sets = sets;
  c.ways = ways;
  c.line_bytes = line;
  c.banks = banks;
  c.mshrs = mshrs;
  c.hit_latency = hit;
  c.mem_latency = mem;
  c.write_back = wb;
  return c;
}

class MemL2Replay : public ::testing::TestWithParam<Case> {};

TEST_P(MemL2Replay, RandomStream) {
  const RefL2Config& c = GetParam().config;
  Bench b(c);
  ReferenceL2 ref(c);
  Coverage cov;
  const std::vector<Access> s = stream(c, 0x12 + c.sets * 3 + c.banks, 4000);
  for (size_t i = 0; i < s.size(); ++i) {
    const Access& a = s[i];
    std::string odd;
    const RefL2Outcome got = b.observe(a, odd);
    const RefL2Outcome want = expected_of(ref, a);
    cov.hits += want.hits;
    cov.misses += want.misses;
    cov.merges += want.merges;
    cov.write_hits += want.write_hits;
    cov.write_misses += want.write_misses;
    cov.fetches += want.write_fetches;
    cov.writebacks += want.writebacks;
    ASSERT_TRUE(got == want && odd.empty())
        << "access #" << i << ": "
        << (a.op == Op::Read    ? "READ"
            : a.op == Op::Write ? "WRITE"
                                : "ATOMIC")
        << " 0x" << std::hex << a.addr << std::dec << "+" << a.len << " at " << a.at
        << "\n  expected: " << want.str() << "\n  got:      " << got.str() << odd;
  }
  EXPECT_GT(cov.hits, 0u);
  EXPECT_GT(cov.misses, 0u);
  EXPECT_GT(cov.merges, 0u);
  EXPECT_GT(cov.write_hits, 0u);
  EXPECT_GT(cov.write_misses, 0u);
  if (c.write_back) {
    EXPECT_GT(cov.fetches, 0u);
    EXPECT_GT(cov.writebacks, 0u);
  }
  if (c.mshrs <= 8) {
    EXPECT_GT(stat(*b.l2, "mshr_wait_cycles"), 0u);
  }
  if (c.banks < 4) {
    EXPECT_GT(stat(*b.l2, "bank_conflict_cycles"), 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Configs, MemL2Replay,
    ::testing::Values(Case{"WriteBack", make(16, 4, 128, 2, 8, 10, 40, true)},
                      Case{"WriteThrough", make(16, 4, 128, 2, 8, 10, 40, false)},
                      Case{"OneBankFewMshrs", make(8, 2, 64, 1, 3, 5, 30, true)},
                      Case{"ManyBanks", make(32, 8, 128, 8, 16, 20, 60, true)}),
    [](const ::testing::TestParamInfo<Case>& i) { return std::string(i.param.name); });

} // namespace
