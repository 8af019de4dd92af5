// The mbarrier object (PTX ISA, "Parallel Synchronization and Communication Instructions:
// mbarrier"): 64 bits in shared memory holding the current phase, the pending arrival count and
// the expected count. The ISA leaves the layout opaque (only the phase's parity is visible,
// through the state a mbarrier.arrive returns and test_wait.parity); gpurf's: pending count in
// bits 0-20, expected count in bits 21-41, the phase parity in bit 63. Every operation is an
// atomic read-modify-write of the object, as the engine runs atom.shared (lanes in order).
// Plain C++: tests/unit/ptx_atomic_test.cpp holds it to the ISA's rules.
#pragma once

#include <cstdint>

namespace gpurf::ptx::mbarrier {

constexpr uint64_t kCountMask = (uint64_t(1) << 21) - 1; // counts up to 2^20 - 1 (the ISA's)
constexpr uint64_t kPhase = uint64_t(1) << 63;

inline uint64_t pending(uint64_t m) { return m & kCountMask; }
inline uint64_t expected(uint64_t m) { return (m >> 21) & kCountMask; }
inline uint64_t make(uint64_t phase, uint64_t pending, uint64_t expected) {
  return (phase & kPhase) | (expected & kCountMask) << 21 | (pending & kCountMask);
}
// mbarrier.init: phase 0, `count` arrivals expected and pending.
inline uint64_t init(uint64_t count) { return make(0, count, count); }
// mbarrier.arrive(_drop) of `count`: the phase completes when nothing is pending, and the next
// one expects the (dropped) expected count. False when more arrive than are pending (the ISA
// leaves that undefined; gpurf stops the kernel).
inline bool arrive(uint64_t& m, uint64_t count, bool drop) {
  if (count == 0 || count > pending(m) || (drop && count > expected(m))) return false;
  const uint64_t exp = expected(m) - (drop ? count : 0), left = pending(m) - count;
  m = left ? make(m, left, exp) : make(m ^ kPhase, exp, exp);
  return true;
}
// test_wait / try_wait: has the phase `state` (what an arrive returned) recorded completed?
inline bool phase_done(uint64_t m, uint64_t state) { return (m ^ state) & kPhase; }
// The .parity forms: has the phase of parity `parity` completed (the current one differs)?
inline bool parity_done(uint64_t m, uint64_t parity) { return (m >> 63) != (parity & 1); }

} // namespace gpurf::ptx::mbarrier
