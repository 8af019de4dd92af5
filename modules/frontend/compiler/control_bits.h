// Control bits of current NVIDIA cores (Huerta et al., MICRO'25, "Dissecting and Modeling
// the Architecture of Modern GPU Cores", Sec. 4 and 5.3.1), set as ptxas sets them, over
// one function's instructions in layout order (plain C++, unit-tested on hand-made
// sequences in tests/unit/compiler_control_bits_test.cpp):
//
//  * reuse bit of source operand k (k < 3, the register-file cache's operand slots): set
//    when the next read of that bank's slot in the same basic block is the same register in
//    the same slot, and nothing writes the register before it (Listing 4: any read of the
//    bank's slot replaces the entry, so only that next read can hit);
//  * stall count of the producer (Sec. 4): its fixed latency minus the instructions between
//    it and its first consumer (RAW or WAW), accumulated so that every consumer issues at
//    least `latency` cycles after each fixed-latency producer; the last instruction of a
//    block waits for every fixed-latency result of the block (ptxas does not carry stall
//    counts across branches); at most 15;
//  * dependence counters (SB0-5) for variable-latency producers: `wr_sb` (decremented at the
//    write-back) guards RAW/WAW on the results, `rd_sb` (decremented when the sources are read)
//    guards WAR on the producer's sources; consumers wait on them in their wait mask. Which
//    counters hold un-waited producers of which registers is a dataflow over the CFG (merge =
//    union at joins, loops iterated to a fixed point), so every instruction, a block's first
//    included, waits only for the counters that guard its own operands; a wait zeroes the
//    counter, so everything on it is done after. SB5 guards every WAR (sources are read within
//    the read window: waiting for all of them is cheap); SB0-4 are handed out to results in
//    layout order: a long producer (global/local memory) takes a free counter (no un-waited
//    producer), else one holding only long ones; a short one a free counter while more than
//    two are free, else one holding only short ones; least recently taken first, in sweeps
//    until the assignment is stable. At a join, a counter that holds only short producers on
//    one path and a long one on another is waited for at the end of the short path. So a
//    consumer of a shared load never waits for a prefetching global load (sharing costs
//    waiting, never correctness). The function's first instruction and the one after a call
//    wait for every counter. An instruction followed by one that waits on its counter has a
//    stall count of at least 2 (the counter is incremented the cycle after issue, Sec. 4), a
//    block's last instruction too when a successor's first waits on it.
//  * yield: never set (the paper gives no rule for it).
#pragma once

#include <cstdint>
#include <vector>

namespace gpurf::compiler {

struct CtrlInst {
  std::vector<unsigned> src, dst;   // regular registers, in operand order (slot = index)
  std::vector<unsigned> psrc, pdst; // predicate registers (their own name space)
  bool variable = false;            // variable latency: dependence counters, no stall count
  unsigned latency = 1;             // fixed latency: issue-to-dependent-issue cycles
  bool long_latency = false;        // global/local memory: its counter kept apart (see above)
  bool leader = false;              // first instruction of a basic block
  bool after_call = false;          // the instruction after a call (the callee's counters)
  // Where control may go after this instruction, which ends a block: indices into the
  // sequence (a branch's targets, the fall-through, and for SIMT the other side of a divergent
  // branch that runs after this path; none: exit). Without it, the next instruction. A
  // sequence in which no instruction sets it has no known CFG: every block may then follow
  // every block's end (safe, and slower).
  bool has_succ = false;
  std::vector<unsigned> succ;
};

struct CtrlParams {
  unsigned banks = 2;      // register banks of the sub-core (bank = register mod banks)
  unsigned counters = 6;   // dependence counters per warp (SB0-5)
  unsigned max_stall = 15; // largest stall count an instruction encodes
};

struct CtrlBits {
  static constexpr uint8_t kNoSb = 7;
  uint8_t reuse_mask = 0; // bit k: source operand k's reuse bit
  uint8_t stall = 1;
  bool yield = false;
  uint8_t wr_sb = kNoSb, rd_sb = kNoSb; // counters incremented at issue
  uint8_t wait_mask = 0;                // counters that must be zero before issue
};

std::vector<CtrlBits> control_bits(const std::vector<CtrlInst>& code, const CtrlParams& p = {});

} // namespace gpurf::compiler
