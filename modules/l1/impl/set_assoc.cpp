// Set-associative L1 with LRU replacement, MSHRs and a write-through, no-write-allocate
// policy for global stores. Only tags are kept: the data of a line lives in the memory
// (the L1 never holds dirty data, being write-through), so hits are served from the
// memory's debug transport and misses from the full-line READ that fills them.
//
// Timing (cycles; t = now + the incoming delay, the arrival of the request):
//   READ hit                      ready = t + hit_latency
//   READ miss                     a full-line READ goes to `mem` at t + hit_latency (the
//                                 tag lookup); ready = when its response is annotated, i.e.
//                                 t + hit_latency + memory delay (latency + serialisation
//                                 + queueing). The miss holds an MSHR until then.
//   READ to a line being missed   merges with the MSHR: ready = max(its fill, t + hit)
//   no free MSHR                  Txn initiators get `busy` and the cycle the earliest
//                                 MSHR frees (retry_at; the LSU sleeps until then);
//                                 initiators without a Txn are serialised behind the
//                                 earliest MSHR to free.
//   WRITE (write-through,         forwarded to `mem` as is (data, byte enables) at
//   no-write-allocate)            t + hit_latency; a hit only refreshes the line's LRU
//                                 state. With posted_writes the initiator sees
//                                 hit_latency, otherwise the memory's acknowledgement.
//   atomic (Txn inst's MemKind)   a READ of the same bytes to `mem`, for timing only: the
//                                 front-end's functional engine has already performed the
//                                 atomic on the memory, so the L1 must neither cache nor
//                                 modify anything; it invalidates the line (atomics are
//                                 performed beyond the L1) and returns the memory's delay.
//                                 The READ carries the Txn, so an L2 behind can tell.
// A request may span several lines (each is looked up; the request is ready when its last
// line is). Streaming reads get TLM_BURST_ERROR_RESPONSE; an error response from the memory
// raises WorkloadError.
#include <algorithm>
#include <cstring>
#include <sstream>
#include <vector>

#include "gpurf/modules/common/line_io.h"
#include "gpurf/modules/common/pending.h"
#include "gpurf/modules/l1/i_l1.h"
#include "gpurf/policies/cache.h"

namespace gpurf {
namespace {

class SetAssocL1 final : public IL1 {
public:
  SetAssocL1(sc_core::sc_module_name nm, Params& p, const UnitContext& c)
      : IL1(nm, c), geo_(CacheGeometry::read(p, {32, 4, 128, 32, 20, {}, {}})),
        posted_writes_(p.get_bool("posted_writes", true,
                                  "stores complete after hit_latency instead of waiting for "
                                  "the memory's write acknowledgement")),
        reads_(stats().scalar("reads", "read requests", "requests",
                              energy::priced("l1_access_pj_per_request"))),
        line_reads_(
            stats().scalar("line_reads", "lines the read requests cover", "lines",
                           energy::no_event("lines the read requests cover; priced by reads"))),
        writes_(stats().scalar("writes", "write requests (write-through)", "requests",
                               energy::priced("l1_access_pj_per_request"))),
        atomics_(stats().scalar("atomics", "atomic requests (forwarded)", "requests",
                                energy::priced("l1_access_pj_per_request"))),
        hits_(stats().scalar("hits", "line reads that hit", "lines",
                             energy::no_event("outcomes of reads; priced by reads"))),
        misses_(stats().scalar(
            "misses", "line reads that missed", "lines",
            energy::no_event("outcomes of reads; priced by reads and bytes_from_memory"))),
        mshr_merges_(stats().scalar("mshr_merges", "line reads merged with an in-flight miss",
                                    "lines",
                                    energy::no_event("outcomes of reads; priced by reads"))),
        mshr_full_(
            stats().scalar("mshr_full_stalls", "requests refused (busy): no free MSHR", "requests",
                           energy::no_event("stalls"),
                           check::unwatched("requests refused for want of an MSHR (stalls)"))),
        write_hits_(stats().scalar(
            "write_hits", "writes to a cached line", "lines",
            energy::no_event("outcomes of writes; priced by writes"),
            check::unwatched(
                "lines of writes found cached (a write-through L1 allocates nothing)"))),
        bytes_from_mem_(stats().scalar("bytes_from_memory", "bytes read from memory", "bytes",
                                       energy::priced("l1_fill_pj_per_byte"))),
        bytes_to_mem_(stats().scalar(
            "bytes_to_memory", "bytes written to memory", "bytes",
            energy::no_event("write-through bytes; priced by memory.bytes_written"))) {
    buf_.resize(geo_.line_bytes);
    stats().ratio("hit_rate", "hits / (hits + misses + mshr_merges)", "ratio", {"hits"},
                  {"hits", "misses", "mshr_merges"});
    sc_assert(clock_);
  }

