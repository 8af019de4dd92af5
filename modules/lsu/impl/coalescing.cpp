// Load/store unit with GPGPU-Sim/Fermi-style coalescing.
//
// An instruction is accepted every `initiation_interval` cycles while the queue has room
// (otherwise the Dispatch gets busy), spends `latency` cycles in the pipeline (address
// generation) and then owns the L1/shared-memory port, in order:
//   global, local  the active lanes' bytes are grouped into aligned segment_bytes segments
//                  (in the order of the first lane touching each); one access per cycle is
//                  sent to the L1: READ (loads and atomics; the L1 recognises atomics by the
//                  Txn inst) or WRITE (stores) of the whole segment with byte enables set on
//                  the bytes the lanes touch. A busy L1 (no MSHR) is retried next cycle.
//                  The result is ready when the slowest access is (max annotated delay).
//                  Store data: the front-end's functional engine has already written the
//                  memory when it executed the store, so the WRITE carries the current
//                  bytes of the segment read through the L1's debug transport: the memory
//                  content is unchanged and a memory model (or a VP) sees every store with
//                  its real data.
//   shared         no L1 traffic; the port is held for `degree` cycles, degree = max over
//                  the banks of the distinct bank words accessed in it (lanes reading the
//                  same word are served by a broadcast); ready = last port cycle +
//                  shared_latency, i.e. shared_latency + degree - 1 after the first.
//   const, param   one port cycle; ready after const_latency / param_latency (a constant
//                  cache hit; kernel parameters live in constant bank 0 on Fermi).
// On the instruction's last port cycle the LSU sends Complete to the writeback with the
// cycles until the result is ready as the delay (a busy writeback is retried next cycle).
// Latency defaults: shared_latency 20 follows Gebhart et al.'s shared-memory latency;
// baselines set their own.
#include <algorithm>
#include <array>
#include <cstring>
#include <list>
#include <sstream>
#include <vector>

#include "gpurf/modules/common/pending.h"
#include "gpurf/modules/common/skipped_retries.h"
#include "gpurf/modules/frontend/i_frontend.h"
#include "gpurf/modules/lsu/i_lsu.h"

namespace gpurf {
namespace {

class CoalescingLsu final : public ILsu {
public:
  CoalescingLsu(sc_core::sc_module_name nm, Params& p, const UnitContext& c)
      : ILsu(nm, c), latency_(p.get_uint("latency", 1,
                                         "pipeline cycles from dispatch to the L1/shared port", 1)),
        ii_(p.get_uint("initiation_interval", 1, "cycles between two accepted instructions", 1)),
        depth_(p.get_uint("queue_depth", 4, "instructions waiting for the port", 1, 4096)),
        segment_bytes_(p.get_uint("segment_bytes", 128,
                                  "coalescing segment (one L1 access), power of two", 4, 4096)),
        shared_banks_(p.get_uint("shared_banks", 32, "shared-memory banks", 1, 1024)),
        shared_bank_bytes_(
            p.get_uint("shared_bank_bytes", 4, "width of a shared-memory bank", 1, 128)),
        shared_latency_(p.get_uint("shared_latency", 20, "shared-memory access latency", 0)),
        const_latency_(p.get_uint("const_latency", 8, "constant-cache hit latency", 0)),
        param_latency_(p.get_uint("param_latency", 8, "kernel-parameter load latency", 0)),
        instructions_(stats().vector(
            "instructions", 6, "instructions by memory space", "instructions",
            {"none", "global", "shared", "local", "param", "const"},
            energy::by_label(
                {{"shared", EnergyRole::Priced, "shared_access_pj_per_warp_access"},
                 {"global", EnergyRole::NotEvent,
                  "priced as L1 requests (l1.reads, writes, atomics) and memory bytes"},
                 {"local", EnergyRole::NotEvent,
                  "priced as L1 requests (l1.reads, writes, atomics) and memory bytes"},
                 {"none", EnergyRole::NotEvent, "no memory access"},
                 {"param", EnergyRole::Scope,
                  "parameter memory access: a constant-cache read (Fermi keeps parameters in a "
                  "constant bank)"},
                 {"const", EnergyRole::Scope, "constant cache access"}}))),
        segments_(stats().scalar("segments", "coalesced L1 accesses (segments)", "accesses",
                                 energy::no_event("coalesced L1 accesses; priced as l1 requests"))),
        conflict_cycles_(stats().scalar(
            "shared_bank_conflict_cycles", "extra port cycles from shared-memory bank conflicts",
            "cycles",
            energy::scope(
                "extra shared-memory port cycles of bank conflicts: the replayed bank accesses"),
            check::open_gap("from the lanes' shared addresses, which no other unit sees"))),
        port_busy_(stats().scalar("busy_cycles", "cycles the L1/shared port was used", "cycles",
                                  energy::no_event("occupancy"), check::unwatched("occupancy"))),
        dispatch_stalls_(stats().scalar(
            "stall_cycles", "dispatches refused (queue full or initiation interval)", "attempts",
            energy::no_event("stalls"), check::unwatched("refused dispatch attempts (stalls)"))),
        l1_retries_(stats().scalar("l1_busy_cycles", "L1 accesses refused (no MSHR), retried",
                                   "cycles", energy::no_event("stalls"),
                                   check::unwatched("L1 accesses refused and retried (stalls)"))),
        wb_retries_(stats().scalar("wb_busy_cycles", "Complete refused by the writeback", "cycles",
                                   energy::no_event("stalls"), check::unwatched("stalls"))),
        completed_(stats().scalar(
            "completed", "instructions completed", "instructions",
            energy::scope(
                "memory pipeline: address generation and coalescing of a memory instruction (exec "
                "never counts the mem pipe: memory instructions go to the LSU)"))),
        latency_total_(stats().scalar("latency_total", "sum of dispatch-to-result-ready cycles",
                                      "cycles", energy::no_event("a sum of latencies"),
                                      check::unwatched("a sum of dispatch-to-ready latencies"))) {
    if (segment_bytes_ & (segment_bytes_ - 1)) p.fail("segment_bytes", "must be a power of two");
    request_ = {segment_bytes_, p.said("segment_bytes", segment_bytes_)};
    stats().formula("avg_latency", "average cycles from dispatch to result ready", "cycles",
                    [this] { return completed_ ? double(latency_total_) / completed_ : 0.0; });
    data_.resize(segment_bytes_);
    sc_assert(clock_);
  }

