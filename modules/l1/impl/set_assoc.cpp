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
//   no free MSHR                  Txn initiators get `busy` (the LSU retries next cycle);
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
// A request may span several lines (each is looked up; the request is ready when its last
// line is). Streaming reads get TLM_BURST_ERROR_RESPONSE; an error response from the memory
// raises WorkloadError.
#include <algorithm>
#include <cstring>
#include <sstream>
#include <vector>

#include "modules/l1/i_l1.h"

namespace gpurf {
namespace {

class SetAssocL1 final : public IL1 {
public:
  SetAssocL1(sc_core::sc_module_name nm, Params& p, const UnitContext& c)
      : IL1(nm, c), sets_(p.get_uint("sets", 32, "number of sets", 1)),
        ways_(p.get_uint("ways", 4, "lines per set", 1)),
        line_bytes_(
            p.get_uint("line_bytes", 128, "line size in bytes (power of two)", 4, 1u << 16)),
        mshr_count_(p.get_uint("mshrs", 32, "miss status holding registers", 1)),
        hit_latency_(p.get_uint("hit_latency", 20, "tag lookup / hit latency in cycles", 0)),
        posted_writes_(p.get_bool("posted_writes", true,
                                  "stores complete after hit_latency instead of waiting for "
                                  "the memory's write acknowledgement")),
        reads_(stats().scalar("reads", "read requests", "requests")),
        line_reads_(stats().scalar("line_reads", "lines the read requests cover", "lines")),
        writes_(stats().scalar("writes", "write requests (write-through)", "requests")),
        atomics_(stats().scalar("atomics", "atomic requests (forwarded)", "requests")),
        hits_(stats().scalar("hits", "line reads that hit", "lines")),
        misses_(stats().scalar("misses", "line reads that missed", "lines")),
        mshr_merges_(
            stats().scalar("mshr_merges", "line reads merged with an in-flight miss", "lines")),
        mshr_full_(stats().scalar("mshr_full_stalls", "requests refused (busy): no free MSHR",
                                  "requests")),
        write_hits_(stats().scalar("write_hits", "writes to a cached line", "lines")),
        bytes_from_mem_(stats().scalar("bytes_from_memory", "bytes read from memory", "bytes")),
        bytes_to_mem_(stats().scalar("bytes_to_memory", "bytes written to memory", "bytes")) {
    if (line_bytes_ & (line_bytes_ - 1)) p.fail("line_bytes", "must be a power of two");
    lines_.resize(size_t(sets_) * ways_);
    buf_.resize(line_bytes_);
    stats().formula("hit_rate", "hits / (hits + misses + mshr_merges)", "ratio", [this] {
      const double n = double(hits_ + misses_ + mshr_merges_);
      return n ? double(hits_) / n : 0.0;
    });
    sc_assert(clock_);
  }

