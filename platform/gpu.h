// The GPU: `gpu.sm_count` SMs running one launch, the interconnect that merges their L1s'
// memory traffic, the shared L2 and one memory port, a TLM-2.0 base-protocol initiator
// socket (bind it to any memory target: the platform's `memory` unit in Simulation, a
// virtual platform's bus or DRAMSys when embedded).
//
// The front-end's CTAs are spread over the SMs (IFrontend::start: round-robin first, then
// each freed CTA slot takes the next CTA). Each SM sees its own warp slots through a view of
// the front-end and stops when its slots are empty and no CTA is left; the GPU is done when
// every SM is. A failing SM halts the others with its error.
//
// Placement in the sc_object hierarchy (docs/vp.md "Several GPUs"): a GPU built at the top level
// with no name, the first such (the gpurf tool's), keeps the names its units always had: one
// SM is `sm`, several are `sm0`, `sm1`, ...; the shared units are `interconnect`, `l2`,
// `memory_port`, and its statistics group `gpu`. Any other GPU (built inside a module of
// one's own, given a name, or a second one at the top level) is an sc_module of its own
// (`name`, else `gpu`, `gpu_1`, ... among its siblings) with the same units below it. Either
// way stats_json() gives the GPU's own statistics under those short names, and the
// conservation identities are checked on that tree alone.
//
// Global memory: every region gpurf places (launch-file buffers, the module's variables, the
// timing-only windows) is moved up by gpu.address_base; by default the first GPU's regions are
// where they always were and another's at the lowest multiple of 4 GiB where they overlap no
// other GPU's, so GPUs of one process never overlap unless told to (then they are refused).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gpurf/modules/common/unit.h"
#include "gpurf/modules/frontend/i_frontend.h"
#include "gpurf/modules/frontend/ptx_frontend.h"
#include "gpurf/platform/stats.h"

namespace gpurf {

class Sm;
class IL2;
class LtPort;
class AtPort;
class HostInterface;
class Observer;
class Params;

class Gpu {
public:
  // Reads the `gpu:` and `l2:` sections of `top` and every SM's sections. `name`: the GPU's
  // sc_module name under the module being built (null: see above).
  Gpu(Params& top, IFrontend& frontend, unsigned regs_per_thread,
      const std::vector<Observer*>& observers = {});
  Gpu(const char* name, Params& top, IFrontend& frontend, unsigned regs_per_thread,
      const std::vector<Observer*>& observers = {});
  ~Gpu();
  Gpu(const Gpu&) = delete;
  Gpu& operator=(const Gpu&) = delete;

  unsigned sm_count() const { return unsigned(sms_.size()); }
  Sm& sm(unsigned i) { return *sms_.at(i); }
  const Sm& sm(unsigned i) const { return *sms_.at(i); }
  // The memory port (memory_port: lt: the LT port's; else the L2's memory socket, without
  // an L2 the interconnect's).
  tlm::tlm_initiator_socket<>& memory_port();
  // memory_port: lt: the SMs are threads and the memory target may wait in b_transport.
  bool decoupled() const { return lt_ != nullptr; }
  // memory_port: at: the 4-phase protocol; answers come later than the request.
  bool approximately_timed() const { return at_ != nullptr; }
  // Functional access to the memory behind the memory port (TLM debug transport).
  IFunctionalMemory& functional_memory();
  // The clock of the shared units (the interconnect, the L2 and a memory built beside them).
  SimClock& clock() { return clock_; }