  Bytes largest_request() const override { return request_; }

  void dump_state(std::ostream& os) const override {
    os << "  queue " << queue_.size() << "/" << depth_;
    if (!queue_.empty()) {
      const Entry& e = queue_.front();
      os << ", head: warp " << e.inst->warp << " seq " << e.inst->seq << " pc " << e.inst->info->pc
         << " segment " << e.next << "/" << e.segs.size()
         << (e.issued ? " (waiting for the writeback)" : "");
    }
    os << "\n";
  }

  void tick(Cycle now) override {
    // Instructions whose memory has answered (AT) tell the writeback first (in their cycle:
    // the LSU ticks before the writeback).
    for (auto it = waiting_.begin(); it != waiting_.end();) {
      if (it->pending) {
        ++it;
        continue;
      }
      if (!it->error.empty()) throw WorkloadError(it->error);
      complete(*it, now, Txn::Kind::Answered); // never refused: the result has its entry
      auto done = it++;
      free_.splice(free_.begin(), waiting_, done); // kept for reuse, with its capacity
    }
    if (queue_.empty()) return;
    Entry& e = queue_.front();
    if (now < e.start) {
      wake(e.start);
      return;
    }
    if (!e.issued) {
      ++port_busy_;
      switch (e.space) {
      case MemSpace::Global:
      case MemSpace::Local:
        if (e.next < e.segs.size()) {
          if (!send_segment(e, now, skipped_l1(now))) {
            ++l1_retries_;
            // Asleep until an MSHR frees (the L1 names the cycle) rather than retrying every
            // cycle; the cycles skipped are counted at the next attempt (skipped_l1).
            l1_skips_.refused(now);
            const Cycle retry = l1_.txn.retry_at;
            wake(retry > now + 1 ? retry : now + 1);
            return;
          }
          if (e.next < e.segs.size()) {
            wake(now + 1);
            return;
          }
        } else {
          e.ready = now; // no active lane
        }
        break;
      case MemSpace::Shared:
        if (++e.next < e.degree) {
          wake(now + 1);
          return;
        }
        e.ready = now + shared_latency_;
        break;
      case MemSpace::Const:
        e.ready = now + const_latency_;
        break;
      case MemSpace::Param:
        e.ready = now + param_latency_;
        break;
      default:
        e.ready = now;
        break;
      }
      e.issued = true;
    }
    // The memory answers later (AT): the result is announced now, when the direct port's
    // would be handed over, and the port goes on with the next instruction.
    if (e.pending && !e.announced) {
      if (!complete(e, now, Txn::Kind::Announce)) {
        ++wb_retries_;
        wake(now + 1);
        return;
      }
      e.announced = true;
    }
    if (e.pending) {
      waiting_.splice(waiting_.end(), queue_, queue_.begin());
    } else if (!complete(e, now)) {
      ++wb_retries_;
      wake(now + 1);
      return;
    } else {
      free_.splice(free_.begin(), queue_, queue_.begin());
    }
    if (refused_) { // the collectors asleep on a full queue try again
      refused_ = false;
      ctx_.wake_dispatch();
    }
    if (!queue_.empty()) wake(std::max(now + 1, queue_.front().start));
  }

