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

void Mshrs::add(uint64_t line, uint64_t complete) {
  uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = uint32_t(slots_.size());
    slots_.emplace_back();
  }
  if (!index_.emplace(line, slot).second) {
    std::ostringstream m;
    m << "MSHR: line 0x" << std::hex << line << " added while in flight";
    throw std::logic_error(m.str());
  }
  slots_[slot] = {{line, complete}, added_++};
  if (complete != kPending) due_.push({complete, slot});
}

void Mshrs::set_complete(uint64_t line, uint64_t complete) {
  const auto it = index_.find(line);
  if (it == index_.end()) return;
  Entry& e = slots_[it->second].entry;
  if (e.complete != kPending) return;
  e.complete = complete;
  due_.push({complete, it->second});
}

void Mshrs::release(uint64_t t) {
  while (!due_.empty() && due_.top().first <= t) {
    const uint32_t slot = due_.top().second;
    due_.pop();
    index_.erase(slots_[slot].entry.line);
    free_slots_.push_back(slot);
  }
}

std::vector<Mshrs::Entry> Mshrs::entries() const {
  std::vector<std::pair<uint64_t, Entry>> live;
  for (const auto& [line, slot] : index_) live.push_back({slots_[slot].order, slots_[slot].entry});
  std::sort(live.begin(), live.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Entry> out;
  for (const auto& l : live) out.push_back(l.second);
  return out;
}

} // namespace gpurf
