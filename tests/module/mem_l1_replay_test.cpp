// Replays access streams through the real "set_assoc" L1's sockets and through the
// reference model (tests/support/reference_l1.h), and compares every access's outcome:
// hit / miss / merge counts of its lines, write hits, busy or error, its delay and the
// requests it sent to the memory. The L1 is observed from the outside only: the delay
// annotated on the payload, the Txn's busy flag, the response status, the requests a
// recording memory saw, and the L1's statistics before and after the access.
//
// Streams: (a) seeded random reads, writes, atomics and reads without a Txn, of several
// sizes, a few cycles apart and in same-cycle bursts (so MSHRs merge and run out);
// (b) lines that differ only in the address bits above bit 40 (same set, same low bits),
// which an L1 comparing only part of the tag would confuse.
// One simulation per process: run through ctest (gtest_discover_tests).
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include <gtest/gtest.h>

#include "gpurf/modules/l1/i_l1.h"
#include "gpurf/platform/text.h"
#include "tests/support/recording_mem.h"
#include "tests/support/reference_l1.h"
#include "tests/support/stubs.h"

using namespace gpurf;
using namespace gpurf::test;

namespace {

enum class Op { Read, ReadNoTxn, Write, Atomic };

const char* op_name(Op op) {
  switch (op) {
  case Op::Read:
    return "READ";
  case Op::ReadNoTxn:
    return "READ (no Txn)";
  case Op::Write:
    return "WRITE";
  case Op::Atomic:
    return "ATOMIC";
  }
  return "?";
}

struct Access {
  Op op;
  uint64_t at; // the cycle it is sent in (the clock's now; delay 0)
  uint64_t addr;
  unsigned len;
};

InstInfo load_info, store_info, atomic_info;

std::string yaml_of(const RefL1Config& c) {
  std::ostringstream os;
  os << "sets: " << c.sets << "\nways: " << c.ways << "\nline_bytes: " << c.line_bytes
     << "\nmshrs: " << c.mshrs << "\nhit_latency: " << c.hit_latency
     << "\nposted_writes: " << (c.posted_writes ? "true" : "false") << "\n";
  return os.str();
}

struct Bench {
  SimClock clock;
  UnitConfig conf;
  std::unique_ptr<IL1> l1;
  RecordingMem mem;
  StubInit lsu0{"lsu0"}, lsu1{"lsu1"};

  explicit Bench(const RefL1Config& c) : mem("mem", &clock, c.mem_latency) {
    load_info.space = store_info.space = atomic_info.space = MemSpace::Global;
    load_info.mem = MemKind::Load;
    store_info.mem = MemKind::Store;
    atomic_info.mem = MemKind::Atomic;
    l1 = make_unit<IL1>(conf, yaml_of(c), "l1.yaml", "l1", "set_assoc", "l1", clock);
    l1->mem.bind(mem.sock);
    lsu0.sock.bind(l1->in);
    lsu1.sock.bind(l1->in);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
  }

  struct Counters {
    uint64_t reads, writes, atomics, hits, misses, merges, full, write_hits;
  };
  Counters counters() {
    return {stat(*l1, "reads"),
            stat(*l1, "writes"),
            stat(*l1, "atomics"),
            stat(*l1, "hits"),
            stat(*l1, "misses"),
            stat(*l1, "mshr_merges"),
            stat(*l1, "mshr_full_stalls"),
            stat(*l1, "write_hits")};
  }

