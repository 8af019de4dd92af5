// Per-bank FIFO queues; each cycle every bank first grants queued writes, then reads, each
// request taking its slices' ports. A request whose slices are taken waits, and is counted
// once per cycle by what took them: read-read, read-write (a write on a shared port) or
// write-write; a read whose collector already receives its operands this cycle waits as a
// collector-port conflict.
#pragma once
#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

#include "gpurf/modules/arbiter/i_arbiter.h"

namespace gpurf {

class WriteFirstArbiter : public IArbiter {
public:
  enum Conflict { kReadRead, kReadWrite, kWriteWrite, kCollectorPort, kKinds };

  WriteFirstArbiter(sc_core::sc_module_name nm, Params& p, const UnitContext& c)
      : IArbiter(nm, c),
        collector_ports_(p.get_uint("collector_ports", 1,
                                    "operands one collector can receive per cycle", 1, 16)),
        search_window_(p.get_choice("order", "search",
                                    "which queued requests of a bank may be granted: search (any "
                                    "that fits, also past a blocked older one, within "
                                    "search_window) or head_only (FIFO: nothing past a blocked "
                                    "head, as GPGPU-Sim's bank queues; = search_window 1)",
                                    {"search", "head_only"}) == "head_only"
                           ? 1
                           : p.get_uint("search_window", 0,
                                        "with order: search, requests of a bank queue that may "
                                        "be blocked ahead of a granted one, plus one (1: the "
                                        "head only; 0: the whole queue)",
                                        0, 1u << 16)),
        conflicts_(stats().vector(
            "conflicts", kKinds, "request-cycles a request waited, by what blocked it",
            "request-cycles", {"read_read", "read_write", "write_write", "collector_port"},
            energy::no_event("request-cycles spent waiting"),
            check::unwatched(
                "request-cycles spent waiting, by kind (the checker sees grants, not refusals)"))),
        reads_(stats().scalar("reads_granted", "read requests granted", "requests",
                              energy::no_event("grants; priced by bank slice_reads"))),
        verify_reads_(stats().scalar(
            "verify_reads_granted",
            "WIR register-file reads granted (verify-reads compared "
            "in the register file, dummy MOV copies; not sent to a "
            "collector)",
            "requests",
            energy::no_event(
                "WIR: bank reads, priced by bank slice_reads (the comparator is not modelled)"))),
        writes_(stats().scalar("writes_granted", "write requests granted", "requests",
                               energy::no_event("grants; priced by bank slice_writes"))),
        accesses_(stats().scalar(
            "bank_accesses",
            "physical bank accesses: port cycles used, however many "
            "slices or coalesced requests each served",
            "accesses",
            energy::no_event(
                "port cycles; priced per slice by bank slice_reads and slice_writes"))),
        read_depth_(stats().distribution(
            "read_queue_depth",
            "requests (reads and writes) already queued at a read's bank when the read arrives",
            "requests", Buckets::linear(1, 32))),
        be_(kRegBytes, 0) {
    gp_.set_data_length(kRegBytes);
    gp_.set_streaming_width(kRegBytes);
    gp_.set_byte_enable_ptr(be_.data());
    gp_.set_byte_enable_length(kRegBytes);
    gp_.set_extension(&txn_);
  }
  ~WriteFirstArbiter() override { gp_.clear_extension(&txn_); }

