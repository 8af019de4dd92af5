#include "gpurf/platform/simulation.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <sstream>

#include "gpurf/modules/frontend/ptx/ir.h"
#include "gpurf/modules/frontend/ptx_frontend.h"
#include "gpurf/modules/memory/i_memory.h"
#include "gpurf/platform/gpu.h"
#include "gpurf/platform/interrupt.h"
#include "gpurf/platform/sm.h"
#include "gpurf/platform/stats.h"
#include "gpurf/platform/time_series.h"
#include "gpurf/platform/trace.h"

namespace gpurf {

Simulation::Simulation(ConfigNode& platform, IFrontend& frontend, unsigned regs_per_thread,
                       const SimOptions& opt)
    : top_(&platform, ""), frontend_(frontend), on_launch_end_(opt.on_launch_end) {
  sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO,
                                          sc_core::SC_DO_NOTHING);
  top_.get_string("name", "", "platform name");
  top_.get_string("description", "", "what the platform models");
  top_.get_string("paper", "", "where its parameters come from");
  // The PTX front-end compiled before the platform was built: it must have used its mode.
  const FrontendOptions fo = frontend_options(top_);
  if (auto* ptx = dynamic_cast<const PtxFrontend*>(&frontend); ptx && !(ptx->options() == fo))
    throw ConfigError("frontend: the kernel was compiled with " + ptx->options().describe() +
                      ", the platform asks for " + fo.describe());
  if (!opt.trace_path.empty()) {
    const ConfigNode* sm = platform.find("sm");
    const ConfigNode* ghz = sm ? sm->find("clock_ghz") : nullptr;
    try {
      tracer_ = std::make_unique<Tracer>(opt.trace_path, opt.trace_from, opt.trace_to,
                                         ghz ? std::atof(ghz->scalar.c_str()) : 1.0);
    } catch (const std::runtime_error& e) {
      throw ConfigError(std::string("--trace: ") + e.what());
    }
  }
  std::vector<Observer*> observers = opt.observers;
  if (tracer_) observers.push_back(tracer_.get());
  // gpurf's own memory always answers, and sc_start returns once nothing is left to happen:
  // its runs need no memory timeout, whose timed checks would change the order SystemC runs
  // several SMs in within a time step (docs/vp.md "Protocol conformance"). A platform file may
  // still set one.
  const ConfigNode* gpu = platform.find("gpu");
  if (!gpu || !gpu->find("memory_timeout_cycles"))
    apply_override(platform, "gpu.memory_timeout_cycles=0");
  gpu_ = std::make_unique<Gpu>(top_, frontend, regs_per_thread, observers);
  if (gpu_->hosted() && !opt.hosted)
    throw ConfigError("gpu.hosted: a hosted GPU waits for a virtual platform's host to launch "
                      "its kernels (docs/vp.md); gpurf runs the launch file: drop gpu.hosted");
  Params& mp = top_.sub("memory", "memory target behind the SM's TLM memory port");
  const std::string impl =
      mp.get_choice("impl", "simple", "implementation of the memory", IMemory::Registry::names());
  UnitContext c = default_context("memory");
  c.shape = &gpu_->sm(0).shape();
  c.clock = &gpu_->clock();
  memory_ = IMemory::Registry::create(impl, mp, c);
  check_memory_window(mp);
  gpu_->memory_port().bind(memory_->socket);
  if (memory_->waits_in_transport() && !gpu_->decoupled())
    mp.fail("respond", "a memory that waits in b_transport needs SMs that may wait: set "
                       "gpu.memory_port: lt (it is 'direct')");
  if (memory_->stores_late() && !gpu_->approximately_timed() && !memory_->waits_in_transport())
    mp.fail("store", "a write is stored later than its request only where the memory answers "
                     "later than the call: set gpu.memory_port: at, or lt with memory.respond: "
                     "wait");
  energy_ = platform_energy_table(top_);
  // Every energy event the units declare must have a price (docs/energy.md).
  if (energy_) check_energy_declared(*energy_, dump_stats_json(false), &platform);
  top_.check_unused();
  // A waveform and a time series follow one SM's cycles.
  auto one_sm = [&](const std::string& option, const std::string& what) {
    if (gpu_->sm_count() > 1)
      throw ConfigError(option + ": " + what + " samples one SM's cycles; " +
                        std::to_string(gpu_->sm_count()) +
                        " SMs given: run it with -p gpu.sm_count=1");
  };
  if (!opt.vcd_path.empty()) {
    one_sm("--vcd", "a waveform");
    const bool chosen = !opt.vcd_signals.empty();
    const std::vector<std::string> names =
        chosen
            ? opt.vcd_signals
            : std::vector<std::string>{"*.scheduler*.issued", "*.bank*.busy", "*.allocator.in_use",
                                       "*.arbiter.queue_depth", "sm.warp_instructions"};
    vcd_ = std::make_unique<VcdRecorder>(opt.vcd_path, names, gpu_->sm(0).clock(), chosen);
    gpu_->sm(0).set_vcd(vcd_.get());
  }
  if (!opt.samples_path.empty()) {
    one_sm("--sample-interval", "a time series");
    series_ = std::make_unique<TimeSeries>(opt.samples_path, opt.sample_interval, gpu_->sm(0));
    gpu_->sm(0).set_time_series(series_.get());
  }
}

