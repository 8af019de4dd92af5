// Malekeh's dynamic STHLD algorithm (shared/papers/001, Sec. IV-B3, Fig. 8/9): the CCU
// allocator waits up to STHLD issue attempts before it hands a CCU holding near values to
// another warp; at the end of every interval (10,000 cycles) a six-state machine compares the
// interval's IPC with the previous one's and moves STHLD. Fig. 8 is not in the paper's text;
// the machine below follows the text and Fig. 9 (a)-(d) (docs/malekeh.md "STHLD FSM"):
//
//   r = |IPC - IPC_prev| / IPC_prev;  S: r < small (0.02), L: otherwise
//   1 Start      *  -> 2, +step   (no previous interval to compare with)
//   2 Climb      S  -> 2, +step   (flat region: more waiting costs nothing, gains hits)
//                L  -> 3, +step   (speculative move on a large change: a wider flat region?)
//   3 Speculate  S  -> 2, +step   (it was: keep climbing, Fig. 9d)
//                L  -> 4, -step   (steep region, Fig. 9b/c: back off)
//   4 Descend    L  -> 4, -step   (still steep)
//                S  -> 5, +step   (left of the knee: step back towards it)
//   5 Settle     S  -> 6,  0      (the knee: converged)
//                L  -> 6, -step   (one step too far: the value before is the knee)
//   6 Converged  S  -> 6,  0      (stays until the phase changes)
//                L  -> 3, +step   (speculative move, as from 2)
//
// STHLD stays within [0, max]. Plain C++: tests drive it with synthetic IPC curves.
#pragma once

#include <cstdint>

namespace gpurf {

class Sthld {
public:
  enum State : uint8_t { kStart = 1, kClimb, kSpeculate, kDescend, kSettle, kConverged };
  struct Options {
    bool dynamic = true;       // false: STHLD stays at `initial`
    unsigned initial = 0;      // STHLD of the first interval
    unsigned step = 1;         // the delta of every move
    unsigned max = 64;         // STHLD never exceeds this
    double small = 0.02;       // relative IPC change below which a change is small
    uint64_t interval = 10000; // cycles per interval
  };
  explicit Sthld(const Options& o) : o_(o), value_(o.initial) {}

  // The threshold in force at cycle `now` (steps the machine over every interval ended).
  unsigned value(uint64_t now) {
    while (o_.dynamic && now >= end_) {
      step(double(count_) / double(o_.interval));
      count_ = 0;
      end_ += o_.interval;
    }
    return value_;
  }
  // One instruction issued at cycle `now` (after value(now)): counts for the interval's IPC.
  void issued() { ++count_; }
  // The end of an interval with IPC `ipc`: one transition.
  void step(double ipc);

  State state() const { return state_; }
  unsigned current() const { return value_; }
  uint64_t intervals() const { return intervals_; }
  // STHLD averaged over the intervals ended so far (the current value before the first).
  double mean() const { return intervals_ ? double(sum_) / double(intervals_) : value_; }
  const Options& options() const { return o_; }

private:
  void move(State next, int delta);
  Options o_;
  unsigned value_;
  State state_ = kStart;
  double prev_ = 0;
  uint64_t count_ = 0, intervals_ = 0, sum_ = 0;
  uint64_t end_ = o_.interval;
};

} // namespace gpurf