  void tick(Cycle now) override {
    queues_.resize(banks_.size());
    used_ports_.resize(ctx_.shape->collectors + 1, 0);
    bool more = false;
    for (unsigned b = 0; b < banks_.size(); ++b) {
      auto& q = queues_[b];
      if (q.writes.empty() && q.reads.empty()) continue;
      const bool split = banks_[b].separate_write_port;
      const unsigned ports = banks_[b].read_ports;
      // read_busy: slices with no read port left; reads: the reads granted per slice, as
      // slice masks by count (reads.level[k]: the slices read more than k times).
      unsigned write_busy = 0, read_busy = 0, written = 0;
      SliceLevels reads;
      serve(
          q.writes,
          [&](const Req& t) {
            const unsigned m = t.slice_mask;
            if (m & write_busy) return kWriteWrite;
            return kKinds;
          },
          [&](const Req& t) {
            const unsigned m = t.slice_mask;
            write_busy |= m;
            written |= m;
            if (!split) read_busy |= m;
            access(b, t, tlm::TLM_WRITE_COMMAND);
            ++writes_;
          });
      serve(
          q.reads,
          [&](const Req& t) {
            const unsigned m = t.slice_mask;
            if (m & read_busy) return (!split && (m & written)) ? kReadWrite : kReadRead;
            if (used_ports_[t.collector] >= collector_ports_) return kCollectorPort;
            return kKinds;
          },
          [&](const Req& t) {
            read_busy |= reads.add(t.slice_mask & 0xff, ports); // the slices of its 8 counted
            ++used_ports_[t.collector];
            touched_.push_back(t.collector);
            access(b, t, tlm::TLM_READ_COMMAND);
            ++(t.kind == Txn::Kind::VerifyRead ? verify_reads_ : reads_);
          });
      // Physical accesses: a port cycle, however many slices or requests it served (split
      // ports: each read port used and the write port count apart). The most reads of one
      // slice is the number of count levels in use.
      const unsigned most_reads = reads.depth;
      const bool any_write = written != 0, any_read = most_reads != 0;
      accesses_ += split ? most_reads + any_write : (any_read || any_write);
      more |= !q.writes.empty() || !q.reads.empty();
    }
    for (unsigned c : touched_) used_ports_[c] = 0;
    touched_.clear();
    if (more) wake(now + 1);
  }

  unsigned collector_ports() const override { return collector_ports_; }

  void dump_state(std::ostream& os) const override {
    for (unsigned b = 0; b < queues_.size(); ++b)
      os << "  bank " << b << ": " << queues_[b].reads.size() << " reads, "
         << queues_[b].writes.size() << " writes queued\n";
  }

  void observables(std::vector<Observable>& o) override {
    auto queued = [this](bool reads, bool writes) {
      uint64_t n = 0;
      for (const Queue& q : queues_)
        n += (reads ? q.reads.size() : 0) + (writes ? q.writes.size() : 0);
      return n;
    };
    o.push_back({"queue_depth", [queued] { return queued(true, true); }});
    o.push_back({"read_queue", [queued] { return queued(true, false); }});
    o.push_back({"write_queue", [queued] { return queued(false, true); }});
  }

protected:
  void on_request(int, tlm::tlm_generic_payload& gp, sc_core::sc_time&) override {
    Txn& t = txn_of(gp);
    queues_.resize(banks_.size());
    if (t.bank >= banks_.size()) bad_bank("request", t.bank);
    auto& q = queues_[t.bank];
    if (t.kind == Txn::Kind::Read) read_depth_.sample(q.reads.size() + q.writes.size());
    (t.kind == Txn::Kind::Write ? q.writes : q.reads).push_back(Req::of(t));
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    wake(now());
  }

protected: // variants (arbiter/impl/coalescing.cpp) reuse the queues, stats and access()
  // A queued request: every field of its Txn, without the extension's vtable and padding;
  // the payload's Txn is filled from it at the grant.
  struct Req {
    WarpInst* inst;
    unsigned char* data;
    uint64_t version;
    // From warp to operand in the Txn's order and offsets from warp on (copied in blocks).
    uint32_t warp;
    uint16_t reg, bank;
    uint32_t row;
    uint8_t slice_mask;
    uint16_t collector;
    uint8_t operand;
    Txn::Kind kind;
    bool busy;
    Store from;
    bool companion;
    Txn::Hi hi; // frontend.reg64: one_operand (off elsewhere)
    static Req of(const Txn& t) {
      return {t.inst,      t.data,    t.version, t.warp, t.reg,  t.bank,      t.row, t.slice_mask,
              t.collector, t.operand, t.kind,    t.busy, t.from, t.companion, t.hi};
    }
    void to(Txn& x) const {
      x.kind = kind;
      x.busy = busy;
      x.inst = inst;
      x.warp = warp;
      x.reg = reg;
      x.bank = bank;
      x.row = row;
      x.slice_mask = slice_mask;
      x.collector = collector;
      x.operand = operand;
      x.version = version;
      x.from = from;
      x.data = data;
      x.companion = companion;
      x.hi = hi;
    }
  };
  static_assert(sizeof(Req) <= 72);
  // A bank's queue of one kind, oldest first. A vector: granted requests leave from anywhere,
  // and one compaction per cycle is cheaper than a deque's erase per grant.
  using TxnQueue = std::vector<Req>;