// Every region gpurf places in global memory must lie in the memory's window, or the first
// functional write (the launch file's buffers) fails once the run has started.
void Simulation::check_memory_window(Params& mp) {
  const IMemory::Window w = memory_->window();
  if (!w.bytes) return;
  auto hex = [](uint64_t v) {
    std::ostringstream o;
    o << "0x" << std::hex << v;
    return o.str();
  };
  // What the launch touches: its buffers always (written before the run), the module's
  // variables when it declares any, the windows when a function keeps .local arrays, makes
  // a generic address of shared or local memory or reads %envreg (the grid workspace) (a VP
  // may move unused ones where its memory has none: tests/cli/vp.sh).
  const auto* ptx = dynamic_cast<const PtxFrontend*>(&frontend_);
  bool vars = !ptx, windows = !ptx;
  if (ptx) {
    for (const ptx::VarDecl& v : ptx->module().vars)
      vars |= v.space == ptx::Space::Global || v.space == ptx::Space::Const;
    for (const ptx::Function& f : ptx->module().functions) {
      for (const ptx::VarDecl& v : f.locals) windows |= v.space == ptx::Space::Local;
      for (const ptx::Instr& in : f.instrs) {
        windows |= in.op == ptx::Op::Cvta &&
                   (in.space == ptx::Space::Shared || in.space == ptx::Space::Local);
        for (const ptx::Operand& o : in.src) // a cooperative launch's grid workspace is there
          windows |= o.kind == ptx::Operand::Kind::Special && o.sreg == ptx::SReg::Envreg;
      }
    }
  }
  std::vector<const Gpu::Region*> needed; // the buffers first
  for (auto it = gpu_->regions().rbegin(); it != gpu_->regions().rend(); ++it)
    if (!(it->what == "the module's variables" && !vars) &&
        !(it->what == "the timing-only windows" && !windows))
      needed.push_back(&*it);
  if (needed.empty()) return;
  uint64_t lo = UINT64_MAX, hi = 0;
  for (const Gpu::Region* r : needed)
    lo = std::min(lo, r->base), hi = std::max(hi, r->base + r->bytes);
  const uint64_t end = w.base + w.bytes;
  for (const Gpu::Region* r : needed) {
    if (r->base >= w.base && r->base + r->bytes <= end) continue;
    const std::string of = ptx ? " of " + ptx->launch().file : "";
    // The key the user changed last is the one named first.
    const char* key =
        mp.depth("size_bytes") <= mp.depth("base_address") ? "size_bytes" : "base_address";
    mp.fail(key, "the memory answers [" + hex(w.base) + ", " + hex(end) + ") (" + w.keys +
                     "), but " + r->what + of + " need [" + hex(r->base) + ", " +
                     hex(r->base + r->bytes) + "), outside it; valid: a memory that holds [" +
                     hex(lo) + ", " + hex(hi) + "), e.g. base_address <= " + hex(lo) +
                     " and base_address + size_bytes >= " + hex(hi) +
                     " (frontend.data_base and frontend.window_base move the module's "
                     "variables and the windows)");
  }
}

