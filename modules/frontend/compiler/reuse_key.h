// WIR's reuse-buffer tag, static part (Kim & Ro, shared/papers/004, Sec. V-C, Fig. 9): what
// identifies an instruction's computation besides the physical registers of its sources,
// computed once per instruction (plain C++, no SystemC).
//
// An instruction is reusable when its result is a function of its operands alone: one 32-bit
// register result; at most three positional operands, each a 32-bit register, an immediate or
// a constant operand (`frontend.constants: operands`: a kernel parameter or an immediate held
// in the encoding); no guard, no predicate or carry operand, no special register (%tid,
// %laneid, %clock...), no memory access, control transfer, barrier, shuffle or vote. `op` is
// a non-zero hash of the opcode with every modifier and type, the immediates and constant
// operands, and the positions of the register operands; `regs` lists the register operands'
// vregs in operand order (the tag's physical registers go in that order: sub a, b and
// sub b, a differ). 64-bit operations are not reusable (SASS splits them into 32-bit halves;
// a PTX one would need more than three tag operands).
#pragma once

#include <cstdint>
#include <vector>

#include "modules/frontend/compiler/constants.h"
#include "modules/frontend/ptx/ir.h"

namespace gpurf::compiler {

struct ReuseKey {
  uint32_t op = 0;            // 0: never reused
  std::vector<unsigned> regs; // register operands' vregs, in operand order (at most 3)
};

ReuseKey reuse_key(const ptx::Function& f, const ptx::Instr& in, const ConstantOperands& c);

} // namespace gpurf::compiler
