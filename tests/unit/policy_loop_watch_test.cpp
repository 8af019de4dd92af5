// The spin-loop watch (modules/frontend/loop_watch.h) on hand-made streams: nothing is
// sampled until a long stretch without progress; a loop whose sampled states keep changing
// runs on; one whose states recur is stuck after kRepeats recurrences; progress resets it;
// the progress bound counts only global progress; the control registers of hand-made code.
#include <gtest/gtest.h>

#include "gpurf/modules/frontend/loop_watch.h"

using namespace gpurf;

namespace {

// Quiet instructions up to the watch threshold.
void quiet(LoopWatch& w) {
  for (uint64_t i = 0; i < LoopWatch::kQuiet; ++i) w.executed(LoopWatch::Progress::None);
}

// Samples of warp 0 until stuck (or `limit` samples), states from `state(i)`.
template <class F> unsigned samples_until_stuck(LoopWatch& w, unsigned limit, F state) {
  for (unsigned i = 0; i < limit; ++i) {
    for (unsigned b = 1; b < LoopWatch::kSample; ++b) EXPECT_FALSE(w.sample(0));
    EXPECT_TRUE(w.sample(0));
    if (w.stuck(0, state(i))) return i + 1;
  }
  return 0;
}

} // namespace

TEST(LoopWatch, NothingIsSampledBeforeALongStretchWithoutProgress) {
  LoopWatch w;
  for (uint64_t i = 0; i + 1 < LoopWatch::kQuiet; ++i) w.executed(LoopWatch::Progress::None);
  for (unsigned b = 0; b < 1000; ++b) EXPECT_FALSE(w.sample(0));
  w.executed(LoopWatch::Progress::None);
  unsigned sampled = 0;
  for (unsigned b = 0; b < LoopWatch::kSample; ++b) sampled += w.sample(0);
  EXPECT_EQ(sampled, 1u);
}

TEST(LoopWatch, ChangingStatesRunOnRecurringOnesAreStuck) {
  LoopWatch w;
  quiet(w);
  EXPECT_EQ(samples_until_stuck(w, 5000, [](unsigned i) { return uint64_t(i); }), 0u);
  LoopWatch s;
  quiet(s);
  // A loop of period 3: the first 3 samples are new, then every one recurs.
  EXPECT_EQ(samples_until_stuck(s, 5000, [](unsigned i) { return uint64_t(i % 3); }),
            3u + LoopWatch::kRepeats);
}

TEST(LoopWatch, ProgressForgetsTheStatesAndTheQuietStretch) {
  LoopWatch w;
  quiet(w);
  EXPECT_EQ(samples_until_stuck(w, 10, [](unsigned) { return uint64_t(7); }), 0u);
  w.executed(LoopWatch::Progress::Global); // a store
  EXPECT_EQ(w.quiet(), 0u);
  EXPECT_FALSE(w.sample(0));
  quiet(w);
  // The state seen before the store is new again.
  EXPECT_EQ(samples_until_stuck(w, 5000, [](unsigned) { return uint64_t(7); }),
            1u + LoopWatch::kRepeats);
}

TEST(LoopWatch, TheBoundCountsOnlyGlobalProgress) {
  LoopWatch w(100);
  for (int i = 0; i < 99; ++i) w.executed(LoopWatch::Progress::None);
  EXPECT_FALSE(w.over_bound());
  w.executed(LoopWatch::Progress::Private); // a local store: memory changed, the result not
  EXPECT_EQ(w.quiet(), 0u);
  EXPECT_TRUE(w.over_bound());
  w.executed(LoopWatch::Progress::Global);
  EXPECT_FALSE(w.over_bound());
  LoopWatch none; // bound 0: never
  for (int i = 0; i < 1000; ++i) none.executed(LoopWatch::Progress::None);
  EXPECT_FALSE(none.over_bound());
}

