// Tests of the reference L1 model (tests/support/reference_l1.h) on hand-computed
// sequences: the model is only useful as an oracle if it is right on its own.
#include <gtest/gtest.h>

#include "tests/support/reference_l1.h"

using namespace gpurf::test;

namespace {

RefL1Config config(uint64_t sets, uint64_t ways, uint64_t mshrs = 32) {
  RefL1Config c;
  c.sets = sets;
  c.ways = ways;
  c.mshrs = mshrs;
  c.line_bytes = 128;
  c.hit_latency = 20;
  c.mem_latency = 50;
  return c;
}

RefMemReq fill_of(uint64_t line_addr, uint64_t at) { return {false, line_addr, 128, at}; }

} // namespace

TEST(ReferenceL1, MissThenHit) {
  ReferenceL1 l1(config(32, 4));
  RefOutcome r = l1.read(10, 0x1000, 128);
  EXPECT_EQ(r.status, RefStatus::Ok);
  EXPECT_EQ(r.misses, 1u);
  EXPECT_EQ(r.hits + r.merges, 0u);
  EXPECT_EQ(r.delay, 70u); // lookup 20 + memory 50
  ASSERT_EQ(r.mem.size(), 1u);
  EXPECT_EQ(r.mem[0], fill_of(0x1000, 30)); // sent after the lookup
  EXPECT_EQ(l1.mshrs_in_use(), 1u);
  r = l1.read(80, 0x1044, 4); // the fill arrived at 80
  EXPECT_EQ(r.hits, 1u);
  EXPECT_EQ(r.delay, 20u);
  EXPECT_TRUE(r.mem.empty());
  EXPECT_EQ(l1.mshrs_in_use(), 0u);
}

TEST(ReferenceL1, MergeWithALineInFlight) {
  ReferenceL1 l1(config(32, 4));
  EXPECT_EQ(l1.read(10, 0x400, 128).delay, 70u); // fill at 80
  RefOutcome r = l1.read(15, 0x440, 4);
  EXPECT_EQ(r.merges, 1u);
  EXPECT_EQ(r.delay, 65u); // ready with the fill
  EXPECT_TRUE(r.mem.empty());
  r = l1.read(75, 0x400, 4); // close to the fill the lookup still counts
  EXPECT_EQ(r.merges, 1u);
  EXPECT_EQ(r.delay, 20u);
  r = l1.read(79, 0x400, 4);
  EXPECT_EQ(r.merges, 1u);
  r = l1.read(80, 0x400, 4);
  EXPECT_EQ(r.hits, 1u);
  EXPECT_EQ(r.delay, 20u);
  // Same-cycle burst: the second and third merge with the first.
  EXPECT_EQ(l1.read(100, 0x2000, 4).misses, 1u);
  EXPECT_EQ(l1.read(100, 0x2008, 4).merges, 1u);
  EXPECT_EQ(l1.read(100, 0x2070, 16).merges, 1u);
}

TEST(ReferenceL1, LruEvictionOrder) {
  // One set of 3 ways: lines A, B, C, D all map to it.
  ReferenceL1 l1(config(1, 3));
  const uint64_t A = 0x000, B = 0x080, C = 0x100, D = 0x180, E = 0x200;
  uint64_t t = 0;
  auto read = [&](uint64_t a) { return l1.read(t += 100, a, 4); };
  EXPECT_EQ(read(A).misses, 1u);
  EXPECT_EQ(read(B).misses, 1u);
  EXPECT_EQ(read(C).misses, 1u);
  EXPECT_EQ(l1.set_lines(A), (std::vector<uint64_t>{C, B, A}));
  EXPECT_EQ(read(A).hits, 1u); // A becomes MRU: B is now the LRU line
  EXPECT_EQ(l1.set_lines(A), (std::vector<uint64_t>{A, C, B}));
  EXPECT_EQ(read(D).misses, 1u); // evicts B
  EXPECT_EQ(l1.set_lines(A), (std::vector<uint64_t>{D, A, C}));
  EXPECT_FALSE(l1.resident_addr(B));
  // A write hit refreshes C; a write miss allocates nothing.
  RefOutcome w = l1.write(t += 100, C + 8, 4);
  EXPECT_EQ(w.write_hits, 1u);
  EXPECT_EQ(l1.set_lines(A), (std::vector<uint64_t>{C, D, A}));
  w = l1.write(t += 100, E, 4);
  EXPECT_EQ(w.write_hits, 0u);
  EXPECT_EQ(l1.set_lines(A), (std::vector<uint64_t>{C, D, A}));
  EXPECT_EQ(read(B).misses, 1u); // evicts A, the LRU line
  EXPECT_EQ(l1.set_lines(A), (std::vector<uint64_t>{B, C, D}));
  EXPECT_EQ(read(D).hits, 1u);
  EXPECT_EQ(read(A).misses, 1u); // evicts C
  EXPECT_EQ(l1.set_lines(A), (std::vector<uint64_t>{A, D, B}));
}

