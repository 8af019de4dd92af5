#include "gpurf/policies/rfc_store.h"

namespace gpurf {

bool rfc_replacement_from_name(const std::string& s, RfcReplacement& out) {
  if (s == "fifo") return out = RfcReplacement::Fifo, true;
  if (s == "lru") return out = RfcReplacement::Lru, true;
  return false;
}

RfcStore::RfcStore(unsigned warps, unsigned entries, RfcReplacement repl, bool prefer_evict_first)
    : entries_(entries), repl_(repl), prefer_evict_first_(prefer_evict_first),
      sets_(size_t(warps) * entries) {}

RfcEntry* RfcStore::lookup(unsigned warp, uint16_t reg) {
  RfcEntry* s = &sets_[size_t(warp) * entries_];
  for (unsigned i = 0; i < entries_; ++i)
    if (s[i].valid && s[i].reg == reg) return &s[i];
  return nullptr;
}

const RfcEntry* RfcStore::find(unsigned warp, uint16_t reg) const {
  return const_cast<RfcStore*>(this)->lookup(warp, reg);
}

const RfcEntry* RfcStore::read(unsigned warp, uint16_t reg, bool last_read) {
  RfcEntry* e = lookup(warp, reg);
  if (!e) return nullptr;
  e->used = ++clock_;
  e->touched = now_;
  if (last_read) e->dead = true;
  return e;
}

unsigned RfcStore::victim(unsigned warp) const {
  const RfcEntry* s = &sets_[size_t(warp) * entries_];
  unsigned best = 0;
  auto key = [&](const RfcEntry& e) {
    const uint64_t t = repl_ == RfcReplacement::Fifo ? e.inserted : e.used;
    // Entries hinted "evict first" come before all others.
    return (prefer_evict_first_ && !e.evict_first) ? t + (uint64_t(1) << 62) : t;
  };
  for (unsigned i = 0; i < entries_; ++i) {
    if (!s[i].valid) return i;
    if (key(s[i]) < key(s[best])) best = i;
  }
  return best;
}

std::optional<RfcEntry> RfcStore::allocate(unsigned warp, uint16_t reg, const LaneValues& value,
                                           bool dirty, bool dead, bool evict_first,
                                           uint64_t version) {
  std::optional<RfcEntry> out;
  RfcEntry* e = lookup(warp, reg);
  if (!e) {
    e = &sets_[size_t(warp) * entries_ + victim(warp)];
    if (e->valid) out = *e;
    e->filled = now_;
  }
  e->touched = now_;
  e->reg = reg;
  e->valid = true;
  e->dirty = dirty;
  e->dead = dead;
  e->evict_first = evict_first;
  e->inserted = e->used = ++clock_;
  e->value = value;
  e->version = version;
  return out;
}

bool RfcStore::invalidate(unsigned warp, uint16_t reg) {
  RfcEntry* e = lookup(warp, reg);
  if (!e) return false;
  e->valid = false;
  return true;
}

std::vector<RfcEntry> RfcStore::flush(unsigned warp) {
  std::vector<RfcEntry> out;
  RfcEntry* s = &sets_[size_t(warp) * entries_];
  for (unsigned i = 0; i < entries_; ++i)
    if (s[i].valid) {
      out.push_back(s[i]);
      s[i].valid = false;
    }
  return out;
}

unsigned RfcStore::occupancy(unsigned warp) const {
  unsigned n = 0;
  const RfcEntry* s = &sets_[size_t(warp) * entries_];
  for (unsigned i = 0; i < entries_; ++i) n += s[i].valid;
  return n;
}

} // namespace gpurf
