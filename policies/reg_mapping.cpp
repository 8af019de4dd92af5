#include "gpurf/policies/reg_mapping.h"

namespace gpurf {
namespace {

unsigned ceil_div(unsigned a, unsigned b) { return (a + b - 1) / b; }

// Interleaved: consecutive registers in consecutive banks, each warp starting `shift` banks
// further (GPGPU-Sim's (reg + wid) mod banks; CMRC's wshift_layout, Fig. 7b). The row keeps
// one band of ceil(regs/banks) rows per warp, so every (warp, reg) has its own entry.
class Interleaved : public RegMapping {
public:
  Interleaved(Params&, unsigned banks, unsigned regs) : RegMapping(banks, regs) {}
  BankLoc map(unsigned warp, unsigned reg) const override {
    return {(reg + warp) % banks_, warp * ceil_div(regs_, banks_) + reg / banks_};
  }
  unsigned rows_needed(unsigned warps) const override { return warps * ceil_div(regs_, banks_); }
};

// CMRC's wid_layout (Fig. 7a): all registers of a warp in one bank, warps spread over banks.
class WarpPerBank : public RegMapping {
public:
  WarpPerBank(Params&, unsigned banks, unsigned regs) : RegMapping(banks, regs) {}
  BankLoc map(unsigned warp, unsigned reg) const override {
    return {warp % banks_, (warp / banks_) * regs_ + reg};
  }
  unsigned rows_needed(unsigned warps) const override { return ceil_div(warps, banks_) * regs_; }
};

} // namespace

GPURF_REGISTER(RegMapping, Interleaved, "gpgpusim",
               "bank = (reg + warp) mod banks, as in GPGPU-Sim; with 8-slice 16 B banks this is "
               "the consecutive-bank striping of Warped-Compression and Gebhart");
GPURF_REGISTER(RegMapping, WarpPerBank, "wid",
               "CMRC wid_layout: every register of warp w in bank w mod banks (Fig. 7a)");
static const bool gpurf_alias_wshift = RegMapping::Registry::alias(
    "wshift", "gpgpusim",
    "CMRC wshift_layout (Fig. 7b): a warp's registers interleaved over the banks, shifted by "
    "the warp id; the same placement as gpgpusim");
static const bool gpurf_alias_striped = RegMapping::Registry::alias(
    "striped", "gpgpusim",
    "Warped-Compression / Gebhart: a 128 B register striped over the consecutive 16 B banks "
    "of one cluster (model the cluster as one bank of 8 slices); clusters interleaved by "
    "(reg + warp) mod clusters");

GPURF_SLOT(RegMapping, "register_mapping", "register-to-bank mapping policy",
           [](const std::string& impl, Params& p) {
             return RegMapping::Registry::create(impl, p, 4, 64);
           });

} // namespace gpurf
