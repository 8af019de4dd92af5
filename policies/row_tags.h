// One small tag per register-bank row of a sub-core, for variants that store a register in a
// form the bank bytes alone do not describe: CMRC's 3-bit width mask (Sec. IV-B5, Table II)
// and Warped-Compression's 2-bit compression range indicator (Sec. 4). The hardware keeps it
// beside the banks (CMRC: the mask buffer; W-C: in the bank arbiter); rows never written
// hold 0. Owned by the SM builder, one per sub-core, handed to the units through
// UnitContext::row_tags; a platform uses at most one such variant.
#pragma once

#include <cstdint>
#include <vector>

namespace gpurf {

class RowTags {
public:
  RowTags(unsigned banks, unsigned rows) : rows_(rows), t_(size_t(banks) * rows, 0) {}
  uint8_t get(unsigned bank, unsigned row) const { return t_.at(size_t(bank) * rows_ + row); }
  void set(unsigned bank, unsigned row, uint8_t tag) { t_.at(size_t(bank) * rows_ + row) = tag; }
  size_t entries() const { return t_.size(); }

private:
  unsigned rows_;
  std::vector<uint8_t> t_;
};

} // namespace gpurf
