// Instruction scheduling (plain C++, no SystemC): `frontend.schedule: none | list`.
//
// ptxas reorders the code nvcc emits: it hoists long-latency loads far above their uses and
// spreads dependent pairs, within the register budget of its allocation. Papers that ran SASS
// or ptxas-allocated traces (Gebhart, Malekeh, WIR) saw that order; PTX keeps nvcc's. The
// `list` pass is a top-down list scheduler within each basic block:
//   * dependences: read-after-write, write-after-read and write-after-write on every vreg
//     (predicates and guards included); memory and side effects keep their order: stores,
//     atomics, barriers, fences, calls, returns, exits, carry-chain (.cc) instructions and
//     clock reads are ordered among themselves, and a load never crosses one of them (kernel
//     parameter and constant loads, which no instruction can write, move freely);
//   * priority: the latency-weighted height to the end of the block (long-latency loads 200,
//     other loads 20, SFU 16, double precision 8, the rest 4, constant operands 0), ties in
//     the original order;
//   * register budget: the 32-bit data registers live at once never exceed the budget while
//     some ready instruction keeps them within it; otherwise the instruction that raises the
//     pressure least goes next.
// The first instruction index of every block and its terminator (branch, ret, exit) stay in
// place, so labels and branch targets keep their meaning. Functional semantics are unchanged:
// the golden operand checks and the output checks run on the scheduled code.
#pragma once

#include <string>
#include <vector>

#include "gpurf/modules/frontend/ptx/ir.h"

namespace gpurf::compiler {

enum class Schedule { None, List };

// Platform names, in enum order: "none", "list".
const std::vector<std::string>& schedule_names();
// Throws std::invalid_argument for an unknown name.
Schedule schedule_mode(const std::string& name);

struct ScheduleOptions {
  unsigned entry_budget = 0;      // 32-bit registers of the .entry (0: its linear-scan count)
  bool constant_operands = false; // constants.h: parameters and immediates cost no register
};

// A copy of `m` with every function's instructions list-scheduled within their blocks.
ptx::Module schedule_module(const ptx::Module& m, const std::string& entry,
                            const ScheduleOptions& opt);

// Same as above for one function; `budget` 0: its linear-scan count.
void schedule_function(ptx::Function& f, unsigned budget, bool constant_operands);

} // namespace gpurf::compiler
