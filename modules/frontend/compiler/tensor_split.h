// Tensor instructions as the tensor pipe issues them (docs/frontend.md, "Tensor instructions,
// as issued"). A wmma.mma is computed as mma.sync pieces (ptx/mma.h wmma_parts) and issued as
// one instruction per piece, as SASS issues a wmma as several HMMA; where the pipe's
// instruction is m16n8k8 (Turing's HMMA.1688) an m16n8k16 .f16/.bf16 mma (written so, or a
// piece of a wmma) is issued as two m16n8k8 over the k halves, the second accumulating onto
// the first's D, as ptxas does for sm_75. Each piece reads only its own fragment registers,
// so an instruction's sources are what one hardware instruction reads (at most 10).
//
// The pieces are ordinary Op::Mma instructions of the module's IR, so liveness, register
// allocation, scheduling and every hint see them as the instructions they are. Their text is
// the original's with " [i/n]". An instruction one of whose pieces would overwrite a register
// a later piece reads (hand-written PTX whose D overlaps its A or B) is left whole.
#pragma once

#include "gpurf/modules/frontend/ptx/ir.h"

namespace gpurf::compiler {

// The shape of one tensor-pipe instruction: k = 8 (HMMA.1688) or 16 (HMMA.16816).
struct TensorIssue {
  unsigned hmma_k = 8;
};

// Whether `m` holds an instruction split_tensor() splits.
bool has_tensor_split(const ptx::Module& m, const TensorIssue& t);
// `m` with every such instruction replaced by its pieces (labels and branch targets moved).
ptx::Module split_tensor(const ptx::Module& m, const TensorIssue& t);

} // namespace gpurf::compiler
