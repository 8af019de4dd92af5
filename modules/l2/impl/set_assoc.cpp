// Set-associative L2 with LRU replacement, MSHRs, banks and a write-back/write-allocate or
// write-through/no-write-allocate policy. Tags only, like the L1 (policies/cache.h): every
// byte lives in the memory behind `mem`, which the front-end reads and writes functionally;
// a write's bytes are also put into the memory through its debug transport, so the memory
// holds them whatever the initiator, and a dirty line's write-back is a timed WRITE of the
// bytes the memory holds.
//
// Timing (cycles; t = now + the incoming delay, the arrival of the request). The lines a
// request covers are looked up in address order; line n is in bank n % banks, and each
// lookup takes its bank for one cycle (start = max(t0, bank free); waiting counts as
// bank_conflict_cycles).
//   MSHRs            before any lookup, a request waits (t0 >= t) until the lines it must
//                    fetch fit in the free MSHRs (the L1 cannot retry: mshr_wait_cycles).
//   READ hit         ready = start + hit_latency
//   READ merge       the line is being fetched: ready = max(its fill, start + hit_latency)
//   READ miss        a full-line READ to `mem` at start + hit_latency; ready = its response;
//                    the line is installed at once and holds an MSHR until the fill.
//   eviction         a dirty victim is written back (a full-line WRITE to `mem` at
//                    start + hit_latency, not waited for).
//   WRITE            write_back: a hit (or a line being fetched) becomes dirty; a miss
//                    allocates the line dirty, fetching it first (a full-line READ, an MSHR)
//                    unless the write covers every byte. The write completes at
//                    start + hit_latency of its last line.
//                    write_through: a hit only refreshes LRU, nothing is allocated; the
//                    request goes to `mem` as is at t0 + hit_latency of its last line and
//                    completes with the memory's acknowledgement.
//   atomic (a READ   write_back: performed in the L2, as a read whose lines become dirty.
//   with the LSU's   write_through: forwarded to `mem` at t + hit_latency (a READ of the same
//   atomic Txn)      bytes), the cached lines invalidated; ready = the memory's response.
// Dirty lines left at the end of the run are not written back. Streaming requests get
// TLM_BURST_ERROR_RESPONSE; an error response from the memory raises WorkloadError.
#include <algorithm>
#include <cstring>
#include <deque>
#include <vector>

#include "gpurf/modules/common/line_io.h"
#include "gpurf/modules/common/pending.h"
#include "gpurf/modules/l2/i_l2.h"
#include "gpurf/policies/cache.h"

