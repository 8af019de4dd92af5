// A flat memory with a fixed access latency and a bandwidth limit, stored sparsely in 4 KiB
// pages allocated on first write (unwritten bytes read as 0).
//
// Timing of one b_transport (all in SM cycles; the incoming delay is honoured as the
// transfer's arrival time, loosely-timed; `now` is SystemC's time: the GPU's clock, which the
// LT memory port sets to SystemC's time for the call):
//   arrival = now + delay
//   start   = max(arrival, busy_until)         queueing behind earlier transfers
//   ser     = ceil(length / bytes_per_cycle)   the data occupies the channel
//   busy_until = start + ser
//   delay  += (start - arrival) + latency + ser
// IGNORE commands complete with TLM_OK_RESPONSE, no effect and no time. Streaming width
// (0 is taken as "no streaming") and byte enables (wrapping at byte_enable_length) are
// honoured for reads and writes; an access (of the streamed window) outside
// [base_address, base_address + size_bytes) gets TLM_ADDRESS_ERROR_RESPONSE, a null data
// pointer TLM_GENERIC_ERROR_RESPONSE, a byte-enable pointer with length 0
// TLM_BYTE_ENABLE_ERROR_RESPONSE. Debug transport ignores byte enables and streaming and
// returns the bytes transferred (clipped at the end of the memory). DMI is refused.
//
// `store` says when a timed write's bytes reach the store, as memories differ (a controller's
// write queue, a model that reads the payload when it answers): `request` on receipt;
// `response` read from the payload when the memory answers (BEGIN_RESP, or when a waiting
// b_transport returns); `shuffled` copied on receipt and stored at a random moment (seeded,
// reproducible) before the answer (taken when the memory next acts), so that non-overlapping writes
// land in random order and after later requests (overlapping ones keep their order). Debug
// transport sees the store as it is. The GPU's ports must give exact results with each (docs/vp.md
// "Timed writes").
#include <algorithm>
#include <cstring>
#include <memory>
#include <random>
#include <sstream>
#include <unordered_map>

#include <tlm_utils/peq_with_cb_and_phase.h>

#include "gpurf/modules/memory/i_memory.h"
#include "gpurf/platform/text.h"

namespace gpurf {
namespace {

class SimpleMemory final : public IMemory {
public:
  SimpleMemory(sc_core::sc_module_name nm, Params& p, const UnitContext& c)
      : IMemory(nm, c),
        size_(static_cast<uint64_t>(
            p.get_int("size_bytes", int64_t(4) << 30,
                      "capacity in bytes (stored sparsely: only the pages written take memory)", 1,
                      int64_t(1) << 48))),
        base_(static_cast<uint64_t>(p.get_int("base_address", 0, "address of the first byte", 0))),
        latency_(p.get_uint("latency", 100, "access latency in cycles", 0)),
        bytes_per_cycle_(
            p.get_uint("bytes_per_cycle", 32, "bandwidth: bytes transferred per cycle", 1)),
        wait_(p.get_choice("respond", "annotate",
                           "annotate: b_transport returns at once with the latency added to "
                           "the delay; wait: it waits that long (SystemC wait, as an LT target "
                           "of a virtual platform may) and returns a zero delay; needs "
                           "gpu.memory_port: lt",
                           {"annotate", "wait"}) == "wait"),
        store_(p.get_choice("store", "request",
                            "when a timed write's bytes reach the store: request (on receipt), "
                            "response (read from the payload when the memory answers), "
                            "shuffled (copied on receipt, stored at a random moment before the "
                            "answer); a test of the GPU's memory port (docs/vp.md), for "
                            "gpu.memory_port: at, or lt with respond: wait",
                            {"request", "response", "shuffled"})),
        reads_(stats().scalar(
            "reads", "read transactions", "transactions",
            energy::no_event("transactions; priced per byte by bytes_read"),
            check::unwatched("transactions: the bytes they move are watched (bytes_read)"))),
        writes_(stats().scalar("writes", "write transactions", "transactions",
                               energy::no_event("transactions; priced per byte by bytes_written"))),
        bytes_read_(stats().scalar("bytes_read", "bytes read", "bytes",
                                   energy::priced("memory_pj_per_byte"))),
        bytes_written_(stats().scalar("bytes_written", "bytes written", "bytes",
                                      energy::priced("memory_pj_per_byte"))),
        busy_cycles_(stats().scalar("busy_cycles", "cycles the channel transferred data", "cycles",
                                    energy::no_event("occupancy"), check::unwatched("occupancy"))),
        queue_cycles_(stats().scalar("queue_cycles", "cycles transfers waited behind earlier ones",
                                     "cycles", energy::no_event("waits"),
                                     check::unwatched("waits"))) {
    if (base_ + size_ < base_) p.fail("size_bytes", "base_address + size_bytes overflows");
    keys_ = p.said("base_address", hex(base_)) + ", " + p.said("size_bytes", size_);
    sc_assert(clock_);
  }

