// Stopping a run from outside: gpurf's SIGINT/SIGTERM handler (or a virtual platform) asks, and
// every SM of the process stops at the end of its current cycle with the error kInterrupted;
// the run then writes valid partial results (docs/tools.md, "Interrupting").
#pragma once

#include <atomic>

namespace gpurf {

inline std::atomic<bool> interrupt_flag{false};
static_assert(std::atomic<bool>::is_always_lock_free, "set from a signal handler");
// Async-signal-safe.
inline void request_interrupt() { interrupt_flag.store(true, std::memory_order_relaxed); }
inline bool interrupt_requested() { return interrupt_flag.load(std::memory_order_relaxed); }
inline constexpr const char* kInterrupted = "interrupted (SIGINT or SIGTERM)";

} // namespace gpurf
