// CMRC's coalescing bank arbiter (shared/papers/000, Sec. IV-B3/4, Table I): the write-first
// arbiter's queues, stats and bank access, with a grant rule that pairs requests. Per bank
// port and cycle it grants a primary request (the oldest write; else the oldest read whose
// collector can take it, as write_first does) and then looks `window` queued requests
// further for one partner whose slice mask is disjoint and whose Table I kind is enabled.
// The pair is one physical access. A collector has four 32 B write ports (one per slice
// crossbar): a read enters it when its slices are free there this cycle, so two reads from
// two banks reach one collector in one cycle (kind 5) when their slices are disjoint.
// With unlimited_ports every queued request is granted at once (the Fig. 1 limit study).
// `unpaired` says why a port cycle served one request only (docs/cmrc.md): the isolating
// statistic of the access reduction (queue too short, widths too wide, rows of one parity).
#include <algorithm>

#include "gpurf/modules/arbiter/impl/write_first.h"
#include "gpurf/policies/cmrc_coalesce.h"
#include "gpurf/policies/cmrc_format.h"

namespace gpurf {

class CoalescingArbiter : public WriteFirstArbiter {
public:
  CoalescingArbiter(sc_core::sc_module_name nm, Params& p, const UnitContext& c)
      : WriteFirstArbiter(nm, p, c),
        window_(p.get_uint("window", 8,
                           "queued requests after the primary grant searched for a coalescing "
                           "partner (0: no coalescing)",
                           0, 4096)),
        unlimited_(p.get_bool("unlimited_ports", false,
                              "limit study: every bank and collector serves any number of "
                              "requests per cycle (collector_ports, window and kinds unused)")),
        coalesced_(stats().vector(
            "coalesced", cmrc::kKinds,
            "requests served by another request's access, by Table I kind", "accesses",
            cmrc::kind_names(),
            energy::no_event(
                "CMRC: requests served by another request's access; no access of their own"))),
        unpaired_(stats().vector(
            "unpaired", kUnpaired,
            "port cycles that served one request only, by the closest partner found: the "
            "primary is full width; no other request within the window; every one too wide "
            "(widths add up past 4 bytes); one narrow enough but its row has the primary's "
            "parity (both right- or both left-aligned); one disjoint but no enabled Table I "
            "kind covers the pair (a kind switched off, or two writes of one instruction); "
            "one disjoint but its collector's 32 B ports are taken this cycle",
            "accesses",
            {"full_width", "alone", "too_wide", "same_parity", "kind_off", "collector_busy"},
            energy::no_event("CMRC: port cycles that served one request, by why; priced as the "
                             "bank's slices"),
            check::open_gap("CMRC: reads the coalescing search left alone, by reason"))) {
    const auto names = p.get_choice_list("kinds", cmrc::kind_names(),
                                         "Table I coalescing kinds allowed", cmrc::kind_names());
    kinds_ = cmrc::KindSet::parse(names);
    if (collector_ports_ != 1)
      p.fail("collector_ports",
             std::to_string(collector_ports_) +
                 ": the coalescing arbiter gives each collector one 32 B write port per slice "
                 "(Sec. IV-B4); valid: 1");
  }

  void tick(Cycle now) override {
    queues_.resize(banks_.size());
    oc_slices_.resize(ctx_.shape->collectors + 1, 0);
    oc_bank_.resize(ctx_.shape->collectors + 1, 0);
    bool more = false;
    for (unsigned b = 0; b < banks_.size(); ++b) {
      Queue& q = queues_[b];
      if (q.writes.empty() && q.reads.empty()) continue;
      if (unlimited_)
        serve_all(b, q);
      else if (banks_[b].separate_write_port) {
        const bool w = serve(b, q, true, false), r = serve(b, q, false, true);
        accesses_ += w + r;
      } else
        accesses_ += serve(b, q, true, true);
      more |= !q.writes.empty() || !q.reads.empty();
    }
    for (unsigned c : touched_) oc_slices_[c] = 0;
    touched_.clear();
    if (more) wake(now + 1);
  }

  // One 32 B write port per slice on each collector.
  unsigned collector_ports() const override { return unlimited_ ? 0 : 1; }

private:
  // Why a primary found no partner, from the farthest from pairing to the closest.
  enum Unpaired { kFullWidth, kAlone, kTooWide, kSameParity, kKindOff, kCollectorBusy, kUnpaired };

  cmrc::Request req(unsigned b, const Req& t) const {
    return {t.kind == Txn::Kind::Write, t.inst, b, t.slice_mask, t.collector};
  }

  // A read may enter its collector: its slices are free at the collector's write ports, and
  // if another bank already delivers there this cycle, kind 5 is enabled.
  bool collector_takes(unsigned b, const Req& t) const {
    const unsigned used = oc_slices_[t.collector];
    if (!used) return true;
    return !(used & t.slice_mask) &&
           (oc_bank_[t.collector] == b || kinds_.has(cmrc::Kind::ReadReadDiffBank));
  }

