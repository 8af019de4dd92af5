// A reference model of the "set_assoc" L1 (modules/l1/impl/set_assoc.cpp), in plain C++
// without SystemC, written from that unit's documented behaviour (not from its code) so
// that the two can be replayed against each other access by access
// (tests/module/mem_l1_replay_test.cpp). Only the outcome of each access is modelled:
// which lines hit, miss or merge, whether the request is refused, its latency and the
// requests it sends to the memory. Data is not modelled (the unit keeps tags only).
//
// What it models, in cycles, for one access arriving at cycle `at` (the unit's now + the
// incoming delay), with a memory of fixed latency `mem_latency` behind it:
//   - geometry: a line is `line_bytes` bytes; line number n = address / line_bytes lives in
//     set n % sets with tag n / sets (the whole remaining address, every bit compared);
//     each set holds up to `ways` lines, replaced least-recently-used first.
//   - read: each line of [addr, addr + len) in address order is
//       in flight (an MSHR holds it)  -> merge: ready at max(fill, start + hit_latency); if
//                                        the line is still resident it becomes the MRU one
//       resident                      -> hit: ready at start + hit_latency, becomes MRU
//       otherwise                     -> miss: one full-line READ to memory sent at
//                                        start + hit_latency, filled (and its MSHR freed)
//                                        mem_latency later; the line is installed as the
//                                        MRU one at once (at miss time, not at fill time),
//                                        evicting the set's LRU line when the set is full.
//     The access is ready when its last line is; its delay counts from `at`.
//     MSHRs whose fill is at or before the start are free. Before any line is looked up,
//     the lines that would need a new MSHR (neither in flight nor resident) are counted:
//     more than `mshrs` -> error (can never be served); more than the free MSHRs -> an
//     initiator that can retry (a Txn) is refused (busy, nothing changes), others wait
//     until the earliest fill and try again from there (start = that fill).
//   - write: write-through, no-write-allocate: every resident line it covers is a write
//     hit and becomes MRU, nothing is installed, MSHRs are not involved; the write goes to
//     memory as is at at + hit_latency. Delay: hit_latency when writes are posted, else
//     hit_latency + mem_latency.
//   - atomic: every resident line it covers is invalidated (MSHRs stay as they are, so a
//     line still in flight keeps merging until its fill); a READ of the same bytes goes
//     to memory at at + hit_latency; delay hit_latency + mem_latency.
#pragma once

#include <algorithm>
#include <cstdint>
#include <list>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace gpurf::test {

struct RefL1Config {
  uint64_t sets = 32;
  uint64_t ways = 4;
  uint64_t line_bytes = 128;
  uint64_t mshrs = 32;
  uint64_t hit_latency = 20;
  uint64_t mem_latency = 50; // the fixed latency of the memory behind the L1
  bool posted_writes = true;
};

// One request the L1 sends to memory.
struct RefMemReq {
  bool write = false;
  uint64_t addr = 0;
  uint64_t len = 0;
  uint64_t at = 0; // the cycle it is sent
  bool operator==(const RefMemReq& o) const {
    return write == o.write && addr == o.addr && len == o.len && at == o.at;
  }
};

enum class RefStatus { Ok, Busy, Error };

// The outcome of one access.
struct RefOutcome {
  RefStatus status = RefStatus::Ok;
  unsigned hits = 0, misses = 0, merges = 0; // line reads (reads only)
  unsigned write_hits = 0;                   // resident lines a write covered
  uint64_t delay = 0;                        // cycles from the arrival (status Ok)
  std::vector<RefMemReq> mem;                // in the order sent

  bool operator==(const RefOutcome& o) const {
    return status == o.status && hits == o.hits && misses == o.misses && merges == o.merges &&
           write_hits == o.write_hits && (status != RefStatus::Ok || delay == o.delay) &&
           mem == o.mem;
  }
  bool operator!=(const RefOutcome& o) const { return !(*this == o); }
  std::string str() const {
    std::ostringstream os;
    if (status == RefStatus::Busy) os << "busy";
    if (status == RefStatus::Error) os << "error";
    if (status == RefStatus::Ok) {
      const char* sep = "";
      auto item = [&](unsigned n, const char* what) {
        if (!n) return;
        os << sep << n << " " << what;
        sep = ", ";
      };
      item(hits, "hit");
      item(misses, "miss");
      item(merges, "merge");
      item(write_hits, "write hit");
      if (!*sep) os << "no line hit";
      os << "; delay " << delay;
    }
    os << "; memory {";
    for (size_t i = 0; i < mem.size(); ++i)
      os << (i ? ", " : "") << (mem[i].write ? "W" : "R") << " 0x" << std::hex << mem[i].addr
         << std::dec << "+" << mem[i].len << " @" << mem[i].at;
    os << "}";
    return os.str();
  }
};