  // Hands the launch to the front-end (buffers, parameters, the first CTAs) and records the
  // occupancy in every SM's statistics. Call once (not when hosted), before sc_start or once
  // the simulation runs (the SMs then start at SystemC's time; until then they idle). Before
  // sc_start, writes the memory target refuses (a tlm_utils multi-passthrough socket answers
  // only once elaboration has ended) wait for the start of the simulation; one it still
  // refuses then fails the kernel with the address.
  Occupancy start();
  // Once every SM finished the launch: the front-end's next launch (an application file's
  // host steps, then its next kernel), the SMs restarted at SystemC's time; false when the
  // front-end has none. Call sc_start again to run it.
  bool next_launch();
  // An application file that launches several kernels (LaunchSpec::several_kernels) runs as a
  // host runs hosted kernels: every entry of its modules compiled at construction (the module
  // table below, module 0 the file's first PTX, the others in `ptx:` order), the SMs' register
  // space elaborated for the largest, and each launch sets its kernel's registers, occupancy
  // and warp slots (Sm::set_kernel_registers) without a new elaboration.
  // The front-end running the current launch (the GPU's, or the kernel an application's step
  // launched) and whether it has run all its CTAs.
  IFrontend& running() const { return *running_; }
  bool launch_done() const { return running_->done(); }
  // memory_port: at: sc_start returns (sc_pause) once every SM has finished a launch, so that
  // the next launch starts in that cycle, as it does with the direct port, and does not wait
  // for the memory to answer the writes still out (they go on). For the gpurf tool, which
  // starts the next launch itself (Simulation::run); a virtual platform's sc_start is left
  // alone.
  void pause_at_launch_end(bool on) { pause_ = on; }
  // Every SM runs ahead of SystemC's time while nothing else is due (Sm::run_ahead): for a
  // caller whose sc_start runs until no event is left.
  void run_ahead(bool on);

  // gpu.hosted: true: the SMs idle until a host launches a kernel through host() (a TLM
  // target socket of registers and an interrupt, platform/host_interface.h); kernels run one
  // after another. launch() is what START does: false (error() says why) when the kernel id
  // is unknown or the front-end rejects the launch (grid, block, shared memory, no CTA fits).
  // A kernel that fails is drained (Sm::stop_and_drain), so the next launch runs.
  bool hosted() const { return host_ != nullptr; }
  HostInterface& host();
  bool launch(const PtxFrontend::HostLaunch& h, uint32_t kernel);
  // The same launch on the functional engine alone, at once (no simulated time, no
  // statistics; PtxFrontend::fast_forward): libgpurf-cudart's launches outside GPURF_TIMED.
  PtxFrontend::FastForward fast_forward(const PtxFrontend::HostLaunch& h, uint32_t kernel);

  // Hosted kernels (docs/vp.md "Host interface"): every .entry of every module loaded, each
  // compiled once at load with its own registers per thread (ptxas's count where known, as
  // for any kernel) and so its own occupancy. Module 0 is the GPU's own (the front-end's
  // PTX); a kernel's id is (module << 16) | its index among its module's entries in file
  // order. The SMs' register space is elaborated for the most registers and predicates any
  // kernel of module 0 uses, or gpu.hosted_registers / hosted_predicates when larger; a
  // module with a larger kernel is refused.
  static constexpr unsigned kEntryBits = 16;
  // Loads a module from a PTX file, or from PTX text (`name` in messages), before or during
  // the simulation (not while a kernel runs: its compile takes no simulated time); its
  // .global/.const variables go after the loaded modules' in frontend.data_base's window and
  // get their initial values at its first launch. Returns its id. Throws WorkloadError (PTX
  // syntax, a kernel the model cannot run or the SMs cannot hold, no room for the variables)
  // and loads nothing then.
  unsigned load_module(const std::string& path);
  unsigned load_module_text(const std::string& ptx, const std::string& name);
  unsigned modules() const { return unsigned(modules_.size()); }
  // The id of the .entry named `name` (the first module loaded that has one); WorkloadError
  // naming the kernels when none has.
  uint32_t find_kernel(const std::string& name) const;
  uint32_t gpu_kernel() const { return gpu_kernel_; } // the kernel the GPU was built with
  // Kernel `id`'s front-end (its compiled plan; after a launch, its outputs); null: none.
  PtxFrontend* kernel(uint32_t id) const;
  // "module 0 (daxpy_dot.ptx): 0x0 daxpy_dot; module 1 (sgemm.ptx): 0x10000 sgemm".
  std::string kernel_names() const;

