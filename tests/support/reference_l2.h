// A reference model of the "set_assoc" L2 (modules/l2/impl/set_assoc.cpp), in plain C++
// without SystemC, written from that unit's documented behaviour (not from its code) so
// that the two can be replayed against each other access by access
// (tests/module/mem_l2_replay_test.cpp). Only outcomes are modelled: which lines hit, miss,
// merge or are written, dirty write-backs, the latency and the requests sent to memory.
//
// What it models, in cycles, for one access arriving at cycle `at`, with a memory of fixed
// latency `mem_latency` behind it:
//   - geometry and replacement as the L1 (reference_l1.h): line n in set n % sets, whole
//     tag compared, LRU; each line also has a dirty bit. Line n is in bank n % banks; every
//     looked-up line takes its bank for one cycle, from max(start, the bank's next free
//     cycle), and is looked up hit_latency cycles after that.
//   - MSHRs: before any lookup, the lines the access must fetch are counted (reads and
//     atomics: neither in flight nor resident; write-back writes: the same, and not covered
//     whole by the write); more than `mshrs` -> error; while they do not fit, the access
//     waits for the earliest fill (freed at its fill cycle) and counts again.
//   - read: per line in address order: in flight -> merge (ready at max(fill, looked up),
//     resident -> MRU); resident -> hit (ready when looked up, MRU); else miss: a full-line
//     READ sent when looked up, filled mem_latency later, installed at once (MRU, clean);
//     the victim, if dirty, is written back: a full-line WRITE sent at the same cycle, after
//     the READ. Ready when the last line is; delay from `at`.
//   - write, write-back: per line: resident -> write hit, MRU, dirty; else a write miss: the
//     line is installed dirty (victim as above), first fetched (a full-line READ, an MSHR,
//     a "write fetch") if it is neither in flight nor covered whole by the write. Ready when
//     the last line is looked up.
//   - write, write-through: per line, banks from `at` (no MSHR): resident -> write hit, MRU;
//     else write miss (nothing installed). The write goes to memory as is when the last
//     line is looked up; delay until the memory's answer.
//   - atomic, write-back: a read that counts no hit/miss/merge and leaves its resident lines
//     dirty. Atomic, write-through: the resident lines it covers are invalidated, a READ of
//     the same bytes is sent at at + hit_latency (no bank), delay hit_latency + mem_latency.
#pragma once

#include <algorithm>
#include <cstdint>
#include <list>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/reference_l1.h" // RefMemReq, RefStatus

namespace gpurf::test {

struct RefL2Config {
  uint64_t sets = 16, ways = 4, line_bytes = 128, banks = 2, mshrs = 8, hit_latency = 10;
  uint64_t mem_latency = 40;
  bool write_back = true;
};

struct RefL2Outcome {
  RefStatus status = RefStatus::Ok;
  unsigned hits = 0, misses = 0, merges = 0, write_hits = 0, write_misses = 0, write_fetches = 0,
           writebacks = 0;
  uint64_t delay = 0;
  std::vector<RefMemReq> mem;

  bool operator==(const RefL2Outcome& o) const {
    return status == o.status && hits == o.hits && misses == o.misses && merges == o.merges &&
           write_hits == o.write_hits && write_misses == o.write_misses &&
           write_fetches == o.write_fetches && writebacks == o.writebacks &&
           (status != RefStatus::Ok || delay == o.delay) && mem == o.mem;
  }
  bool operator!=(const RefL2Outcome& o) const { return !(*this == o); }
  std::string str() const {
    std::ostringstream os;
    if (status == RefStatus::Error) os << "error; ";
    os << hits << " hit, " << misses << " miss, " << merges << " merge, " << write_hits
       << " write hit, " << write_misses << " write miss, " << write_fetches << " write fetch, "
       << writebacks << " write-back; delay " << delay << "; memory {";
    for (size_t i = 0; i < mem.size(); ++i)
      os << (i ? ", " : "") << (mem[i].write ? "W" : "R") << " 0x" << std::hex << mem[i].addr
         << std::dec << "+" << mem[i].len << " @" << mem[i].at;
    os << "}";
    return os.str();
  }
};

class ReferenceL2 {
public:
  explicit ReferenceL2(const RefL2Config& c) : c_(c), sets_(c.sets), bank_free_(c.banks, 0) {}

  RefL2Outcome read(uint64_t at, uint64_t addr, uint64_t len) {
    return read_like(at, addr, len, /*atomic=*/false);
  }

  RefL2Outcome atomic(uint64_t at, uint64_t addr, uint64_t len) {
    if (c_.write_back) return read_like(at, addr, len, /*atomic=*/true);
    RefL2Outcome out;
    for (uint64_t n = addr / c_.line_bytes; n <= (addr + len - 1) / c_.line_bytes; ++n)
      set_of(n).remove_if([&](const Way& w) { return w.tag == tag_of(n); });
    out.mem.push_back({false, addr, len, at + c_.hit_latency});
    out.delay = c_.hit_latency + c_.mem_latency;
    return out;
  }