TEST(LoopWatch, ProgressKinds) {
  InstInfo i;
  EXPECT_EQ(LoopWatch::progress_of(i), LoopWatch::Progress::None);
  i.mem = MemKind::Store;
  i.space = MemSpace::Local;
  EXPECT_EQ(LoopWatch::progress_of(i), LoopWatch::Progress::Private);
  i.space = MemSpace::Shared;
  EXPECT_EQ(LoopWatch::progress_of(i), LoopWatch::Progress::Private);
  i.space = MemSpace::Param; // a call's argument
  EXPECT_EQ(LoopWatch::progress_of(i), LoopWatch::Progress::Private);
  i.space = MemSpace::None; // generic: may be global
  EXPECT_EQ(LoopWatch::progress_of(i), LoopWatch::Progress::Global);
  i.mem = MemKind::Atomic; // a generic or global atomic: may be the kernel's result
  EXPECT_EQ(LoopWatch::progress_of(i), LoopWatch::Progress::Global);
  i.space = MemSpace::Shared; // a shared counter bumped for ever is no progress
  EXPECT_EQ(LoopWatch::progress_of(i), LoopWatch::Progress::Private);
  i.mem = MemKind::Load;
  EXPECT_EQ(LoopWatch::progress_of(i), LoopWatch::Progress::None);
  i.exit = true;
  EXPECT_EQ(LoopWatch::progress_of(i), LoopWatch::Progress::Global);
}

namespace {
InstInfo op(OpClass c, std::initializer_list<uint16_t> dst, std::initializer_list<uint16_t> src,
            std::initializer_list<uint16_t> pdst = {}, std::initializer_list<uint16_t> psrc = {}) {
  InstInfo i;
  i.op_class = c;
  for (uint16_t r : dst) i.dst_reg[i.n_dst++] = r;
  for (uint16_t r : src) i.src_reg[i.n_src++] = r;
  for (uint16_t r : pdst) i.pdst_reg[i.n_pdst++] = r;
  for (uint16_t r : psrc) i.psrc_reg[i.n_psrc++] = r;
  return i;
}
} // namespace

TEST(LoopWatch, ControlRegistersAreWhatBranchesDependOn) {
  // r0 = i, r1 = n, r2 = address, r3 = loaded value, r4 = sum, r5 = bound loaded through r6;
  // p0 = i < n, p1 guards the bound's load.
  const std::vector<InstInfo> code = {
      op(OpClass::IntAdd, {2}, {0}),         // address = f(i)
      op(OpClass::Mem, {3}, {2}),            // value = a[address]
      op(OpClass::FpAdd, {4}, {4, 3}),       // sum += value
      op(OpClass::Mem, {1}, {6}, {}, {1}),   // @p1 n = b[r6]
      op(OpClass::IntAdd, {}, {0, 1}, {0}),  // p0 = i < n
      op(OpClass::Control, {}, {}, {}, {0}), // @p0 bra
  };
  const std::vector<bool> c = control_registers(code, 8, 2);
  // The branch depends on p0, hence on i and n, on n's load address and guard.
  EXPECT_TRUE(c[0]);
  EXPECT_TRUE(c[1]);
  EXPECT_TRUE(c[6]);
  EXPECT_TRUE(c[8 + 0]);
  EXPECT_TRUE(c[8 + 1]);
  // The sum, the loaded values and their address never decide a branch.
  EXPECT_FALSE(c[2]);
  EXPECT_FALSE(c[3]);
  EXPECT_FALSE(c[4]);
  EXPECT_FALSE(c[5]);
  EXPECT_FALSE(c[7]);
  // If the sum decides a branch (while (sum < x)), the whole chain does.
  std::vector<InstInfo> more = code;
  more.push_back(op(OpClass::FpAdd, {}, {4, 7}, {1}));
  const std::vector<bool> d = control_registers(more, 8, 2);
  for (unsigned r : {2u, 3u, 4u, 7u}) EXPECT_TRUE(d[r]) << "r" << r;
}