  Window window() const override { return {base_, size_, keys_}; }

  bool waits_in_transport() const override { return wait_; }
  bool stores_late() const override { return store_ != "request"; }

  void dump_state(std::ostream& os) const override {
    os << "  busy until cycle " << busy_until_ << ", " << pages_.size() << " pages\n";
  }

protected:
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) override {
    transfer(gp, delay);
    if (wait_) {
      sc_core::wait(delay);
      delay = sc_core::SC_ZERO_TIME;
    }
    store_late(gp);
  }

  // The checks, the bytes (a write's as `store` says) and the timing of one transfer.
  void transfer(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
    store_due();
    const tlm::tlm_command cmd = gp.get_command();
    if (cmd == tlm::TLM_IGNORE_COMMAND) {
      gp.set_response_status(tlm::TLM_OK_RESPONSE);
      return;
    }
    const uint64_t addr = gp.get_address();
    const unsigned len = gp.get_data_length();
    unsigned char* data = gp.get_data_ptr();
    unsigned sw = gp.get_streaming_width();
    if (sw == 0 || sw > len) sw = len;
    const unsigned char* be = gp.get_byte_enable_ptr();
    const unsigned be_len = gp.get_byte_enable_length();
    if (len == 0) {
      gp.set_response_status(tlm::TLM_OK_RESPONSE);
      return;
    }
    if (!data) {
      gp.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
      return;
    }
    if (be && be_len == 0) {
      gp.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
      return;
    }
    if (!in_range(addr, sw)) {
      gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      return;
    }
    const bool write = cmd == tlm::TLM_WRITE_COMMAND;
    if (!write || store_ == "request") move(addr, data, len, sw, be, be_len, write);
    gp.set_dmi_allowed(false);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);

    // Timing.
    const Cycle arrival = now() + clock_->cycles(delay);
    const Cycle start = std::max(arrival, busy_until_);
    const Cycle ser = (len + bytes_per_cycle_ - 1) / bytes_per_cycle_;
    busy_until_ = start + ser;
    busy_cycles_ += ser;
    queue_cycles_ += start - arrival;
    delay += clock_->time(start - arrival + latency_ + ser);
    if (write && store_ == "shuffled") {
      const sc_core::sc_time due = sc_core::sc_time_stamp() + delay * unit_(rng_);
      unsigned char* d = gp.get_data_ptr();
      Late w{++seq_, due, addr, sw, {d, d + len}, {}};
      if (be) w.be.assign(be, be + be_len);
      late_.push_back(std::move(w));
      seq_of_[&gp] = seq_;
    }
    if (write) {
      ++writes_;
      bytes_written_ += len;
    } else {
      ++reads_;
      bytes_read_ += len;
    }
  }

  // AT (gpu.memory_port: at): BEGIN_REQ is accepted at once (TLM_UPDATED, END_REQ: the
  // channel's queueing is in the timing above); BEGIN_RESP follows when b_transport's delay
  // says, through a payload event queue; several transactions may be outstanding.
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay) override {
    if (phase == tlm::END_RESP) return tlm::TLM_COMPLETED;
    if (phase != tlm::BEGIN_REQ) {
      SC_REPORT_ERROR(name(), "nb_transport_fw: unexpected phase");
      return tlm::TLM_COMPLETED;
    }
    sc_core::sc_time d = delay;
    transfer(gp, d);
    tlm::tlm_phase resp = tlm::BEGIN_RESP;
    responses_.notify(gp, resp, d);
    phase = tlm::END_REQ;
    delay = sc_core::SC_ZERO_TIME;
    return tlm::TLM_UPDATED;
  }
  void respond(tlm::tlm_generic_payload& gp, const tlm::tlm_phase&) {
    store_late(gp);
    tlm::tlm_phase phase = tlm::BEGIN_RESP;
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    if (socket->nb_transport_bw(gp, phase, d) == tlm::TLM_UPDATED && phase != tlm::END_RESP)
      SC_REPORT_ERROR(name(), "nb_transport_bw: the initiator answered BEGIN_RESP oddly");
  }

  unsigned transport_dbg(tlm::tlm_generic_payload& gp) override {
    const tlm::tlm_command cmd = gp.get_command();
    const uint64_t addr = gp.get_address();
    unsigned char* data = gp.get_data_ptr();
    if (cmd == tlm::TLM_IGNORE_COMMAND || !data || addr < base_ || addr - base_ >= size_) {
      return 0;
    }
    const unsigned n =
        static_cast<unsigned>(std::min<uint64_t>(gp.get_data_length(), size_ - (addr - base_)));
    copy(addr, data, n, cmd == tlm::TLM_WRITE_COMMAND);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    return n;
  }