  // Offers q's requests in order: why_blocked(t) names what blocks t (kKinds: nothing; it must
  // not change anything), grant(t) grants it. Granted requests leave q, the others keep their order
  // and stay where they are. A blocked request is counted once for this cycle; the search
  // window's last blocked one also counts those behind it (they wait for the same reason) and
  // ends the queue's turn. grant may append to q (a grant's reply can queue a new request), so
  // a granted request is moved out first.
  template <class Blocked, class Grant>
  void serve(TxnQueue& q, Blocked&& why_blocked, Grant&& grant) {
    size_t keep = 0, i = 0;
    unsigned blocked = 0;
    for (; i < q.size(); ++i) {
      const Conflict why = why_blocked(q[i]);
      if (why == kKinds) {
        const Req t = q[i];
        grant(t);
        continue;
      }
      if (keep != i) q[keep] = q[i];
      ++keep;
      if (search_window_ && ++blocked >= search_window_) {
        conflicts_[why] += q.size() - i;
        ++i;
        break;
      }
      ++conflicts_[why];
    }
    if (keep == i) return; // nothing granted: q is as it was
    for (; i < q.size(); ++i) q[keep++] = q[i];
    q.erase(q.begin() + long(keep), q.end());
  }

  // Per-slice counts of one cycle as slice masks by count: level[k] holds the slices counted
  // more than k times. Counting an access carries its mask up the levels instead of looping
  // over its slices.
  struct SliceLevels {
    unsigned depth = 0; // the highest count of any slice
    std::array<unsigned, 9> level{};
    // Counts one access of the slices `m` (8 slices: a count is at most the reads granted on
    // a slice); returns the slices counted `limit` times or more (limit 0: every slice counted).
    unsigned add(unsigned m, unsigned limit) {
      for (unsigned k = 0; m && k < depth; ++k) {
        const unsigned carry = m & level[k];
        level[k] |= m;
        m = carry;
      }
      if (m && depth < level.size()) level[depth++] = m;
      return limit <= depth ? level[limit ? limit - 1 : 0] : 0;
    }
  };

  // One bank access: address row * 128, the slice mask as byte enables. Reads travel on from
  // the bank through the crossbar to the collector; writes are acknowledged to writeback.
  // A request carrying its 64-bit operand's high half (Txn::hi) accesses that half's row in
  // the same port cycle, as a companion: counted as a granted request, not as a port cycle.
  void access(unsigned b, const Req& t, tlm::tlm_command cmd) {
    access_row(b, t, cmd);
    if (!t.hi.on) return;
    Req h = t;
    h.hi.on = false;
    h.companion = true;
    h.reg = t.hi.reg;
    h.bank = t.hi.bank;
    h.row = t.hi.row;
    h.slice_mask = t.hi.slice_mask;
    h.data = t.hi.data;
    h.operand = uint8_t(t.operand + 1);
    access_row(h.bank, h, cmd);
    ++(cmd == tlm::TLM_WRITE_COMMAND ? writes_ : reads_);
  }