namespace gpurf {
namespace {

class SetAssocL2 final : public IL2 {
public:
  SetAssocL2(sc_core::sc_module_name nm, Params& p, const UnitContext& c)
      : IL2(nm, c), geo_(CacheGeometry::read(p, {64, 8, 128, 32, 100, {}, {}})),
        banks_(p.get_uint("banks", 1,
                          "banks, each taking one lookup per cycle (line n in "
                          "bank n % banks)",
                          1, 1024)),
        write_back_(p.get_choice("write_policy", "write_back",
                                 "write_back: write-back, write-allocate (fetch on a partial "
                                 "write miss); write_through: write-through, no-write-allocate",
                                 {"write_back", "write_through"}) == "write_back"),
        reads_(stats().scalar("reads", "read requests (L1 line fills)", "requests",
                              energy::priced("l2_access_pj_per_request"))),
        line_reads_(
            stats().scalar("line_reads", "lines the read requests cover", "lines",
                           energy::no_event("lines the read requests cover; priced by reads"))),
        hits_(stats().scalar("hits", "line reads that hit", "lines",
                             energy::no_event("outcomes of reads; priced by reads"))),
        misses_(stats().scalar(
            "misses", "line reads that missed", "lines",
            energy::no_event("outcomes of reads; priced by reads and bytes_from_memory"))),
        mshr_merges_(stats().scalar("mshr_merges", "line reads merged with an in-flight miss",
                                    "lines",
                                    energy::no_event("outcomes of reads; priced by reads"))),
        writes_(stats().scalar("writes", "write requests (L1 write-throughs)", "requests",
                               energy::priced("l2_access_pj_per_request"))),
        write_hits_(stats().scalar(
            "write_hits", "lines of writes found cached", "lines",
            energy::no_event("outcomes of writes; priced by writes"),
            check::unwatched(
                "lines of writes by outcome: no other count of the lines writes cover"))),
        write_misses_(stats().scalar(
            "write_misses", "lines of writes not cached", "lines",
            energy::no_event("outcomes of writes; priced by writes"),
            check::unwatched(
                "lines of writes by outcome: no other count of the lines writes cover"))),
        write_fetches_(stats().scalar(
            "write_fetches", "lines fetched for a partial write miss (write_back)", "lines",
            energy::no_event("fills; priced by bytes_from_memory"),
            check::unwatched(
                "fills of partial write misses: their bytes are in bytes_from_memory"))),
        atomics_(stats().scalar("atomics", "atomic requests", "requests",
                                energy::priced("l2_access_pj_per_request"))),
        writebacks_(stats().scalar(
            "writebacks", "dirty lines written back on eviction", "lines",
            energy::priced("l2_access_pj_per_request (the dirty line read out of the L2)"))),
        write_throughs_(stats().scalar("write_throughs",
                                       "writes forwarded to the memory (write_through)", "requests",
                                       energy::no_event("writes forwarded; priced as l2 writes"))),
        bank_conflict_cycles_(stats().scalar("bank_conflict_cycles",
                                             "cycles lookups waited for their bank", "cycles",
                                             energy::no_event("waits"), check::unwatched("waits"))),
        mshr_wait_cycles_(stats().scalar("mshr_wait_cycles",
                                         "cycles requests waited for a free MSHR", "cycles",
                                         energy::no_event("waits"), check::unwatched("waits"))),
        bytes_from_mem_(stats().scalar("bytes_from_memory", "bytes read from memory", "bytes",
                                       energy::priced("l2_fill_pj_per_byte"))),
        bytes_to_mem_(stats().scalar(
            "bytes_to_memory", "bytes written to memory", "bytes",
            energy::no_event("write-backs and write-throughs; priced by memory.bytes_written"))),
        deferred_requests_(stats().scalar(
            "deferred_requests",
            "AT: requests that waited for a fill to free an MSHR (every MSHR pending)", "requests",
            energy::no_event("AT: waits for an MSHR"), check::unwatched("AT: waits for an MSHR"))),
        tags_(geo_.sets, geo_.ways, name()), mshrs_(geo_.mshrs), bank_free_(banks_, 0),
        buf_(geo_.line_bytes), victim_(geo_.line_bytes) {
    stats().ratio("hit_rate", "hits / (hits + misses + mshr_merges)", "ratio", {"hits"},
                  {"hits", "misses", "mshr_merges"});
    sc_assert(clock_);
  }

  Bytes largest_request() const override { return {geo_.line_bytes, geo_.line_keys}; }
  Bytes largest_served() const override {
    return {uint64_t(geo_.line_bytes) * geo_.mshrs, geo_.served_keys};
  }

  void dump_state(std::ostream& os) const override {
    os << "  MSHRs in use: " << mshrs_.in_use() << "/" << geo_.mshrs << "\n";
  }

protected:
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) override {
    const unsigned len = gp.get_data_length();
    if (answered_trivially(gp)) return;
    const unsigned sw = gp.get_streaming_width();
    if (sw != 0 && sw < len) {
      gp.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
      return;
    }
    Txn* t = nullptr;
    gp.get_extension(t);
    const bool atomic = t && t->inst && t->inst->info && t->inst->info->mem == MemKind::Atomic;
    const Cycle arrival = now() + clock_->cycles(delay);
    if (atomic) ++atomics_;
    if (atomic && !write_back_) {
      forward_atomic(gp, delay);
      return;
    }
    if (gp.is_write() && !write_back_) {
      write_through(gp, delay, arrival);
      return;
    }
    access(gp, delay, arrival, gp.is_write() ? Kind::Write : atomic ? Kind::Atomic : Kind::Read);
  }

private:
  enum class Kind { Read, Write, Atomic };