  void grant(unsigned b, const Req& t) {
    if (t.kind == Txn::Kind::Write) {
      access(b, t, tlm::TLM_WRITE_COMMAND);
      ++writes_;
      return;
    }
    unsigned& used = oc_slices_[t.collector];
    if (used && oc_bank_[t.collector] != b) ++coalesced_[unsigned(cmrc::Kind::ReadReadDiffBank)];
    if (!used) {
      touched_.push_back(t.collector);
      oc_bank_[t.collector] = b;
    }
    used |= t.slice_mask;
    access(b, t, tlm::TLM_READ_COMMAND);
    ++(t.kind == Txn::Kind::VerifyRead ? verify_reads_ : reads_); // WIR's verify-reads apart
  }

  // One port cycle of bank b over its write and/or read queue: a primary grant and at most
  // one partner. Returns whether the port was used.
  bool serve(unsigned b, Queue& q, bool writes, bool reads) {
    // Candidates in priority order: queued writes, then queued reads (FIFO within each).
    TxnQueue* lists[2] = {writes ? &q.writes : nullptr, reads ? &q.reads : nullptr};
    TxnQueue* pl = nullptr;
    size_t pi = 0;
    for (auto* l : lists) {
      if (!l || pl) continue;
      for (size_t i = 0; i < l->size() && (!search_window_ || i < search_window_); ++i)
        if ((*l)[i].kind == Txn::Kind::Write || collector_takes(b, (*l)[i])) {
          pl = l, pi = i;
          break;
        }
    }
    if (!pl) { // no candidate may go first: reads their collectors cannot take this cycle
      conflicts_[kCollectorPort] += q.reads.size();
      return false;
    }
    const Req primary = (*pl)[pi];
    const cmrc::Request pr = req(b, primary);
    // Partner: the next `window` candidates after the primary, in the same order.
    TxnQueue* xl = nullptr;
    size_t xi = 0;
    unsigned looked = 0;
    bool after = false;
    unsigned why = pr.slices == (1u << cmrc::kSlices) - 1 ? kFullWidth : kAlone;
    for (auto* l : lists) {
      if (!l || xl) continue;
      for (size_t i = 0; i < l->size() && looked < window_; ++i) {
        if (l == pl && i <= pi) {
          after = true;
          continue;
        }
        if (!after) continue; // candidates before the primary were not eligible
        ++looked;
        const Req& t = (*l)[i];
        const cmrc::Request tr = req(b, t);
        unsigned miss;
        if (pr.slices & tr.slices) // narrow even + odd rows never overlap (Fig. 4)
          miss = unsigned(__builtin_popcount(pr.slices) + __builtin_popcount(tr.slices)) >
                         cmrc::kSlices
                     ? kTooWide
                     : kSameParity;
        else if (!cmrc::can_coalesce(pr, tr, kinds_))
          miss = kKindOff;
        else if (t.kind != Txn::Kind::Write && !collector_takes(b, t))
          miss = kCollectorBusy;
        else {
          xl = l, xi = i;
          break;
        }
        if (why != kFullWidth) why = std::max(why, miss);
      }
    }
    if (!xl && window_) ++unpaired_[why];
    grant(b, primary);
    if (xl) {
      const Req partner = (*xl)[xi];
      cmrc::Kind k;
      cmrc::classify(pr, req(b, partner), k);
      ++coalesced_[unsigned(k)];
      grant(b, partner);
      xl->erase(xl->begin() + xi);
    }
    pl->erase(pl->begin() + pi);
    // Waiting requests, by what blocked them.
    const bool wrote = primary.kind == Txn::Kind::Write;
    if (writes) conflicts_[kWriteWrite] += q.writes.size();
    if (reads) { // a collector refuses only after a read was granted to it this cycle
      uint64_t refused = 0;
      if (!touched_.empty())
        for (const Req& t : q.reads) refused += !collector_takes(b, t);
      conflicts_[kCollectorPort] += refused;
      conflicts_[wrote ? kReadWrite : kReadRead] += q.reads.size() - refused;
    }
    return true;
  }

  // Limit study: every queued request in one cycle, each its own access.
  void serve_all(unsigned b, Queue& q) {
    for (const Req& t : q.writes) access(b, t, tlm::TLM_WRITE_COMMAND);
    for (const Req& t : q.reads) {
      access(b, t, tlm::TLM_READ_COMMAND);
      ++(t.kind == Txn::Kind::VerifyRead ? verify_reads_ : reads_);
    }
    writes_ += q.writes.size();
    accesses_ += q.writes.size() + q.reads.size();
    q.writes.clear();
    q.reads.clear();
  }

  const unsigned window_;
  const bool unlimited_;
  cmrc::KindSet kinds_;
  Stat& coalesced_;
  Stat& unpaired_;
  std::vector<unsigned> oc_slices_, oc_bank_; // per collector this cycle: slices taken, bank
};

GPURF_REGISTER_UNIT(IArbiter, CoalescingArbiter, "coalescing",
                    "CMRC: pairs two requests with disjoint slice masks into one bank access "
                    "(Table I kinds); collectors with 32 B write ports per slice");

} // namespace gpurf
