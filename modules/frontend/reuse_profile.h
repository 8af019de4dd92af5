// Malekeh's reuse-distance hints (shared/papers/001, Sec. III-A): the compiler profiles the
// first few warps of a kernel functionally, measures for every static register operand
// (source and destination) how many dynamic instructions of its warp pass until the register
// is read again, and marks the operand near when most of its instances were reused within
// RTHLD instructions (far otherwise: a later reuse, or none before the register is
// overwritten or the warp ends). One bit per operand goes into the instruction record.
//
// Choices where the paper is silent: the distance counts the warp's dynamic instructions
// from the operand's instruction to the next one reading the register (1: the next
// instruction); near means distance < RTHLD; ties in the majority count as far; the profiled
// warps are those of whole CTAs from the first, at least `warps` of them.
//
// Oracle mode (frontend.reuse_oracle): every warp is profiled, and each dynamic instance's
// own bits (its exact distance against RTHLD) are recorded per warp, for the front-end to
// hand out instead of the majority: what the binary approximation loses (docs/malekeh.md).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <vector>

#include "gpurf/modules/common/warp_inst.h"

namespace gpurf {

struct ReuseCounts {
  std::array<uint32_t, InstInfo::kMaxSrc> src_near{}, src_far{};
  std::array<uint32_t, InstInfo::kMaxDst> dst_near{}, dst_far{};
};

// Accumulates one warp's dynamic stream (instruction records in execution order) into
// per-pc counts. Plain C++: the front-end feeds it what the functional engine executed.
class ReuseProfiler {
public:
  ReuseProfiler(size_t instructions, unsigned rthld) : counts_(instructions), rthld_(rthld) {}
  // Per dynamic instance of the warp's stream: bit k = source slot k near, bit 8 + k =
  // destination slot k near.
  using InstanceBits = std::vector<uint16_t>;
  void start_warp(InstanceBits* record = nullptr);
  void step(const InstInfo& info);
  void end_warp();
  const std::vector<ReuseCounts>& counts() const { return counts_; }
  // The majority bits into the records (src_reuse_near, dst_reuse_near).
  void apply(std::vector<InstInfo>& info) const;

private:
  struct Pending {
    uint32_t pc;
    uint8_t slot;
    bool dst;
    uint64_t at; // 1-based index of the instance in the warp's stream
  };
  void resolve(std::vector<Pending>& p, bool near);
  std::vector<ReuseCounts> counts_;
  unsigned rthld_;
  uint64_t now_ = 0;
  InstanceBits* record_ = nullptr;
  std::vector<std::vector<Pending>> pending_; // per register: occurrences awaiting a read
};

} // namespace gpurf
