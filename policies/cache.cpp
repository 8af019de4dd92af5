#include "gpurf/policies/cache.h"

#include <algorithm>

namespace gpurf {

static_assert(sizeof(CacheTags::Line) <= CacheGeometry::kTagBytes, "the tags' claimed storage");

CacheTags::CacheTags(unsigned sets, unsigned ways)
    : sets_(sets), ways_(ways), lines_(size_t(sets) * ways) {}

CacheTags::Line* CacheTags::lookup(uint64_t line) {
  Line* set = &lines_[(line % sets_) * ways_];
  for (unsigned w = 0; w < ways_; ++w)
    if (set[w].valid && set[w].line == line) return &set[w];
  return nullptr;
}

CacheTags::Line CacheTags::install(uint64_t line) {
  Line* set = &lines_[(line % sets_) * ways_];
  Line* victim = &set[0];
  for (unsigned w = 0; w < ways_; ++w) {
    if (!set[w].valid) {
      victim = &set[w];
      break;
    }
    if (set[w].lru < victim->lru) victim = &set[w];
  }
  const Line old = *victim;
  *victim = Line{line, true, false, 0};
  touch(victim);
  return old;
}

void CacheTags::invalidate(uint64_t line) {
  if (Line* l = lookup(line)) l->valid = false;
}

const Mshrs::Entry* Mshrs::find(uint64_t line) const {
  for (const Entry& e : entries_)
    if (e.line == line) return &e;
  return nullptr;
}

void Mshrs::release(uint64_t t) {
  entries_.erase(std::remove_if(entries_.begin(), entries_.end(),
                                [t](const Entry& e) { return e.complete <= t; }),
                 entries_.end());
}

uint64_t Mshrs::earliest() const {
  uint64_t t = UINT64_MAX;
  for (const Entry& e : entries_) t = std::min(t, e.complete);
  return t;
}

} // namespace gpurf
