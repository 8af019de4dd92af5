// The SM: builds every unit a platform file names, binds their sockets, and clocks them.
// Its memory port (the L1's) is a TLM-2.0 base-protocol initiator socket; the GPU
// (platform/gpu.h) binds it to the interconnect in front of the shared L2.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "gpurf/modules/common/inst_pool.h"
#include "gpurf/modules/common/unit.h"
#include "gpurf/modules/frontend/i_frontend.h"
#include "gpurf/platform/check/timing_checker.h"
#include "gpurf/platform/dummy_movs.h"
#include "gpurf/policies/ccu_board.h"
#include "gpurf/policies/reg_mapping.h"
#include "gpurf/policies/row_tags.h"
#include "gpurf/policies/wir_state.h"

namespace gpurf {

class IScheduler;
class TimeSeries;
class IAllocator;
class ICollector;
class IArbiter;
class IBank;
class ICrossbar;
class IExec;
class IWriteback;
class ILsu;
class IL1;
class IRfc;

// Refuses (ConfigError) a request of `sent` bytes that the next level, which serves at most
// `served` bytes in one access, could never serve; names both sets of keys.
void check_request_size(const Unit::Bytes& sent, const Unit::Bytes& served);

class Sm : public sc_core::sc_module, private IFrontend {
public:
  SC_HAS_PROCESS(Sm);
  // `params` is the platform's top-level parameter set; `regs_per_thread` the kernel's.
  // `observers`: told of every unit event (platform/probe.h), after the timing checker.
  // How the SM is clocked and started.
  struct Mode {
    // Clocked by an SC_THREAD that runs up to the global quantum ahead of SystemC's time, so
    // that a memory target may wait in b_transport (gpu.memory_port: lt); else by an
    // SC_METHOD in step with SystemC's time.
    bool decoupled = false;
    // Idle until restart() (a host launches kernels, one after another); else the kernel
    // runs from time 0.
    bool hosted = false;
    // Predicate registers per thread the SM holds at least (hosted: the most any kernel it may
    // run uses; the front-end's count when larger).
    unsigned predicates = 0;
    // The other kernels the SM may run that are known when it is built (hosted: the GPU's
    // module; an application: every module): the storage beyond bank.entries is sized for
    // the one that needs the most (Sm::set_kernel_registers).
    struct Kernel {
      unsigned data = 0, preds = 0, occ = 0, hw = 0; // as IFrontend counts them
      unsigned bound = 0;                            // IFrontend::bound_warps
    };
    std::vector<Kernel> kernels;
  };
  Sm(sc_core::sc_module_name nm, Params& params, IFrontend& frontend, unsigned regs_per_thread,
     const std::vector<Observer*>& observers, Mode mode);
  ~Sm() override;

  // The SM's memory port (the L1's memory socket).
  tlm::tlm_initiator_socket<>& memory_port();
  // The largest request this SM sends through its memory port (the L1's line fills, and the
  // LSU's segments the L1 passes on: stores), for the check against the next level.
  Unit::Bytes largest_request() const;
  // Functional access to the memory behind the memory port (TLM debug transport).
  IFunctionalMemory& functional_memory();
  // The resources the kernel's CTAs share (warps, registers, CTA slots, shared memory).
  const SmLimits& limits() const { return limits_; }
  // The limits a kernel of `data_regs` registers and `preds` predicates per thread (occupancy
  // and ptxas counts as the frontend's) would get at its launch, the current kernel's kept:
  // for the runtime's occupancy queries.
  SmLimits limits_for(unsigned data_regs, unsigned preds, unsigned occ_data, unsigned hw_data,
                      unsigned bound_warps = 0) const;
  // The occupancy and ptxas counts (IFrontend's) of a kernel whose launch bounds promise
  // `bound_warps` warps per SM, lowered to what fits these banks where they do not (sm.cpp).
  void bound_registers(unsigned data_regs, unsigned preds, unsigned bound_warps, unsigned& occ_data,
                       unsigned& hw_data) const;
  // Records the kernel's occupancy in the statistics (sm.resident_warps, resident_ctas,
  // cta_limit: the CTAs each resource allows).
  void set_occupancy(const Occupancy& o);
  const SmShape& shape() const { return shape_; }
  SimClock& clock() { return clock_; }

