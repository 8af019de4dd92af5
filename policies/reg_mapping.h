// Register-to-bank mapping: where warp register `reg` of warp `warp` (the warp's index
// within its sub-core) lives: its logical bank and the row inside that bank.
#pragma once

#include "gpurf/platform/registry.h"

namespace gpurf {

struct BankLoc {
  unsigned bank, row;
};

class RegMapping {
public:
  using Registry = gpurf::Registry<RegMapping, unsigned /*banks*/, unsigned /*regs/thread*/>;
  RegMapping(unsigned banks, unsigned regs) : banks_(banks), regs_(regs) {}
  virtual ~RegMapping() = default;
  virtual BankLoc map(unsigned warp, unsigned reg) const = 0;
  // Rows each bank needs for `warps` warps of `regs` registers.
  virtual unsigned rows_needed(unsigned warps) const = 0;
  unsigned banks() const { return banks_; }

protected:
  unsigned banks_, regs_;
};

} // namespace gpurf