private:
  static constexpr uint64_t kPage = 4096;

  // A write `shuffled` holds until `due` (or its answer).
  struct Late {
    uint64_t seq;
    sc_core::sc_time due;
    uint64_t addr;
    unsigned sw;
    std::vector<unsigned char> data, be;
  };

  // The memory answers `gp`: a write not stored on receipt is stored now.
  void store_late(tlm::tlm_generic_payload& gp) {
    store_due();
    if (!gp.is_write() || !gp.is_response_ok() || store_ == "request") return;
    if (store_ == "response") {
      unsigned sw = gp.get_streaming_width();
      if (sw == 0 || sw > gp.get_data_length()) sw = gp.get_data_length();
      move(gp.get_address(), gp.get_data_ptr(), gp.get_data_length(), sw, gp.get_byte_enable_ptr(),
           gp.get_byte_enable_length(), true);
      return;
    }
    auto it = seq_of_.find(&gp);
    if (it == seq_of_.end()) return;
    store(it->second);
    seq_of_.erase(it);
  }

  // The shuffled writes due by now, in the order they fall due; run whenever the memory acts
  // (a transfer or an answer), so that it adds no process of its own to the simulation.
  void store_due() {
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    for (;;) {
      const Late* first = nullptr;
      for (const Late& w : late_)
        if (w.due <= now && (!first || w.due < first->due)) first = &w;
      if (!first) return;
      store(first->seq);
    }
  }

  // Stores shuffled write `seq` (if still held), after the earlier ones it overlaps.
  void store(uint64_t seq) {
    auto it = std::find_if(late_.begin(), late_.end(), [&](const Late& w) { return w.seq == seq; });
    if (it == late_.end()) return;
    const uint64_t lo = it->addr, hi = it->addr + it->sw;
    std::vector<uint64_t> earlier;
    for (const Late& w : late_)
      if (w.seq < seq && w.addr < hi && lo < w.addr + w.sw) earlier.push_back(w.seq);
    for (uint64_t e : earlier) store(e); // in receipt order
    it = std::find_if(late_.begin(), late_.end(), [&](const Late& w) { return w.seq == seq; });
    Late w = std::move(*it);
    late_.erase(it);
    move(w.addr, w.data.data(), unsigned(w.data.size()), w.sw, w.be.empty() ? nullptr : w.be.data(),
         unsigned(w.be.size()), true);
  }

  // Moves `len` bytes of a transfer between `data` and memory at `addr` (streaming width `sw`,
  // byte enables `be` of length `be_len` wrapping).
  void move(uint64_t addr, unsigned char* data, unsigned len, unsigned sw, const unsigned char* be,
            unsigned be_len, bool write) {
    if (!be && sw == len) return copy(addr, data, len, write);
    for (unsigned i = 0; i < len; ++i) {
      if (be && be[i % be_len] != TLM_BYTE_ENABLED) continue;
      copy(addr + i % sw, data + i, 1, write);
    }
  }

  bool in_range(uint64_t addr, uint64_t len) const {
    return addr >= base_ && addr - base_ <= size_ && len <= size_ - (addr - base_);
  }

  // Copies `n` bytes between `buf` and memory at `addr` (in range), page by page.
  void copy(uint64_t addr, unsigned char* buf, uint64_t n, bool write) {
    while (n) {
      const uint64_t off = (addr - base_) % kPage;
      const uint64_t page = (addr - base_) / kPage;
      const uint64_t chunk = std::min(n, kPage - off);
      auto it = pages_.find(page);
      if (write) {
        if (it == pages_.end()) {
          auto mem = std::make_unique<unsigned char[]>(kPage); // zero-initialised
          it = pages_.emplace(page, std::move(mem)).first;
        }
        std::memcpy(it->second.get() + off, buf, chunk);
      } else if (it == pages_.end()) {
        std::memset(buf, 0, chunk);
      } else {
        std::memcpy(buf, it->second.get() + off, chunk);
      }
      addr += chunk;
      buf += chunk;
      n -= chunk;
    }
  }

  const uint64_t size_, base_;
  std::string keys_; // the keys that set the window, for messages
  const unsigned latency_, bytes_per_cycle_;
  const bool wait_;
  const std::string store_;
  std::vector<Late> late_; // shuffled writes not yet stored
  std::unordered_map<const tlm::tlm_generic_payload*, uint64_t> seq_of_;
  uint64_t seq_ = 0;
  std::mt19937_64 rng_{1};
  std::uniform_real_distribution<double> unit_{0.0, 1.0};
  tlm_utils::peq_with_cb_and_phase<SimpleMemory> responses_{this, &SimpleMemory::respond};
  Cycle busy_until_ = 0;
  std::unordered_map<uint64_t, std::unique_ptr<unsigned char[]>> pages_;
  uint64_t &reads_, &writes_, &bytes_read_, &bytes_written_, &busy_cycles_, &queue_cycles_;
};

GPURF_REGISTER_UNIT(IMemory, SimpleMemory, "simple",
                    "flat sparse memory: fixed latency, bandwidth in bytes per cycle");

} // namespace
} // namespace gpurf
