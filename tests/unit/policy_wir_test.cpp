// Unit tests of WIR's register-reuse structures (policies/wir_*.h, Kim & Ro Sec. V-VI): the
// physical register pool and its reference counts, the rename tables, the H3 hash, the value
// signature buffer and the reuse buffer with pending entries. Each structure's references
// must balance: allocated - released = live, and a count never goes negative.
#include <gtest/gtest.h>

#include "gpurf/modules/common/affine.h"
#include "gpurf/policies/wir_regs.h"
#include "gpurf/policies/wir_reuse.h"
#include "gpurf/policies/wir_vsb.h"

using namespace gpurf;

TEST(PolicyWir, PoolAllocatesUntilEmptyAndReleasesAfterTheCountLatency) {
  PhysRegs r(3, 2);
  EXPECT_EQ(r.allocate(0), 0);
  EXPECT_EQ(r.allocate(0), 1);
  EXPECT_EQ(r.allocate(0), 2);
  EXPECT_EQ(r.allocate(0), -1); // empty
  r.ref(1);
  r.unref(1, 10);
  EXPECT_EQ(r.free(10), 0u); // one reference left
  r.unref(1, 10);
  EXPECT_EQ(r.live(), 3u);   // released at 12: still counted live
  EXPECT_EQ(r.free(11), 0u); // the reference-count pipeline
  EXPECT_EQ(r.free(12), 1u);
  EXPECT_EQ(r.allocate(12), 1);
  EXPECT_EQ(r.allocations() - r.releases(), r.live());
  EXPECT_EQ(r.peak_live(), 3u);
}

// Sec. VII-E: the allocator is a queue. A register just released waits behind the registers
// freed before it (a stack would hand it out again at once).
TEST(PolicyWir, PoolIsAQueue) {
  PhysRegs r(4, 0);
  EXPECT_EQ(r.allocate(0), 0);
  EXPECT_EQ(r.allocate(0), 1);
  r.unref(0, 1); // back at the tail, behind 2 and 3
  EXPECT_EQ(r.allocate(1), 2);
  r.unref(1, 1);
  EXPECT_EQ(r.allocate(1), 3);
  EXPECT_EQ(r.allocate(1), 0); // released first, handed out first
  EXPECT_EQ(r.allocate(1), 1);
  EXPECT_EQ(r.allocate(1), -1);
}

// Bank-aware allocation: one queue per bank (register p in bank p mod 4 here); a register of
// the bank asked for, else of the next bank that has one.
TEST(PolicyWir, PoolTakesTheBankAskedFor) {
  PhysRegs r(8, 0, 4);
  EXPECT_EQ(r.allocate(0, 2), 2);
  EXPECT_EQ(r.allocate(0, 2), 6);
  EXPECT_EQ(r.allocate(0, 2), 3); // bank 2 is empty: bank 3
  EXPECT_EQ(r.allocate(0, 6), 7); // 6 mod 4 = 2, empty: bank 3
  EXPECT_EQ(r.allocate(0, 3), 0); // bank 3 empty: wraps to 0
  EXPECT_EQ(r.free(0), 3u);
  r.unref(6, 0);
  EXPECT_EQ(r.allocate(0, 2), 6); // back in its bank's queue
  EXPECT_EQ(r.allocate(0, 1), 1);
  EXPECT_EQ(r.allocate(0, 1), 5);
  EXPECT_EQ(r.allocate(0, 1), 4);
  EXPECT_EQ(r.allocate(0, 1), -1);
}

TEST(PolicyWir, ReferenceCountsNeverGoNegative) {
  PhysRegs r(2, 0);
  const int p = r.allocate(0);
  r.unref(unsigned(p), 0);
  EXPECT_THROW(r.unref(unsigned(p), 0), RegisterAccounting);
  EXPECT_THROW(r.ref(1), RegisterAccounting); // never allocated
}

TEST(PolicyWir, RenameTablesHoldOneReferencePerMapping) {
  PhysRegs r(4, 0);
  RenameTables t(2, 8);
  const unsigned a = unsigned(r.allocate(0)), b = unsigned(r.allocate(0));
  t.map(0, 3, a, 11, false, r, 0);
  t.map(1, 5, a, 11, false, r, 0); // another warp shares the value
  r.unref(a, 0);                   // the allocator's own reference
  EXPECT_EQ(r.refs(a), 2u);
  t.map(0, 3, a, 11, false, r, 0); // remapping to the same register keeps it
  EXPECT_EQ(r.refs(a), 2u);
  t.map(0, 3, b, 12, true, r, 0);
  EXPECT_EQ(r.refs(a), 1u);
  EXPECT_EQ(t.at(0, 3).phys, int(b));
  EXPECT_TRUE(t.at(0, 3).pin);
  EXPECT_EQ(t.at(0, 3).version, 12u);
  t.clear(1, r, 0);
  EXPECT_EQ(t.at(1, 5).phys, -1);
  EXPECT_EQ(r.free(0), 3u); // a released; b still mapped (and its allocator reference)
}