  uint64_t first_line(const tlm::tlm_generic_payload& gp) const {
    return gp.get_address() / geo_.line_bytes;
  }
  uint64_t last_line(const tlm::tlm_generic_payload& gp) const {
    return (gp.get_address() + gp.get_data_length() - 1) / geo_.line_bytes;
  }

  // The cycle line `l`'s lookup starts, no earlier than `t0`; takes its bank for a cycle.
  Cycle lookup_start(uint64_t l, Cycle t0) {
    Cycle& free = bank_free_[l % banks_];
    const Cycle start = std::max(t0, free);
    bank_conflict_cycles_ += start - t0;
    free = start + 1;
    return start;
  }

  // The bytes the memory holds for line `l`, untimed, into `buf`.
  void peek_line(uint64_t l, std::vector<unsigned char>& buf) {
    std::memset(buf.data(), 0, geo_.line_bytes);
    line_payload(mgp_, tlm::TLM_READ_COMMAND, l * geo_.line_bytes, buf.data(), geo_.line_bytes);
    mem->transport_dbg(mgp_);
  }

  // Sends a full-line READ (fill) or WRITE (write-back) of line `l` at cycle `at`; returns the
  // cycle the memory answers, or kNever with *pending set when it answers later (AT).
  Cycle line_transfer(tlm::tlm_command cmd, uint64_t l, Cycle at, std::vector<unsigned char>& buf,
                      PendingPtr* pending = nullptr) {
    line_payload(mgp_, cmd, l * geo_.line_bytes, buf.data(), geo_.line_bytes);
    sc_core::sc_time md = clock_->time(at - now());
    mem->b_transport(mgp_, md);
    PendingPtr p = take_pending(mgp_);
    check_memory_response(mgp_, name(),
                          cmd == tlm::TLM_READ_COMMAND ? "line fill READ" : "write-back WRITE");
    (cmd == tlm::TLM_READ_COMMAND ? bytes_from_mem_ : bytes_to_mem_) += geo_.line_bytes;
    if (p && pending) *pending = p;
    return p ? kNever : now() + clock_->cycles(md);
  }

  // Fetches line `l` at cycle `at` (miss): MSHR, install, write-back of a dirty victim. A fill
  // the memory answers later holds its MSHR until it does; *pending gets it.
  Cycle fill(uint64_t l, Cycle at, PendingPtr* pending) {
    PendingPtr p;
    const Cycle ready = line_transfer(tlm::TLM_READ_COMMAND, l, at, buf_, &p);
    if (p) {
      fills_.add(l, p, [this](Cycle c) {
        if (deferred_.empty()) return;
        clock_->now = c; // outside any SM's cycle: the shared clock is the answer's
        retry_deferred(c);
      });
      *pending = p;
    } else {
      mshrs_.add(l, ready);
    }
    install(l, at);
    return ready;
  }
  CacheTags::Line* install(uint64_t l, Cycle at) {
    const CacheTags::Line old = tags_.install(l);
    if (old.valid && old.dirty) {
      ++writebacks_;
      peek_line(old.line, victim_);
      line_transfer(tlm::TLM_WRITE_COMMAND, old.line, at, victim_);
    }
    return tags_.lookup(l);
  }

  // A read, a write-back write or an atomic performed here.
  // What the timing of a request needs once its bytes have moved (a deferred one keeps it).
  struct Timed {
    uint64_t first, last;
    Kind kind;
    std::vector<bool> covers; // a write covers line first + i entirely (no fetch)
    Cycle arrival;
  };