  Timing timing() const override { return {latency_, ii_}; }

  // The port cycles and L1 refusals the head skipped asleep before `at`, counted.
  void settle(Cycle at) override {
    const uint64_t n = l1_skips_.settle(at);
    port_busy_ += n;
    l1_retries_ += n;
  }
  void finish() override { settle(now()); }

protected:
  void on_dispatch(tlm::tlm_generic_payload& gp, sc_core::sc_time& d) override {
    Txn& t = txn_of(gp);
    if (t.kind != Txn::Kind::Dispatch || !t.inst || !t.inst->info)
      SC_REPORT_ERROR(name(), "expects Dispatch transfers carrying an instruction");
    // A delay: W-C's decompression stage between the collector and the LSU; the address
    // operands reach its pipeline that much after it took the instruction.
    const Cycle at = now(), stage = clock_->cycles(d);
    dispatch_stalls_ += t.skipped; // refused while the collector slept (Txn::retry_at)
    if (queue_.size() >= depth_ || (accepted_ && at < last_accept_ + ii_)) {
      t.busy = true;
      ++dispatch_stalls_;
      // A full queue has room after a tick moves its head on (the wire then); else the
      // initiation interval ends.
      refused_ |= queue_.size() >= depth_;
      t.retry_at = queue_.size() >= depth_ ? kNever : last_accept_ + ii_;
      return;
    }
    accepted_ = true;
    last_accept_ = at;
    WarpInst& inst = *t.inst;
    // Entries are reused (free_): a fresh one allocates a list node, a segment list and its
    // byte enables for every memory instruction.
    if (free_.empty()) free_.emplace_back();
    Entry& e = free_.front();
    e.reset();
    e.inst = &inst;
    e.dispatched = at;
    e.start = at + stage + latency_;
    e.space = inst.info->space;
    e.cmd = inst.info->mem == MemKind::Store ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND;
    ++instructions_[std::min<unsigned>(static_cast<unsigned>(e.space), 5)];
    if (e.space == MemSpace::Global || e.space == MemSpace::Local) coalesce(inst, e);
    if (e.space == MemSpace::Shared) {
      e.degree = conflict_degree(inst);
      conflict_cycles_ += e.degree - 1;
    }
    if (ctx_.probe) ctx_.probe->dispatch(inst, Pipe::MEM, unsigned(stage) + latency_, at);
    queue_.splice(queue_.end(), free_, free_.begin());
    if (queue_.size() == 1) wake(queue_.front().start);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
  }

private:
  struct Entry {
    WarpInst* inst = nullptr;
    Cycle dispatched = 0, start = 0, ready = 0;
    MemSpace space = MemSpace::None;
    tlm::tlm_command cmd = tlm::TLM_READ_COMMAND;
    std::vector<uint64_t> segs;    // segment addresses
    std::vector<unsigned char> be; // segment i's byte enables at i * segment_bytes_
                                   // (TLM_BYTE_ENABLED on the bytes the lanes touch)
    size_t next = 0;               // segments sent (global/local), port cycles used (shared)
    unsigned degree = 1;           // shared: bank conflict degree
    bool issued = false;           // port work done; Complete not yet accepted
    unsigned pending = 0;          // segments the memory answers later (AT)
    bool announced = false;        // AT: the writeback knows the result is coming
    std::string error;             // an error response to one of them