  // Outcome of the run, set when the kernel ends or fails. The SM then stops ticking and
  // notifies done_event(); it never stops the simulation, so a virtual platform's other IP
  // runs on (the gpurf tool's sc_start returns when no event is left).
  bool finished() const { return finished_; }
  bool stopped() const { return stopped_; }
  const sc_core::sc_event& done_event() const { return done_; }
  const std::string& error() const { return error_; }
  // Stops the SM with `why` as its error (another SM of the GPU failed): it issues no more
  // and stops once what is in flight completed (drained, so a hosted GPU can launch again);
  // no effect once it has stopped.
  void halt(const std::string& why);
  // Stops the SM now, drained or not: what is in flight can never complete (a memory that
  // stopped answering). A hosted GPU then takes no more kernels.
  void abort(const std::string& why) {
    if (!stopped_) stop(why);
  }
  // No instruction in flight (a kernel that ended normally leaves none; a failed one is
  // drained, see stop_and_drain()).
  bool drained() const { return pool_.in_flight() == 0; }
  // Hosted: the kernel the front-end runs next has `data_regs` registers per thread (and the
  // front-end's predicate, occupancy and ptxas counts): the register mapping and the
  // occupancy limits become that kernel's own. The SM's register space, elaborated for the
  // registers the constructor was given (the most any kernel may use), must hold it: else
  // WorkloadError. Call while drained, before the front-end starts the kernel.
  void set_kernel_registers(unsigned data_regs);
  // Starts the next kernel the front-end holds (hosted): clears the outcome and runs from
  // SystemC's current time.
  void restart();
  // Idles from the start of the simulation until restart() (a GPU started once it runs).
  void hold() { held_ = true; }
  // Called when the SM stops (the GPU collects its SMs' ends).
  void on_stop(std::function<void(Sm&)> f) { on_stop_ = std::move(f); }
  // Called when the kernel fails in this SM and it starts draining (it stops once drained),
  // with the error: the GPU halts the other SMs at once.
  void on_fail(std::function<void(Sm&, const std::string&)> f) { on_fail_ = std::move(f); }
  // A clock whose `now` the SM sets to its own cycle before ticking its units: the units
  // shared by several SMs (interconnect, L2, memory) are only called from an SM's tick.
  void share_clock(SimClock* c) { shared_clock_ = c; }
  // An AT memory answers later (gpu.memory_port: at): while `busy()` the SM waits for
  // `answered` instead of reporting a deadlock, and wakes on it from any sleep.
  void wait_on_memory(const sc_core::sc_event& answered, std::function<bool()> busy) {
    memory_event_ = &answered;
    memory_busy_ = std::move(busy);
  }
  // Run ahead of SystemC's time while nothing else in the simulation is due before the SM's
  // next cycle (step() would only be called again then): for a caller whose sc_start runs
  // until no event is left (Simulation::run, libgpurf-cudart). Off: the SM steps with
  // SystemC's time, for a virtual platform that may stop sc_start at any time.
  void run_ahead(bool on) { run_ahead_ = on; }
  // How far the SM's clock is ahead of SystemC's time (run_ahead): its events are due then.
  sc_core::sc_time ahead() const { return clock_.time(ahead_); }
  // Units outside the SM that its watchdog report shows (the shared L2).
  void report_also(Unit* u) { shared_units_.push_back(u); }
  Cycle cycles() const { return clock_.now; }
  uint64_t retired() const { return retired_; }
  // A waveform recorder, sampled after every simulated cycle.
  void set_vcd(VcdRecorder* vcd) { vcd_ = vcd; }
  // A time series, told before every cycle the SM ticks (platform/time_series.h).
  void set_time_series(TimeSeries* ts) { series_ = ts; }
  // Every unit's time-integrated statistics up to the start of cycle `at` (Unit::settle).
  void settle(Cycle at);
  // The timing checker (null when sm.checks is off).
  const TimingChecker* checker() const { return checker_.get(); }
  // What the configuration promises, from the units' parameter accessors (the timing
  // checker's rules, gpurf micro's expected values).
  TimingSpec timing_spec() const;

private:
  struct SubCore {
    std::vector<std::unique_ptr<IScheduler>> schedulers;
    std::unique_ptr<IAllocator> allocator;
    std::vector<std::unique_ptr<ICollector>> collectors;
    std::unique_ptr<IRfc> rfc; // register file cache, only with an `rfc:` section
    std::unique_ptr<IArbiter> arbiter;
    std::vector<std::unique_ptr<IBank>> banks;
    std::unique_ptr<ICrossbar> crossbar;
    std::unique_ptr<IExec> exec;
    std::unique_ptr<IWriteback> writeback;
    std::unique_ptr<ILsu> lsu;
    std::unique_ptr<RowTags> row_tags; // per bank row (policies/row_tags.h)
  };