  // Sends `a` through the L1 and describes what it did in the reference's terms; anything
  // the outcome cannot express (a statistic that moved when it should not) goes to `odd`.
  RefOutcome observe(const Access& a, StubInit& who, std::string& odd) {
    clock.now = a.at;
    const Counters before = counters();
    mem.seen.clear();

    std::vector<unsigned char> data(a.len, 0x5a);
    WarpInst inst;
    inst.info = a.op == Op::Write ? &store_info : a.op == Op::Atomic ? &atomic_info : &load_info;
    Packet p;
    p.prepare(Txn::Kind::Dispatch,
              a.op == Op::Write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    p.txn.inst = &inst;
    if (a.op == Op::ReadNoTxn) p.gp.clear_extension(&p.txn);
    p.gp.set_address(a.addr);
    p.gp.set_data_ptr(data.data());
    p.gp.set_data_length(a.len);
    p.gp.set_streaming_width(a.len);
    p.gp.set_byte_enable_ptr(nullptr);
    p.gp.set_byte_enable_length(0);
    who.sock->b_transport(p.gp, p.delay);
    if (a.op == Op::ReadNoTxn) p.gp.set_extension(&p.txn); // Packet's destructor clears it

    const Counters after = counters();
    RefOutcome got;
    if (p.txn.busy)
      got.status = RefStatus::Busy;
    else if (p.gp.get_response_status() == tlm::TLM_OK_RESPONSE)
      got.status = RefStatus::Ok;
    else
      got.status = RefStatus::Error;
    got.hits = unsigned(after.hits - before.hits);
    got.misses = unsigned(after.misses - before.misses);
    got.merges = unsigned(after.merges - before.merges);
    got.write_hits = unsigned(after.write_hits - before.write_hits);
    got.delay = clock.cycles(p.delay);
    got.mem = mem.seen;

    std::ostringstream os;
    if (!p.txn.busy && !p.gp.is_response_ok() &&
        p.gp.get_response_status() != tlm::TLM_BURST_ERROR_RESPONSE)
      os << " response " << p.gp.get_response_string();
    const bool ok = got.status == RefStatus::Ok, busy = got.status == RefStatus::Busy;
    const bool is_read = a.op == Op::Read || a.op == Op::ReadNoTxn;
    auto expect = [&](const char* name, uint64_t delta, uint64_t want) {
      if (delta != want)
        os << " stat " << name << " moved by " << delta << " (want " << want << ")";
    };
    expect("reads", after.reads - before.reads, is_read && ok);
    expect("writes", after.writes - before.writes, a.op == Op::Write);
    expect("atomics", after.atomics - before.atomics, a.op == Op::Atomic);
    expect("mshr_full_stalls", after.full - before.full, busy);
    odd = os.str();
    return got;
  }
};

RefOutcome expected_of(ReferenceL1& ref, const Access& a) {
  switch (a.op) {
  case Op::Read:
    return ref.read(a.at, a.addr, a.len);
  case Op::ReadNoTxn:
    return ref.read(a.at, a.addr, a.len, /*can_retry=*/false);
  case Op::Write:
    return ref.write(a.at, a.addr, a.len);
  case Op::Atomic:
    return ref.atomic(a.at, a.addr, a.len);
  }
  return {};
}

struct Coverage {
  uint64_t hits = 0, misses = 0, merges = 0, write_hits = 0, busy = 0, errors = 0;
  void add(const RefOutcome& o) {
    hits += o.hits;
    misses += o.misses;
    merges += o.merges;
    write_hits += o.write_hits;
    busy += o.status == RefStatus::Busy;
    errors += o.status == RefStatus::Error;
  }
  std::string str() const {
    std::ostringstream os;
    os << hits << " hits, " << misses << " misses, " << merges << " merges, " << write_hits
       << " write hits, " << busy << " busy, " << errors << " errors";
    return os.str();
  }
};

// Replays `stream`; on the first access whose outcome differs, returns a message naming
// it (index, operation, address, cycle, expected, got). Empty when every access agrees.
std::string replay(const RefL1Config& c, const std::vector<Access>& stream, Coverage& cov) {
  Bench b(c);
  ReferenceL1 ref(c);
  for (size_t i = 0; i < stream.size(); ++i) {
    const Access& a = stream[i];
    std::ostringstream set;
    for (uint64_t l : ref.set_lines(a.addr)) set << " " << hex(l);
    std::string odd;
    const RefOutcome got = b.observe(a, i % 2 ? b.lsu1 : b.lsu0, odd);
    const RefOutcome want = expected_of(ref, a);
    cov.add(want);
    if (got != want || !odd.empty()) {
      std::ostringstream os;
      os << "access #" << i << " of " << stream.size() << ": " << op_name(a.op) << " "
         << hex(a.addr) << "+" << a.len << " at cycle " << a.at << "\n  expected: " << want.str()
         << "\n  got:      " << got.str() << (odd.empty() ? "" : "\n  statistics:" + odd)
         << "\n  reference set before, MRU first:" << set.str();
      return os.str();
    }
  }
  return "";
}

// (a) Random accesses over a pool of lines about three times the cache's capacity, often
// back to a recently used line (hits, merges), with now and then a same-cycle storm of
// reads to new lines, more than the MSHRs (busy, and serialised reads without a Txn).
std::vector<Access> random_stream(const RefL1Config& c, uint64_t seed, size_t n) {
  std::mt19937_64 rng(seed);
  auto below = [&](uint64_t k) { return std::uniform_int_distribution<uint64_t>(0, k - 1)(rng); };
  std::vector<uint64_t> lines;
  const uint64_t pool = std::min<uint64_t>(std::max<uint64_t>(3 * c.sets * c.ways, 8), 4096);
  for (uint64_t i = 0; i < pool; ++i) lines.push_back(below(pool * 2));
  const unsigned lens[] = {4, 8, 16, 32, 64, 128};
  std::vector<Access> s;
  std::vector<uint64_t> recent; // the last lines used
  uint64_t t = 100;
  while (s.size() < n) {
    const uint64_t g = below(100);
    t += g < 35 ? 0 : g < 75 ? 1 + below(4) : g < 95 ? 5 + below(30) : 40 + below(200);
    if (below(100) == 0) {
      for (uint64_t i = 0; i < c.mshrs + 4; ++i)
        s.push_back(
            {below(4) ? Op::Read : Op::ReadNoTxn, t, lines[below(lines.size())] * c.line_bytes, 4});
      continue;
    }
    const uint64_t k = below(100);
    const Op op = k < 68 ? Op::Read : k < 73 ? Op::ReadNoTxn : k < 90 ? Op::Write : Op::Atomic;
    const unsigned len = lens[below(6)];
    uint64_t off = below(c.line_bytes) & ~uint64_t(3);
    if (below(10)) off &= ~uint64_t(len - 1); // mostly aligned; some span two lines
    const uint64_t line =
        !recent.empty() && below(5) < 2 ? recent[below(recent.size())] : lines[below(lines.size())];
    if (recent.size() == 8) recent.erase(recent.begin());
    recent.push_back(line);
    s.push_back({op, t, line * c.line_bytes + off, len});
  }
  s.resize(n);
  return s;
}

// (b) Lines that share their low 40 address bits (so their set) and differ only above.
std::vector<Access> high_tag_stream(const RefL1Config& c, uint64_t seed, size_t n) {
  std::mt19937_64 rng(seed);
  auto below = [&](uint64_t k) { return std::uniform_int_distribution<uint64_t>(0, k - 1)(rng); };
  const uint64_t base = (0x2345 * c.sets + c.sets / 2) * c.line_bytes; // below 2^40
  std::vector<uint64_t> pool = {base};
  for (unsigned bit = 40; bit <= 62; ++bit) pool.push_back(base | (uint64_t(1) << bit));
  for (int i = 0; i < 8; ++i) pool.push_back(base | ((1 + below((1u << 23) - 1)) << 40));
  std::vector<Access> s;
  uint64_t t = 100;
  const uint64_t settle = c.hit_latency + c.mem_latency; // every fill is back
  // Each high-bit line against the base line: a partial tag compare makes one a hit.
  for (size_t i = 1; i < pool.size(); ++i) {
    s.push_back({Op::Read, t += settle, base, 4});
    s.push_back({Op::Read, t += settle, pool[i], 4});
    s.push_back({Op::Read, t += settle, base, 4});
    s.push_back({Op::Read, t += settle, pool[i], 4});
  }
  for (size_t i = 0; i < n; ++i) {
    const uint64_t g = below(100);
    t += g < 20 ? 0 : g < 40 ? 1 + below(8) : settle + below(20);
    const uint64_t k = below(100);
    const Op op = k < 75 ? Op::Read : k < 80 ? Op::ReadNoTxn : k < 92 ? Op::Write : Op::Atomic;
    s.push_back({op, t, pool[below(pool.size())] + (below(c.line_bytes / 4) * 4), 4});
  }
  return s;
}

struct ReplayCase {
  const char* name;
  RefL1Config config;
};
void PrintTo(const ReplayCase& c, std::ostream* os) { *os << c.name; } // test names in ctest

RefL1Config make(uint64_t sets, uint64_t ways, uint64_t line, uint64_t mshrs, uint64_t hit,
                 uint64_t mem, bool posted = true) {
  RefL1Config c;
  c.sets = sets;
  c.ways = ways;
  c.line_bytes = line;
  c.mshrs = mshrs;
  c.hit_latency = hit;
  c.mem_latency = mem;
  c.posted_writes = posted;
  return c;
}

class MemL1Replay : public ::testing::TestWithParam<ReplayCase> {};

TEST_P(MemL1Replay, RandomStream) {
  const RefL1Config& c = GetParam().config;
  Coverage cov;
  const std::string err = replay(c, random_stream(c, 0x11 + c.sets * 7 + c.ways, 4000), cov);
  EXPECT_TRUE(err.empty()) << err;
  std::cout << "coverage: " << cov.str() << "\n";
  EXPECT_GT(cov.hits, 0u);
  EXPECT_GT(cov.misses, 0u);
  EXPECT_GT(cov.merges, 0u);
  EXPECT_GT(cov.write_hits, 0u);
  EXPECT_GT(cov.busy, 0u);
}

TEST_P(MemL1Replay, HighTagBitsOnly) {
  const RefL1Config& c = GetParam().config;
  Coverage cov;
  const std::string err = replay(c, high_tag_stream(c, 0x5eed + c.sets, 2000), cov);
  EXPECT_TRUE(err.empty()) << err;
  std::cout << "coverage: " << cov.str() << "\n";
  EXPECT_GT(cov.hits, 0u);
  EXPECT_GT(cov.misses, 0u);
  EXPECT_GT(cov.merges, 0u);
}

INSTANTIATE_TEST_SUITE_P(
    Configs, MemL1Replay,
    ::testing::Values(ReplayCase{"Default", make(32, 4, 128, 32, 20, 50)},
                      ReplayCase{"Small", make(4, 2, 128, 4, 3, 40)},
                      ReplayCase{"Line64NonPosted", make(8, 4, 64, 8, 1, 30, false)},
                      ReplayCase{"OneSet", make(1, 4, 32, 2, 2, 25)},
                      ReplayCase{"DirectMapped", make(16, 1, 256, 6, 5, 60)},
                      ReplayCase{"OneMshr", make(2, 8, 128, 1, 4, 20)}),
    [](const ::testing::TestParamInfo<ReplayCase>& i) { return std::string(i.param.name); });

} // namespace
