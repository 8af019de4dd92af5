#include "gpurf/modules/frontend/scripted.h"

#include <string>

namespace gpurf {

ScriptedFrontend::ScriptedFrontend(std::vector<ScriptOp> program, unsigned warps, unsigned regs)
    : program_(std::move(program)), warps_(warps), regs_(regs) {
  ScriptOp exit;
  exit.kind = ScriptOp::Exit;
  program_.push_back(exit);
  static const char* names[] = {"add", "mov", "ld", "st", "exit", "bar"};
  for (unsigned pc = 0; pc < program_.size(); ++pc) {
    const ScriptOp& op = program_[pc];
    InstInfo i;
    i.pc = pc;
    i.opname = names[op.kind];
    i.pipe = op.kind == ScriptOp::Load || op.kind == ScriptOp::Store ? Pipe::MEM : op.pipe;
    i.n_src = op.src.size();
    i.n_dst = op.dst.size();
    for (unsigned k = 0; k < op.src.size(); ++k) {
      i.src_reg[k] = op.src[k];
      i.src_last_read[k] = k < op.last_read.size() && op.last_read[k];
    }
    i.consumes_long_latency = op.consumes_long_latency;
    for (unsigned k = 0; k < op.dst.size(); ++k) i.dst_reg[k] = op.dst[k];
    if (op.kind == ScriptOp::Load || op.kind == ScriptOp::Store) {
      i.space = op.space;
      i.mem = op.kind == ScriptOp::Load ? MemKind::Load : MemKind::Store;
      i.produces_long_latency = op.kind == ScriptOp::Load && op.space == MemSpace::Global;
    }
    i.barrier = op.kind == ScriptOp::Barrier;
    i.exit = op.kind == ScriptOp::Exit;
    info_.push_back(i);
  }
}

Occupancy ScriptedFrontend::start(const SmLimits& limits, unsigned sms, IFunctionalMemory& mem) {
  if (sms != 1)
    throw WorkloadError("the scripted workload runs its warps as one CTA on one SM; " +
                        std::to_string(sms) + " SMs given (gpu.sm_count: 1)");
  const Occupancy o = occupancy(limits, "scripted", warps_, 0, 1);
  slots_ = limits.warp_slots();
  mem_ = &mem;
  state_.assign(slots_, Warp{});
  for (auto& w : state_) w.regs.assign(regs_, LaneValues{});
  return o;
}

const InstInfo* ScriptedFrontend::peek(unsigned warp) {
  if (warp >= warps_) return nullptr;
  Warp& w = state_[warp];
  if (w.pc >= info_.size() || w.at_barrier) return nullptr;
  return &info_[w.pc];
}

void ScriptedFrontend::execute(unsigned warp, WarpInst& out) {
  Warp& w = state_[warp];
  const ScriptOp& op = program_[w.pc];
  out.info = &info_[w.pc];
  out.warp = warp;
  out.cta = 0;
  out.active_mask = out.thread_mask = 0xffffffffu;
  out.n_src = op.src.size();
  out.n_dst = op.dst.size();
  for (unsigned k = 0; k < op.src.size(); ++k) {
    out.src[k].reg = op.src[k];
    out.src[k].last_read = out.info->src_last_read[k];
    out.src[k].value = w.regs[op.src[k]];
  }
  LaneValues result{};
  for (unsigned l = 0; l < kWarpSize; ++l) {
    uint32_t v = op.imm;
    switch (op.kind) {
    case ScriptOp::Add:
      for (uint16_t s : op.src) v += w.regs[s][l];
      break;
    case ScriptOp::Mov:
      v = op.imm + l;
      break;
    case ScriptOp::Load:
      out.addr[l] = op.base + uint64_t(l) * op.stride;
      mem_->read(out.addr[l], &v, 4);
      break;
    case ScriptOp::Store:
      out.addr[l] = op.base + uint64_t(l) * op.stride;
      v = op.src.empty() ? 0 : w.regs[op.src[0]][l];
      mem_->write(out.addr[l], &v, 4);
      break;
    default:
      break;
    }
    result[l] = v;
  }
  out.access_bytes = 4;
  for (unsigned k = 0; k < op.dst.size(); ++k) {
    w.regs[op.dst[k]] = result;
    out.dst[k].reg = op.dst[k];
    out.dst[k].value = result;
  }
  ++issued_;
  ++w.pc;
  if (op.kind == ScriptOp::Exit) ++exited_;
  if (op.kind == ScriptOp::Barrier) {
    w.at_barrier = true;
    if (++at_barrier_ == warps_ - exited_) { // everyone arrived: release
      for (auto& x : state_) x.at_barrier = false;
      at_barrier_ = 0;
    }
  }
}

void ScriptedFrontend::retire(const WarpInst& i) {
  ++retired_;
  log_.push_back(
      {i.warp, i.info->pc, i.issue_cycle, i.dispatch_cycle, i.complete_cycle, i.retire_cycle});
}

bool ScriptedFrontend::done() const { return exited_ == warps_ && retired_ == issued_; }

std::string ScriptedFrontend::describe_warp(unsigned warp) const {
  if (warp >= warps_) return "no program";
  const Warp& w = state_[warp];
  return "pc " + std::to_string(w.pc) + (w.at_barrier ? " (at barrier)" : "");
}

} // namespace gpurf
