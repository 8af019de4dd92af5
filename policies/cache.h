// The tag and MSHR bookkeeping of a set-associative cache, shared by the L1 and L2 units
// (modules/l1/impl/set_assoc.cpp, modules/l2/impl/set_assoc.cpp). Plain C++, no SystemC, no
// data: the units keep tags only.
//
// A line number n = address / line_bytes lives in set n % sets and is compared whole (every
// address bit). Replacement: a free way first, else the least recently used line. An MSHR
// holds one line being filled until the cycle its fill arrives.
#pragma once

#include <cstdint>
#include <functional>
#include <queue>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "gpurf/platform/params.h"

namespace gpurf {

// The parameters every set-associative cache level declares; `def` holds the level's
// defaults. Refuses a line size that is not a power of two.
struct CacheGeometry {
  unsigned sets = 1, ways = 1, line_bytes = 128, mshrs = 1, hit_latency = 0;
  // For the checks between levels (Unit::largest_request, largest_served): the keys that set
  // the line size, and those that bound one access (line_bytes x mshrs: a request spanning
  // more lines than there are MSHRs can never be served).
  std::string line_keys, served_keys;
  static CacheGeometry read(Params& p, const CacheGeometry& def) {
    CacheGeometry g;
    g.sets = p.get_uint("sets", def.sets, "number of sets", 1, 1u << 20);
    g.ways = p.get_uint("ways", def.ways, "lines per set", 1, 1024);
    g.line_bytes =
        p.get_uint("line_bytes", def.line_bytes, "line size in bytes (power of two)", 4, 1u << 16);
    g.mshrs = p.get_uint("mshrs", def.mshrs, "miss status holding registers", 1, 4096);
    g.hit_latency = p.get_uint("hit_latency", def.hit_latency, "lookup / hit latency in cycles", 0);
    if (g.line_bytes & (g.line_bytes - 1)) p.fail("line_bytes", "must be a power of two");
    // The tags (the units keep no data): claimed before CacheTags allocates them.
    p.claim_storage(uint64_t(g.sets) * g.ways * kTagBytes,
                    p.depth("sets") <= p.depth("ways") ? "sets" : "ways",
                    "sets x ways x " + std::to_string(kTagBytes) + " B of tags");
    g.line_keys = p.said("line_bytes", g.line_bytes);
    g.served_keys = g.line_keys + " x " + p.said("mshrs", g.mshrs);
    return g;
  }
  static constexpr unsigned kTagBytes = 32; // sizeof(CacheTags::Line)
};

// Every lookup's answer is held to a shadow of the resident lines kept apart from the tag
// array (full line numbers, updated by install and invalidate): a hit on a line the cache
// does not hold (a partial tag compare, a stale way) or a miss on one it does throws
// std::logic_error naming `unit`. Always on: one hash lookup per tag lookup.
class CacheTags {
public:
  struct Line {
    uint64_t line = 0; // line number
    bool valid = false;
    bool dirty = false; // written since the fill (write-back caches)
    uint64_t lru = 0;   // last use stamp
  };
  CacheTags(unsigned sets, unsigned ways, std::string unit = "cache");
  Line* lookup(uint64_t line);
  void touch(Line* l) { l->lru = ++stamp_; }
  // Installs `line` as the most recently used line of its set and returns the line it
  // replaced (valid = false when a way was free).
  Line install(uint64_t line);
  void invalidate(uint64_t line);

private:
  Line* find(uint64_t line); // the tag compare
  unsigned sets_, ways_;
  std::vector<Line> lines_;
  uint64_t stamp_ = 0;
  std::string unit_;
  std::unordered_set<uint64_t> resident_; // the shadow
};

// A cache's miss status holding registers: one entry per line in flight, found by its line
// (a hash index: a memory-bound kernel keeps hundreds in flight, and every access asks for
// each of its lines), freed in the order of their fills (a heap of the completion cycles).
class Mshrs {
public:
  struct Entry {
    uint64_t line;
    uint64_t complete; // the fill arrives; the entry is free from this cycle on
  };
  explicit Mshrs(unsigned count) : count_(count) {}
  const Entry* find(uint64_t line) const {
    const auto it = index_.find(line);
    return it == index_.end() ? nullptr : &slots_[it->second].entry;
  }
  // A line not in flight (find() is null: a second entry for a line is a model error).
  void add(uint64_t line, uint64_t complete);
  // A fill added as pending (complete = kPending, an AT memory's answer) has arrived.
  static constexpr uint64_t kPending = UINT64_MAX;
  void set_complete(uint64_t line, uint64_t complete);
  unsigned count() const { return count_; }
  unsigned in_use() const { return unsigned(index_.size()); }
  std::vector<Entry> entries() const; // in the order they were added

  // Room for an access arriving at cycle `t`: frees the entries whose fill has arrived, asks
  // `needed()` how many new entries the access takes (lines neither in flight nor cached)
  // and answers Ok with the cycle from which they fit; when they do not fit now, Busy if the
  // initiator retries by itself (!wait), else waits for the earliest fill and asks again
  // (Busy too when every fill is pending: no time to wait for is known yet).
  // Never: the access needs more entries than exist.
  enum class Status { Ok, Busy, Never };
  struct Room {
    Status status;
    uint64_t start;
  };
  template <class Needed> Room room(uint64_t t, bool wait, Needed needed) {
    for (;;) {
      release(t);
      const unsigned n = needed();
      if (n > count_) return {Status::Never, t};
      if (in_use() + n <= count_) return {Status::Ok, t};
      if (!wait || earliest() == kPending) return {Status::Busy, t};
      t = earliest();
    }
  }

  // The cycle the first entry frees (kPending: each waits for an answer, or there is none).
  uint64_t earliest() const { return due_.empty() ? kPending : due_.top().first; }

private:
  void release(uint64_t t);
  struct Slot {
    Entry entry;
    uint64_t order; // when it was added
  };
  unsigned count_;
  std::vector<Slot> slots_;
  std::vector<uint32_t> free_slots_;
  std::unordered_map<uint64_t, uint32_t> index_; // line -> its slot
  // The entries with a known completion, (complete, slot), earliest on top; a pending one
  // joins at set_complete.
  std::priority_queue<std::pair<uint64_t, uint32_t>, std::vector<std::pair<uint64_t, uint32_t>>,
                      std::greater<>>
      due_;
  uint64_t added_ = 0;
};

} // namespace gpurf
