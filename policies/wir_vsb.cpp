#include "gpurf/policies/wir_vsb.h"

#include <array>
#include <random>
#include <stdexcept>

namespace gpurf {

namespace {

// Per byte position of the 128 B value and byte value: the XOR of the q_i its set bits select.
struct H3Table {
  std::vector<std::array<uint32_t, 256>> t;
  H3Table() : t(kRegBytes) {
    std::mt19937 rng(0x4833); // fixed: the same hardwired matrix in every run
    std::array<uint32_t, 8> q{};
    for (auto& byte : t) {
      for (uint32_t& x : q) x = uint32_t(rng());
      for (unsigned v = 0; v < 256; ++v) {
        uint32_t h = 0;
        for (unsigned b = 0; b < 8; ++b)
          if (v >> b & 1) h ^= q[b];
        byte[v] = h;
      }
    }
  }
};

} // namespace

uint32_t h3_hash(const LaneValues& v) {
  static const H3Table table;
  uint32_t h = 0;
  for (unsigned l = 0; l < kWarpSize; ++l)
    for (unsigned b = 0; b < 4; ++b) h ^= table.t[l * 4 + b][(v[l] >> (8 * b)) & 0xff];
  return h;
}

ValueSignatureBuffer::ValueSignatureBuffer(unsigned entries) : e_(entries) {
  if (entries & (entries - 1))
    throw std::invalid_argument("value signature buffer entries must be a power of two");
}

int ValueSignatureBuffer::lookup(uint32_t hash) const {
  if (e_.empty()) return -1;
  const Entry& e = e_[index(hash)];
  return e.valid && e.hash == hash ? int(e.phys) : -1;
}

void ValueSignatureBuffer::insert(uint32_t hash, unsigned phys, PhysRegs& regs, Cycle now) {
  if (e_.empty()) return;
  Entry& e = e_[index(hash)];
  regs.ref(phys);
  if (e.valid) regs.unref(e.phys, now);
  e = {true, hash, phys};
}

bool ValueSignatureBuffer::evict(unsigned index, PhysRegs& regs, Cycle now) {
  if (index >= e_.size() || !e_[index].valid) return false;
  regs.unref(e_[index].phys, now);
  e_[index] = Entry{};
  return true;
}

void ValueSignatureBuffer::remove(uint32_t hash, unsigned phys, PhysRegs& regs, Cycle now) {
  if (e_.empty()) return;
  Entry& e = e_[index(hash)];
  if (!e.valid || e.hash != hash || e.phys != phys) return;
  regs.unref(phys, now);
  e = Entry{};
}

} // namespace gpurf
