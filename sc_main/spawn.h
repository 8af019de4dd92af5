// Child gpurf processes: SystemC allows one elaboration per process, so `suite` and `micro`
// run every simulation in a process of its own.
#pragma once

#include <functional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace gpurf {

// Runs this executable with `args` (args[0] is the program name), stdout and stderr to the
// file `log`; returns its pid. Throws std::runtime_error when it cannot start.
pid_t spawn_gpurf(const std::vector<std::string>& args, const std::string& log);

// One child gpurf process: its arguments and its log file.
struct GpurfRun {
  std::vector<std::string> args;
  std::string log;
};
// Runs every child, `jobs` at a time (0: one per hardware thread); returns whether each
// exited with status 0, in `runs` order. Once interrupt_requested(), starts no more and passes
// SIGINT to the running ones (they write partial results), then waits for them.
// `done(i, ok)` is called as each run ends.
std::vector<bool> run_gpurf_all(const std::vector<GpurfRun>& runs, unsigned jobs,
                                const std::function<void(size_t, bool)>& done = {});

} // namespace gpurf