  // The units see the front-end through the SM, which notes every retirement (progress).
  Occupancy start(const SmLimits&, unsigned, IFunctionalMemory&) override { return {}; }
  const InstInfo* peek(unsigned warp) override;
  uint64_t offer_epoch() const override { return frontend_.offer_epoch(); }
  void execute(unsigned warp, WarpInst& out) override;
  void retire(const WarpInst& inst) override;
  bool done() const override { return frontend_.done(); }
  std::string describe_warp(unsigned warp) const override { return frontend_.describe_warp(warp); }
  // The front-end's count, plus one for every CTA a failed kernel left in the slot (drained).
  uint64_t warps_finished(unsigned warp) const override {
    return frontend_.warps_finished(warp) + killed_[warp];
  }

  // One step of the clock: ticks the units due now, or jumps to the next busy cycle. Returns
  // the cycles until the next step, 0 once the SM has stopped, kNever when only the memory's
  // answer can wake it.
  Cycle advance();
  void step();          // SC_METHOD: advance, re-trigger
  void run_decoupled(); // SC_THREAD: advance up to a quantum ahead of SystemC's time
  void start_of_simulation() override;
  void end_of_simulation() override;
  void stop(const std::string& error);
  // A failed kernel (an exception from the front-end's execute(), another SM's failure): stop
  // issuing and run on until every instruction in flight has completed, then free every
  // warp slot (its registers and the units' per-slot state, as when a CTA finishes) and stop
  // with `error`. The next kernel starts on empty pipelines.
  void stop_and_drain(const std::string& error);
  void finish_drain(); // every instruction completed: free the slots, stop

  // The front-end's execute() failed for the instruction the scheduler is issuing: it goes
  // down the pipeline with no active lane (its registers keep their values) so that the
  // units that hold it complete it.
  void squash(unsigned warp, WarpInst& out);
  // The constructor's steps, in order (sm.cpp); Plan carries what one step hands the next.
  struct Plan;
  void read_platform(Plan& plan, Params& top, unsigned regs_per_thread,
                     const std::vector<Observer*>& observers);
  void build_units(Plan& plan);
  void check_compatibility(Plan& plan);
  void add_sm_state(Plan& plan);
  void size_occupancy(Plan& plan);
  void bind_sockets(Plan& plan);
  void order_ticks();
  void attach_observers(const std::vector<Observer*>& observers);
  // Sets limits_ from the kernel's counts (data_regs_, mapping_; occupancy and ptxas counts).
  void kernel_limits(unsigned occ_data, unsigned hw_data);
  // The limits of a kernel of `kernel_regs` registers per thread (`data_regs` of them data)
  // placed by `mapping`.
  SmLimits register_limits(unsigned kernel_regs, unsigned data_regs, const RegMapping& mapping,
                           unsigned occ_data, unsigned hw_data) const;
  // The occupancy and ptxas counts as a compiler for these banks (`rows` each) gives a kernel
  // whose launch bounds promise `bound_warps` warps per SM (sm.cpp).
  void bound_registers(const std::string& impl, Params& params, unsigned rows, unsigned data_regs,
                       unsigned preds, unsigned bound_warps, unsigned& occ_data,
                       unsigned& hw_data) const;
  void watchdog_report();
  UnitContext context(const std::string& name, unsigned subcore, unsigned index);
  // sm.predicates: banks: `info` with its predicates as data registers regs + p.
  const InstInfo* with_predicates_in_banks(const InstInfo* info);

