// Runs the host steps of an application file (launch.h AppStep) between the launches: loops,
// var assignments, buffer swaps, fills and copies on the functional memory. Plain C++.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gpurf/modules/frontend/i_frontend.h"
#include "gpurf/modules/frontend/launch.h"

namespace gpurf {

class AppRunner {
public:
  // `spec` (its vars are changed by the steps) and `addr` (each buffer's device address,
  // permuted by swaps) must outlive the runner.
  AppRunner(LaunchSpec& spec, std::vector<uint64_t>& addr) : spec_(spec), addr_(addr) {
    frames_.push_back({&spec.steps, 0, nullptr});
  }
  // Runs steps until the next launch and returns it (its label), or nullptr when the
  // application is over. A step that fails (an index outside its buffer, a loop past its
  // `max`) throws WorkloadError naming the step.
  const AppStep* next(IFunctionalMemory& mem);
  uint64_t launches() const { return launches_; } // launches returned so far

private:
  struct Frame {
    const std::vector<AppStep>* steps;
    size_t next;
    const AppStep* loop; // the For or Repeat whose body this is; null at the top
    int64_t to = 0, step = 0;
    uint64_t passes = 1;
  };
  // Runs one non-launch step (or enters a loop).
  void run(const AppStep& s, IFunctionalMemory& mem);
  // End of a loop body: true when it runs again.
  bool again(Frame& f, IFunctionalMemory& mem);
  int64_t eval(const AppStep& s, const std::string& text, IFunctionalMemory& mem) const;
  size_t buffer(const std::string& name) const;

  LaunchSpec& spec_;
  std::vector<uint64_t>& addr_;
  std::vector<Frame> frames_;
  uint64_t launches_ = 0;
};

} // namespace gpurf
