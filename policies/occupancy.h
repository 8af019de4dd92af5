// Occupancy: how many CTAs of a kernel the SM holds at once, and which of its resources
// bounds them: warp slots (sm.warps), registers (the rows of the banks), CTA slots
// (sm.max_ctas), shared memory (sm.shared_bytes) or the grid itself. Plain C++; the
// front-end asks it when it starts (docs/design.md, "Occupancy").
#pragma once

#include <algorithm>
#include <string>

namespace gpurf {

// The SM's resources the kernel's CTAs share.
struct SmLimits {
  unsigned warps = 0;           // sm.warps
  unsigned register_warps = 0;  // warps whose registers fit the banks (may exceed sm.warps)
  unsigned max_ctas = 0;        // sm.max_ctas; 0: no CTA limit
  unsigned shared_bytes = 0;    // sm.shared_bytes
  unsigned regs_per_thread = 0; // of the kernel (for messages)
  // Warps whose registers fit at ptxas's count, when the kernel's allocator needs more (0: no
  // such count): a CTA that does not fit at the allocator's count runs at this occupancy, its
  // registers beyond the banks' rows in backing storage (docs/design.md, "Occupancy").
  unsigned hardware_register_warps = 0;
  unsigned hardware_regs_per_thread = 0;
  // Where the platform set each limit, for messages: "sm.warps (fermi.yaml:11)" ("" unknown).
  std::string warps_where, registers_where, shared_where;
  // Warp slots the SM offers the kernel: min(warps, register_warps).
  unsigned warp_slots() const {
    const unsigned r = std::max(register_warps, hardware_register_warps);
    return warps < r ? warps : r;
  }
  // `warps` warp slots and no other limit (tests and tools without a platform).
  static SmLimits slots(unsigned warps);
};

struct Occupancy {
  enum Limit { Warps, Registers, Ctas, SharedMemory, Grid, kLimits };
  static const char* name(Limit l); // warps, registers, ctas, shared_memory, grid
  unsigned ctas = 0, warps = 0;     // resident at most
  unsigned by[kLimits] = {};        // CTAs each resource allows; 0: it does not bound them
  bool hardware_registers = false;  // registers: ptxas's count (SmLimits::hardware_...)
  // The resources that bound `ctas`, joined with '+' ("registers", "warps+ctas").
  std::string limited_by() const;
};

// The occupancy of CTAs of `warps_per_cta` warps using `shared_per_cta` bytes of shared
// memory, `grid_ctas` CTAs in all. Throws ConfigError naming the resource and its platform
// key when not one CTA fits.
Occupancy occupancy(const SmLimits& sm, const std::string& kernel, unsigned warps_per_cta,
                    unsigned shared_per_cta, unsigned grid_ctas);

} // namespace gpurf
