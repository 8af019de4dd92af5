// Occupancy: how many CTAs of a kernel the SM holds at once, and which of its resources
// bounds them: warp slots (sm.warps), registers (the rows of the banks), CTA slots
// (sm.max_ctas), shared memory (sm.shared_bytes) or the grid itself. Plain C++; the
// front-end asks it when it starts (docs/design.md, "Occupancy").
#pragma once

#include <string>

namespace gpurf {

// The SM's resources the kernel's CTAs share.
struct SmLimits {
  unsigned warps = 0;           // sm.warps
  unsigned register_warps = 0;  // warps whose registers fit the banks (may exceed sm.warps)
  unsigned max_ctas = 0;        // sm.max_ctas; 0: no CTA limit
  unsigned shared_bytes = 0;    // sm.shared_bytes
  unsigned regs_per_thread = 0; // of the kernel (for messages)
  // Warp slots the SM offers the kernel: min(warps, register_warps).
  unsigned warp_slots() const { return warps < register_warps ? warps : register_warps; }
  // `warps` warp slots and no other limit (tests and tools without a platform).
  static SmLimits slots(unsigned warps);
};

struct Occupancy {
  enum Limit { Warps, Registers, Ctas, SharedMemory, Grid, kLimits };
  static const char* name(Limit l); // warps, registers, ctas, shared_memory, grid
  unsigned ctas = 0, warps = 0;     // resident at most
  unsigned by[kLimits] = {};        // CTAs each resource allows; 0: it does not bound them
  // The resources that bound `ctas`, joined with '+' ("registers", "warps+ctas").
  std::string limited_by() const;
};

// The occupancy of CTAs of `warps_per_cta` warps using `shared_per_cta` bytes of shared
// memory, `grid_ctas` CTAs in all. Throws ConfigError naming the resource and its platform
// key when not one CTA fits.
Occupancy occupancy(const SmLimits& sm, const std::string& kernel, unsigned warps_per_cta,
                    unsigned shared_per_cta, unsigned grid_ctas);

} // namespace gpurf
