#include "sc_main/spawn.h"

#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <map>
#include <spawn.h>
#include <stdexcept>
#include <sys/wait.h>
#include <thread>

#include "gpurf/platform/interrupt.h"

extern char** environ;

namespace gpurf {

pid_t spawn_gpurf(const std::vector<std::string>& args, const std::string& log) {
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, "/proc/self/exe", &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) throw std::runtime_error("cannot start a gpurf process for " + args.back());
  return pid;
}

std::vector<bool> run_gpurf_all(const std::vector<GpurfRun>& runs, unsigned jobs,
                                const std::function<void(size_t, bool)>& done) {
  if (!jobs) jobs = std::max(1u, std::thread::hardware_concurrency());
  std::vector<bool> ok(runs.size(), false);
  std::map<pid_t, size_t> running;
  size_t next = 0;
  bool forwarded = false;
  while (next < runs.size() || !running.empty()) {
    if (interrupt_requested()) { // no new run; the running ones write partial results
      next = runs.size();
      if (!forwarded)
        for (auto& [pid, i] : running) kill(pid, SIGINT);
      forwarded = true;
    }
    while (next < runs.size() && running.size() < jobs) {
      running[spawn_gpurf(runs[next].args, runs[next].log)] = next;
      ++next;
    }
    int status = 0;
    const pid_t pid = wait(&status);
    if (pid < 0 && errno == EINTR) continue; // a signal: look at the request above
    if (pid < 0) break;
    const size_t i = running[pid];
    ok[i] = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    running.erase(pid);
    if (done) done(i, ok[i]);
  }
  return ok;
}

} // namespace gpurf
