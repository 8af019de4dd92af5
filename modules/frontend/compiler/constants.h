// Constant operands: values ptxas keeps in the instruction encoding instead of a register
// (plain C++, no SystemC).
//
// nvcc's PTX loads every kernel parameter with `ld.param` into a virtual register and
// materialises immediates with `mov %r, imm`; ptxas instead reads kernel parameters from the
// constant bank (`c[0x0][offset]`) and encodes immediates in their consumers, so neither costs
// an instruction or a register read in SASS. With `frontend.constants: operands` a vreg is a
// constant operand when the function writes it exactly once, unguarded, with
//   * ld.param of a parameter of the kernel (.entry) itself (not a .func's: those arrive in
//     registers),
//   * mov of an immediate, or
//   * cvta between generic and global of a constant operand (the identity on sm_75: ptxas
//     folds it into the address arithmetic).
// Constant operands take no register and are no register-file sources; their defining
// instructions are hidden from the timing model (executed functionally, never issued). The
// functional engine still computes every value, so golden checks are unaffected.
#pragma once

#include <vector>

#include "gpurf/modules/frontend/ptx/ir.h"

namespace gpurf::compiler {

struct ConstantOperands {
  std::vector<bool> vreg;   // per vreg: held in the encoding (constant bank or immediate)
  std::vector<bool> hidden; // per instruction: defines a constant operand; never issued
};

// `enabled` false: none (every vector all false), for code paths that take either.
ConstantOperands constant_operands(const ptx::Function& f, bool enabled = true);

// ld.param of a parameter of the kernel (`f` an .entry): memory no instruction writes (unlike
// the call-sequence .param variables a caller stores and a callee returns through).
bool is_kernel_param_load(const ptx::Function& f, const ptx::Instr& in);

} // namespace gpurf::compiler
