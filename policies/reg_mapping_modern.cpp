// Register-to-bank mapping of current NVIDIA cores (Huerta et al., MICRO'25, Sec. 3 and 5.3,
// Listing 1): the bank is the register number mod the banks (two per sub-core: odd and even
// registers), the same for every warp, so the compiler knows every conflict.
#include "gpurf/policies/reg_mapping.h"

namespace gpurf {
namespace {

class RegisterMod : public RegMapping {
public:
  RegisterMod(Params&, unsigned banks, unsigned regs) : RegMapping(banks, regs) {}
  BankLoc map(unsigned warp, unsigned reg) const override {
    return {reg % banks_, warp * rows_per_warp() + reg / banks_};
  }
  unsigned rows_needed(unsigned warps) const override { return warps * rows_per_warp(); }

private:
  unsigned rows_per_warp() const { return (regs_ + banks_ - 1) / banks_; }
};

} // namespace

GPURF_REGISTER(RegMapping, RegisterMod, "register_mod",
               "bank = reg mod banks for every warp, as on current NVIDIA cores (odd/even "
               "registers: Huerta et al. MICRO'25 Listing 1)");

} // namespace gpurf