  Bytes largest_request() const override { return {geo_.line_bytes, geo_.line_keys}; }
  Bytes largest_served() const override {
    return {uint64_t(geo_.line_bytes) * geo_.mshrs, geo_.served_keys};
  }

  void dump_state(std::ostream& os) const override {
    os << "  MSHRs in use: " << mshrs_.in_use() << "/" << geo_.mshrs;
    for (const Mshrs::Entry& m : mshrs_.entries())
      os << " [0x" << std::hex << m.line * geo_.line_bytes << std::dec << " until " << m.complete
         << "]";
    os << "\n";
  }

protected:
  void b_transport(int, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) override {
    Txn* t = nullptr;
    gp.get_extension(t);
    if (t) mshr_full_ += t->skipped; // refused while the LSU slept on Txn::retry_at
    const tlm::tlm_command cmd = gp.get_command();
    const unsigned len = gp.get_data_length();
    if (answered_trivially(gp)) return;
    const Cycle arrival = now() + clock_->cycles(delay);
    if (t && t->inst && t->inst->info && t->inst->info->mem == MemKind::Atomic) {
      atomic(gp, delay, *t);
    } else if (cmd == tlm::TLM_WRITE_COMMAND) {
      write(gp, delay);
    } else {
      const unsigned sw = gp.get_streaming_width();
      if (sw != 0 && sw < len) {
        gp.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
        return;
      }
      read(gp, delay, arrival, t);
    }
  }

private:
  // The current bytes of `line` into buf_, untimed (a hit: the memory holds the line's data
  // since the L1 is write-through).
  void peek_line(uint64_t line) {
    std::memset(buf_.data(), 0, geo_.line_bytes);
    line_payload(mgp_, tlm::TLM_READ_COMMAND, line * geo_.line_bytes, buf_.data(), geo_.line_bytes);
    mem->transport_dbg(mgp_);
  }

  void read(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay, Cycle arrival, Txn* t) {
    const uint64_t addr = gp.get_address();
    const uint64_t first = addr / geo_.line_bytes;
    const uint64_t last = (addr + gp.get_data_length() - 1) / geo_.line_bytes;
    const Mshrs::Room room = mshrs_.room(arrival, !t, [&] {
      unsigned needed = 0;
      for (uint64_t l = first; l <= last; ++l) needed += !mshrs_.find(l) && !tags_.lookup(l);
      return needed;
    });
    if (room.status == Mshrs::Status::Never) {
      gp.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE); // can never be served
      return;
    }
    if (room.status == Mshrs::Status::Busy) {
      if (!t) // cannot retry, and every fill is pending on the memory (AT)
        throw WorkloadError(std::string(name()) + ": every MSHR waits on the memory's answer");
      t->busy = true;
      ++mshr_full_;
      // No MSHR frees before the earliest fill arrives (only the LSUs send reads, each
      // refused alike while they are full); a fill the memory answers later: retry.
      if (mshrs_.earliest() != Mshrs::kPending) t->retry_at = mshrs_.earliest();
      return;
    }
    const Cycle t0 = room.start;
    ++reads_;
    line_reads_ += last - first + 1;
    Cycle ready_max = t0;
    PendingJoin waits(t0); // fills the memory answers later (AT)
    for (uint64_t l = first; l <= last; ++l) {
      Cycle ready;
      CacheTags::Line* line = tags_.lookup(l);
      if (const Mshrs::Entry* m = mshrs_.find(l)) {
        ++mshr_merges_;
        ready = t0 + geo_.hit_latency;
        if (m->complete == Mshrs::kPending)
          waits.add(fills_.of(l), ready);
        else
          ready = std::max(m->complete, ready);
        if (line) tags_.touch(line);
        peek_line(l);
      } else if (line) {
        ++hits_;
        tags_.touch(line);
        ready = t0 + geo_.hit_latency;
        peek_line(l);
      } else {
        ++misses_;
        line_payload(mgp_, tlm::TLM_READ_COMMAND, l * geo_.line_bytes, buf_.data(),
                     geo_.line_bytes);
        sc_core::sc_time md = delay + clock_->time(t0 - arrival + geo_.hit_latency);
        mem->b_transport(mgp_, md);
        check_memory_response(mgp_, name(), "line fill READ");
        if (PendingPtr p = take_pending(mgp_)) {
          ready = t0 + geo_.hit_latency;
          waits.add(p, ready);
          fills_.add(l, p);
        } else {
          ready = now() + clock_->cycles(md);
          mshrs_.add(l, ready);
        }
        tags_.install(l);
        bytes_from_mem_ += geo_.line_bytes;
      }
      move_overlap(gp, l * geo_.line_bytes, buf_.data(), geo_.line_bytes, /*to_request=*/true);
      ready_max = std::max(ready_max, ready);
    }
    delay += clock_->time(ready_max - arrival);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    if (!waits.empty()) {
      waits.at_least(ready_max);
      set_pending(gp, waits.make());
    }
  }

