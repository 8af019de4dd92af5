#include "gpurf/policies/wir_regs.h"

#include <algorithm>
#include <string>

namespace gpurf {

PhysRegs::PhysRegs(unsigned count, unsigned release_latency, unsigned banks)
    : refs_(count, 0), pools_(std::max(1u, banks)), latency_(release_latency) {
  // Queues (Sec. VII-E: "the register allocator is modeled as a queue"), lowest first.
  for (unsigned p = 0; p < count; ++p) pools_[p % pools_.size()].push_back(p);
  free_ = count;
}

void PhysRegs::collect(Cycle now) {
  while (!releasing_.empty() && releasing_.front().at <= now) {
    const unsigned p = releasing_.front().reg;
    pools_[p % pools_.size()].push_back(p);
    ++free_;
    releasing_.pop_front();
    --live_;
    ++releases_;
  }
}

int PhysRegs::allocate(Cycle now, unsigned bank) {
  collect(now);
  if (!free_) return -1;
  // The bank asked for, else the next bank with a free register.
  const size_t n = pools_.size();
  size_t b = bank % n;
  while (pools_[b].empty()) b = (b + 1) % n;
  const unsigned p = pools_[b].front(); // the longest free: released registers join at the back
  pools_[b].pop_front();
  --free_;
  refs_[p] = 1;
  ++allocations_;
  if (++live_ > peak_) peak_ = live_;
  return int(p);
}

void PhysRegs::reserve(unsigned p) {
  std::deque<unsigned>& q = pools_[p % pools_.size()];
  q.erase(std::find(q.begin(), q.end(), p));
  --free_;
  refs_.at(p) = 1;
}

void PhysRegs::ref(unsigned p) {
  if (!refs_.at(p))
    throw RegisterAccounting("physical register p" + std::to_string(p) +
                             " referenced while it is free");
  ++refs_[p];
  ++increments_;
}

void PhysRegs::unref(unsigned p, Cycle now) {
  if (!refs_.at(p))
    throw RegisterAccounting("reference count of physical register p" + std::to_string(p) +
                             " would go negative");
  ++decrements_;
  if (--refs_[p] == 0) releasing_.push_back({now + latency_, p});
}

unsigned PhysRegs::free(Cycle now) {
  collect(now);
  return free_;
}

void RenameTables::map(unsigned warp, unsigned reg, unsigned phys, uint64_t version, bool pin,
                       PhysRegs& regs, Cycle now) {
  Entry& e = e_.at(size_t(warp) * regs_ + reg);
  regs.ref(phys); // first: remapping to the same register must not release it
  if (e.phys >= 0)
    regs.unref(unsigned(e.phys), now);
  else if (mapped_[warp]++ == 0)
    ++active_;
  e = {int(phys), pin, version};
}

void RenameTables::clear(unsigned warp, PhysRegs& regs, Cycle now) {
  for (unsigned r = 0; r < regs_; ++r) {
    Entry& e = e_[size_t(warp) * regs_ + r];
    if (e.phys >= 0) regs.unref(unsigned(e.phys), now);
    e = Entry{};
  }
  if (mapped_[warp]) --active_;
  mapped_[warp] = 0;
}

} // namespace gpurf
