#include "gpurf/policies/cache.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace gpurf {

static_assert(sizeof(CacheTags::Line) <= CacheGeometry::kTagBytes, "the tags' claimed storage");

CacheTags::CacheTags(unsigned sets, unsigned ways, std::string unit)
    : sets_(sets), ways_(ways), lines_(size_t(sets) * ways), unit_(std::move(unit)) {}

CacheTags::Line* CacheTags::find(uint64_t line) {
  Line* set = &lines_[(line % sets_) * ways_];
  for (unsigned w = 0; w < ways_; ++w)
    if (set[w].line == line && set[w].valid) return &set[w]; // the tag first: rarely equal
  return nullptr;
}

CacheTags::Line* CacheTags::lookup(uint64_t line) {
  Line* l = find(line);
  if (bool(l) != bool(resident_.count(line)) || (l && l->line != line)) {
    std::ostringstream m;
    m << unit_ << ": tag check failed: line 0x" << std::hex << line << " (set " << std::dec
      << line % sets_ << ") "
      << (l ? "hit the line of tag 0x" : "missed, but the cache holds it since its fill");
    if (l) m << std::hex << l->line << ", which the cache's resident lines do not include";
    throw std::logic_error(m.str());
  }
  return l;
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
  if (old.valid) resident_.erase(old.line);
  resident_.insert(line);
  *victim = Line{line, true, false, 0};
  touch(victim);
  return old;
}

void CacheTags::invalidate(uint64_t line) {
  if (Line* l = lookup(line)) l->valid = false;
  resident_.erase(line);
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