  void write(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
    ++writes_;
    const uint64_t addr = gp.get_address();
    for (uint64_t l = addr / geo_.line_bytes;
         l <= (addr + gp.get_data_length() - 1) / geo_.line_bytes; ++l)
      if (CacheTags::Line* line = tags_.lookup(l)) {
        ++write_hits_;
        tags_.touch(line);
      }
    sc_core::sc_time md = delay + clock_->time(geo_.hit_latency);
    gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    mem->b_transport(gp, md);
    check_memory_response(gp, name(), "WRITE");
    if (posted_writes_) take_pending(gp); // the store does not wait for the memory
    bytes_to_mem_ += gp.get_data_length();
    delay = posted_writes_ ? delay + clock_->time(geo_.hit_latency) : md;
  }

  void atomic(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay, Txn& t) {
    ++atomics_;
    const uint64_t addr = gp.get_address();
    const unsigned len = gp.get_data_length();
    for (uint64_t l = addr / geo_.line_bytes; l <= (addr + len - 1) / geo_.line_bytes; ++l)
      tags_.invalidate(l);
    std::vector<unsigned char> scratch(len);
    tlm::tlm_generic_payload ag;
    ag.set_command(tlm::TLM_READ_COMMAND);
    ag.set_address(addr);
    ag.set_data_ptr(scratch.data());
    ag.set_data_length(len);
    ag.set_streaming_width(len);
    ag.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    ag.set_extension(&t);
    sc_core::sc_time md = delay + clock_->time(geo_.hit_latency);
    mem->b_transport(ag, md);
    ag.clear_extension(&t);
    if (PendingPtr p = take_pending(ag)) set_pending(gp, p);
    check_memory_response(ag, name(), "atomic READ");
    bytes_from_mem_ += len;
    if (gp.get_command() == tlm::TLM_READ_COMMAND) {
      const unsigned char* be = gp.get_byte_enable_ptr();
      const unsigned be_len = gp.get_byte_enable_length();
      for (unsigned i = 0; i < len; ++i)
        if (!be || be[i % be_len] == TLM_BYTE_ENABLED) gp.get_data_ptr()[i] = scratch[i];
    }
    delay = md;
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
  }

  const CacheGeometry geo_;
  const bool posted_writes_;
  uint64_t &reads_, &line_reads_, &writes_, &atomics_, &hits_, &misses_, &mshr_merges_, &mshr_full_,
      &write_hits_, &bytes_from_mem_, &bytes_to_mem_;
  CacheTags tags_{geo_.sets, geo_.ways, name()};
  Mshrs mshrs_{geo_.mshrs};
  std::vector<unsigned char> buf_;
  tlm::tlm_generic_payload mgp_;
  PendingFills<Mshrs> fills_{mshrs_}; // fills the memory answers later (AT)
};

GPURF_REGISTER_UNIT(IL1, SetAssocL1, "set_assoc",
                    "set-associative LRU cache, MSHRs, write-through no-write-allocate");

} // namespace
} // namespace gpurf
