// Base of every clocked unit. The SM's clock calls tick() on units that are awake, in
// reverse pipeline order (a result produced in cycle t is seen downstream in t+1), and
// skips cycles in which no unit is awake, so idle units cost nothing.
#pragma once

#include <array>
#include <functional>
#include <ostream>
#include <string>

#include <systemc>
#include <tlm>

#include "gpurf/modules/common/warp_inst.h"
#include "gpurf/platform/params.h"
#include "gpurf/platform/probe.h"
#include "gpurf/platform/registry.h"
#include "gpurf/platform/stats.h"
#include "gpurf/platform/trace.h"

namespace gpurf {

class RegMapping;
class RowTags;
class CcuBoard;
class WirBoard;
class IFrontend;
class InstPool;

// The simulated time, shared by every unit of one SM.
struct SimClock {
  Cycle now = 0;
  sc_core::sc_time period{1, sc_core::SC_NS};
  // Cycles covered by an annotated TLM delay, rounded up.
  Cycle cycles(const sc_core::sc_time& d) const {
    return static_cast<Cycle>((d.value() + period.value() - 1) / period.value());
  }
  sc_core::sc_time time(Cycle c) const { return period * static_cast<double>(c); }
};

// SM-wide shape every unit may need, fixed by the platform before units are built.
struct SmShape {
  unsigned warps = 48;           // warp slots in the SM
  unsigned subcores = 1;         // partitions; warp w lives in sub-core w % subcores
  unsigned schedulers = 2;       // per sub-core; warp w -> (w / subcores) % schedulers
  unsigned banks = 4;            // logical banks per sub-core
  unsigned slices = 1;           // slices per bank
  unsigned regs_per_thread = 64; // architectural registers a warp may use (bank rows)
  unsigned preds_per_thread = 0; // predicate registers (a separate file, not banks)
  unsigned collectors = 4;       // per sub-core
  unsigned bank_rows = 256;      // entries per bank
  // Rows each bank stores: bank_rows (or more under GPGPU-Sim's PTX mode: every named register
  // has storage, IBank::reserve_rows), plus one row for WIR's zero register.
  unsigned storage_rows = 257;
  // Register-read stages of a fixed-stage pipeline with result forwarding (collector
  // fixed_stage); 0: operand collectors, values only from the register file.
  unsigned forward_stages = 0;
  double clock_ghz = 1.0;
  const RegMapping* mapping = nullptr;
  // The pipe that executes instructions of pipe p: pipes configured with no units fold
  // onto SP.
  Pipe pipe_map[kNumPipes] = {Pipe::SP, Pipe::INT, Pipe::DP, Pipe::SFU, Pipe::MEM, Pipe::TENSOR};
  Pipe pipe_for(Pipe p) const { return pipe_map[static_cast<unsigned>(p)]; }
  // The pipe a latency class runs on where the platform moved it (exec.classes), -1: the
  // front-end's choice. Every unit that picks a pipe for an instruction asks pipe_for(info).
  std::array<int8_t, kNumOpClasses> class_pipe = [] {
    std::array<int8_t, kNumOpClasses> a;
    a.fill(-1);
    return a;
  }();
  Pipe pipe_for(const InstInfo& i) const {
    const int c = class_pipe[static_cast<unsigned>(i.op_class)];
    return pipe_for(c < 0 ? i.pipe : static_cast<Pipe>(c));
  }
  unsigned subcore_of(unsigned warp) const { return warp % subcores; }
  unsigned scheduler_of(unsigned warp) const { return (warp / subcores) % schedulers; }
  unsigned local_warp(unsigned warp) const { return warp / subcores; }
  unsigned warps_per_subcore() const { return (warps + subcores - 1) / subcores; }
};

// What the builder hands every unit's constructor besides its parameters.
struct UnitContext {
  std::string name;     // sc_module name (child of the SM)
  unsigned subcore = 0; // partition the unit belongs to
  unsigned index = 0;   // instance within its kind and partition
  const SmShape* shape = nullptr;
  SimClock* clock = nullptr;
  IFrontend* frontend = nullptr;
  InstPool* pool = nullptr;
  // The sub-core's per-row register tags (policies/row_tags.h: CMRC width masks, W-C range
  // indicators), shared by its units; null for units built before the banks (sizes unknown).
  RowTags* row_tags = nullptr;
  // Port R of the SM's caching collector units (policies/ccu_board.h: Malekeh), shared by
  // the units that read or write it; null outside an SM.
  CcuBoard* ccus = nullptr;
  // WIR's tables per sub-core (policies/wir_state.h), created by the allocator `wir`.
  WirBoard* wir = nullptr;
  // Observers of the units' events (platform/probe.h: timing checker, tracer); null when
  // nobody listens: hooks test it.
  Observer* probe = nullptr;
  // SM-wide wire: something that may unblock issue happened (CTA launched, barrier
  // released, collector freed); wakes every scheduler for the next cycle.
  std::function<void()> wake_issue = [] {};
  // Sub-core wire: a pipe may take a dispatch it refused with Txn::retry_at = kNever (the
  // LSU's queue has room again); wakes the sub-core's collectors that wait for one.
  std::function<void()> wake_dispatch = [] {};
};

// A context for building a unit outside an SM (for --describe and module tests).
UnitContext default_context(const std::string& name);

class Unit : public sc_core::sc_module {
public:
  Unit(const sc_core::sc_module_name& nm, const UnitContext& ctx);
  // Work of one cycle. The clock marks the unit asleep before calling; a unit that has
  // work left calls wake(now + 1) (or later).
  virtual void tick(Cycle) {}
  // Ensures the unit is ticked at cycle `at` (called by itself and by socket arrivals).
  void wake(Cycle at) {
    if (at < *next_tick_) *next_tick_ = at;
  }
  Cycle next_tick() const { return *next_tick_; }
  void clear_tick() { *next_tick_ = kNever; }
  // The SM keeps the due cycles of the units it ticks side by side (its per-cycle scan reads
  // one array, not every unit): the unit's due cycle lives at `slot` from now on.
  void keep_tick_at(Cycle* slot) {
    *slot = *next_tick_;
    next_tick_ = slot;
  }
  // Human-readable state (queues, occupancy) for the watchdog report.
  virtual void dump_state(std::ostream&) const {}
  // End of the run: settle time-integrated statistics.
  virtual void finish() {}
  // Warp slot `warp` of this unit's sub-core holds no CTA any more (its CTA retired): every
  // register of the slot is dead. A unit that keeps state per warp slot (cached values, tags,
  // scheduler sets) returns it to what a newly launched warp finds. Called by the SM before
  // the slot's next CTA, of this launch or a later one, issues (Sm::free_slots).
  virtual void slot_freed(unsigned /*warp*/) {}
  // Brings time-integrated statistics up to the start of cycle `at` (<= now()) without
  // changing what they count later (a time series reads them mid-run).
  virtual void settle(Cycle /*at*/) {}
  // Levels a waveform may show (--vcd): a name below the unit's and a reader (read after
  // every simulated cycle, only when chosen).
  using Observable = std::pair<std::string, std::function<uint64_t()>>;
  virtual void observables(std::vector<Observable>&) {}
  Cycle now() const { return clock_->now; }
  StatGroup& stats() { return stats_; }
  // The path of a statistics group beside this unit's ("sm.sub0.writeback" -> "sm.sub0.KIND"),
  // for a structure a unit contains (W-C's compressors) that the energy table prices apart.
  std::string sibling_stats_path(const std::string& kind) const {
    const std::string& p = stats_.path();
    const size_t dot = p.rfind('.');
    return (dot == std::string::npos ? std::string() : p.substr(0, dot + 1)) + kind;
  }
  const UnitContext& context() const { return ctx_; }
  // What this unit needs of the other units of its SM, stated by the unit itself (so that a
  // new design touches only its own files) and checked by the SM once all are built, before
  // anything runs (platform/sm.cpp): one of `any_of` (slot, impl) must be what the platform
  // built (impl "!x": anything but x); `why` says what would go wrong otherwise.
  struct Need {
    std::vector<std::pair<std::string, std::string>> any_of;
    std::string why;
  };
  const std::vector<Need>& needs() const { return needs_; }
  // Memory-side sizes (LSU, caches): the largest aligned request this unit sends to the next
  // level, and the largest it can serve in one access (bytes 0: no limit), each with the keys
  // that set it (Params::said), checked where two levels are joined (platform/sm.cpp,
  // platform/gpu.cpp): a request the next level can never serve fails at load, not at the
  // first fill.
  struct Bytes {
    uint64_t bytes = 0;
    std::string keys;
  };
  virtual Bytes largest_request() const { return {}; }
  virtual Bytes largest_served() const { return {}; }

protected:
  void need(std::vector<std::pair<std::string, std::string>> any_of, std::string why) {
    needs_.push_back({std::move(any_of), std::move(why)});
  }
  const UnitContext ctx_;
  SimClock* clock_;
  StatGroup stats_;

private:
  Cycle own_tick_ = kNever;
  Cycle* next_tick_ = &own_tick_;
  std::vector<Need> needs_;
};

} // namespace gpurf

// Declares the slot of unit interface `Base` for --list and --describe.
#define GPURF_UNIT_SLOT(Base, slot, desc)                                                          \
  GPURF_SLOT(Base, slot, desc, [](const std::string& impl, gpurf::Params& p) {                     \
    return Base::Registry::create(impl, p, gpurf::default_context("describe_" + impl));            \
  })
