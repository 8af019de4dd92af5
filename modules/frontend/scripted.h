// A front-end that runs hand-built warp programs: for pipeline tests and synthetic loads.
// Semantics are tiny but real (values flow through registers and memory), so every
// operand the timing model delivers is still checked against the functional value.
#pragma once

#include <vector>

#include "gpurf/modules/frontend/i_frontend.h"

namespace gpurf {

struct ScriptOp {
  enum Kind { Add, Mov, Load, Store, Exit, Barrier } kind = Add;
  Pipe pipe = Pipe::SP;
  std::vector<uint16_t> dst, src;
  uint32_t imm = 0; // Mov: value base (lane l gets imm + l); Add: added constant
  MemSpace space = MemSpace::Global;
  uint64_t base = 0; // Load/Store: lane l accesses base + l * stride
  uint32_t stride = 4;
  // Compiler hints a real front-end computes (for RFC / two-level scheduler tests).
  std::vector<bool> last_read;        // per source: its last read
  bool consumes_long_latency = false; // reads a long-latency result
};

class ScriptedFrontend : public IFrontend {
public:
  // Every warp of `warps` runs `program` (an Exit is appended); `regs` registers per thread.
  ScriptedFrontend(std::vector<ScriptOp> program, unsigned warps, unsigned regs);
  // One CTA of all the program's warps.
  Occupancy start(const SmLimits& limits, unsigned sms, IFunctionalMemory& mem) override;
  const InstInfo* peek(unsigned warp) override;
  void execute(unsigned warp, WarpInst& out) override;
  void retire(const WarpInst& inst) override;
  bool done() const override;
  std::string describe_warp(unsigned warp) const override;
  unsigned regs() const { return regs_; }
  uint64_t retired() const { return retired_; }
  // Every retired instruction with its timing, in retirement order (for tests).
  struct Retired {
    unsigned warp, pc;
    Cycle issue, dispatch, complete, retire; // retire: the last destination's write granted
  };
  const std::vector<Retired>& log() const { return log_; }
  // The functional value of a register (for tests).
  const LaneValues& reg(unsigned warp, unsigned r) const { return state_[warp].regs[r]; }

private:
  struct Warp {
    unsigned pc = 0;
    bool at_barrier = false;
    std::vector<LaneValues> regs;
  };
  std::vector<ScriptOp> program_;
  std::vector<InstInfo> info_;
  std::vector<Warp> state_;
  unsigned warps_, regs_;
  unsigned slots_ = 0, exited_ = 0, at_barrier_ = 0;
  uint64_t retired_ = 0, issued_ = 0;
  IFunctionalMemory* mem_ = nullptr;
  std::vector<Retired> log_;
};

} // namespace gpurf