  RefL2Outcome write(uint64_t at, uint64_t addr, uint64_t len) {
    RefL2Outcome out;
    const uint64_t lo = addr / c_.line_bytes, hi = (addr + len - 1) / c_.line_bytes;
    if (!c_.write_back) {
      uint64_t sent = at;
      for (uint64_t n = lo; n <= hi; ++n) {
        sent = std::max(sent, bank(n, at) + c_.hit_latency);
        if (Way* w = find(n)) {
          ++out.write_hits;
          make_mru(n);
          (void)w;
        } else {
          ++out.write_misses;
        }
      }
      out.mem.push_back({true, addr, len, sent});
      out.delay = sent - at + c_.mem_latency;
      return out;
    }
    auto whole = [&](uint64_t n) {
      return addr <= n * c_.line_bytes && addr + len >= (n + 1) * c_.line_bytes;
    };
    uint64_t start = 0;
    if (!wait_for_mshrs(at, lo, hi, whole, start, out)) return out;
    uint64_t done = start;
    for (uint64_t n = lo; n <= hi; ++n) {
      const uint64_t looked = bank(n, start) + c_.hit_latency;
      if (find(n)) {
        ++out.write_hits;
      } else {
        ++out.write_misses;
        if (!fills_.count(n) && !whole(n)) {
          ++out.write_fetches;
          out.mem.push_back({false, n * c_.line_bytes, c_.line_bytes, looked});
          fills_[n] = looked + c_.mem_latency;
        }
        allocate(n, looked, out);
      }
      make_mru(n);
      find(n)->dirty = true;
      done = std::max(done, looked);
    }
    out.delay = done - at;
    return out;
  }

private:
  struct Way {
    uint64_t tag;
    bool dirty;
  };
  using Set = std::list<Way>; // most recently used first

  RefL2Outcome read_like(uint64_t at, uint64_t addr, uint64_t len, bool atomic) {
    RefL2Outcome out;
    const uint64_t lo = addr / c_.line_bytes, hi = (addr + len - 1) / c_.line_bytes;
    uint64_t start = 0;
    if (!wait_for_mshrs(
            at, lo, hi, [](uint64_t) { return false; }, start, out))
      return out;
    uint64_t done = start;
    for (uint64_t n = lo; n <= hi; ++n) {
      const uint64_t looked = bank(n, start) + c_.hit_latency;
      auto f = fills_.find(n);
      if (f != fills_.end()) {
        out.merges += !atomic;
        if (find(n)) make_mru(n);
        done = std::max(done, std::max(f->second, looked));
      } else if (find(n)) {
        out.hits += !atomic;
        make_mru(n);
        done = std::max(done, looked);
      } else {
        out.misses += !atomic;
        out.mem.push_back({false, n * c_.line_bytes, c_.line_bytes, looked});
        fills_[n] = looked + c_.mem_latency;
        allocate(n, looked, out);
        done = std::max(done, fills_[n]);
      }
      if (atomic)
        if (Way* w = find(n)) w->dirty = true;
    }
    out.delay = done - at;
    return out;
  }

  // Waits from `at` until the lines of [lo, hi] that must be fetched fit; false on error.
  template <class Whole>
  bool wait_for_mshrs(uint64_t at, uint64_t lo, uint64_t hi, Whole whole, uint64_t& start,
                      RefL2Outcome& out) {
    start = at;
    for (;;) {
      for (auto it = fills_.begin(); it != fills_.end();)
        it = it->second <= start ? fills_.erase(it) : std::next(it);
      uint64_t wanted = 0;
      for (uint64_t n = lo; n <= hi; ++n) wanted += !fills_.count(n) && !find(n) && !whole(n);
      if (wanted > c_.mshrs) {
        out.status = RefStatus::Error;
        return false;
      }
      if (fills_.size() + wanted <= c_.mshrs) return true;
      uint64_t first = UINT64_MAX;
      for (const auto& f : fills_) first = std::min(first, f.second);
      start = first;
    }
  }

  uint64_t bank(uint64_t n, uint64_t from) {
    uint64_t& free = bank_free_[n % c_.banks];
    const uint64_t s = std::max(from, free);
    free = s + 1;
    return s;
  }
  uint64_t tag_of(uint64_t n) const { return n / c_.sets; }
  Set& set_of(uint64_t n) { return sets_[n % c_.sets]; }
  Way* find(uint64_t n) {
    for (Way& w : set_of(n))
      if (w.tag == tag_of(n)) return &w;
    return nullptr;
  }
  void make_mru(uint64_t n) {
    Set& s = set_of(n);
    for (auto it = s.begin(); it != s.end(); ++it)
      if (it->tag == tag_of(n)) {
        s.splice(s.begin(), s, it);
        return;
      }
  }
  void allocate(uint64_t n, uint64_t at, RefL2Outcome& out) {
    Set& s = set_of(n);
    if (s.size() == c_.ways) {
      const Way victim = s.back();
      s.pop_back();
      if (victim.dirty) {
        ++out.writebacks;
        const uint64_t line = victim.tag * c_.sets + n % c_.sets;
        out.mem.push_back({true, line * c_.line_bytes, c_.line_bytes, at});
      }
    }
    s.push_front({tag_of(n), false});
  }

  RefL2Config c_;
  std::vector<Set> sets_;
  std::vector<uint64_t> bank_free_;
  std::map<uint64_t, uint64_t> fills_; // line -> fill cycle, one per busy MSHR
};

} // namespace gpurf::test