TEST(ReferenceL1, LinesInOtherSetsDoNotConflict) {
  ReferenceL1 l1(config(4, 1)); // direct mapped, 4 sets of 128 B
  uint64_t t = 0;
  EXPECT_EQ(l1.read(t += 100, 0x000, 4).misses, 1u); // set 0
  EXPECT_EQ(l1.read(t += 100, 0x080, 4).misses, 1u); // set 1
  EXPECT_EQ(l1.read(t += 100, 0x000, 4).hits, 1u);
  EXPECT_EQ(l1.read(t += 100, 0x200, 4).misses, 1u); // set 0 again: evicts 0x000
  EXPECT_EQ(l1.read(t += 100, 0x080, 4).hits, 1u);
  EXPECT_EQ(l1.read(t += 100, 0x000, 4).misses, 1u);
}

TEST(ReferenceL1, EveryTagBitIsCompared) {
  ReferenceL1 l1(config(8, 2));
  const uint64_t base = 0x1280;
  uint64_t t = 0;
  EXPECT_EQ(l1.read(t += 100, base, 4).misses, 1u);
  uint64_t previous = 0;
  for (unsigned bit : {40u, 47u, 55u, 62u}) {
    const uint64_t other = base | (uint64_t(1) << bit); // same set, tag differs in one bit
    EXPECT_EQ(l1.read(t += 100, other, 4).misses, 1u) << bit;
    EXPECT_EQ(l1.read(t += 100, other, 4).hits, 1u) << bit;
    EXPECT_EQ(l1.read(t += 100, base, 4).hits, 1u) << bit;
    if (previous) {
      EXPECT_FALSE(l1.resident_addr(previous)) << bit; // was the LRU line
    }
    previous = other;
  }
  EXPECT_EQ(l1.set_lines(base), (std::vector<uint64_t>{base, base | (uint64_t(1) << 62)}));
}

TEST(ReferenceL1, LineIsInstalledAtMissTime) {
  // The missed line takes its way at once: it can evict, and be evicted, before its fill.
  ReferenceL1 l1(config(1, 1));
  EXPECT_EQ(l1.read(0, 0x000, 4).misses, 1u); // fill at 70
  EXPECT_EQ(l1.set_lines(0), (std::vector<uint64_t>{0x000}));
  EXPECT_EQ(l1.read(1, 0x080, 4).misses, 1u); // evicts 0x000 while in flight; fill at 71
  EXPECT_EQ(l1.set_lines(0), (std::vector<uint64_t>{0x080}));
  // 0x000 is still in flight: merge, and it is not reinstalled.
  RefOutcome r = l1.read(2, 0x000, 4);
  EXPECT_EQ(r.merges, 1u);
  EXPECT_EQ(r.delay, 68u);
  EXPECT_EQ(l1.set_lines(0), (std::vector<uint64_t>{0x080}));
  // After its fill it misses.
  EXPECT_EQ(l1.read(70, 0x000, 4).misses, 1u);
}

