#include "gpurf/policies/wir_regs.h"

#include <algorithm>
#include <string>

namespace gpurf {

PhysRegs::PhysRegs(unsigned count, unsigned release_latency)
    : refs_(count, 0), latency_(release_latency) {
  // A queue (Sec. VII-E: "the register allocator is modeled as a queue"), lowest first.
  for (unsigned p = 0; p < count; ++p) pool_.push_back(p);
}

void PhysRegs::collect(Cycle now) {
  while (!releasing_.empty() && releasing_.front().at <= now) {
    pool_.push_back(releasing_.front().reg);
    releasing_.pop_front();
    --live_;
    ++releases_;
  }
}

int PhysRegs::allocate(Cycle now) {
  collect(now);
  if (pool_.empty()) return -1;
  const unsigned p = pool_.front(); // the longest free: released registers join at the back
  pool_.pop_front();
  refs_[p] = 1;
  ++allocations_;
  if (++live_ > peak_) peak_ = live_;
  return int(p);
}

void PhysRegs::reserve(unsigned p) {
  pool_.erase(std::find(pool_.begin(), pool_.end(), p));
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
  return unsigned(pool_.size());
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
