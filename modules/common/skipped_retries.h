// An initiator asleep on a refused transfer (Txn::retry_at) rather than retrying every cycle:
// the attempts it skipped, each of which the target would have refused, so that both count
// them as a retry every cycle would have (the collectors' dispatch, the LSU's L1 accesses).
#pragma once

#include <cstdint>

#include "gpurf/modules/common/warp_inst.h"

namespace gpurf {

class SkippedRetries {
public:
  // A transfer was refused in cycle `now`: the initiator retries when woken.
  void refused(Cycle now) { refused_at_ = now; }
  bool waiting() const { return refused_at_ != kNever; }
  // The attempts skipped before cycle `at` and not yet returned, for the initiator to count
  // now (Unit::settle: a time series' boundary).
  uint64_t settle(Cycle at) {
    if (refused_at_ == kNever || at <= refused_at_ + 1) return 0;
    const uint64_t n = at - refused_at_ - 1;
    unsent_ += n;
    refused_at_ = at - 1;
    return n;
  }
  // The next attempt is made: every attempt skipped since the refusal, for the target
  // (Txn::skipped; settle(now) first). Ends the wait.
  uint32_t take() {
    const uint64_t n = unsent_;
    unsent_ = 0;
    refused_at_ = kNever;
    return uint32_t(n);
  }

private:
  Cycle refused_at_ = kNever; // the last refusal; kNever: none outstanding
  uint64_t unsent_ = 0;       // skipped attempts counted here, not yet told to the target
};

} // namespace gpurf
