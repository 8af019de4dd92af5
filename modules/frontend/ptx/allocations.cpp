#include "gpurf/modules/frontend/ptx/allocations.h"

#include <sstream>

namespace gpurf::ptx {

namespace {
std::string range(uint64_t base, uint64_t bytes) {
  std::ostringstream o;
  o << "[0x" << std::hex << base << ", 0x" << base + bytes << ")" << std::dec << " (" << bytes
    << " bytes)";
  return o.str();
}
} // namespace

void Allocations::add(uint64_t base, uint64_t bytes, std::string name) {
  // Drop what the new one overlaps.
  auto it = by_base_.lower_bound(base);
  if (it != by_base_.begin()) {
    auto prev = std::prev(it);
    if (prev->first + prev->second.bytes > base) it = prev;
  }
  while (it != by_base_.end() && it->first < base + bytes) it = by_base_.erase(it);
  by_base_[base] = {bytes, std::move(name), false};
  last_base_ = 1, last_end_ = 0;
}

bool Allocations::free(uint64_t base) {
  auto it = by_base_.find(base);
  if (it == by_base_.end() || it->second.freed) return false;
  it->second.freed = true;
  last_base_ = 1, last_end_ = 0;
  return true;
}

void Allocations::clear() {
  by_base_.clear();
  last_base_ = 1, last_end_ = 0;
}

std::string Allocations::describe(uint64_t addr, unsigned len) const {
  if (std::string bad = check(addr, len); !bad.empty()) return bad;
  const auto in = std::prev(by_base_.upper_bound(addr)); // check() found it
  return "in " + in->second.name + " " + range(in->first, in->second.bytes);
}

std::string Allocations::check_slow(uint64_t addr, unsigned len) const {
  const uint64_t end = addr + len;
  auto after = by_base_.upper_bound(addr);
  const auto* in = after == by_base_.begin() ? nullptr : &*std::prev(after);
  if (in && end > addr && end <= in->first + in->second.bytes) {
    if (!in->second.freed) {
      last_base_ = in->first, last_end_ = in->first + in->second.bytes;
      return {};
    }
    return "access to freed memory: " + in->second.name + " " + range(in->first, in->second.bytes) +
           " was freed";
  }
  std::ostringstream o;
  if (in && addr < in->first + in->second.bytes) // starts inside, runs past the end
    o << "runs " << end - (in->first + in->second.bytes) << " bytes past the end of "
      << in->second.name << " " << range(in->first, in->second.bytes);
  else if (!in && after == by_base_.end())
    o << "no allocation holds it (none is live)";
  else { // between allocations: name the nearer
    const bool below = in && (after == by_base_.end() ||
                              addr - (in->first + in->second.bytes) <= after->first - end);
    if (below)
      o << addr - (in->first + in->second.bytes) << " bytes past the end of " << in->second.name
        << " " << range(in->first, in->second.bytes);
    else
      o << after->first - addr << " bytes before " << after->second.name << " "
        << range(after->first, after->second.bytes);
  }
  return "outside every allocation: " + o.str() + (in && in->second.freed ? " (freed)" : "");
}

} // namespace gpurf::ptx
