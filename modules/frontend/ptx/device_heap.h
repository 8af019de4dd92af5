// The device heap of CUDA's in-kernel malloc/free: a region of global memory (the runtime
// reserves cudaLimitMallocHeapSize bytes at the first launch of a module that calls malloc)
// handed out first-fit in 16-byte-aligned blocks. It outlives launches, as CUDA's does: a block
// one kernel allocates another may read and free. Plain C++.
#pragma once

#include <cstdint>
#include <map>

namespace gpurf::ptx {

class DeviceHeap {
public:
  DeviceHeap() = default;
  DeviceHeap(uint64_t base, uint64_t bytes) : base_(base), end_(base + bytes) {}
  bool empty() const { return base_ == end_; }
  // A block of `bytes` (0: none), or 0 when no gap is large enough (malloc returns NULL).
  uint64_t allocate(uint64_t bytes) {
    if (!bytes || bytes > end_ - base_) return 0;
    const uint64_t need = (bytes + 15) / 16 * 16;
    uint64_t at = base_;
    for (const auto& [b, n] : used_) {
      if (b - at >= need) break;
      at = b + n;
    }
    if (end_ - at < need) return 0;
    used_[at] = need;
    return at;
  }
  // False for an address that is no live block's start (free(NULL) is a no-op: true).
  bool release(uint64_t addr) { return !addr || used_.erase(addr) == 1; }

private:
  uint64_t base_ = 0, end_ = 0;
  std::map<uint64_t, uint64_t> used_; // block start -> bytes
};

} // namespace gpurf::ptx
