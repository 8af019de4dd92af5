#include "gpurf/policies/occupancy.h"

#include <algorithm>
#include <climits>

#include "gpurf/platform/config.h"

namespace gpurf {

SmLimits SmLimits::slots(unsigned warps) {
  SmLimits s;
  s.warps = s.register_warps = warps;
  s.shared_bytes = UINT_MAX;
  return s;
}

const char* Occupancy::name(Limit l) {
  static const char* const names[] = {"warps", "registers", "ctas", "shared_memory", "grid"};
  return names[l];
}

std::string Occupancy::limited_by() const {
  std::string s;
  for (int l = 0; l < kLimits; ++l)
    if (by[l] && by[l] == ctas) s += (s.empty() ? "" : "+") + std::string(name(Limit(l)));
  return s;
}

namespace {
std::string at(const std::string& where) { return where.empty() ? "" : " (" + where + ")"; }
} // namespace

Occupancy occupancy(const SmLimits& sm, const std::string& kernel, unsigned warps_per_cta,
                    unsigned shared_per_cta, unsigned grid_ctas) {
  const std::string k = "kernel '" + kernel + "': a CTA ";
  const std::string n = std::to_string(warps_per_cta);
  if (warps_per_cta > sm.warps)
    throw ConfigError(k + "needs " + n + " warp slots; sm.warps is " + std::to_string(sm.warps) +
                      at(sm.warps_where));
  // The allocator's count decides occupancy while a CTA fits; past that, ptxas's does (a
  // real compiler would have fitted the kernel).
  const bool hw = warps_per_cta > sm.register_warps && sm.hardware_register_warps;
  const unsigned reg_warps = hw ? sm.hardware_register_warps : sm.register_warps;
  if (warps_per_cta > reg_warps)
    throw ConfigError(k + "needs " + n + " warps of " +
                      std::to_string(hw ? sm.hardware_regs_per_thread : sm.regs_per_thread) +
                      " registers per thread" + (hw ? " (ptxas's count)" : "") +
                      "; the register banks (bank.count x bank.entries) hold " +
                      std::to_string(reg_warps) + " such warps" + at(sm.registers_where));
  if (shared_per_cta > sm.shared_bytes)
    throw ConfigError(k + "needs " + std::to_string(shared_per_cta) +
                      " bytes of shared memory; sm.shared_bytes is " +
                      std::to_string(sm.shared_bytes) + at(sm.shared_where));
  Occupancy o;
  const unsigned w = std::max(1u, warps_per_cta);
  o.by[Occupancy::Warps] = sm.warps / w;
  o.by[Occupancy::Registers] = reg_warps / w;
  o.hardware_registers = hw;
  o.by[Occupancy::Ctas] = sm.max_ctas;
  o.by[Occupancy::SharedMemory] = shared_per_cta ? sm.shared_bytes / shared_per_cta : 0;
  o.by[Occupancy::Grid] = std::max(1u, grid_ctas);
  o.ctas = UINT_MAX;
  for (unsigned b : o.by)
    if (b) o.ctas = std::min(o.ctas, b);
  o.warps = o.ctas * warps_per_cta;
  return o;
}

} // namespace gpurf
