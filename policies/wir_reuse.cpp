#include "gpurf/policies/wir_reuse.h"

#include <stdexcept>

namespace gpurf {

ReuseBuffer::ReuseBuffer(unsigned entries) : e_(entries) {
  if (!entries || (entries & (entries - 1)))
    throw std::invalid_argument("reuse buffer entries must be a power of two");
}

unsigned ReuseBuffer::index(const ReuseTag& t) const {
  // Fold the tag's fields into the index bits (multiplicative mixing per field).
  uint64_t h = (t.opcode + 1) * 0x9e3779b97f4a7c15ull;
  for (unsigned k = 0; k < ReuseTag::kOperands; ++k)
    h = (h ^ (uint64_t(t.operand[k]) + k + (uint64_t(t.regs >> k & 1) << 40))) *
        0xbf58476d1ce4e5b9ull;
  h = (h ^ (uint64_t(uint16_t(t.block)) << 8 | t.barriers)) * 0x94d049bb133111ebull;
  return unsigned((h ^ (h >> 31)) & (e_.size() - 1));
}

ReuseBuffer::Lookup ReuseBuffer::lookup(const ReuseTag& tag) const {
  Lookup l;
  l.index = index(tag);
  const Entry& e = e_[l.index];
  if (!e.valid || !(e.tag == tag)) return l;
  l.hit = true;
  l.pending = e.pending;
  l.result = e.pending ? -1 : e.result;
  l.result_hi = e.pending ? -1 : e.result_hi;
  l.values = e.values;
  return l;
}

void ReuseBuffer::drop(Entry& e, PhysRegs& regs, Cycle now) {
  if (!e.valid) return;
  for (unsigned k = 0; k < ReuseTag::kOperands; ++k)
    if (e.tag.regs >> k & 1) regs.unref(e.tag.operand[k], now);
  if (e.result >= 0) regs.unref(unsigned(e.result), now);
  if (e.result_hi >= 0) regs.unref(unsigned(e.result_hi), now);
  e = Entry{};
}

void ReuseBuffer::reserve(const ReuseTag& tag, PhysRegs& regs, Cycle now) {
  Entry& e = e_[index(tag)];
  for (unsigned k = 0; k < ReuseTag::kOperands; ++k) // first: a source may be in the old tag
    if (tag.regs >> k & 1) regs.ref(tag.operand[k]);
  drop(e, regs, now);
  e.valid = e.pending = true;
  e.tag = tag;
}

void ReuseBuffer::fill(const ReuseTag& tag, unsigned result, PhysRegs& regs, Cycle, int result_hi,
                       uint64_t values) {
  Entry& e = e_[index(tag)];
  if (!e.valid || !e.pending || !(e.tag == tag)) return; // replaced meanwhile
  regs.ref(result);
  e.result = int(result);
  if (result_hi >= 0) regs.ref(unsigned(result_hi));
  e.result_hi = result_hi;
  e.values = values;
  e.pending = false;
}

unsigned ReuseBuffer::drop_block(int16_t block, PhysRegs& regs, Cycle now) {
  unsigned n = 0;
  for (Entry& e : e_)
    if (e.valid && e.tag.block == block) {
      drop(e, regs, now);
      ++n;
    }
  return n;
}

unsigned ReuseBuffer::clear(PhysRegs& regs, Cycle now) {
  unsigned n = 0;
  for (Entry& e : e_) {
    n += e.valid;
    drop(e, regs, now);
  }
  return n;
}

void ReuseBuffer::cancel(const ReuseTag& tag, PhysRegs& regs, Cycle now) {
  Entry& e = e_[index(tag)];
  if (e.valid && e.pending && e.tag == tag) drop(e, regs, now);
}

} // namespace gpurf
