// Unit tests of the register-to-bank mappings (policies/reg_mapping): the bank formula of
// each registered name, one distinct (bank, row) per (warp, register), and rows_needed()
// equal to the highest row in use plus one.
#include <algorithm>
#include <set>
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "gpurf/platform/config.h"
#include "gpurf/policies/reg_mapping.h"

using namespace gpurf;

namespace {

std::unique_ptr<RegMapping> make(const std::string& impl, unsigned banks, unsigned regs) {
  Params p(nullptr, "register_mapping");
  return RegMapping::Registry::create(impl, p, banks, regs);
}

// Every (warp, reg) of `warps` x `regs` maps to its own (bank, row) inside the banks, and
// rows_needed(warps) is exactly the highest row used + 1.
void check_layout(const std::string& impl, unsigned banks, unsigned regs, unsigned warps) {
  SCOPED_TRACE(impl + " banks " + std::to_string(banks) + " regs " + std::to_string(regs) +
               " warps " + std::to_string(warps));
  auto m = make(impl, banks, regs);
  ASSERT_EQ(m->banks(), banks);
  std::set<std::pair<unsigned, unsigned>> used;
  unsigned max_row = 0;
  for (unsigned w = 0; w < warps; ++w)
    for (unsigned r = 0; r < regs; ++r) {
      const BankLoc l = m->map(w, r);
      ASSERT_LT(l.bank, banks) << "warp " << w << " reg " << r;
      EXPECT_TRUE(used.insert({l.bank, l.row}).second)
          << "warp " << w << " reg " << r << " shares bank " << l.bank << " row " << l.row;
      max_row = std::max(max_row, l.row);
    }
  EXPECT_EQ(m->rows_needed(warps), max_row + 1);
}

const unsigned kShapes[][3] = {
    // banks, regs, warps
    {4, 64, 48},  {4, 63, 48}, {4, 3, 5},  {8, 32, 16}, {2, 255, 7},
    {16, 20, 33}, {1, 10, 3},  {4, 64, 1}, {3, 10, 10}, {4, 1, 9},
};

} // namespace

TEST(PolicyRegMapping, GpgpusimBankIsRegPlusWarpModBanks) {
  auto m = make("gpgpusim", 4, 64);
  for (unsigned w = 0; w < 48; ++w)
    for (unsigned r = 0; r < 64; ++r) EXPECT_EQ(m->map(w, r).bank, (r + w) % 4);
  // Consecutive registers of one warp in consecutive banks; warp w starts w banks further.
  EXPECT_EQ(m->map(0, 0).bank, 0u);
  EXPECT_EQ(m->map(0, 1).bank, 1u);
  EXPECT_EQ(m->map(1, 0).bank, 1u);
  EXPECT_EQ(m->map(3, 2).bank, 1u);
}

TEST(PolicyRegMapping, WshiftAndStripedAreTheGpgpusimPlacement) {
  for (const char* impl : {"wshift", "striped"}) {
    auto m = make(impl, 8, 40);
    auto ref = make("gpgpusim", 8, 40);
    for (unsigned w = 0; w < 24; ++w)
      for (unsigned r = 0; r < 40; ++r) {
        EXPECT_EQ(m->map(w, r).bank, (r + w) % 8) << impl;
        EXPECT_EQ(m->map(w, r).row, ref->map(w, r).row) << impl;
      }
    EXPECT_EQ(m->rows_needed(24), ref->rows_needed(24)) << impl;
  }
}

TEST(PolicyRegMapping, WidPutsEveryRegisterOfAWarpInOneBank) {
  auto m = make("wid", 4, 64);
  for (unsigned w = 0; w < 48; ++w)
    for (unsigned r = 0; r < 64; ++r) EXPECT_EQ(m->map(w, r).bank, w % 4);
}

TEST(PolicyRegMapping, EveryWarpRegisterHasItsOwnEntry) {
  for (const char* impl : {"gpgpusim", "wid", "wshift", "striped"})
    for (auto& s : kShapes) check_layout(impl, s[0], s[1], s[2]);
}

TEST(PolicyRegMapping, RowsNeededGrowsWithWarps) {
  for (const char* impl : {"gpgpusim", "wid"}) {
    auto m = make(impl, 4, 64);
    EXPECT_EQ(m->rows_needed(0), 0u) << impl;
    for (unsigned w = 1; w < 64; ++w) EXPECT_LE(m->rows_needed(w - 1), m->rows_needed(w)) << impl;
    // 48 warps x 64 registers fill four banks of 256 rows of 128 B (Fermi's 128 KB) exactly.
    EXPECT_EQ(m->rows_needed(48), 48u * 64 / 4) << impl;
  }
}

TEST(PolicyRegMapping, UnknownImplementationNamesTheRegisteredOnes) {
  Params p(nullptr, "register_mapping");
  try {
    RegMapping::Registry::create("gpgpusym", p, 4, 64);
    FAIL() << "no ConfigError";
  } catch (const ConfigError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("register_mapping.impl"), std::string::npos) << m;
    EXPECT_NE(m.find("'gpgpusym'"), std::string::npos) << m;
    EXPECT_NE(m.find("did you mean 'gpgpusim'"), std::string::npos) << m;
    for (const char* n : {"gpgpusim", "wid", "wshift", "striped"})
      EXPECT_NE(m.find(n), std::string::npos) << n << " missing from: " << m;
  }
}
