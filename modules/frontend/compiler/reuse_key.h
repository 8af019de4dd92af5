// WIR's reuse-buffer tag, static part (Kim & Ro, shared/papers/004, Sec. V-C, Fig. 9): what
// identifies an instruction's computation besides the physical registers of its sources,
// computed once per instruction (plain C++, no SystemC).
//
// An instruction is reusable when its result is a function of its operands alone: one 32-bit
// register result; operands that are registers (at most three 32-bit halves in all), immediates
// or constant operands (`frontend.constants: operands`: a kernel parameter or an immediate held
// in the encoding); no guard, no predicate or carry operand, no special register (%tid,
// %laneid, %clock...), no store, atomic, control transfer, barrier, shuffle or vote. `op` is a
// non-zero hash of the opcode with every modifier and type, the immediates and constant
// operands, and the positions of the register operands; `regs` lists the register operands in
// operand order (the tag's physical registers go in that order: sub a, b and sub b, a differ).
// Loads (Sec. VI-A) of the global, shared, constant and parameter spaces (not local: per
// thread; not generic; not volatile) are keyed the same way by their address operand (base
// register and offset or symbol); the reuse stage adds the block and barrier conditions.
// A 64-bit result (address arithmetic: 32-bit in the paper's PTXPlus of sm_1x) is two result
// registers, both recorded in the reuse-buffer entry.
#pragma once

#include <cstdint>
#include <vector>

#include "gpurf/modules/frontend/compiler/constants.h"
#include "gpurf/modules/frontend/ptx/ir.h"

namespace gpurf::compiler {

struct ReuseKey {
  uint32_t op = 0; // 0: never reused
  // Register operands in operand order, as (vreg, 32-bit half): a 64-bit register (a global
  // address) takes two tag operands. At most 3 in all.
  std::vector<std::pair<unsigned, unsigned>> regs;
  // A load (load reuse, Sec. VI-A): its space; Const for every read-only load (ld.const and
  // ld.global.nc), which no store or barrier condition limits.
  MemSpace load = MemSpace::None;
  // Why not (op 0): the class of the first rule that excludes it (statistics: what limits
  // the reuse opportunities; allocator `wir` reuse_skipped lists them in this order).
  enum Why : uint8_t {
    Reusable,
    Memory,           // store, atomic, local/generic/volatile load
    Control,          // branch, call, return, barrier, exit
    Guarded,          // a guard predicate
    Carry,            // reads or writes the carry flag
    ShuffleVote,      // shuffle, vote, tensor
    NoRegisterResult, // predicate result (setp), no or several results
    TooManyOperands,  // more than three 32-bit register halves
    OtherOperand,     // special register, symbol, predicate source, unknown constant
    kWhyKinds
  } why = Reusable;
};

ReuseKey reuse_key(const ptx::Function& f, const ptx::Instr& in, const ConstantOperands& c);

// The operation of any instruction, for the repeated-computation profile (WIR Fig. 2, gpurf
// profile): the opcode with every modifier and type, immediates, symbols and constant
// operands; register operands by position only (their values complete the computation).
uint32_t computation_op(const ptx::Function& f, const ptx::Instr& in, const ConstantOperands& c);

} // namespace gpurf::compiler
