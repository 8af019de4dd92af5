#include "gpurf/policies/sthld.h"

#include <algorithm>
#include <cmath>

namespace gpurf {

void Sthld::move(State next, int delta) {
  state_ = next;
  const long v = long(value_) + delta * long(o_.step);
  value_ = unsigned(std::clamp(v, 0L, long(o_.max)));
}

void Sthld::step(double ipc) {
  ++intervals_;
  sum_ += value_;
  // No IPC before: any IPC now is a large change; none then either: a small one.
  const bool large =
      prev_ > 0 ? std::fabs(ipc - prev_) / prev_ >= o_.small : ipc > 0 && state_ != kStart;
  prev_ = ipc;
  switch (state_) {
  case kStart:
    return move(kClimb, +1);
  case kClimb:
    return large ? move(kSpeculate, +1) : move(kClimb, +1);
  case kSpeculate:
    return large ? move(kDescend, -1) : move(kClimb, +1);
  case kDescend:
    return large ? move(kDescend, -1) : move(kSettle, +1);
  case kSettle:
    return large ? move(kConverged, -1) : move(kConverged, 0);
  case kConverged:
    return large ? move(kSpeculate, +1) : move(kConverged, 0);
  }
}

} // namespace gpurf
