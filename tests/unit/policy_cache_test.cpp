// The cache bookkeeping the L1 and L2 share (policies/cache.h): LRU replacement with free
// ways first, whole-tag compare, dirty victims, and MSHR room (busy, wait, never).
#include <gtest/gtest.h>

#include "gpurf/policies/cache.h"

using namespace gpurf;

TEST(CacheTags, FreeWaysFirstThenLeastRecentlyUsed) {
  CacheTags t(1, 2);
  EXPECT_FALSE(t.install(10).valid);
  EXPECT_FALSE(t.install(11).valid);
  t.touch(t.lookup(10)); // 11 is now the LRU line
  const CacheTags::Line v = t.install(12);
  EXPECT_TRUE(v.valid);
  EXPECT_EQ(v.line, 11u);
  EXPECT_NE(t.lookup(10), nullptr);
  EXPECT_EQ(t.lookup(11), nullptr);
}

TEST(CacheTags, SetsAndWholeTags) {
  CacheTags t(4, 1);
  t.install(1);
  t.install(2); // another set: 1 stays
  EXPECT_NE(t.lookup(1), nullptr);
  EXPECT_EQ(t.lookup(1 + (uint64_t(1) << 50)), nullptr); // same set, differs only high up
  EXPECT_EQ(t.install(5).line, 1u);                      // set 1 is full: 1 goes
}

TEST(CacheTags, DirtyVictimAndInvalidate) {
  CacheTags t(1, 1);
  t.install(3);
  t.lookup(3)->dirty = true;
  const CacheTags::Line v = t.install(4);
  EXPECT_TRUE(v.valid && v.dirty);
  EXPECT_FALSE(t.lookup(4)->dirty); // a new line is clean
  t.invalidate(4);
  EXPECT_EQ(t.lookup(4), nullptr);
  EXPECT_FALSE(t.install(6).valid); // the invalidated way is free
}

TEST(Mshrs, BusyWaitOrNever) {
  Mshrs m(2);
  m.add(5, 100);
  m.add(6, 200);
  EXPECT_NE(m.find(5), nullptr);
  EXPECT_EQ(m.find(7), nullptr);
  auto one = [] { return 1u; };
  EXPECT_EQ(m.room(50, false, one).status, Mshrs::Status::Busy);
  const Mshrs::Room r = m.room(50, true, one); // waits for the first fill
  EXPECT_EQ(r.status, Mshrs::Status::Ok);
  EXPECT_EQ(r.start, 100u);
  EXPECT_EQ(m.find(5), nullptr); // freed at its fill
  EXPECT_EQ(m.room(100, true, [] { return 3u; }).status, Mshrs::Status::Never);
  // Two entries fit once the fill of 6 is back.
  const Mshrs::Room w = m.room(100, true, [] { return 2u; });
  EXPECT_EQ(w.start, 200u);
  EXPECT_TRUE(m.entries().empty());
}

// Entries found by their line and freed by their fills' cycles, whatever the order they were
// added in: a pending fill (AT) holds its entry until its answer; the survivors list in the
// order they were added, also after a freed slot is taken again; a second entry for a line in
// flight is a model error.
TEST(Mshrs, FreedByFillCycleListedInAddOrder) {
  Mshrs m(4);
  m.add(7, 300);
  m.add(8, Mshrs::kPending);
  m.add(9, 100);
  EXPECT_EQ(m.earliest(), 100u);
  EXPECT_EQ(m.room(150, false, [] { return 0u; }).status, Mshrs::Status::Ok); // frees 9
  EXPECT_EQ(m.find(9), nullptr);
  ASSERT_NE(m.find(8), nullptr);
  EXPECT_EQ(m.find(8)->complete, Mshrs::kPending);
  m.add(10, 250); // takes 9's slot
  std::vector<uint64_t> lines;
  for (const Mshrs::Entry& e : m.entries()) lines.push_back(e.line);
  EXPECT_EQ(lines, (std::vector<uint64_t>{7, 8, 10}));
  EXPECT_EQ(m.in_use(), 3u);
  EXPECT_EQ(m.earliest(), 250u);
  m.set_complete(8, 200); // the memory answered
  m.set_complete(7, 50);  // not pending: unchanged
  EXPECT_EQ(m.find(7)->complete, 300u);
  EXPECT_EQ(m.earliest(), 200u);
  EXPECT_EQ(m.room(260, false, [] { return 0u; }).status, Mshrs::Status::Ok); // frees 8, 10
  EXPECT_EQ(m.in_use(), 1u);
  EXPECT_NE(m.find(7), nullptr);
  EXPECT_THROW(m.add(7, 400), std::logic_error);
}

// The shadow of resident lines (issue 38): a lookup answering from a way whose tag is not
// the line's (here changed behind the shadow's back, as a partial tag compare would find
// it) throws, and so does a miss on a line the cache holds.
TEST(CacheTags, LookupsAreHeldToTheShadowOfResidentLines) {
  CacheTags t(4, 2, "sm.l1");
  t.install(1);
  t.install(5);
  t.install(9); // set 1 holds 5 and 9 now
  t.invalidate(5);
  EXPECT_EQ(t.lookup(5), nullptr);
  EXPECT_EQ(t.lookup(1), nullptr);
  ASSERT_NE(t.lookup(9), nullptr);
  t.lookup(9)->line = 13; // the way now answers for 13, which was never filled
  try {
    t.lookup(13);
    FAIL() << "a hit on a line never filled was not caught";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("sm.l1: tag check failed: line 0xd"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(t.lookup(9), std::logic_error); // resident, but no way answers for it
}