  void access_row(unsigned b, const Req& t, tlm::tlm_command cmd) {
    const bool verify = t.kind == Txn::Kind::VerifyRead;
    if (ctx_.probe) { // before the access: a read arrives, a write may retire its instruction
      const RegAccess a{t.inst, t.reg,        Store::Bank, int(b),
                        t.row,  t.slice_mask, t.version,   t.companion};
      if (verify)
        ctx_.probe->verify_read(a, now());
      else if (cmd == tlm::TLM_READ_COMMAND)
        ctx_.probe->read(a, now());
      else
        ctx_.probe->write(a, now());
    }
    if (t.slice_mask != be_mask_ || banks_[b].slices != be_slices_) {
      be_mask_ = t.slice_mask;
      be_slices_ = banks_[b].slices;
      const unsigned slice_bytes = kRegBytes / be_slices_;
      if (slice_bytes % 8 == 0) // 8 bytes at a time: no slice boundary inside a word
        for (unsigned i = 0; i < kRegBytes; i += 8) {
          const uint64_t w = (be_mask_ >> (i / slice_bytes)) & 1 ? ~uint64_t(0) : 0;
          static_assert(TLM_BYTE_ENABLED == 0xff && TLM_BYTE_DISABLED == 0);
          std::memcpy(&be_[i], &w, 8);
        }
      else
        for (unsigned i = 0; i < kRegBytes; ++i)
          be_[i] = (be_mask_ >> (i / slice_bytes)) & 1 ? TLM_BYTE_ENABLED : TLM_BYTE_DISABLED;
    }
    t.to(txn_);
    gp_.set_command(cmd);
    gp_.set_address(uint64_t(t.row) * kRegBytes);
    gp_.set_data_ptr(cmd != tlm::TLM_WRITE_COMMAND ? data_.data()
                     : t.data
                         ? t.data
                         : reinterpret_cast<unsigned char*>(t.inst->dst[t.operand].value.data()));
    gp_.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    to_bank[b]->b_transport(gp_, d);
    if (gp_.is_response_error()) bad_access(b, t.row);
    if (verify) { // WIR: compared in the register file (Fig. 7); busy: a mismatch (no data: a
      txn_.kind = Txn::Kind::VerifyDone; // dummy MOV's copy, nothing to compare)
      txn_.busy = t.data && std::memcmp(data_.data(), t.data, kRegBytes) != 0;
      to_wb->b_transport(gp_, d);
      return;
    }
    if (cmd == tlm::TLM_WRITE_COMMAND) {
      written(t, gp_.get_data_ptr());
      txn_.kind = Txn::Kind::WriteDone;
      to_wb->b_transport(gp_, d);
    }
  }

  // A refused request or access (rare): out of line, so that the paths of every request and
  // grant carry no string building in their frames.
  [[noreturn, gnu::cold, gnu::noinline]] void bad_bank(const char* what, unsigned b) const {
    throw std::runtime_error(std::string(name()) + ": " + what + " for bank " + std::to_string(b) +
                             " of " + std::to_string(banks_.size()));
  }
  [[noreturn, gnu::cold, gnu::noinline]] void bad_access(unsigned b, unsigned row) const {
    throw std::runtime_error(std::string(name()) + ": bank " + std::to_string(b) + ": " +
                             gp_.get_response_string() + " at row " + std::to_string(row));
  }

  // The bank took write `t` (its 128 B at `data`), before the writeback hears of it.
  virtual void written(const Req& t, const unsigned char* data) {}

  const unsigned collector_ports_;
  const unsigned search_window_; // 0: the whole queue; 1: the head only
  Stat& conflicts_;
  uint64_t& reads_;
  uint64_t& verify_reads_;
  uint64_t& writes_;
  uint64_t& accesses_;
  Distribution& read_depth_;
  struct Queue {
    TxnQueue reads, writes;
  };
  std::vector<Queue> queues_;
  std::vector<unsigned> used_ports_, touched_;
  tlm::tlm_generic_payload gp_;
  Txn txn_;
  std::vector<unsigned char> be_; // byte enables of be_mask_ over be_slices_ slices
  unsigned be_mask_ = 0, be_slices_ = 0;
  std::array<unsigned char, kRegBytes> data_{};
};

} // namespace gpurf
