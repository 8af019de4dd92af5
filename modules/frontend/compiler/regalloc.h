// Register allocation: PTX virtual registers -> numbered 32-bit architectural registers.
//
//   * Data vregs of 8, 16 or 32 bits occupy one 32-bit register; 64-bit vregs an aligned
//     even/odd pair (low half in the even register). Predicates go to a separate predicate
//     file and never occupy a data register.
//   * Two vregs interfere when one is written while the other is live (Liveness::live_out of
//     the writing instruction, SIMT edges included), when one instruction writes both, or when
//     both are live on entry (read before written on some path).
//   * Colouring: greedy "lowest free register (pair)" over several vreg orders (program order of
//     the first definition, which is optimal for the chordal graphs of SSA-like code; 64-bit
//     first; Chaitin's smallest-last order with pair-weighted degrees); the order giving the
//     fewest registers wins. No spilling: the register count is whatever the colouring needs.
//
// Three modes (platform `frontend.regalloc`, docs/frontend.md#instruction-stream-modes):
//   * linear_scan: the colouring above (gpurf's own compiler; the default).
//   * ptx_virtual: GPGPU-Sim's PTX mode (what CMRC and Warped-Compression simulated): no reuse,
//     every touched data vreg its own register(s), numbered so that register % banks is the
//     bank GPGPU-Sim derives from the number in the register's name (regalloc.cpp); every
//     touched predicate its own predicate register.
//   * ptxas_like: the allocation ptxas makes (what Gebhart, Malekeh and WIR simulated): the
//     register count is ptxas's (`target_regs`, from `ptxas -v`; the colouring's minimum when
//     unknown or when the colouring needs more), values are spread round-robin over the whole
//     range instead of packed into the lowest numbers (a register is reused as late as
//     possible), and among the free registers the allocator picks one whose bank differs from
//     the other sources of the instructions reading the value (bank = register % `banks`), as
//     ptxas does for Volta and later.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gpurf/modules/frontend/compiler/liveness.h"

namespace gpurf::compiler {

struct RegAssignment {
  // Per vreg: first register (data vregs: 32-bit register; predicates: predicate register),
  // -1 for a vreg no instruction touches.
  std::vector<int> reg;
  // Per vreg: 32-bit registers occupied (1 or 2; predicates 1; 0 if unused).
  std::vector<uint8_t> width;
  std::vector<bool> is_pred;
  unsigned num_regs = 0;     // data registers used (highest + 1)
  unsigned num_preds = 0;    // predicate registers used
  bool aligned_pairs = true; // 64-bit vregs start on even registers (ptx_virtual: not always)
  std::string order;         // name of the colouring order that won
};

// Registers a vreg needs: 0 for predicates, 2 for 64-bit, else 1.
unsigned reg_width(const ptx::VReg& r);

// Interference graph of one register class (data or predicate) as adjacency lists.
std::vector<std::vector<unsigned>> interference(const ptx::Function& f, const Liveness& lv);

enum class RegAllocMode { LinearScan, PtxVirtual, PtxasLike };

// Platform names of the modes, in enum order: "linear_scan", "ptx_virtual", "ptxas_like".
const std::vector<std::string>& regalloc_mode_names();
// The mode of a name from regalloc_mode_names(); throws std::invalid_argument for another.
RegAllocMode regalloc_mode(const std::string& name);

// ptx_virtual: the first register at or above `n` a range may start on (a multiple of 64, so
// that register % banks keeps GPGPU-Sim's bank for any bank count dividing 64).
inline unsigned ptx_virtual_start(unsigned n) { return (n + 63) / 64 * 64; }

struct AllocOptions {
  AllocOptions(RegAllocMode m = RegAllocMode::LinearScan) : mode(m) {}
  RegAllocMode mode;
  unsigned target_regs = 0; // ptxas_like: registers to spread over (0: the colouring's minimum)
  unsigned banks = 2;       // ptxas_like: bank = register % banks (sm_75: 2 banks, Volta+)
};

RegAssignment allocate_registers(const ptx::Function& f, const Liveness& lv,
                                 const AllocOptions& opt = {});

// Same-bank pairs among the distinct data-register sources of each instruction under
// bank = register % banks (a 64-bit source counts its two halves): the figure ptxas_like
// minimises, for tests and the characterisation report.
unsigned same_bank_source_pairs(const ptx::Function& f, const Liveness& lv, const RegAssignment& a,
                                unsigned banks);

// Independent check of an assignment against the live sets: at every instruction, every vreg
// it writes and every vreg live after it (and all vregs live on entry) must occupy disjoint
// registers, 64-bit vregs must sit on an even register (when aligned_pairs), every touched vreg has
// a register below num_regs (num_preds). Returns "" or a message naming the first conflict.
std::string verify_allocation(const ptx::Function& f, const Liveness& lv, const RegAssignment& a);

} // namespace gpurf::compiler