  void dump_state(std::ostream& os) const override {
    os << "  MSHRs in use: " << mshrs_.size() << "/" << mshr_count_;
    for (const Mshr& m : mshrs_)
      os << " [0x" << std::hex << m.line * line_bytes_ << std::dec << " until " << m.complete
         << "]";
    os << "\n";
  }

protected:
  void b_transport(int, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) override {
    Txn* t = nullptr;
    gp.get_extension(t);
    const tlm::tlm_command cmd = gp.get_command();
    const unsigned len = gp.get_data_length();
    if (cmd == tlm::TLM_IGNORE_COMMAND || len == 0) {
      gp.set_response_status(tlm::TLM_OK_RESPONSE);
      return;
    }
    if (!gp.get_data_ptr()) {
      gp.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
      return;
    }
    if (gp.get_byte_enable_ptr() && gp.get_byte_enable_length() == 0) {
      gp.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
      return;
    }
    const Cycle arrival = now() + clock_->cycles(delay);
    if (t && t->inst && t->inst->info && t->inst->info->mem == MemKind::Atomic) {
      atomic(gp, delay);
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
  struct Line {
    uint64_t line = 0; // line number (address / line_bytes)
    bool valid = false;
    uint64_t lru = 0; // last use stamp
  };
  struct Mshr {
    uint64_t line;
    Cycle complete; // the fill arrives; the MSHR is free from this cycle on
  };

  Line* lookup(uint64_t line) {
    Line* set = &lines_[(line % sets_) * ways_];
    for (unsigned w = 0; w < ways_; ++w)
      if (set[w].valid && set[w].line == line) return &set[w];
    return nullptr;
  }
  void touch(Line* l) { l->lru = ++stamp_; }
  void install(uint64_t line) {
    Line* set = &lines_[(line % sets_) * ways_];
    Line* victim = &set[0];
    for (unsigned w = 0; w < ways_; ++w) {
      if (!set[w].valid) {
        victim = &set[w];
        break;
      }
      if (set[w].lru < victim->lru) victim = &set[w];
    }
    victim->valid = true;
    victim->line = line;
    touch(victim);
  }
  const Mshr* in_flight(uint64_t line) const {
    for (const Mshr& m : mshrs_)
      if (m.line == line) return &m;
    return nullptr;
  }
  // Frees the MSHRs whose fill has arrived by cycle `t`.
  void release(Cycle t) {
    mshrs_.erase(std::remove_if(mshrs_.begin(), mshrs_.end(),
                                [t](const Mshr& m) { return m.complete <= t; }),
                 mshrs_.end());
  }

  void check(const tlm::tlm_generic_payload& gp, const char* what) const {
    if (gp.is_response_ok()) return;
    std::ostringstream os;
    os << name() << ": memory " << what << " of " << gp.get_data_length() << " bytes at 0x"
       << std::hex << gp.get_address() << " failed: " << gp.get_response_string();
    throw WorkloadError(os.str());
  }

  // Copies the requested bytes of `line` (whose data is in buf_) into the payload.
  void copy_out(tlm::tlm_generic_payload& gp, uint64_t line) {
    const uint64_t addr = gp.get_address(), base = line * line_bytes_;
    const uint64_t lo = std::max(addr, base);
    const uint64_t hi = std::min<uint64_t>(addr + gp.get_data_length(), base + line_bytes_);
    unsigned char* data = gp.get_data_ptr();
    const unsigned char* be = gp.get_byte_enable_ptr();
    const unsigned be_len = gp.get_byte_enable_length();
    for (uint64_t a = lo; a < hi; ++a) {
      const uint64_t i = a - addr;
      if (be && be[i % be_len] != TLM_BYTE_ENABLED) continue;
      data[i] = buf_[a - base];
    }
  }

  // The current bytes of `line` into buf_, untimed (a hit: the memory holds the line's data
  // since the L1 is write-through).
  void peek_line(uint64_t line) {
    std::memset(buf_.data(), 0, line_bytes_);
    mgp_.set_command(tlm::TLM_READ_COMMAND);
    mgp_.set_address(line * line_bytes_);
    mgp_.set_data_ptr(buf_.data());
    mgp_.set_data_length(line_bytes_);
    mgp_.set_streaming_width(line_bytes_);
    mgp_.set_byte_enable_ptr(nullptr);
    mgp_.set_byte_enable_length(0);
    mem->transport_dbg(mgp_);
  }

  void read(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay, Cycle arrival, Txn* t) {
    const uint64_t addr = gp.get_address();
    const uint64_t first = addr / line_bytes_;
    const uint64_t last = (addr + gp.get_data_length() - 1) / line_bytes_;
    Cycle t0 = arrival;
    for (;;) {
      release(t0);
      unsigned needed = 0;
      for (uint64_t l = first; l <= last; ++l)
        if (!in_flight(l) && !lookup(l)) ++needed;
      if (needed > mshr_count_) {
        gp.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE); // can never be served
        return;
      }
      if (mshrs_.size() + needed <= mshr_count_) break;
      if (t) {
        t->busy = true;
        ++mshr_full_;
        return;
      }
      // No Txn: an external initiator cannot retry; serialise it behind the first fill.
      Cycle next = kNever;
      for (const Mshr& m : mshrs_) next = std::min(next, m.complete);
      t0 = next;
    }
    ++reads_;
    line_reads_ += last - first + 1;
    Cycle ready_max = t0;
    for (uint64_t l = first; l <= last; ++l) {
      Cycle ready;
      Line* line = lookup(l);
      if (const Mshr* m = in_flight(l)) {
        ++mshr_merges_;
        ready = std::max(m->complete, t0 + hit_latency_);
        if (line) touch(line);
        peek_line(l);
      } else if (line) {
        ++hits_;
        touch(line);
        ready = t0 + hit_latency_;
        peek_line(l);
      } else {
        ++misses_;
        mgp_.set_command(tlm::TLM_READ_COMMAND);
        mgp_.set_address(l * line_bytes_);
        mgp_.set_data_ptr(buf_.data());
        mgp_.set_data_length(line_bytes_);
        mgp_.set_streaming_width(line_bytes_);
        mgp_.set_byte_enable_ptr(nullptr);
        mgp_.set_byte_enable_length(0);
        mgp_.set_dmi_allowed(false);
        mgp_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        sc_core::sc_time md = delay + clock_->time(t0 - arrival + hit_latency_);
        mem->b_transport(mgp_, md);
        check(mgp_, "line fill READ");
        ready = now() + clock_->cycles(md);
        mshrs_.push_back({l, ready});
        install(l);
        bytes_from_mem_ += line_bytes_;
      }
      copy_out(gp, l);
      ready_max = std::max(ready_max, ready);
    }
    delay += clock_->time(ready_max - arrival);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
  }

  void write(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
    ++writes_;
    const uint64_t addr = gp.get_address();
    for (uint64_t l = addr / line_bytes_; l <= (addr + gp.get_data_length() - 1) / line_bytes_; ++l)
      if (Line* line = lookup(l)) {
        ++write_hits_;
        touch(line);
      }
    sc_core::sc_time md = delay + clock_->time(hit_latency_);
    gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    mem->b_transport(gp, md);
    check(gp, "WRITE");
    bytes_to_mem_ += gp.get_data_length();
    delay = posted_writes_ ? delay + clock_->time(hit_latency_) : md;
  }

  void atomic(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
    ++atomics_;
    const uint64_t addr = gp.get_address();
    const unsigned len = gp.get_data_length();
    for (uint64_t l = addr / line_bytes_; l <= (addr + len - 1) / line_bytes_; ++l)
      if (Line* line = lookup(l)) line->valid = false;
    std::vector<unsigned char> scratch(len);
    tlm::tlm_generic_payload ag;
    ag.set_command(tlm::TLM_READ_COMMAND);
    ag.set_address(addr);
    ag.set_data_ptr(scratch.data());
    ag.set_data_length(len);
    ag.set_streaming_width(len);
    ag.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time md = delay + clock_->time(hit_latency_);
    mem->b_transport(ag, md);
    check(ag, "atomic READ");
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

  const unsigned sets_, ways_, line_bytes_, mshr_count_, hit_latency_;
  const bool posted_writes_;
  uint64_t &reads_, &line_reads_, &writes_, &atomics_, &hits_, &misses_, &mshr_merges_, &mshr_full_,
      &write_hits_, &bytes_from_mem_, &bytes_to_mem_;
  std::vector<Line> lines_;
  std::vector<Mshr> mshrs_;
  uint64_t stamp_ = 0;
  std::vector<unsigned char> buf_;
  tlm::tlm_generic_payload mgp_;
};

GPURF_REGISTER_UNIT(IL1, SetAssocL1, "set_assoc",
                    "set-associative LRU cache, MSHRs, write-through no-write-allocate");

} // namespace
} // namespace gpurf
