// Unit tests of Malekeh's dynamic STHLD algorithm (policies/sthld.h) against the behaviours
// of the paper's Fig. 9 (shared/papers/001, Sec. IV-B3), on synthetic IPC-versus-STHLD curves:
// a flat region up to a knee, then a steep drop. The machine must climb the flat region, take
// one speculative step on a large change, back off in the steep region and converge at the
// knee; after a phase change it must walk to the new knee, down (narrower flat region, 9c) or
// up (wider, 9d), and stay converged while the IPC stays put.
#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include <gtest/gtest.h>

#include "gpurf/policies/sthld.h"

using namespace gpurf;

namespace {

// IPC at STHLD s: flat (with a 0.5% ripple) up to `knee`, then 10% lower per step beyond.
std::function<double(unsigned)> curve(unsigned knee, double top = 2.0) {
  return [=](unsigned s) {
    const double ripple = 1.0 + 0.005 * ((s % 2) ? 1 : -1);
    return s <= knee ? top * ripple : top * std::pow(0.9, double(s - knee));
  };
}

// Runs `n` intervals on `ipc`; returns the STHLD of every interval.
std::vector<unsigned> run(Sthld& m, const std::function<double(unsigned)>& ipc, unsigned n) {
  std::vector<unsigned> seen;
  for (unsigned i = 0; i < n; ++i) {
    seen.push_back(m.current());
    m.step(ipc(m.current()));
  }
  return seen;
}

Sthld::Options opts() {
  Sthld::Options o;
  o.initial = 0;
  o.step = 1;
  o.max = 64;
  return o;
}

} // namespace

TEST(PolicySthld, ClimbsTheFlatRegionOneStepPerInterval) { // Fig. 9a
  Sthld m(opts());
  const auto seen = run(m, curve(10), 6);
  EXPECT_EQ(seen, (std::vector<unsigned>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(m.state(), Sthld::kClimb);
}

TEST(PolicySthld, SpeculatesOnceInTheSteepRegionThenConvergesAtTheKnee) { // Fig. 9b
  Sthld m(opts());
  const auto seen = run(m, curve(6), 30);
  // Climbs to one past the knee (the first large change), speculates once more, backs off.
  const unsigned peak = *std::max_element(seen.begin(), seen.end());
  EXPECT_EQ(peak, 8u) << "one speculative step past the first drop at 7";
  EXPECT_EQ(m.state(), Sthld::kConverged);
  EXPECT_GE(m.current(), 5u);
  EXPECT_LE(m.current(), 6u) << "converged at the knee (or one step before it)";
  // Converged: it stays while the IPC stays put.
  const unsigned at = m.current();
  for (unsigned s : run(m, curve(6), 20)) EXPECT_EQ(s, at);
}

TEST(PolicySthld, NarrowerFlatRegionAfterAPhaseChangeWalksDown) { // Fig. 9c
  Sthld m(opts());
  run(m, curve(12), 40);
  ASSERT_EQ(m.state(), Sthld::kConverged);
  const unsigned before = m.current();
  run(m, curve(4, 1.5), 40); // a new phase: lower IPC, the knee at 4
  EXPECT_EQ(m.state(), Sthld::kConverged);
  EXPECT_LT(m.current(), before);
  EXPECT_GE(m.current(), 3u);
  EXPECT_LE(m.current(), 4u);
}

TEST(PolicySthld, WiderFlatRegionAfterAPhaseChangeWalksUp) { // Fig. 9d
  Sthld m(opts());
  run(m, curve(4), 30);
  ASSERT_EQ(m.state(), Sthld::kConverged);
  const unsigned before = m.current();
  const auto seen = run(m, curve(14, 3.0), 40); // a new phase: higher IPC, the knee at 14
  EXPECT_EQ(seen[1], before + 1) << "the large change triggers a speculative increase";
  EXPECT_EQ(m.state(), Sthld::kConverged);
  EXPECT_GE(m.current(), 13u);
  EXPECT_LE(m.current(), 14u);
}

TEST(PolicySthld, StaysWithinItsBounds) {
  Sthld::Options o = opts();
  o.max = 5;
  Sthld m(o);
  for (unsigned s : run(m, curve(100), 20)) EXPECT_LE(s, 5u);
  Sthld down(opts());
  for (unsigned s : run(
           down, [](unsigned s) { return s ? 1.0 / (1 + s) : 1.0; }, 30))
    EXPECT_LE(s, 64u);
  EXPECT_LE(down.current(), 2u); // every step hurts: the knee is at 0
}

TEST(PolicySthld, IntervalsAreCountedFromIssuedInstructions) {
  Sthld::Options o = opts();
  o.interval = 100;
  Sthld m(o);
  EXPECT_EQ(m.value(0), 0u);
  for (int i = 0; i < 150; ++i) m.issued(); // IPC 1.5 in the first interval
  EXPECT_EQ(m.value(99), 0u);
  EXPECT_EQ(m.value(100), 1u); // Start -> Climb, +1
  EXPECT_EQ(m.intervals(), 1u);
  EXPECT_EQ(m.value(350), 3u); // two more intervals (IPC 0: a large change, then none)
  EXPECT_EQ(m.intervals(), 3u);
  Sthld::Options s = opts();
  s.dynamic = false;
  s.initial = 7;
  Sthld fixed(s);
  EXPECT_EQ(fixed.value(1000000), 7u);
}

// The rule's blind spot (issue 30): on a curve without a knee, where every step of STHLD
// costs less than `small` (0.02) of IPC, every change is small, and the text's rule climbs
// the "flat region" one step per interval (Fig. 9a) to the maximum, whatever the loss adds up
// to. apps/dp1d and apps/heat2d are such curves (docs/malekeh.md, "STHLD on long runs").
TEST(PolicySthld, ClimbsACurveWithoutAKneeToItsMaximum) {
  const auto gentle = [](unsigned s) { return 2.0 * (1.0 - 0.007 * s); }; // -0.7% per step
  Sthld m(opts());
  const auto seen = run(m, gentle, 80);
  for (unsigned i = 1; i < seen.size(); ++i)
    EXPECT_EQ(seen[i], std::min(i, 64u)) << "interval " << i;
  EXPECT_LT(gentle(64) / gentle(0), 0.6) << "40% of the IPC lost, one small change at a time";
}

// A one-interval dip (a launch's tail: few CTAs left) while converged on a curve whose next
// step costs less than `small`: the large drop triggers the speculative step, the large
// recovery a step down, the small change after it the step back towards the knee, and the
// machine settles one step higher than before: every dip ratchets STHLD up by one.
TEST(PolicySthld, EachDipOnAGentleCurveRaisesItByOne) {
  const auto gentle = [](unsigned s) { return 2.0 * (1.0 - 0.007 * s); };
  Sthld::Options o = opts();
  o.initial = 5;
  Sthld m(o);
  m.step(gentle(5)); // Start -> Climb, 6
  m.step(2.0);       // a large rise: speculate, 7
  m.step(gentle(7)); // a large fall back: descend, 6
  m.step(gentle(6)); // small: settle, 7
  m.step(gentle(7)); // small: converged at 7
  ASSERT_EQ(m.state(), Sthld::kConverged);
  unsigned at = m.current();
  for (int dip = 0; dip < 3; ++dip) {
    m.step(gentle(m.current()) * 0.5); // the tail interval
    for (int i = 0; i < 4; ++i) m.step(gentle(m.current()));
    EXPECT_EQ(m.state(), Sthld::kConverged);
    EXPECT_EQ(m.current(), at + 1) << "dip " << dip;
    at = m.current();
  }
}
