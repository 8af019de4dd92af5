// The instruction source of the SM. The timing model pulls warp instructions from it;
// execution-driven: an instruction is executed functionally when the scheduler issues it.
#pragma once

#include <cstdint>
#include <ostream>
#include <stdexcept>
#include <string>

#include "gpurf/modules/common/warp_inst.h"
#include "gpurf/policies/occupancy.h"

namespace gpurf {

// Functional access to the memory the SM's TLM memory socket reaches (TLM debug transport).
class IFunctionalMemory {
public:
  virtual ~IFunctionalMemory() = default;
  virtual void read(uint64_t addr, void* dst, unsigned len) = 0;
  virtual void write(uint64_t addr, const void* src, unsigned len) = 0;
};

// Raised for errors in the workload (bad PTX, out-of-bounds access, deadlock...): the run
// stops with this message and a non-zero exit.
struct WorkloadError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class IFrontend {
public:
  virtual ~IFrontend() = default;
  // Called once before the run with one SM's resources (warp slots: limits.warp_slots()),
  // the number of SMs and the functional memory; returns how many CTAs and warps are
  // resident in an SM at most and what bounds them. Throws ConfigError when not one CTA fits.
  // With several SMs the warp slots are numbered SM by SM (SM s owns [s * W, (s + 1) * W),
  // W = limits.warp_slots()); a front-end that cannot spread a launch throws WorkloadError.
  virtual Occupancy start(const SmLimits& limits, unsigned sms, IFunctionalMemory& mem) = 0;
  // After a launch ended: the front-end's next launch (an application of several), started as
  // start() starts the first, its occupancy in `occ`; false when there is none.
  virtual bool next_launch(const SmLimits&, unsigned, IFunctionalMemory&, Occupancy&) {
    return false;
  }
  // The next instruction of warp slot `warp`, or nullptr when it has none to offer now (no
  // CTA in the slot, finished, waiting at a barrier). Stable until execute() is called.
  virtual const InstInfo* peek(unsigned warp) = 0;
  // A number that changes whenever a warp whose peek() was nullptr may have an instruction to
  // offer (a CTA launched into its slot, a barrier released); a scheduler looks at an idle
  // warp again only then, instead of peeking it every time issue wakes. 0: the front-end
  // does not tell (idle warps are peeked again at every issue wake).
  virtual uint64_t offer_epoch() const { return 0; }
  // Executes the peeked instruction functionally and fills `out`: info, warp, cta, mask,
  // operands with their values (sources as read, destinations as written), addresses.
  virtual void execute(unsigned warp, WarpInst& out) = 0;
  // The timing model has completed the instruction (results written back). A CTA's slots
  // are reused only once all its instructions have retired.
  virtual void retire(const WarpInst& inst) = 0;
  // True when the whole launch has finished.
  virtual bool done() const = 0;
  // True when warp slots [first, first + count) (one SM's) hold no CTA and will get none.
  virtual bool done_in(unsigned, unsigned) const { return done(); }
  // How far the launch is, for the progress line of long runs ("" when unknown).
  virtual std::string progress() const { return ""; }
  // One line about the warp, for the watchdog report.
  virtual std::string describe_warp(unsigned warp) const = 0;
  // Predicate registers per thread (InstInfo::psrc_reg/pdst_reg index them).
  virtual unsigned predicate_registers() const { return 0; }
  // Data registers per thread that count for occupancy when they differ from the registers
  // the instructions name (GPGPU-Sim PTX mode: ptxas's count); 0: the same.
  virtual unsigned occupancy_registers() const { return 0; }
  // The registers per thread the real compiler (ptxas) gives the kernel; 0: unknown. A CTA
  // that does not fit at the allocator's count runs at this count's occupancy (the extra
  // registers live in storage beyond the modelled rows, IBank::reserve_rows).
  virtual unsigned hardware_registers() const { return 0; }
  // The warps per SM the kernel's launch bounds promise (__launch_bounds__: .maxntid's warps
  // times .minnctapersm); 0: none. A compiler caps the registers so that they fit.
  virtual unsigned bound_warps() const { return 0; }
  // Whether the instruction peek() offers will run with fewer lanes than the warp has (SIMT
  // divergence; a guard's lanes are known only when it runs).
  virtual bool next_divergent(unsigned) { return false; }
  // The value register `reg` of warp slot `warp` holds after every instruction executed so
  // far (all 32 lanes).
  virtual LaneValues register_value(unsigned, unsigned) const { return {}; }
  // How many warps have finished in warp slot `warp` (their CTA retired): when it changes, the
  // slot's registers hold nothing live until the next warp writes them.
  virtual uint64_t warps_finished(unsigned) const { return 0; }
};

} // namespace gpurf