class ReferenceL1 {
public:
  explicit ReferenceL1(const RefL1Config& c) : c_(c), sets_(c.sets) {}

  const RefL1Config& config() const { return c_; }

  // A read arriving at cycle `at`; `can_retry`: the initiator takes `busy` (it has a Txn).
  RefOutcome read(uint64_t at, uint64_t addr, uint64_t len, bool can_retry = true) {
    RefOutcome out;
    const uint64_t lo = addr / c_.line_bytes, hi = (addr + len - 1) / c_.line_bytes;
    uint64_t start = at;
    for (;;) {
      free_mshrs(start);
      uint64_t wanted = 0;
      for (uint64_t n = lo; n <= hi; ++n) wanted += !fills_.count(n) && !resident(n);
      if (wanted > c_.mshrs) {
        out.status = RefStatus::Error;
        return out;
      }
      if (fills_.size() + wanted <= c_.mshrs) break;
      if (can_retry) {
        out.status = RefStatus::Busy;
        return out;
      }
      uint64_t first_fill = UINT64_MAX;
      for (const auto& f : fills_) first_fill = std::min(first_fill, f.second);
      start = first_fill;
    }
    uint64_t done = start;
    const uint64_t looked_up = start + c_.hit_latency;
    for (uint64_t n = lo; n <= hi; ++n) {
      auto f = fills_.find(n);
      if (f != fills_.end()) {
        ++out.merges;
        if (resident(n)) make_mru(n);
        done = std::max(done, std::max(f->second, looked_up));
      } else if (resident(n)) {
        ++out.hits;
        make_mru(n);
        done = std::max(done, looked_up);
      } else {
        ++out.misses;
        out.mem.push_back({false, n * c_.line_bytes, c_.line_bytes, looked_up});
        const uint64_t fill = looked_up + c_.mem_latency;
        fills_[n] = fill;
        allocate(n);
        done = std::max(done, fill);
      }
    }
    out.delay = done - at;
    return out;
  }

  RefOutcome write(uint64_t at, uint64_t addr, uint64_t len) {
    RefOutcome out;
    for (uint64_t n = addr / c_.line_bytes; n <= (addr + len - 1) / c_.line_bytes; ++n)
      if (resident(n)) {
        ++out.write_hits;
        make_mru(n);
      }
    out.mem.push_back({true, addr, len, at + c_.hit_latency});
    out.delay = c_.hit_latency + (c_.posted_writes ? 0 : c_.mem_latency);
    return out;
  }

  RefOutcome atomic(uint64_t at, uint64_t addr, uint64_t len) {
    RefOutcome out;
    for (uint64_t n = addr / c_.line_bytes; n <= (addr + len - 1) / c_.line_bytes; ++n)
      set_of(n).remove(tag_of(n));
    out.mem.push_back({false, addr, len, at + c_.hit_latency});
    out.delay = c_.hit_latency + c_.mem_latency;
    return out;
  }

  // Inspection, for the model's own tests.
  bool resident_addr(uint64_t addr) const { return resident(addr / c_.line_bytes); }
  bool in_flight_addr(uint64_t addr) const { return fills_.count(addr / c_.line_bytes) != 0; }
  size_t mshrs_in_use() const { return fills_.size(); }
  // The line addresses resident in the set of `addr`, most recently used first.
  std::vector<uint64_t> set_lines(uint64_t addr) const {
    const uint64_t n = addr / c_.line_bytes, index = n % c_.sets;
    std::vector<uint64_t> v;
    for (uint64_t tag : sets_[index]) v.push_back((tag * c_.sets + index) * c_.line_bytes);
    return v;
  }

private:
  using Set = std::list<uint64_t>; // tags, most recently used first

  uint64_t tag_of(uint64_t n) const { return n / c_.sets; }
  Set& set_of(uint64_t n) { return sets_[n % c_.sets]; }
  const Set& set_of(uint64_t n) const { return sets_[n % c_.sets]; }
  bool resident(uint64_t n) const {
    const Set& s = set_of(n);
    return std::find(s.begin(), s.end(), tag_of(n)) != s.end();
  }
  void make_mru(uint64_t n) {
    Set& s = set_of(n);
    s.remove(tag_of(n));
    s.push_front(tag_of(n));
  }
  void allocate(uint64_t n) {
    Set& s = set_of(n);
    if (s.size() == c_.ways) s.pop_back();
    s.push_front(tag_of(n));
  }
  void free_mshrs(uint64_t t) {
    for (auto it = fills_.begin(); it != fills_.end();)
      it = it->second <= t ? fills_.erase(it) : std::next(it);
  }

  RefL1Config c_;
  std::vector<Set> sets_;
  std::map<uint64_t, uint64_t> fills_; // line number -> fill cycle, one per busy MSHR
};

} // namespace gpurf::test