std::vector<std::string> Simulation::vcd_signal_names() const { return VcdRecorder::available(); }

Simulation::~Simulation() = default;

Sm& Simulation::sm() { return gpu_->sm(0); }

RunResult Simulation::run() {
  RunResult r;
  gpu_->pause_at_launch_end(true);
  gpu_->run_ahead(true);
  gpu_->start();
  const auto t0 = std::chrono::steady_clock::now();
  const std::clock_t cpu0 = std::clock(); // process CPU time: speed per CPU-second (scripts/bench)
  sc_core::sc_start();
  // An application: its next launch starts once the last one finished everywhere.
  while (gpu_->finished() && gpu_->launch_done() && !interrupt_requested()) {
    ++r.launches;
    // Every launch proves its counts, as a hosted kernel does (the counters accumulate over
    // the launches, so the identities hold at each launch's end). Not with an AT memory port:
    // there a launch ends with its last writes still on their way to the L2 and the memory
    // (pause_at_launch_end), which the identities after the last launch see arrive.
    if (const std::string broken =
            gpu_->approximately_timed() ? std::string() : gpu_->broken_identities();
        !broken.empty()) {
      r.error =
          "launch " + std::to_string(r.launches - 1) + ": conservation identities broken:" + broken;
      break;
    }
    if (on_launch_end_) on_launch_end_();
    bool more = false;
    try {
      more = gpu_->next_launch();
    } catch (const std::exception& e) { // a host step failed (WorkloadError)
      r.error = e.what();
      break;
    }
    if (!more) break;
    sc_core::sc_start();
  }
  // AT: the memory answers the writes still out (it counts them; the GPU's cycles are done).
  if (sc_core::sc_pending_activity()) sc_core::sc_start();
  if (tracer_) tracer_->finish(gpu_->cycles());
  if (vcd_) vcd_->close();
  if (series_) series_->close(gpu_->sm(0).cycles());
  r.host_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.cpu_seconds = double(std::clock() - cpu0) / CLOCKS_PER_SEC;
  r.ok = gpu_->finished();
  if (r.error.empty()) r.error = gpu_->error();
  if (r.ok && !gpu_->launch_done()) r.error = "simulation ended before the kernel finished";
  if (r.error.empty() && series_) r.error = series_->error();
  r.ok = r.error.empty();
  r.interrupted = interrupt_requested();
  r.cycles = gpu_->cycles();
  r.warp_instructions = gpu_->retired();
  r.stats = dump_stats_json();
  if (r.ok)
    if (const std::string broken = gpu_->broken_identities(r.stats); !broken.empty()) {
      r.ok = false;
      r.error = "conservation identities broken:" + broken;
    }
  if (energy_) {
    // An unpriced event or a broken energy identity fails the run (docs/energy.md).
    const SmShape& s = gpu_->sm(0).shape();
    try {
      r.energy =
          energy_report(*energy_, r.stats, EnergyPlatform{s.clock_ghz, s.slices, s.bank_rows});
    } catch (const std::exception& e) {
      r.energy = nullptr;
      r.error += (r.error.empty() ? "energy: " : "; energy: ") + std::string(e.what());
      r.ok = false;
    }
  }
  const double s = std::max(r.host_seconds, 1e-9);
  r.stats["host"] = {{"seconds", r.host_seconds},
                     {"cpu_seconds", r.cpu_seconds},
                     {"warp_instructions_per_second", r.warp_instructions / s},
                     {"cycles_per_second", r.cycles / s}};
  return r;
}

} // namespace gpurf