    // A fresh entry; the vectors and the string keep their capacity.
    void reset() {
      inst = nullptr;
      dispatched = start = ready = 0;
      space = MemSpace::None;
      cmd = tlm::TLM_READ_COMMAND;
      segs.clear();
      be.clear();
      next = 0;
      degree = 1;
      issued = false;
      pending = 0;
      announced = false;
      error.clear();
    }
  };

  static unsigned lane_bytes(const WarpInst& inst) {
    return inst.access_bytes ? inst.access_bytes : 4;
  }

  void coalesce(const WarpInst& inst, Entry& e) const {
    const unsigned n = lane_bytes(inst);
    size_t last = 0;
    for (unsigned lane = 0; lane < kWarpSize; ++lane) {
      if (!(inst.active_mask >> lane & 1)) continue;
      uint64_t a = inst.addr[lane];
      const uint64_t end = a + n;
      while (a < end) {
        const uint64_t base = a & ~uint64_t(segment_bytes_ - 1);
        const uint64_t stop = std::min<uint64_t>(end, base + segment_bytes_);
        // The lane's segment: most often the previous lane's (`last`), else searched in order
        // (a plain loop, inlined: std::find is a call per lane).
        size_t k = last;
        if (k >= e.segs.size() || e.segs[k] != base)
          for (k = 0; k < e.segs.size() && e.segs[k] != base;) ++k;
        last = k;
        if (k == e.segs.size()) {
          e.segs.push_back(base);
          e.be.resize(e.be.size() + segment_bytes_, TLM_BYTE_DISABLED);
        }
        std::memset(e.be.data() + k * segment_bytes_ + (a - base), TLM_BYTE_ENABLED, stop - a);
        a = stop;
      }
    }
  }

  // Whether the active lanes access at most one word in each bank (no conflict; several lanes
  // on one word are a broadcast): one pass with a word per bank, no lists. Up to 64 banks.
  bool one_word_per_bank(const WarpInst& inst, unsigned n) const {
    uint64_t seen = 0;
    std::array<uint64_t, 64> word;
    for (unsigned lane = 0; lane < kWarpSize; ++lane) {
      if (!(inst.active_mask >> lane & 1)) continue;
      const uint64_t first = inst.addr[lane] / shared_bank_bytes_;
      const uint64_t last = (inst.addr[lane] + n - 1) / shared_bank_bytes_;
      for (uint64_t w = first; w <= last; ++w) {
        const unsigned b = unsigned(w % shared_banks_);
        if (!(seen >> b & 1)) {
          seen |= uint64_t(1) << b;
          word[b] = w;
        } else if (word[b] != w) {
          return false;
        }
      }
    }
    return true;
  }

  // Max over the banks of the distinct bank words the active lanes access in it.
  unsigned conflict_degree(const WarpInst& inst) {
    if (shared_banks_ <= 64 && one_word_per_bank(inst, lane_bytes(inst))) return 1;
    auto& words = bank_words_; // kept between calls: no allocation per access
    words.resize(shared_banks_);
    for (auto& bank : words) bank.clear();
    const unsigned n = lane_bytes(inst);
    unsigned degree = 1;
    for (unsigned lane = 0; lane < kWarpSize; ++lane) {
      if (!(inst.active_mask >> lane & 1)) continue;
      const uint64_t first = inst.addr[lane] / shared_bank_bytes_;
      const uint64_t last = (inst.addr[lane] + n - 1) / shared_bank_bytes_;
      for (uint64_t w = first; w <= last; ++w) {
        auto& bank = words[w % shared_banks_];
        if (std::find(bank.begin(), bank.end(), w) == bank.end()) {
          bank.push_back(w);
          degree = std::max<unsigned>(degree, bank.size());
        }
      }
    }
    return degree;
  }

  // Hands `e`'s result to the writeback, ready at e.ready (Announce: when Answered says);
  // false if the writeback was busy.
  bool complete(Entry& e, Cycle now, Txn::Kind kind = Txn::Kind::Complete) {
    wb_.prepare(kind);
    wb_.txn.inst = e.inst;
    wb_.delay = clock_->time(e.ready > now ? e.ready - now : 0);
    to_wb->b_transport(wb_.gp, wb_.delay);
    if (wb_.txn.busy) return false;
    if (kind == Txn::Kind::Announce) return true;
    latency_total_ += std::max(e.ready, now) - e.dispatched;
    ++completed_;
    return true;
  }

