// The spin-loop watch (modules/frontend/loop_watch.h) on hand-made streams: nothing is
// sampled until a long stretch without progress; a loop whose sampled states keep changing
// runs on; one whose states recur is stuck after kRepeats recurrences; progress resets it.
#include <gtest/gtest.h>

#include "gpurf/modules/frontend/loop_watch.h"

using namespace gpurf;

namespace {

// Quiet instructions up to the watch threshold.
void quiet(LoopWatch& w) {
  for (uint64_t i = 0; i < LoopWatch::kQuiet; ++i) w.executed(false);
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
  for (uint64_t i = 0; i + 1 < LoopWatch::kQuiet; ++i) w.executed(false);
  for (unsigned b = 0; b < 1000; ++b) EXPECT_FALSE(w.sample(0));
  w.executed(false);
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
  w.executed(true); // a store
  EXPECT_EQ(w.quiet(), 0u);
  EXPECT_FALSE(w.sample(0));
  quiet(w);
  // The state seen before the store is new again.
  EXPECT_EQ(samples_until_stuck(w, 5000, [](unsigned) { return uint64_t(7); }),
            1u + LoopWatch::kRepeats);
}