TEST(PolicyWir, H3IsLinearAndSeparatesSingleBits) {
  LaneValues z{}, a{}, b{}, ab{};
  EXPECT_EQ(h3_hash(z), 0u);
  for (unsigned l = 0; l < kWarpSize; ++l) {
    a[l] = l * 2654435761u;
    b[l] = ~l * 40503u;
    ab[l] = a[l] ^ b[l];
  }
  EXPECT_EQ(h3_hash(ab), h3_hash(a) ^ h3_hash(b));
  std::vector<uint32_t> seen;
  for (unsigned bit = 0; bit < 1024; ++bit) {
    LaneValues v{};
    v[bit / 32] = 1u << (bit % 32);
    seen.push_back(h3_hash(v));
  }
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(std::unique(seen.begin(), seen.end()), seen.end()) << "two bits share a word";
}

TEST(PolicyWir, SignatureBufferIsDirectIndexedByTheLowBits) {
  PhysRegs r(4, 0);
  ValueSignatureBuffer v(4);
  const unsigned a = unsigned(r.allocate(0)), b = unsigned(r.allocate(0));
  EXPECT_EQ(v.lookup(0x15), -1);
  v.insert(0x15, a, r, 0);
  EXPECT_EQ(v.lookup(0x15), int(a));
  EXPECT_EQ(v.lookup(0x25), -1); // same index (1), another hash
  v.insert(0x25, b, r, 0);       // replaces a's entry
  EXPECT_EQ(v.lookup(0x15), -1);
  EXPECT_EQ(r.refs(a), 1u);
  v.remove(0x25, a, r, 0); // not the entry's register: kept
  EXPECT_EQ(v.lookup(0x25), int(b));
  v.remove(0x25, b, r, 0);
  EXPECT_EQ(v.lookup(0x25), -1);
  EXPECT_EQ(r.refs(b), 1u);
  ValueSignatureBuffer none(0);
  none.insert(0x15, a, r, 0);
  EXPECT_EQ(none.lookup(0x15), -1);
  EXPECT_THROW(ValueSignatureBuffer(3), std::invalid_argument);
}

TEST(PolicyWir, ReuseBufferPendingThenReadyAndItsReferences) {
  PhysRegs r(8, 0);
  ReuseBuffer rb(16);
  const unsigned s0 = unsigned(r.allocate(0)), s1 = unsigned(r.allocate(0));
  ReuseTag t;
  t.opcode = 7;
  t.operand = {s0, s1, 42};
  t.regs = 0b011; // the third operand is an immediate
  EXPECT_FALSE(rb.lookup(t).hit);
  rb.reserve(t, r, 0);
  EXPECT_EQ(r.refs(s0), 2u); // the tag holds its source registers
  ReuseBuffer::Lookup l = rb.lookup(t);
  EXPECT_TRUE(l.hit);
  EXPECT_TRUE(l.pending);
  const unsigned res = unsigned(r.allocate(0));
  rb.fill(t, res, r, 0);
  l = rb.lookup(t);
  EXPECT_TRUE(l.hit && !l.pending);
  EXPECT_EQ(l.result, int(res));
  // The sources' own mappings go away: the tag keeps them allocated, so no other value can
  // ever take their ids while the entry lives.
  r.unref(s0, 0);
  r.unref(s1, 0);
  r.unref(res, 0);
  EXPECT_EQ(r.free(0), 5u);
  // Another thread block or barrier count is another tag.
  ReuseTag other = t;
  other.block = 1;
  EXPECT_FALSE(rb.lookup(other).hit);
  other = t;
  other.barriers = 1;
  EXPECT_FALSE(rb.lookup(other).hit);
  other = t;
  other.operand[2] = 43;
  EXPECT_FALSE(rb.lookup(other).hit);
}

TEST(PolicyWir, ReuseBufferReplacementAndCancelDropTheirReferences) {
  PhysRegs r(64, 0);
  ReuseBuffer rb(1); // every tag maps to the one entry
  const unsigned s = unsigned(r.allocate(0));
  ReuseTag a, b;
  a.opcode = 1;
  a.operand = {s, 0, 0};
  a.regs = 1;
  b.opcode = 2;
  rb.reserve(a, r, 0);
  rb.reserve(b, r, 0); // replaces a: its source reference goes
  EXPECT_EQ(r.refs(s), 1u);
  const unsigned res = unsigned(r.allocate(0));
  rb.fill(a, res, r, 0); // a's entry is gone: ignored
  EXPECT_EQ(r.refs(res), 1u);
  EXPECT_TRUE(rb.lookup(b).pending);
  rb.cancel(b, r, 0);
  EXPECT_FALSE(rb.lookup(b).hit);
  EXPECT_THROW(ReuseBuffer(3), std::invalid_argument);
}

