// Occupancy (policies/occupancy.h): the CTAs each resource allows, the smallest bounds the
// resident CTAs and is named, and a CTA that does not fit is an error naming the key.
#include <gtest/gtest.h>

#include "gpurf/platform/config.h"
#include "gpurf/policies/occupancy.h"

using namespace gpurf;

namespace {

SmLimits fermi() {
  SmLimits s;
  s.warps = 48;
  s.register_warps = 64;
  s.max_ctas = 8;
  s.shared_bytes = 48 * 1024;
  s.regs_per_thread = 20;
  return s;
}

std::string error_of(const SmLimits& s, unsigned warps, unsigned shared) {
  try {
    occupancy(s, "k", warps, shared, 100);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST(Occupancy, SmallestLimitWinsAndIsNamed) {
  // 2-warp CTAs: warps allow 24, registers 32, CTA slots 8, shared memory 48 / 4 = 12.
  Occupancy o = occupancy(fermi(), "k", 2, 4096, 100);
  EXPECT_EQ(o.ctas, 8u);
  EXPECT_EQ(o.warps, 16u);
  EXPECT_EQ(o.limited_by(), "ctas");
  EXPECT_EQ(o.by[Occupancy::Warps], 24u);
  EXPECT_EQ(o.by[Occupancy::Registers], 32u);
  EXPECT_EQ(o.by[Occupancy::SharedMemory], 12u);
  // 8-warp CTAs: 6 by warps, the rest allow more.
  EXPECT_EQ(occupancy(fermi(), "k", 8, 0, 100).limited_by(), "warps");
  // Fewer registers: 40 warps fit -> 5 CTAs.
  SmLimits r = fermi();
  r.register_warps = 40;
  EXPECT_EQ(occupancy(r, "k", 8, 0, 100).limited_by(), "registers");
  // 16 KB per CTA: 3 CTAs by shared memory.
  EXPECT_EQ(occupancy(fermi(), "k", 8, 16 * 1024, 100).limited_by(), "shared_memory");
  // A 2-CTA grid.
  EXPECT_EQ(occupancy(fermi(), "k", 8, 0, 2).ctas, 2u);
  EXPECT_EQ(occupancy(fermi(), "k", 8, 0, 2).limited_by(), "grid");
  // Ties name every bounding resource; no CTA limit (0) bounds nothing.
  SmLimits t = fermi();
  t.max_ctas = 0;
  t.register_warps = 48;
  EXPECT_EQ(occupancy(t, "k", 8, 0, 100).limited_by(), "warps+registers");
}

TEST(Occupancy, ACtaThatDoesNotFitNamesTheKey) {
  EXPECT_NE(error_of(fermi(), 50, 0).find("needs 50 warp slots; sm.warps is 48"),
            std::string::npos);
  SmLimits r = fermi();
  r.register_warps = 4;
  EXPECT_NE(error_of(r, 8, 0).find("8 warps of 20 registers per thread"), std::string::npos);
  EXPECT_NE(error_of(fermi(), 1, 50000)
                .find("50000 bytes of shared memory; sm.shared_bytes is "
                      "49152"),
            std::string::npos);
  EXPECT_EQ(error_of(fermi(), 48, 49152), "");
}

// An allocator that needs more registers than ptxas (gpurf's linear scan on a kernel ptxas
// fits tighter) never decides whether a kernel runs: past the banks, ptxas's count does.
TEST(Occupancy, PtxasCountWhenTheAllocatorsCountDoesNotFit) {
  SmLimits r = fermi();
  r.register_warps = 4; // the allocator's count: 4 warps fit
  r.hardware_register_warps = 24;
  r.hardware_regs_per_thread = 40;
  Occupancy o = occupancy(r, "k", 8, 0, 100);
  EXPECT_TRUE(o.hardware_registers);
  EXPECT_EQ(o.by[Occupancy::Registers], 3u);
  EXPECT_EQ(o.ctas, 3u);
  // A CTA that fits at the allocator's count keeps its occupancy.
  Occupancy small = occupancy(r, "k", 2, 0, 100);
  EXPECT_FALSE(small.hardware_registers);
  EXPECT_EQ(small.by[Occupancy::Registers], 2u);
  // Neither fits: the message gives ptxas's count.
  r.hardware_register_warps = 6;
  EXPECT_NE(error_of(r, 8, 0).find("8 warps of 40 registers per thread (ptxas's count)"),
            std::string::npos);
}