  // A read, a write-back write or an atomic performed here: the bytes move at once (the
  // memory holds them, the functional engine owns them), the timing follows.
  void access(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay, Cycle arrival, Kind kind) {
    Timed r{first_line(gp), last_line(gp), kind, {}, arrival};
    for (uint64_t l = r.first; l <= r.last; ++l)
      r.covers.push_back(kind == Kind::Write && covers(gp, l * geo_.line_bytes, geo_.line_bytes));
    Cycle ready = arrival;
    PendingPtr pending;
    const Mshrs::Status st = time(r, arrival, ready, pending);
    if (st == Mshrs::Status::Never) {
      gp.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE); // can never be served
      return;
    }
    move_bytes(gp, r);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    if (st == Mshrs::Status::Busy) {
      // Every MSHR waits on the memory's answer (AT) and the L1 cannot retry: the request
      // waits here for the first fill to arrive.
      deferred_.push_back({std::move(r), std::make_shared<Pending>()});
      ++deferred_requests_;
      set_pending(gp, deferred_.back().second);
      return;
    }
    delay += clock_->time(ready - arrival);
    if (pending) set_pending(gp, pending);
  }

  // The bytes of request `gp` moved between it and the memory's lines, untimed.
  void move_bytes(tlm::tlm_generic_payload& gp, const Timed& r) {
    for (uint64_t l = r.first; l <= r.last; ++l) {
      peek_line(l, buf_);
      if (r.kind == Kind::Write) { // merge the write into the line the memory holds
        move_overlap(gp, l * geo_.line_bytes, buf_.data(), geo_.line_bytes, /*to_request=*/false);
        line_payload(mgp_, tlm::TLM_WRITE_COMMAND, l * geo_.line_bytes, buf_.data(),
                     geo_.line_bytes);
        mem->transport_dbg(mgp_);
      } else {
        move_overlap(gp, l * geo_.line_bytes, buf_.data(), geo_.line_bytes, /*to_request=*/true);
      }
    }
  }

  // The timing of request `r` from cycle `from` (its arrival, or the cycle a fill freed an
  // MSHR for a deferred one): MSHR room, bank lookups, fills, LRU and dirty state, statistics.
  // Ok: `ready` is when it completes (`pending` set when a fill the memory answers later
  // decides it). Never and Busy (AT: every MSHR waits on the memory) change nothing.
  Mshrs::Status time(const Timed& r, Cycle from, Cycle& ready, PendingPtr& pending) {
    const bool write = r.kind == Kind::Write;
    // A write miss that covers its line allocates it without a fetch (no MSHR).
    auto fetches = [&](uint64_t l) {
      return !mshrs_.find(l) && !tags_.lookup(l) && !(write && r.covers[l - r.first]);
    };
    const Mshrs::Room room = mshrs_.room(from, true, [&] {
      unsigned n = 0;
      for (uint64_t l = r.first; l <= r.last; ++l) n += fetches(l);
      return n;
    });
    if (room.status != Mshrs::Status::Ok) return room.status;
    const Cycle t0 = room.start;
    mshr_wait_cycles_ += t0 - r.arrival;
    if (r.kind == Kind::Read) {
      ++reads_;
      line_reads_ += r.last - r.first + 1;
    }
    if (write) ++writes_;
    Cycle ready_max = t0;
    PendingJoin waits(t0); // fills the memory answers later (AT)
    for (uint64_t l = r.first; l <= r.last; ++l) {
      const Cycle looked_up = lookup_start(l, t0) + geo_.hit_latency;
      CacheTags::Line* line = tags_.lookup(l);
      const Mshrs::Entry* m = mshrs_.find(l);
      Cycle at = looked_up;
      if (write) {
        (line ? write_hits_ : write_misses_) += 1;
        if (!line && fetches(l)) {
          ++write_fetches_;
          PendingPtr unused; // the write does not wait for its fetch
          fill(l, looked_up, &unused);
          line = tags_.lookup(l);
        } else if (!line) {
          line = install(l, looked_up);
        }
        tags_.touch(line);
        line->dirty = true;
      } else {
        if (m) {
          if (r.kind == Kind::Read) ++mshr_merges_;
          if (m->complete == Mshrs::kPending)
            waits.add(fills_.of(l), looked_up);
          else
            at = std::max(m->complete, looked_up);
          if (line) tags_.touch(line);
        } else if (line) {
          if (r.kind == Kind::Read) ++hits_;
          tags_.touch(line);
        } else {
          if (r.kind == Kind::Read) ++misses_;
          PendingPtr p;
          const Cycle filled = fill(l, looked_up, &p);
          if (p)
            waits.add(p, looked_up);
          else
            at = filled;
        }
        if (r.kind == Kind::Atomic && (line = tags_.lookup(l))) line->dirty = true;
      }
      ready_max = std::max(ready_max, at);
    }
    ready = ready_max;
    if (!waits.empty()) {
      waits.at_least(ready_max);
      pending = waits.make();
    }
    return Mshrs::Status::Ok;
  }