// A block's end drops its shared loads' entries and nothing else; a launch's end drops every
// entry; each drop releases the entry's references.
TEST(PolicyWir, BlockAndLaunchEndsDropTheirEntries) {
  PhysRegs r(8, 0);
  ReuseBuffer rb(256);
  const unsigned s = unsigned(r.allocate(0)), res = unsigned(r.allocate(0));
  ReuseTag shared0, shared1, global;
  for (ReuseTag* t : {&shared0, &shared1, &global}) {
    t->opcode = 9;
    t->operand[0] = s;
    t->regs = 1;
  }
  shared0.block = 0;
  shared1.block = 1;
  for (const ReuseTag& t : {shared0, shared1, global}) {
    rb.reserve(t, r, 0);
    rb.fill(t, res, r, 0);
  }
  EXPECT_EQ(r.refs(s), 4u);
  EXPECT_EQ(rb.drop_block(0, r, 0), 1u);
  EXPECT_FALSE(rb.lookup(shared0).hit);
  EXPECT_TRUE(rb.lookup(shared1).hit);
  EXPECT_TRUE(rb.lookup(global).hit);
  EXPECT_EQ(r.refs(s), 3u);
  EXPECT_EQ(r.refs(res), 3u);
  EXPECT_EQ(rb.clear(r, 0), 2u);
  EXPECT_FALSE(rb.lookup(shared1).hit);
  EXPECT_FALSE(rb.lookup(global).hit);
  EXPECT_EQ(r.refs(s), 1u);
  EXPECT_EQ(r.refs(res), 1u);
}

// Low-register mode (Sec. V-E): an eviction frees the entry's registers; the random one takes
// the first valid entry from its start (an empty table frees nothing).
TEST(PolicyWir, LowRegisterEvictionsDropTheEntriesReferences) {
  PhysRegs r(4, 0);
  ValueSignatureBuffer v(4);
  const unsigned a = unsigned(r.allocate(0)), b = unsigned(r.allocate(0));
  v.insert(0x1, a, r, 0);         // index 1
  v.insert(0x3, b, r, 0);         // index 3
  EXPECT_FALSE(v.evict(2, r, 0)); // empty entry
  v.evict_random(2, r, 0);        // from index 2: the entry at 3 (b)
  EXPECT_EQ(v.lookup(0x3), -1);
  EXPECT_EQ(v.lookup(0x1), int(a));
  EXPECT_EQ(r.refs(b), 1u);
  v.evict_random(2, r, 0); // wraps around to index 1 (a)
  EXPECT_EQ(v.lookup(0x1), -1);
  EXPECT_EQ(r.refs(a), 1u);
  v.evict_random(0, r, 0); // nothing left: no effect
  EXPECT_EQ(r.refs(a), 1u);

  ReuseBuffer rb(2);
  ReuseTag t;
  t.opcode = 7;
  t.operand[0] = a;
  t.regs = 1;
  rb.reserve(t, r, 0);
  rb.fill(t, b, r, 0);
  EXPECT_EQ(r.refs(a), 2u);
  EXPECT_EQ(r.refs(b), 2u);
  rb.evict_random(1, r, 0);
  EXPECT_FALSE(rb.lookup(t).hit);
  EXPECT_EQ(r.refs(a), 1u);
  EXPECT_EQ(r.refs(b), 1u);
}

// WIR's Affine GPU: one stride over the 32 lanes (mod 2^32), uniform values included.
TEST(PolicyWir, AffineIsOneStrideOverTheLanes) {
  LaneValues v;
  for (unsigned l = 0; l < kWarpSize; ++l) v[l] = 100 + 4 * l;
  EXPECT_TRUE(affine(v));
  v.fill(7);
  EXPECT_TRUE(affine(v));                                      // stride 0
  for (unsigned l = 0; l < kWarpSize; ++l) v[l] = 5u - 3u * l; // wraps below 0
  EXPECT_TRUE(affine(v));
  v[31] += 1;
  EXPECT_FALSE(affine(v)); // the last lane breaks it
  for (unsigned l = 0; l < kWarpSize; ++l) v[l] = l * l;
  EXPECT_FALSE(affine(v));
}
