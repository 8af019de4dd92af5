// The live allocations of global memory (launch-file buffers, module variables; a runtime's
// cudaMalloc): every lane's global access is checked against them, as compute-sanitizer's
// memcheck does, so an out-of-bounds or freed access stops the kernel instead of reading a
// neighbour's bytes (docs/frontend.md "Memory checks"). Plain C++.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace gpurf::ptx {

class Allocations {
public:
  // [base, base + bytes) named `name` ("buffer 'y'", "variable 'table'"). An allocation that
  // overlaps a live one replaces it (a module variable a launch buffer is placed at).
  void add(uint64_t base, uint64_t bytes, std::string name);
  // The allocation at `base` is freed: accesses to it are reported as use after free until an
  // allocation reuses the addresses. False when no live allocation starts there.
  bool free(uint64_t base);
  void clear();
  bool empty() const { return by_base_.empty(); }
  // "" when [addr, addr + len) lies inside one live allocation; else what is wrong, with the
  // nearest allocation and its bounds ("4 bytes past the end of buffer 'y' [0x10000000,
  // 0x10000100)").
  std::string check(uint64_t addr, unsigned len) const {
    if (addr >= last_base_ && addr + len <= last_end_ && addr + len >= addr) return {};
    return check_slow(addr, len);
  }
  // For a message about an access (a misaligned one): "in buffer 'y' [0x10000000,
  // 0x10000100) (256 bytes)" when one live allocation holds it, else check()'s text.
  std::string describe(uint64_t addr, unsigned len) const;

private:
  struct Alloc {
    uint64_t bytes;
    std::string name;
    bool freed;
  };
  std::string check_slow(uint64_t addr, unsigned len) const;
  std::map<uint64_t, Alloc> by_base_;
  // The allocation the last access hit: most accesses hit it again.
  mutable uint64_t last_base_ = 1, last_end_ = 0;
};

} // namespace gpurf::ptx
