// Compiler passes over one kernel (plain C++, no SystemC): liveness, register allocation and
// long-latency marks of the .entry and of every .func it calls.
//
// Register ranges of functions: each function is allocated on its own; the kernel's registers
// start at r0 and a called function's range starts above the ranges of all its callers
// (base(callee) = max over callers of base(caller) + registers(caller)), so a call never
// clobbers a caller's value and no save/restore code is needed.
//
// Recursion (a strongly connected component of the call graph with a cycle, "recursive
// SCC"): its functions share one register window, placed above its callers outside the SCC
// as a single function would be (window = the most registers any member needs; its callees
// outside the SCC go above the calling member). A call from a member to a member (a call
// that may re-enter the window) is caller-saved, as ptxas's ABI spills around calls: every
// data register and predicate live after the call (FunctionPlan::saves) is stored to the
// thread's local-memory stack before it and loaded back after it returns (the front-end
// issues these as 32-bit local stores and loads). Each frame of a member reserves
// FunctionPlan::save_bytes of stack after its .local variables (ptx::LaunchConfig::save_bytes):
// 8 bytes of return address and 4 per saved word, 16-byte aligned; the stack's depth is bounded
// at run time by the per-thread stack limit (cudaLimitStackSize).
// regs_per_thread = the highest register used + 1 (at least 1). Under ptx_virtual a function's
// range starts on a multiple of 64 (its register numbers keep GPGPU-Sim's banks).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpurf/modules/frontend/compiler/constants.h"
#include "gpurf/modules/frontend/compiler/liveness.h"
#include "gpurf/modules/frontend/compiler/long_latency.h"
#include "gpurf/modules/frontend/compiler/regalloc.h"
#include "gpurf/modules/frontend/compiler/rfc_hints.h"

namespace gpurf::compiler {

struct CompileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct FunctionPlan {
  const ptx::Function* func = nullptr; // nullptr: not reachable from the kernel
  ConstantOperands constants;          // all false unless CompileOptions::constant_operands
  Liveness liveness;
  RegAssignment regs;
  LongLatency long_latency;
  RfcHints rfc;           // Gebhart register-file-cache hints per destination
  unsigned base = 0;      // first data register of the function's range
  unsigned pred_base = 0; // first predicate register of its range
  // Recursion (see above): the SCC index of the function (-1: no cycle through it), and per
  // instruction the vregs a call that may re-enter the SCC saves before and restores after
  // it (data vregs in ascending register order, then predicates; empty: no save), and the
  // bytes of stack each frame reserves for them (0 outside a recursive SCC).
  int scc = -1;
  std::vector<std::vector<unsigned>> saves;
  uint32_t save_bytes = 0;
  // Architectural 32-bit register of data vreg `v`, half `half` (1: high half of 64-bit).
  unsigned arch(unsigned v, unsigned half = 0) const { return base + unsigned(regs.reg[v]) + half; }
};

struct KernelPlan {
  const ptx::Module* module = nullptr;
  const ptx::Function* entry = nullptr;
  std::vector<FunctionPlan> funcs; // indexed like Module::functions
  unsigned regs_per_thread = 1;    // 32-bit data registers per thread (highest used + 1)
  unsigned value_regs = 0;         // 32-bit registers of the touched PTX data vregs (no reuse)
  unsigned preds_per_thread = 0;   // predicate registers per thread
  uint64_t local_bytes = 0;        // .local bytes per thread on the deepest call path
  // Some call may re-enter its caller (recursion): the stack's depth is known only at run
  // time, and local_bytes counts one frame of each recursive SCC.
  bool recursive = false;
  // The plan of `f` (a function of `module`), nullptr if it is not part of the kernel.
  const FunctionPlan* plan(const ptx::Function& f) const;
};

struct CompileOptions {
  LivenessOptions liveness;
  AllocOptions alloc;                  // target_regs applies to the .entry (called functions: 0)
  bool constant_operands = false;      // constants.h: parameters and immediates in the encoding
  uint64_t local_bytes_per_thread = 0; // the .local stack's limit per thread (0: unchecked)
};

// Throws CompileError for an unknown entry, a call to a function without a body, a call whose
// arguments do not match its callee's parameters (number, sizes) and local memory over
// CompileOptions::local_bytes_per_thread, each naming the PTX file:line.
KernelPlan compile_kernel(const ptx::Module& m, const std::string& entry,
                          const CompileOptions& opt = {});

// verify_allocation() over every function of the plan, plus disjoint caller/callee ranges
// (calls within a recursive SCC: every value live after the call saved instead).
std::string verify_kernel(const KernelPlan& k);

// Human-readable summary: per function registers, order, base; vreg -> register map.
std::string describe_plan(const KernelPlan& k, bool with_map = false);

} // namespace gpurf::compiler