  // The attempts the head skipped asleep on a refusing L1 (each a port cycle and a refusal),
  // counted now, for the L1 to count too (Txn::skipped); 0 if it did not sleep.
  uint32_t skipped_l1(Cycle now) {
    if (!l1_skips_.waiting()) return 0;
    settle(now);
    return l1_skips_.take();
  }

  // Sends the next segment of `e` to the L1 (`skipped` earlier attempts refused unsent); false
  // if the L1 was busy.
  bool send_segment(Entry& e, Cycle now, uint32_t skipped) {
    const uint64_t addr = e.segs[e.next];
    unsigned char* be = e.be.data() + e.next * segment_bytes_;
    if (e.cmd == tlm::TLM_WRITE_COMMAND) {
      tlm::tlm_generic_payload dbg;
      dbg.set_command(tlm::TLM_READ_COMMAND);
      dbg.set_address(addr);
      dbg.set_data_ptr(data_.data());
      dbg.set_data_length(segment_bytes_);
      dbg.set_streaming_width(segment_bytes_);
      std::memset(data_.data(), 0, segment_bytes_);
      to_l1->transport_dbg(dbg);
    } else {
      std::memset(data_.data(), 0, segment_bytes_);
    }
    l1_.prepare(Txn::Kind::Dispatch, e.cmd);
    l1_.txn.inst = e.inst;
    l1_.txn.skipped = skipped;
    tlm::tlm_generic_payload& gp = l1_.gp;
    gp.set_address(addr);
    gp.set_data_ptr(data_.data());
    gp.set_data_length(segment_bytes_);
    gp.set_streaming_width(segment_bytes_);
    gp.set_byte_enable_ptr(be);
    gp.set_byte_enable_length(segment_bytes_);
    gp.set_dmi_allowed(false);
    to_l1->b_transport(gp, l1_.delay);
    if (l1_.txn.busy) return false;
    if (!gp.is_response_ok()) {
      std::ostringstream os;
      os << name() << ": " << e.inst->info->opname << " (pc " << e.inst->info->pc << ", line "
         << e.inst->info->ptx_line << ", warp " << e.inst->warp << ") access of segment 0x"
         << std::hex << addr << " failed: " << gp.get_response_string();
      throw WorkloadError(os.str());
    }
    e.ready = std::max(e.ready, now + clock_->cycles(l1_.delay));
    if (PendingPtr p = take_pending(gp)) {
      ++e.pending;
      Entry* ep = &e; // list elements stay in place; e is erased only once answered
      p->then([this, ep](Cycle c, const std::string& error) {
        ep->ready = std::max(ep->ready, c);
        if (!error.empty() && ep->error.empty())
          ep->error = std::string(name()) + ": " + ep->inst->info->opname + " (pc " +
                      std::to_string(ep->inst->info->pc) + "): " + error;
        if (--ep->pending == 0) wake(c); // outside the SM's tick: now() is not the time
      });
    }
    ++e.next;
    ++segments_;
    return true;
  }

  Bytes request_; // one segment: what the L1 must serve in one access
  const unsigned latency_, ii_, depth_, segment_bytes_, shared_banks_, shared_bank_bytes_,
      shared_latency_, const_latency_, param_latency_;
  Stat& instructions_;
  uint64_t &segments_, &conflict_cycles_, &port_busy_, &dispatch_stalls_, &l1_retries_,
      &wb_retries_, &completed_, &latency_total_;
  // Lists: an entry keeps its address when it moves to waiting_ (the memory's answer finds it).
  std::list<Entry> queue_, waiting_, free_;
  bool accepted_ = false;
  bool refused_ = false;    // a dispatch refused on a full queue since the head last moved on
  SkippedRetries l1_skips_; // the head's L1 accesses refused with a retry cycle
  Cycle last_accept_ = 0;
  Packet l1_, wb_;
  std::vector<unsigned char> data_;
  std::vector<std::vector<uint64_t>> bank_words_; // conflict_degree()'s per shared bank
};

GPURF_REGISTER_UNIT(ILsu, CoalescingLsu, "coalescing",
                    "Fermi-style coalescing into segments, shared-memory bank conflicts");

} // namespace
} // namespace gpurf
