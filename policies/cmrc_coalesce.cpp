#include "gpurf/policies/cmrc_coalesce.h"

#include <stdexcept>

namespace gpurf::cmrc {

const std::vector<std::string>& kind_names() {
  static const std::vector<std::string> names = {"read_read_same_inst", "read_read_diff_inst",
                                                 "write_write", "read_write",
                                                 "read_read_diff_bank"};
  return names;
}

KindSet KindSet::parse(const std::vector<std::string>& names) {
  KindSet s;
  for (const std::string& n : names) {
    unsigned i = 0;
    while (i < kKinds && kind_names()[i] != n) ++i;
    if (i == kKinds) throw std::invalid_argument("unknown coalescing kind '" + n + "'");
    s.add(Kind(i));
  }
  return s;
}

bool classify(const Request& a, const Request& b, Kind& out) {
  if (a.bank != b.bank) {
    if (a.write || b.write || a.collector != b.collector) return false;
    out = Kind::ReadReadDiffBank;
    return true;
  }
  if (a.write && b.write) {
    // Table I: 2 writes of *different* warp instructions. Two results of one instruction
    // (a 64-bit value's halves, a vector load's registers) are not a listed kind.
    if (a.inst == b.inst) return false;
    out = Kind::WriteWrite;
  } else if (a.write || b.write)
    out = Kind::ReadWrite;
  else
    out = a.inst == b.inst ? Kind::ReadReadSameInst : Kind::ReadReadDiffInst;
  return true;
}

bool can_coalesce(const Request& a, const Request& b, KindSet enabled) {
  Kind k;
  return (a.slices & b.slices) == 0 && classify(a, b, k) && enabled.has(k);
}

} // namespace gpurf::cmrc
