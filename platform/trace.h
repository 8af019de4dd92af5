// Instruction-lifecycle tracing (Chrome trace-event JSON for Perfetto / chrome://tracing) and
// waveforms of chosen SM signals (VCD through sc_trace). See docs/trace.md.
//
// The Tracer is an Observer of the units' events (platform/probe.h), added to the SM's probes
// only when a trace was asked for. With tracing on, a hook outside the
// cycle window [from, to) is one compare; only what happens inside the window is kept.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "gpurf/modules/common/warp_inst.h"
#include "gpurf/platform/probe.h"

namespace gpurf {

struct SimClock;

// Writes one JSON object {"displayTimeUnit", "otherData", "traceEvents": [...]}. Time: one
// SM cycle is one microsecond in "ts"/"dur" (the format's unit). pid = sub-core, tid = warp
// (a warp with several instructions in flight gets one extra track per overlapping
// instruction: tid = warp + 65536 * k). Per instruction: a slice named after the opcode
// spanning issue..retire, with the stages nested in it: "issue", "collect" (operand
// collection in a collector), "execute <pipe>" (dispatch..result ready) and "writeback"
// (result ready..last register written); instant events for each operand read grant
// ("read rN", from where), operand arrival at the collector ("operand rN") and register
// write ("write rN", to where).
class Tracer : public Observer {
public:
  // Opens `path` for writing (std::runtime_error if it cannot); [from, to) is the window.
  Tracer(const std::string& path, Cycle from = 0, Cycle to = kNever, double clock_ghz = 1.0);
  ~Tracer();
  Tracer(const Tracer&) = delete;

  bool enabled(Cycle t) const { return t >= from_ && t < to_; }
  Cycle from() const { return from_; }
  Cycle to() const { return to_; }

  // --- Observer hooks (platform/probe.h); only what falls inside the window is kept -------
  void issue(const WarpInst& i, Cycle now) override {
    if (now < to_) on_issue(i, now);
  }
  void allocated(const WarpInst& i, unsigned collector, Cycle now) override {
    if (now < to_) on_allocated(i, collector, now);
  }
  void read(const RegAccess& a, Cycle now) override {
    if (enabled(now))
      on_read(*a.inst, a.reg, store_name(a.store), a.bank, a.row, a.slice_mask, now);
  }
  void arrived(const WarpInst& i, unsigned reg, unsigned, Store, unsigned, Cycle at) override {
    if (enabled(at)) on_arrived(i, reg, at);
  }
  void dispatch(const WarpInst& i, Pipe pipe, unsigned latency, Cycle now) override {
    if (now < to_) on_dispatch(i, pipe, latency);
  }
  void write(const RegAccess& a, Cycle now) override {
    if (enabled(now)) on_write(*a.inst, a.reg, store_name(a.store), a.bank, a.row, now);
  }
  void retire(const WarpInst& i, Cycle now) override {
    if (!live_.empty()) on_retire(i, now);
  }
  // End of the run: writes instructions still in flight (clipped at `now`) and closes the
  // JSON. Called by Simulation::run; the destructor calls it if nobody did.
  void finish(Cycle now);

  uint64_t events_written() const { return events_; }

private:
  struct Instant {
    enum Kind : uint8_t { Read, Arrive, Write } kind;
    uint8_t slice_mask;
    uint16_t reg;
    int32_t bank;
    uint32_t row;
    const char* where;
    Cycle ts;
  };
  struct Record {
    uint32_t lane = 0;
    int32_t collector = -1;
    int32_t pipe = -1;
    uint32_t latency = 0;
    std::vector<Instant> instants;
  };

  Record& open(const WarpInst& i, Cycle now);
  Record* find(const WarpInst& i);
  void on_issue(const WarpInst& i, Cycle now);
  void on_allocated(const WarpInst& i, unsigned collector, Cycle now);
  void on_read(const WarpInst& i, unsigned reg, const char* source, int bank, unsigned row,
               unsigned slice_mask, Cycle now);
  void on_arrived(const WarpInst& i, unsigned reg, Cycle at);
  void on_dispatch(const WarpInst& i, Pipe pipe, unsigned latency);
  void on_write(const WarpInst& i, unsigned reg, const char* dest, int bank, unsigned row,
                Cycle now);
  void on_retire(const WarpInst& i, Cycle now);
  // Writes the slices of `i` (clipped to the window) and frees its track.
  void emit(const WarpInst& i, const Record& r, Cycle retire, bool retired);
  void slice(const char* name, unsigned pid, uint64_t tid, Cycle a, Cycle b,
             const std::string& args);
  void event(const std::string& json);
  void track(unsigned pid, unsigned warp, unsigned lane);

  struct Out;
  std::unique_ptr<Out> out_;
  const Cycle from_, to_;
  std::unordered_map<const WarpInst*, Record> live_; // instructions issued before `to`
  std::vector<std::vector<Cycle>> lanes_;            // per warp, per track: busy until
  std::unordered_set<uint64_t> named_;               // pid/tid pairs given a name
  uint64_t events_ = 0;
  bool finished_ = false;
};

// Waveforms through sc_trace: chosen SM signals as sc_signals, written after every simulated
// cycle the SM runs (idle cycles that the SM skips hold their values). Names follow the
// module hierarchy:
//   <group>.<counter>[.<label>]  every statistic counter of every unit (and sm.*): what was
//                                added to it in the cycle (sm.sub0.scheduler0.issued)
//   <bank>.busy                  1 when the bank was read or written in the cycle
//   <unit>.<observable>          levels a unit exposes (allocator in_use, arbiter queue depth)
//   sm.ipc                       warp instructions retired per cycle so far (real)
class VcdRecorder {
public:
  // Every signal name the SM offers, sorted.
  static std::vector<std::string> available();
  // Resolves `names` (exact names, or patterns with '*'); a name that matches nothing
  // throws ConfigError with the closest name. Creates the sc_signals and the VCD file
  // (`path`, ".vcd" appended if missing). Call during elaboration. `strict` false: names
  // that match nothing are skipped (a default set).
  VcdRecorder(const std::string& path, const std::vector<std::string>& names, const SimClock& clock,
              bool strict = true);
  ~VcdRecorder();
  // After every cycle of the SM (and at the idle cycle after it): updates the signals.
  void sample();
  // Closes the VCD file (end of the run).
  void close();
  const std::vector<std::string>& signals() const { return names_; }

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::vector<std::string> names_;
};

} // namespace gpurf