  // Outcome, once done_event() has fired: every SM stopped; finished() when all finished.
  bool stopped() const;
  bool finished() const;
  const std::string& error() const { return error_; } // the first SM's error, named
  // The last SM's end. The SMs count from time 0, so hosted, this includes the time they
  // idled between kernels; a kernel's own cycles are the host interface's CYCLES.
  Cycle cycles() const;
  uint64_t retired() const; // warp instructions, all SMs
  const sc_core::sc_event& done_event() const { return *done_; }
  // With the checks on, once finished(): the conservation identities broken by `stats`
  // (stats_json(), or with the tool's memory dump_stats_json()) against the SMs' timing
  // checkers, one line each after "\n  "; empty when they hold or the checks are off. They
  // hold for the sums over the SMs.
  std::string broken_identities(const nlohmann::ordered_json& stats) const;
  std::string broken_identities() const { return broken_identities(stats_json(false)); }
  // This GPU's statistics, named as the gpurf tool names them (`sm`, `sm0.sub0.bank3`, `l2`,
  // `gpu`, `interconnect`, `memory_port`) wherever the GPU sits.
  nlohmann::ordered_json stats_json(bool with_descriptions = true) const;
  // The sc_object name the GPU's units are below ("" at the top level: `sm`, `l2`...).
  const std::string& path() const { return path_; }
  // gpu.address_base: added to every address gpurf places in global memory.
  uint64_t address_base() const { return address_base_; }

  // Where gpurf places what a launch needs in global memory (the launch file's buffers, the
  // module's variables, the timing-only windows), after gpu.address_base: every one must lie
  // in the memory behind the port.
  struct Region {
    uint64_t base, bytes;
    std::string what;
  };
  const std::vector<Region>& regions() const { return regions_; }

private:
  class Interconnect;
  class SmView;
  class Scope;
  class EarlyMemory;
  void build(Params& top, unsigned regs_per_thread, const std::vector<Observer*>& observers);
  void place(Params& g, bool hosted); // gpu.address_base, checked against the other GPUs
  void at_start_of_simulation();
  // Destroyed last: the units below it go first.
  std::unique_ptr<Scope> scope_;
  IFrontend& frontend_;
  const std::string path_;         // "" flat, else the scope's name
  std::vector<std::string> roots_; // the units' names below path_ (sm, l2...), and "gpu"
  uint64_t address_base_ = 0;
  std::vector<Region> regions_; // in global memory, for the overlap check
  std::unique_ptr<EarlyMemory> early_;
  bool started_ = false, held_ = false; // start() called; the SMs idle waiting for it
  SimClock clock_;
  std::vector<std::unique_ptr<SmView>> views_;
  std::vector<std::unique_ptr<Sm>> sms_;
  std::unique_ptr<Interconnect> noc_;
  std::unique_ptr<IL2> l2_;    // null: no L2 (impl: none)
  std::unique_ptr<LtPort> lt_; // memory_port: lt
  std::unique_ptr<AtPort> at_; // memory_port: at
  std::unique_ptr<HostInterface> host_;
  struct Module {
    std::string name;                                // its path, or the name given with text
    std::shared_ptr<const ptx::Module> parsed;       // why a refused entry is not loaded
    std::vector<std::unique_ptr<PtxFrontend>> owned; // the kernels compiled here
    std::vector<PtxFrontend*> kernels;               // every .entry in file order
    // Entries that parsed but that the model cannot run (local memory over its limit, an
    // instruction with too many registers...): name -> why. The module's other kernels load.
    std::map<std::string, std::string> unrunnable;
  };
  std::vector<Module> modules_;
  uint32_t gpu_kernel_ = 0;
  unsigned hosted_regs_ = 0, hosted_preds_ = 0; // the SMs' register space per thread
  uint64_t data_next_ = 0, data_end_ = 0;       // the module variables' window: next free byte
  // Compiles every entry of `spec.module` but `built` (the GPU's own front-end), checks and
  // adds the module; returns its id.
  unsigned add_module(LaunchSpec spec, const std::string& name, PtxFrontend* built);
  // Points the SMs at kernel `k` (its registers, occupancy limits and warp slots), starts it
  // with `start` and records its occupancy: hosted launches and an application's launches.
  Occupancy switch_to(PtxFrontend& k, const std::function<Occupancy(const SmLimits&)>& start);
  const SmLimits& use_kernel(PtxFrontend& k); // the SMs' registers and limits for `k`
  void give_clock(PtxFrontend& k);            // %clock and %globaltimer read clock_
  // An application of several kernels: its next launch on its kernel's front-end; false when
  // none is left.
  bool app_launch(Occupancy& o);
  bool app_ = false; // runs such an application
  IFrontend* running_ = nullptr;
  unsigned stopped_ = 0;
  bool pause_ = false;
  std::string error_;
  StatGroup stats_;
  uint64_t &cycles_, &retired_;
  std::unique_ptr<sc_core::sc_event> done_;
};

} // namespace gpurf