  // A fill arrived at cycle `c` (AT): deferred requests take the MSHRs it freed, in order.
  void retry_deferred(Cycle c) {
    while (!deferred_.empty()) {
      auto& [r, answer] = deferred_.front();
      Cycle ready = c;
      PendingPtr pending;
      if (time(r, std::max(r.arrival, c), ready, pending) != Mshrs::Status::Ok) return;
      if (pending)
        pending->then([a = answer](Cycle at, const std::string& e) { a->complete(at, e); });
      else
        answer->complete(ready);
      deferred_.pop_front();
    }
  }

  void write_through(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay, Cycle arrival) {
    ++writes_;
    ++write_throughs_;
    Cycle sent = arrival;
    for (uint64_t l = first_line(gp); l <= last_line(gp); ++l) {
      sent = std::max(sent, lookup_start(l, arrival) + geo_.hit_latency);
      if (CacheTags::Line* line = tags_.lookup(l)) {
        ++write_hits_;
        tags_.touch(line);
      } else {
        ++write_misses_;
      }
    }
    sc_core::sc_time md = delay + clock_->time(sent - arrival);
    gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    mem->b_transport(gp, md);
    check_memory_response(gp, name(), "WRITE");
    bytes_to_mem_ += gp.get_data_length();
    delay = md;
  }

  void forward_atomic(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
    for (uint64_t l = first_line(gp); l <= last_line(gp); ++l) tags_.invalidate(l);
    sc_core::sc_time md = delay + clock_->time(geo_.hit_latency);
    gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    mem->b_transport(gp, md);
    check_memory_response(gp, name(), "atomic READ");
    bytes_from_mem_ += gp.get_data_length();
    delay = md;
  }

  const CacheGeometry geo_;
  const unsigned banks_;
  const bool write_back_;
  uint64_t &reads_, &line_reads_, &hits_, &misses_, &mshr_merges_, &writes_, &write_hits_,
      &write_misses_, &write_fetches_, &atomics_, &writebacks_, &write_throughs_,
      &bank_conflict_cycles_, &mshr_wait_cycles_, &bytes_from_mem_, &bytes_to_mem_,
      &deferred_requests_;
  CacheTags tags_;
  Mshrs mshrs_;
  std::vector<Cycle> bank_free_;
  std::vector<unsigned char> buf_, victim_;
  tlm::tlm_generic_payload mgp_;
  PendingFills<Mshrs> fills_{mshrs_};                 // fills the memory answers later (AT)
  std::deque<std::pair<Timed, PendingPtr>> deferred_; // AT: waiting for an MSHR
};

GPURF_REGISTER_UNIT(IL2, SetAssocL2, "set_assoc",
                    "set-associative LRU cache, banks, MSHRs, write-back or write-through");

} // namespace
} // namespace gpurf