TEST(ReferenceL1, MshrsExhausted) {
  ReferenceL1 l1(config(32, 4, 2));
  EXPECT_EQ(l1.read(0, 0x0000, 128).delay, 70u); // fill at 70
  EXPECT_EQ(l1.read(1, 0x1000, 128).delay, 70u); // fill at 71
  RefOutcome r = l1.read(2, 0x2000, 128);
  EXPECT_EQ(r.status, RefStatus::Busy);
  EXPECT_TRUE(r.mem.empty());
  EXPECT_FALSE(l1.resident_addr(0x2000));      // a refused access changes nothing
  EXPECT_EQ(l1.read(3, 0x0010, 4).merges, 1u); // merges need no MSHR
  EXPECT_EQ(l1.read(69, 0x2000, 128).status, RefStatus::Busy);
  r = l1.read(70, 0x2000, 128);
  EXPECT_EQ(r.status, RefStatus::Ok);
  EXPECT_EQ(r.misses, 1u);
  EXPECT_EQ(r.delay, 70u);
}

TEST(ReferenceL1, WithoutRetryAFullMshrFileSerialises) {
  ReferenceL1 l1(config(32, 4, 1));
  EXPECT_EQ(l1.read(0, 0x0000, 128).delay, 70u);
  RefOutcome r = l1.read(0, 0x1000, 128, /*can_retry=*/false);
  EXPECT_EQ(r.status, RefStatus::Ok);
  EXPECT_EQ(r.misses, 1u);
  EXPECT_EQ(r.delay, 140u); // waits for the MSHR (70), then misses
  ASSERT_EQ(r.mem.size(), 1u);
  EXPECT_EQ(r.mem[0], fill_of(0x1000, 90));
}

TEST(ReferenceL1, RequestSpanningTwoLines) {
  RefL1Config c = config(32, 4);
  c.line_bytes = 64;
  ReferenceL1 l1(c);
  RefOutcome r = l1.read(0, 0x20, 64);
  EXPECT_EQ(r.misses, 2u);
  EXPECT_EQ(r.delay, 70u);
  ASSERT_EQ(r.mem.size(), 2u);
  EXPECT_EQ(r.mem[0], (RefMemReq{false, 0x00, 64, 20}));
  EXPECT_EQ(r.mem[1], (RefMemReq{false, 0x40, 64, 20}));
  r = l1.read(30, 0x60, 64); // 0x40 in flight, 0x80 new
  EXPECT_EQ(r.merges, 1u);
  EXPECT_EQ(r.misses, 1u);
  EXPECT_EQ(r.delay, 70u);
  // More lines than MSHRs: can never be served.
  c.mshrs = 1;
  ReferenceL1 small(c);
  EXPECT_EQ(small.read(0, 0x20, 64).status, RefStatus::Error);
}

TEST(ReferenceL1, WritesAndAtomics) {
  RefL1Config c = config(32, 4);
  ReferenceL1 l1(c);
  RefOutcome w = l1.write(5, 0x800, 128);
  EXPECT_EQ(w.write_hits, 0u);
  EXPECT_EQ(w.delay, 20u);
  ASSERT_EQ(w.mem.size(), 1u);
  EXPECT_EQ(w.mem[0], (RefMemReq{true, 0x800, 128, 25}));
  EXPECT_EQ(l1.read(100, 0x800, 4).misses, 1u); // not allocated by the write
  // An atomic invalidates the line but not its MSHR: reads merge until the fill.
  RefOutcome a = l1.atomic(110, 0x840, 4);
  EXPECT_EQ(a.delay, 70u);
  EXPECT_EQ(a.mem[0], (RefMemReq{false, 0x840, 4, 130}));
  EXPECT_FALSE(l1.resident_addr(0x800));
  EXPECT_EQ(l1.read(120, 0x800, 4).merges, 1u);
  EXPECT_EQ(l1.read(170, 0x800, 4).misses, 1u); // the fill came at 170: gone
  EXPECT_EQ(l1.read(240, 0x800, 4).hits, 1u);
  c.posted_writes = false;
  ReferenceL1 np(c);
  EXPECT_EQ(np.write(0, 0x0, 4).delay, 70u);
}