  IFrontend& frontend_;
  const Mode mode_;
  sc_core::sc_event start_{"start"};
  SimClock clock_;
  SmShape shape_;
  InstPool pool_;
  std::unique_ptr<RegMapping> mapping_;
  CcuBoard ccu_board_; // Malekeh's port R (before the units, which keep a pointer)
  WirBoard wir_board_; // WIR's tables
  std::vector<SubCore> subcores_;
  std::unique_ptr<IL1> l1_;
  std::vector<Unit*> order_; // tick order: downstream units first
  std::vector<Cycle> due_;   // order_[i]'s next due cycle (Unit::keep_tick_at)
  std::vector<Unit*> shared_units_;
  SimClock* shared_clock_ = nullptr;
  std::function<void(Sm&)> on_stop_;
  std::function<void(Sm&, const std::string&)> on_fail_;
  const sc_core::sc_event* memory_event_ = nullptr;
  bool run_ahead_ = false;
  Cycle ahead_ = 0;     // cycles the SM ticked ahead of SystemC's time in this step()
  Cycle untouched_ = 0; // the first cycle not ticked yet (an early wake goes back no further)
  sc_core::sc_time deferred_at_ = sc_core::sc_max_time(); // AT: the time step() last waited a delta
  std::function<bool()> memory_busy_;
  Probes probes_;
  std::unique_ptr<TimingChecker> checker_;
  bool checks_ = true, observed_ = false;
  uint64_t seq_ = 0;       // last sequence number handed out
  unsigned data_regs_ = 0; // the front-end's registers per thread
  // The kernel's registers the mapping covers (data, + predicates in banks), and the most the
  // SM's register space holds (shape_ is elaborated for these).
  unsigned kernel_regs_ = 0, capacity_data_ = 0, capacity_preds_ = 0;
  std::string mapping_impl_;
  std::unique_ptr<Params> mapping_params_; // none: the mappings read no keys
  bool draining_ = false;
  std::string drain_error_;
  std::vector<uint64_t> killed_; // per warp slot: CTAs a failed kernel left there
  bool preds_in_banks_ = false;  // sm.predicates: banks
  std::unordered_map<const InstInfo*, std::unique_ptr<InstInfo>> banked_;
  std::vector<std::vector<uint64_t>> version_; // per warp slot and register: last producer
  std::unique_ptr<DummyMovs> movs_;            // W-C: the writeback compresses registers
  uint64_t *movs_injected_ = nullptr, *movs_retired_ = nullptr;
  // A CTA's registers start at 0 (docs/frontend.md, "Undefined reads"): free_slots() resets
  // the rows of a slot whose CTA finished (not with WIR, which unmaps the slot's registers).
  bool reset_rows_ = false;
  bool gating_ = false;                  // power-gated banks: told when rows are released
  std::vector<uint64_t> finished_warps_; // per warp slot: frontend's warps_finished seen
  void free_slots();                     // the slots whose CTA finished: state reset
  VcdRecorder* vcd_ = nullptr;
  TimeSeries* series_ = nullptr;
  SmLimits limits_;
  Cycle watchdog_ = 0, max_cycles_ = 0, last_progress_ = 0;
  // Cycles since last_progress_ the SM slept through, every unit waiting for a later cycle (a
  // memory response due then): the watchdog counts the others.
  Cycle slept_ = 0;
  bool finished_ = false, stopped_ = false, held_ = false;
  sc_core::sc_event done_{"done"};
  std::string error_;
  StatGroup stats_;
  uint64_t& cycles_;
  uint64_t& retired_;
  uint64_t &resident_warps_, &resident_ctas_;
  Stat& cta_limit_;
  std::chrono::steady_clock::time_point host_start_, last_report_;
};

} // namespace gpurf
