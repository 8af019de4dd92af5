// Control bits of current NVIDIA cores (Huerta et al., MICRO'25, "Dissecting and Modeling
// the Architecture of Modern GPU Cores", Sec. 4 and 5.3.1), set as ptxas sets them, over
// one function's instructions in layout order (plain C++, unit-tested on hand-made
// sequences in tests/unit/control_bits_test.cpp):
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
//    write-back) guards RAW/WAW, `rd_sb` (decremented when the sources are read) guards WAR on
//    the producer's sources; consumers wait on them in their wait mask. Counters are reused
//    round-robin; sharing one costs waiting, never correctness. A block's first instruction
//    waits for every counter any producer (or late reader, for a write) of a register the
//    block uses has anywhere in the function, whichever path led there (waiting later would
//    wait for the block's own loads on a shared counter too); the function's first
//    instruction and the one after a call wait for every counter. An instruction
//    followed by one that waits on its counter has a stall count of at least 2 (the counter is
//    incremented the cycle after issue, Sec. 4).
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
  bool leader = false;              // first instruction of a basic block
  bool after_call = false;          // the instruction after a call (the callee's counters)
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
