// One simulation: a platform (the GPU, platform/gpu.h, and its memory target) running one
// front-end's workload.
// SystemC allows one elaboration per process, so a process runs one Simulation.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpurf/modules/common/warp_inst.h"

#include "gpurf/modules/frontend/i_frontend.h"
#include "gpurf/platform/config.h"
#include "gpurf/platform/energy.h"
#include "gpurf/platform/params.h"

namespace gpurf {

class Sm;
class Gpu;
class IMemory;
class Tracer;
class Observer;
class VcdRecorder;
class TimeSeries;

// Optional outputs of a run (docs/trace.md).
struct SimOptions {
  std::string trace_path;                  // instruction-lifecycle trace (Chrome JSON); "": off
  Cycle trace_from = 0, trace_to = kNever; // its cycle window [from, to)
  std::string vcd_path;                    // VCD waveform; "": off
  std::vector<std::string> vcd_signals;    // names or '*' patterns; empty: a default set
  std::vector<Observer*> observers;        // more listeners to the units' events (probe.h)
  std::string samples_path;                // time series (.csv or .jsonl); "": off
  Cycle sample_interval = 0;               // its interval in cycles
  // Called after each launch that finished, before the next one's host steps (an application
  // file runs several): the statistics are those of every launch so far.
  std::function<void()> on_launch_end;
  // gpu.hosted: true: a host in this process launches the kernels (libgpurf-cudart calls
  // Gpu::launch and sc_start itself; run() is not used).
  bool hosted = false;
};

struct RunResult {
  bool ok = false;
  std::string error; // why the run stopped early, if it did
  uint64_t cycles = 0, warp_instructions = 0;
  uint64_t launches = 0;         // kernel launches that finished
  bool interrupted = false;      // stopped by request_interrupt() (platform/interrupt.h)
  double host_seconds = 0;       // wall-clock time of the simulation
  double cpu_seconds = 0;        // process CPU time (user + system) of the simulation
  nlohmann::ordered_json stats;  // every statistics group, plus "host"
  nlohmann::ordered_json energy; // energy report; null when the platform names no table
};

class Simulation {
public:
  // Builds and binds every unit; throws ConfigError for a bad platform.
  Simulation(ConfigNode& platform, IFrontend& frontend, unsigned regs_per_thread,
             const SimOptions& options = {});
  ~Simulation();
  RunResult run();
  Gpu& gpu() { return *gpu_; }
  Sm& sm(); // the first SM (the only one by default)
  // Every signal name --vcd-signals accepts.
  std::vector<std::string> vcd_signal_names() const;

private:
  void check_memory_window(Params& mp);
  Params top_;
  IFrontend& frontend_;
  std::unique_ptr<Gpu> gpu_;
  std::unique_ptr<IMemory> memory_;
  std::shared_ptr<const EnergyTable> energy_;
  std::unique_ptr<Tracer> tracer_;
  std::unique_ptr<VcdRecorder> vcd_;
  std::unique_ptr<TimeSeries> series_;
  std::function<void()> on_launch_end_;
};

} // namespace gpurf
