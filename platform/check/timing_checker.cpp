#include "gpurf/platform/check/timing_checker.h"
#include "gpurf/modules/common/bits.h"

#include <algorithm>
#include <sstream>

namespace gpurf {

namespace {
// Slices in a slice mask: by table for the usual masks of up to 8 slices (a bank access
// counts its slices; the word-parallel count costs 12 instructions).
struct Pop8 {
  uint8_t n[256];
  constexpr Pop8() : n() {
    for (unsigned m = 0; m < 256; ++m) n[m] = uint8_t(popcount32(m));
  }
};
constexpr Pop8 kPop8{};
unsigned popcount(unsigned m) { return m < 256 ? kPop8.n[m] : popcount32(m); }
// The lowest set bit of m != 0 (the slice loops visit the set bits in increasing order).
unsigned ctz32(unsigned m) { return unsigned(__builtin_ctz(m)); }

// `seq` in a register's reader list (a few entries: a plain loop beats std::find's unrolling).
std::vector<uint64_t>::iterator find_reader(std::vector<uint64_t>& r, uint64_t seq) {
  auto it = r.begin();
  while (it != r.end() && *it != seq) ++it;
  return it;
}
} // namespace

EventCounts& EventCounts::operator+=(const EventCounts& o) {
  static_assert(sizeof(EventCounts) == (29 + kNumPipes + kMemSpaces) * sizeof(uint64_t),
                "add the new count here");
  for (auto [a, b] : {std::pair{&issued, o.issued},
                      {&dispatched, o.dispatched},
                      {&retired, o.retired},
                      {&bank_reads, o.bank_reads},
                      {&bank_writes, o.bank_writes},
                      {&bank_slice_reads, o.bank_slice_reads},
                      {&bank_slice_writes, o.bank_slice_writes},
                      {&bank_port_cycles, o.bank_port_cycles},
                      {&companion_reads, o.companion_reads},
                      {&companion_writes, o.companion_writes},
                      {&rfc_reads, o.rfc_reads},
                      {&rfc_writes, o.rfc_writes},
                      {&forwarded, o.forwarded},
                      {&arrivals, o.arrivals},
                      {&arch_writes, o.arch_writes},
                      {&bank_copy_writes, o.bank_copy_writes},
                      {&ccu_reads, o.ccu_reads},
                      {&ccu_writes, o.ccu_writes},
                      {&ccu_warp_changes, o.ccu_warp_changes},
                      {&reused, o.reused},
                      {&verify_reads, o.verify_reads},
                      {&verify_slice_reads, o.verify_slice_reads},
                      {&remaps, o.remaps},
                      {&wakeups, o.wakeups},
                      {&gating, o.gating},
                      {&rfc_fills, o.rfc_fills},
                      {&allocations, o.allocations},
                      {&activations, o.activations},
                      {&deactivations, o.deactivations}})
    *a += b;
  for (unsigned p = 0; p < kNumPipes; ++p) by_pipe[p] += o.by_pipe[p];
  for (unsigned m = 0; m < kMemSpaces; ++m) mem_by_space[m] += o.mem_by_space[m];
  return *this;
}

TimingChecker::TimingChecker(const TimingSpec& s)
    : spec_(s), slice_bits_(s.slices >= 32 ? ~0u : (1u << s.slices) - 1),
      reg_stride_(s.regs_per_thread + s.preds_per_thread) {
  const unsigned sub = s.subcores;
  if (s.collector_ports >= SliceCounts::kLevels || s.bank_read_ports >= SliceCounts::kLevels)
    throw std::invalid_argument(
        "timing checker: collector_ports and bank_read_ports must be below " +
        std::to_string(SliceCounts::kLevels));
  regs_.resize(size_t(s.warps) * reg_stride_);
  bank_use_.resize(size_t(sub) * s.banks);
  collector_use_.resize(size_t(sub) * s.collectors);
  decompress_use_.resize(sub);
  if (s.wake_latency) {
    counts_.gating = 1;
    gating_.resize(size_t(sub) * s.banks);
    for (Gating& g : gating_) {
      g.valid.assign(s.bank_rows, 0);
      g.count.assign(s.slices, 0);
      g.awake_at.assign(s.slices, 0);
    }
  }
  issue_use_.resize(size_t(sub) * s.schedulers);
  rfc_reads_.resize(sub);
  rfc_writes_.resize(sub);
  pipe_use_.resize(size_t(sub) * kNumPipes);
  active_count_.resize(size_t(sub) * s.schedulers);
  active_.resize(s.warps);
  if (s.ccu_hit_latency) ccu_.resize(size_t(sub) * s.collectors);
  if (s.renaming) phys_version_.assign(size_t(sub) * s.bank_rows_total, 0);
}

void TimingChecker::fail(const char* rule, const Where& u, Cycle at, const WarpInst* i,
                         const std::string& what) const {
  std::ostringstream m;
  m << "timing check failed (" << rule << ") in ";
  if (u.kind)
    m << "sub" << u.subcore << "." << u.kind;
  else
    m << "sm";
  if (u.index >= 0) m << u.index;
  if (u.pipe) m << "." << u.pipe;
  m << " at cycle " << at;
  if (i && i->info)
    m << ": warp " << i->warp << " #" << i->seq << " pc " << i->info->pc << " (PTX line "
      << i->info->ptx_line << ", " << i->info->opname << ")";
  m << ": " << what;
  throw TimingViolation(m.str());
}

void TimingChecker::not_in_flight(const WarpInst& i, const char* rule, Cycle at) {
  fail(rule, Where{}, at, &i, "event for an instruction that is not in flight");
}

std::string TimingChecker::reg_name(unsigned index) const {
  return index < spec_.regs_per_thread ? "r" + std::to_string(index)
                                       : "p" + std::to_string(index - spec_.regs_per_thread);
}

unsigned TimingChecker::bump(Count& c, Cycle at) {
  if (c.at != at) c = {at, 0};
  return ++c.n;
}

void TimingChecker::issue(const WarpInst& i, Cycle t) {
  const InstInfo& info = *i.info;
  const auto unit = [&] { return Where{"scheduler", i.subcore, i.scheduler}; };
  if (i.seq <= last_seq_)
    fail("issue", unit(), t, &i,
         "sequence number not above the last issued #" + std::to_string(last_seq_));
  last_seq_ = i.seq;
  const size_t k = size_t(i.subcore) * spec_.schedulers + i.scheduler;
  if (bump(issue_use_[k], t) > spec_.issue_width)
    fail("issue width", unit(), t, &i,
         "more than issue_width = " + std::to_string(spec_.issue_width) + " issues this cycle");
  if (spec_.active_limit && !active_[i.warp])
    fail("two-level", unit(), t, &i, "issued from a warp outside the active set");
  const unsigned pbase = spec_.regs_per_thread;
  Reg* const regs = regs_of(i.warp);
  // RAW: a source whose producer's write is not granted yet (rare: the scheduler holds such a
  // warp) is checked out of line. Each distinct source register lists `i` as a reader once:
  // `i` is the newest instruction, so a register already listing it lists it last.
  const bool raw = !spec_.software_dependences;
  unsigned sources = 0; // distinct source registers (a collector reads each once)
  for (unsigned s = 0; s < info.n_src; ++s) {
    Reg& r = regs[info.src_reg[s]];
    if (raw && r.unwritten) raw_pending(i, unit(), t, info.src_reg[s], r);
    if (r.readers.empty() || r.readers.back() != i.seq) {
      r.readers.push_back(i.seq);
      ++sources;
    }
  }
  for (unsigned s = 0; s < info.n_psrc; ++s) {
    Reg& r = regs[pbase + info.psrc_reg[s]];
    if (raw && r.unwritten) raw_pending(i, unit(), t, pbase + info.psrc_reg[s], r);
  }
  for (unsigned s = 0; s < info.n_psrc; ++s)
    regs[pbase + info.psrc_reg[s]].readers.push_back(i.seq);
  for (unsigned d = 0; d < info.n_dst; ++d) {
    Reg& r = regs[info.dst_reg[d]];
    ++r.unwritten;
    r.producer = {i.seq, r.producer[0]};
    r.producer_ready = {kNever, r.producer_ready[0]};
  }
  for (unsigned d = 0; d < info.n_pdst; ++d) {
    Reg& r = regs[pbase + info.pdst_reg[d]];
    ++r.unwritten;
    r.producer = {i.seq, r.producer[0]};
    r.producer_ready = {kNever, r.producer_ready[0]};
  }
  Inst& s = live_.add(i.seq); // new: seq is above every earlier one
  s.inst = &i;
  s.issue = t;
  s.sources = uint8_t(sources);
  if (alloc_inst_ == &i) s.alloc = alloc_at_;
  alloc_inst_ = nullptr;
  if (info.async != InstInfo::Async::None) async_issue(i, s, t);
  ++counts_.issued;
}

// Source `index` of `i` issues while an older producer's write is not granted: only with
// forwarding, and only if that producer's result is ready by the end of the consumer's
// register-read stage.
void TimingChecker::raw_pending(const WarpInst& i, const Where& unit, Cycle t, unsigned index,
                                const Reg& r) const {
  if (!spec_.forward_stages || index >= spec_.regs_per_thread)
    fail("RAW", unit, t, &i,
         "source " + reg_name(index) +
             " issued before the write of its older producer was granted");
  const Cycle ready = r.producer_ready[0];
  if (ready == kNever || t + spec_.forward_stages < ready)
    fail("RAW", unit, t, &i,
         "source " + reg_name(index) + " issued while the result of #" +
             std::to_string(r.producer[0]) + " is ready only at cycle " +
             (ready == kNever ? std::string("(unknown)") : std::to_string(ready)) + ", after the " +
             std::to_string(spec_.forward_stages) + "-stage register read");
}

void TimingChecker::async_issue(const WarpInst& i, Inst& s, Cycle t) {
  if (async_.size() <= i.warp) async_.resize(i.warp + 1);
  AsyncCopies& a = async_[i.warp];
  switch (i.info->async) {
  case InstInfo::Async::Copy:
    s.async_group = a.commits;
    ++a.outstanding[a.commits];
    return;
  case InstInfo::Async::Commit:
    ++a.commits;
    return;
  default: {
    // Groups numbered below `limit` must be complete: all but the async_n newest committed
    // ones (wait_group), every copy (wait_all).
    const bool all = i.info->async == InstInfo::Async::WaitAll;
    const uint64_t limit =
        all ? ~uint64_t(0) : a.commits - std::min<uint64_t>(a.commits, i.info->async_n);
    if (!a.outstanding.empty() && a.outstanding.begin()->first < limit)
      fail("async", Where{"scheduler", i.subcore, i.scheduler}, t, &i,
           std::to_string(a.outstanding.begin()->second) + " cp.async cop" +
               (a.outstanding.begin()->second == 1 ? "y" : "ies") + " of group " +
               std::to_string(a.outstanding.begin()->first) +
               " not complete when the wait issued (" + std::to_string(a.commits) +
               " groups committed)");
  }
  }
}

// The allocator binds the collector before the scheduler executes and issues the
// instruction (which then gets its sequence number): remember it until the issue event. After
// WIR's rename and reuse stages it binds an instruction already issued.
void TimingChecker::allocated(const WarpInst& i, unsigned collector, Cycle t) {
  ++counts_.allocations;
  Inst* live = live_.find(i.seq);
  if (live && live->inst == &i) {
    if (live->alloc != kNever || t < live->issue + spec_.rename_stages)
      fail("latency", Where{"allocator", i.subcore, -1}, t, &i,
           "a collector bound twice, or before the rename and reuse stages ended");
    live->alloc = t;
  } else {
    alloc_inst_ = &i;
    alloc_at_ = t;
  }
  if (ccu_.empty()) return;
  CcuModel& m = ccu_[size_t(i.subcore) * spec_.collectors + collector];
  if (m.warp == int(i.warp)) return;
  counts_.ccu_warp_changes += m.warp >= 0;
  m.warp = int(i.warp);
  m.holds.clear();
}

Cycle TimingChecker::gate_slices(const RegAccess& a, Cycle t, bool write) {
  Gating& g = gating_[size_t(a.inst->subcore) * spec_.banks + unsigned(a.bank)];
  Cycle ready = t;
  const unsigned mask = a.slice_mask & slice_bits_;
  for (unsigned m = mask; m; m &= m - 1) {
    const unsigned s = unsigned(__builtin_ctz(m));
    if (!g.count[s] && g.awake_at[s] <= t) {
      g.awake_at[s] = t + spec_.wake_latency;
      ++counts_.wakeups;
    }
    ready = std::max(ready, g.awake_at[s]);
  }
  if (write && a.row < g.valid.size()) {
    for (unsigned m = g.valid[a.row] ^ mask; m; m &= m - 1) {
      const unsigned s = unsigned(__builtin_ctz(m));
      g.count[s] += mask >> s & 1 ? 1 : -1;
    }
    g.valid[a.row] = mask;
  }
  return ready - t;
}

void TimingChecker::released(unsigned subcore, unsigned bank, unsigned row, Cycle) {
  if (!spec_.wake_latency) return;
  Gating& g = gating_[size_t(subcore) * spec_.banks + bank];
  if (row >= g.valid.size()) return;
  for (unsigned m = g.valid[row]; m; m &= m - 1) --g.count[unsigned(__builtin_ctz(m))];
  g.valid[row] = 0;
}

void TimingChecker::read(const RegAccess& a, Cycle t) {
  const WarpInst& i = *a.inst;
  Inst& s = state(i, "read", t);
  const bool bank = a.store == Store::Bank, ccu = a.store == Store::Ccu;
  const auto unit = [&, bank, ccu] {
    return bank  ? Where{"bank", i.subcore, a.bank}
           : ccu ? Where{"collector", i.subcore, a.bank}
                 : Where{"rfc", i.subcore, -1};
  };
  // The request leaves the collector the cycle after allocation, then the RFC's tag check; a
  // CCU checks its tags at the allocation.
  if (s.alloc == kNever)
    fail("latency", unit(), t, &i, "read granted without a collector allocation");
  const Cycle earliest = ccu ? s.alloc : s.alloc + 1 + (spec_.rfc ? spec_.rfc_tag_latency : 0);
  if (t < earliest)
    fail("latency", unit(), t, &i,
         "read of r" + std::to_string(a.reg) + " granted before cycle " + std::to_string(earliest) +
             " (collector allocated at " + std::to_string(s.alloc) + ")");
  Reg& rr = reg(i.warp, a.reg);
  auto& readers = rr.readers;
  auto it = find_reader(readers, i.seq);
  if (it == readers.end() || s.reads == s.sources)
    fail("read", unit(), t, &i, "r" + std::to_string(a.reg) + " read twice or not a source");
  readers.erase(it);
  // RAW at the read: the storage must hold the producer's value, unless forwarding replaces
  // it with the producer's result (still in flight: its ready cycle is known).
  uint64_t want = 0; // the version its last source naming the register was issued with
  for (unsigned k = i.info->n_src; k-- > 0;)
    if (i.info->src_reg[k] == a.reg) {
      want = i.src[k].version;
      break;
    }
  if (ccu) {
    if (ccu_.empty() || a.bank < 0 || unsigned(a.bank) >= spec_.collectors)
      fail("ccu", unit(), t, &i, "a cache-table hit in a collector that caches nothing");
    const CcuModel& m = ccu_[size_t(i.subcore) * spec_.collectors + unsigned(a.bank)];
    const uint64_t* h = m.holds.find(a.reg);
    if (m.warp != int(i.warp) || !h || *h != want)
      fail("ccu", unit(), t, &i,
           "hit on r" + std::to_string(a.reg) + " wanting the value of #" + std::to_string(want) +
               ", but the CCU " +
               (m.warp != int(i.warp) ? std::string("holds another warp's registers")
                : !h                  ? std::string("cannot hold it (never filled or written "
                                                                     "since the flush, or overwritten)")
                                      : "holds the value of #" + std::to_string(*h)));
  }
  const Cycle fwd = spec_.forward_stages && want ? rr.ready_of(want) : kNever;
  const bool stale = spec_.renaming && bank ? phys(a) != want
                                            : !ccu && want > (bank ? rr.bank_version : a.version);
  if (stale && fwd == kNever)
    fail("RAW", unit(), t, &i,
         "r" + std::to_string(a.reg) + " read from the " + store_name(a.store) +
             " before it held the value of its producer #" + std::to_string(want) +
             (spec_.forward_stages ? ", with no result to forward" : ""));
  s.read[s.reads] = {uint16_t(a.reg), a.store, stale, t, fwd, bank ? gate(a, t, false) : 0,
                     a.companion};
  ++s.reads;
  if (bank) {
    ++counts_.bank_reads;
    counts_.bank_slice_reads += popcount(a.slice_mask);
    bank_port(a, false, t);
  } else if (ccu) {
    ++counts_.ccu_reads;
  } else {
    ++counts_.rfc_reads;
    if (bump(rfc_reads_[i.subcore], t) > spec_.rfc_read_ports)
      fail("ports", unit(), t, &i,
           "more than " + std::to_string(spec_.rfc_read_ports) + " RFC reads this cycle");
  }
}

void TimingChecker::arrived(const WarpInst& i, unsigned r, unsigned collector, Store from,
                            unsigned mask, Cycle at) {
  Inst& s = state(i, "arrival", at);
  const auto unit = [&] { return Where{"collector", i.subcore, collector}; };
  int k = int(s.reads) - 1; // its last read (a register is read once: the first found)
  while (k >= 0 && s.read[unsigned(k)].reg != r) --k;
  const bool fwd = from == Store::Bypass;
  if (k < 0 || (!fwd && s.read[unsigned(k)].from != from))
    fail("latency", unit(), at, &i,
         "operand r" + std::to_string(r) + " arrived from the " + store_name(from) +
             " without a read granted there");
  const Read& rd = s.read[unsigned(k)];
  if (fwd ? rd.forward_at == kNever : rd.stale)
    fail("RAW", unit(), at, &i,
         "operand r" + std::to_string(r) +
             (fwd ? " forwarded, but its producer was not in flight at the read"
                  : " read before its producer's write and not replaced by forwarding"));
  const bool bank = rd.from == Store::Bank;
  // W-C: only a compressed operand (fewer slices than the bank has) is decompressed.
  // At dispatch: the operand reaches the collector compressed, the stage is dispatch's.
  const bool compressed = bank && spec_.decompressors && popcount(mask) < spec_.slices;
  const bool stage_here = compressed && !spec_.decompress_at_dispatch;
  s.compressed += compressed && !stage_here;
  const Cycle read_done = rd.at + (bank ? spec_.bank_latency + spec_.xbar_latency +
                                              (stage_here ? spec_.decompress_latency : 0) + rd.wake
                                   : rd.from == Store::Ccu ? spec_.ccu_hit_latency
                                                           : spec_.rfc_hit_latency);
  if (bank && !ccu_.empty()) { // a caching collector keeps what its bank reads bring
    uint64_t version = 0;
    for (unsigned k = 0; k < i.info->n_src; ++k)
      if (i.info->src_reg[k] == r) version = i.src[k].version;
    ccu_[size_t(i.subcore) * spec_.collectors + collector].holds.set(r, version);
  }
  const Cycle want = fwd ? std::max(read_done, rd.forward_at) : read_done;
  // A compressed operand may wait for a decompressor; at most `decompressors` per cycle.
  if (stage_here && !fwd && at >= want) {
    const Cycle slot = at - spec_.decompress_latency;
    auto& u = decompress_use_[i.subcore];
    while (!u.empty() && u.begin()->first + 64 < slot) u.erase(u.begin());
    if (++u[slot] > spec_.decompressors)
      fail("ports", unit(), at, &i,
           "more than " + std::to_string(spec_.decompressors) +
               " compressed operands through the decompressors in cycle " + std::to_string(slot));
  } else if (at != want)
    fail("latency", unit(), at, &i,
         "operand r" + std::to_string(r) + " read at cycle " + std::to_string(rd.at) +
             " arrived at " + std::to_string(at) + ", the configuration says " +
             std::to_string(want));
  ++s.arrivals;
  s.last_arrival = std::max(s.last_arrival, at);
  ++counts_.arrivals;
  counts_.forwarded += fwd;
  // A 64-bit operand's high half enters with its low half's write (frontend.reg64).
  if (!bank || !spec_.collector_ports || rd.companion) return;
  // The arbiter grants one read per collector port and cycle: the port is taken the cycle the
  // bank's data would cross at the fixed latencies (a wake-up or a decompressor wait delays
  // the operand, not the grant), even when a forwarded result replaces it later.
  const Cycle crossing = rd.at + spec_.bank_latency + spec_.xbar_latency;
  PortUse& u = collector_use_[size_t(i.subcore) * spec_.collectors + collector];
  if (u.at != crossing) u.reset(crossing);
  // The lowest slice over the limit: the one a slice-by-slice count in increasing order
  // would stop at.
  if (const uint32_t over = u.r.add(mask & slice_bits_, spec_.collector_ports))
    fail("ports", unit(), at, &i,
         "more than " + std::to_string(spec_.collector_ports) +
             " operands through one collector write port in a cycle (slice " +
             std::to_string(ctz32(over)) + ")");
}

void TimingChecker::operands_read(const WarpInst& i, Cycle t) {
  Inst& s = state(i, "operands read", t);
  const auto unit = [&] { return Where{"collector", i.subcore, -1}; };
  if (s.arrivals != s.sources || t < s.last_arrival)
    fail("dispatch", unit(), t, &i,
         std::to_string(s.arrivals) + " of " + std::to_string(s.sources) +
             " operands in (last at cycle " + std::to_string(s.last_arrival) +
             ") when the collector released its sources");
  const InstInfo& info = *i.info;
  for (unsigned k = 0; k < info.n_psrc; ++k) {
    auto& r = reg(i.warp, spec_.regs_per_thread + info.psrc_reg[k]).readers;
    auto it = find_reader(r, i.seq);
    if (it != r.end()) r.erase(it);
  }
}

void TimingChecker::dispatch(const WarpInst& i, Pipe pipe, unsigned latency, Cycle t) {
  Inst& s = state(i, "dispatch", t);
  const auto unit = [&] { return Where{"exec", i.subcore, -1, pipe_name(pipe)}; };
  if (s.arrivals != s.sources || t < s.last_arrival)
    fail("dispatch", unit(), t, &i,
         "dispatched with " + std::to_string(s.arrivals) + " of " + std::to_string(s.sources) +
             " operands, the last arriving at cycle " + std::to_string(s.last_arrival));
  if (s.dispatch != kNever) fail("dispatch", unit(), t, &i, "dispatched twice");
  if (spec_.forward_stages && t < s.alloc + spec_.forward_stages)
    fail("latency", unit(), t, &i,
         "dispatched before the " + std::to_string(spec_.forward_stages) +
             "-stage register read that began at cycle " + std::to_string(s.alloc) + " ended");
  s.dispatch = t;
  s.pipe = pipe;
  ++counts_.dispatched;
  ++counts_.by_pipe[unsigned(pipe)];
  if (pipe == Pipe::MEM) ++counts_.mem_by_space[std::min(unsigned(i.info->space), kMemSpaces - 1)];
  // The pipe the class runs on (else the front-end's), folded onto SP where it has no units.
  const InstInfo& info = *i.info;
  const TimingSpec::Class& c = spec_.classes[unsigned(info.op_class)];
  Pipe want = c.pipe < 0 ? info.pipe : static_cast<Pipe>(c.pipe);
  if (want != Pipe::MEM && !spec_.pipes[unsigned(want)].count) want = Pipe::SP;
  if (pipe != want)
    fail("dispatch", unit(), t, &i,
         std::string("latency class ") + op_class_name(info.op_class) + " runs on the " +
             pipe_name(want) + " pipe, dispatched into " + pipe_name(pipe));
  const TimingSpec::Pipe& p = spec_.pipes[unsigned(pipe)];
  s.latency = pipe != Pipe::MEM && c.latency ? c.latency : p.latency;
  const unsigned ii = pipe != Pipe::MEM && c.ii ? c.ii : p.ii;
  // W-C's stage between the collector and the pipe: the pipe says how much later than its
  // latency the result comes; only an instruction with compressed operands may add to it.
  // They pass the stage together, ceil(n / decompressors) consecutive cycles from dispatch
  // or later, the last ending decompress_latency before its operands enter the pipe.
  const unsigned stage = latency - s.latency;
  if (latency < s.latency || (stage && !s.compressed))
    fail("latency", unit(), t, &i,
         "dispatched with result latency " + std::to_string(latency) + ", the configuration says " +
             std::to_string(s.latency) + (s.compressed ? " plus the decompression stage" : ""));
  if (s.compressed) {
    const unsigned n = s.compressed, u = spec_.decompressors, groups = (n + u - 1) / u;
    if (stage < groups - 1 + spec_.decompress_latency)
      fail("latency", unit(), t, &i,
           "its " + std::to_string(n) + " compressed operands passed the decompression stage in " +
               std::to_string(stage) + " cycles; decompress_latency and " + std::to_string(u) +
               " decompressors need " + std::to_string(groups - 1 + spec_.decompress_latency));
    auto& use = decompress_use_[i.subcore];
    const Cycle first = t + stage - spec_.decompress_latency - (groups - 1);
    while (!use.empty() && use.begin()->first + 64 < first) use.erase(use.begin());
    for (unsigned g = 0; g < groups; ++g)
      if ((use[first + g] += g + 1 < groups ? u : n - (groups - 1) * u) > u)
        fail("ports", unit(), t, &i,
             "more than " + std::to_string(u) +
                 " compressed operands through the decompressors in cycle " +
                 std::to_string(first + g));
    s.latency = latency;
  }
  // `count` units, each reserved for the ii of the instruction it took: a free one must exist.
  // The reservations that ended are dropped only when there are `count` of them (fewer
  // cannot fill the pipe); a pipe without a count keeps none.
  if (!p.count) return;
  auto& busy = pipe_use_[size_t(i.subcore) * kNumPipes + unsigned(pipe)];
  if (busy.size() >= p.count) {
    busy.erase(std::remove_if(busy.begin(), busy.end(), [t](Cycle until) { return until <= t; }),
               busy.end());
    if (busy.size() >= p.count)
      fail("initiation interval", unit(), t, &i,
           std::to_string(p.count) + " unit(s) all reserved, the first free at cycle " +
               std::to_string(*std::min_element(busy.begin(), busy.end())));
  }
  busy.push_back(t + ii);
}

void TimingChecker::complete(const WarpInst& i, Cycle ready) {
  Inst& s = state(i, "complete", ready);
  const auto unit = [&] { return Where{"exec", i.subcore, -1, pipe_name(s.pipe)}; };
  if (s.dispatch == kNever) fail("latency", unit(), ready, &i, "result ready before dispatch");
  // Fixed-latency pipes deliver exactly the class's (else the pipe's) latency after dispatch;
  // memory no earlier than its pipeline latency to the L1 or shared-memory port.
  const Cycle want = s.dispatch + s.latency;
  if (s.pipe == Pipe::MEM ? ready < want : ready != want)
    fail("latency", unit(), ready, &i,
         "result ready at cycle " + std::to_string(ready) + " after dispatch at " +
             std::to_string(s.dispatch) + "; the configured latency gives " + std::to_string(want));
  s.ready = ready;
  for (unsigned d = 0; d < i.info->n_dst; ++d) {
    Reg& r = reg(i.warp, i.info->dst_reg[d]);
    for (unsigned k = 0; k < 2; ++k)
      if (r.producer[k] == i.seq) r.producer_ready[k] = ready;
  }
}

template <class Unit>
void TimingChecker::arch_write(const WarpInst& i, unsigned index, const Unit& unit, Cycle t) {
  Reg& r = reg(i.warp, index);
  if (!r.unwritten)
    fail("WAW", unit(), t, &i, reg_name(index) + " written without a pending producer");
  if (i.seq <= r.arch_version)
    fail("WAW", unit(), t, &i,
         reg_name(index) + " written after the younger #" + std::to_string(r.arch_version));
  // The readers are listed in issue order: the first is the oldest.
  if (!r.readers.empty() && r.readers.front() < i.seq)
    fail("WAR", unit(), t, &i,
         reg_name(index) + " written while the older #" + std::to_string(r.readers.front()) +
             " has not read it yet");
  --r.unwritten;
  r.arch_version = i.seq;
}

// A result written into a caching collector's table (port D).
void TimingChecker::ccu_write(const RegAccess& a, Cycle t) {
  const WarpInst& i = *a.inst;
  const auto unit = [&] { return Where{"collector", i.subcore, a.bank}; };
  if (ccu_.empty() || a.bank < 0 || unsigned(a.bank) >= spec_.collectors)
    fail("ccu", unit(), t, &i, "a cache-table write in a collector that caches nothing");
  CcuModel& m = ccu_[size_t(i.subcore) * spec_.collectors + unsigned(a.bank)];
  const std::string r = "r" + std::to_string(a.reg);
  if (last_bank_write_.at != t || last_bank_write_.version != a.version ||
      last_bank_write_.reg != a.reg)
    fail("ccu", unit(), t, &i, r + " written into the CCU without its bank write in this cycle");
  if (m.warp != int(i.warp))
    fail("ccu", unit(), t, &i, r + " written into a CCU holding another warp's registers");
  bool near = false;
  for (unsigned k = 0; k < i.info->n_dst; ++k)
    near |= i.info->dst_reg[k] == a.reg && i.dst[k].reuse_near;
  if (!near) fail("ccu", unit(), t, &i, r + ": a far result written into the CCU (write filter)");
  if (m.write_at == t) fail("ports", unit(), t, &i, "two results through one CCU's port D");
  m.write_at = t;
  m.holds.set(a.reg, a.version);
  ++counts_.ccu_writes;
}

void TimingChecker::write(const RegAccess& a, Cycle t) {
  if (a.store == Store::Ccu) return ccu_write(a, t);
  if (a.store == Store::Rename) { // WIR: the producer's write is a remap, no storage written
    const WarpInst& i = *a.inst;
    const auto unit = [&] { return Where{"writeback", i.subcore, -1}; };
    Inst& s = state(i, "remap", t);
    if (!spec_.renaming) fail("write", unit(), t, &i, "a remap on a platform that does not rename");
    if (s.ready == kNever || t < s.ready)
      fail("latency", unit(), t, &i,
           "r" + std::to_string(a.reg) + " remapped before the result was ready");
    if (phys(a) != a.version)
      fail("renaming", unit(), t, &i,
           "r" + std::to_string(a.reg) + " remapped to p" +
               std::to_string(a.row * spec_.banks + unsigned(a.bank)) + " for the value of #" +
               std::to_string(a.version) + ", which holds that of #" + std::to_string(phys(a)));
    arch_write(i, a.reg, unit, t);
    ++s.writes;
    ++counts_.arch_writes;
    ++counts_.remaps;
    return;
  }
  const WarpInst& i = *a.inst;
  const bool bank = a.store == Store::Bank;
  const auto unit = [&, bank] {
    return bank ? Where{"bank", i.subcore, a.bank} : Where{"rfc", i.subcore, -1};
  };
  if (!a.version)
    fail("write", unit(), t, &i, "r" + std::to_string(a.reg) + " written without a version tag");
  if (bank) gate(a, t, true);
  if (i.seq == a.version) { // the producer's own write
    Inst& s = state(i, "write", t);
    if (s.ready == kNever || t < s.ready + spec_.compress_latency)
      fail("latency", unit(), t, &i,
           "r" + std::to_string(a.reg) + " written before the result was ready (cycle " +
               (s.ready == kNever ? std::string("unknown") : std::to_string(s.ready)) + ")" +
               (spec_.compress_latency ? " plus the compression stage" : ""));
    arch_write(i, a.reg, unit, t);
    ++s.writes;
    ++counts_.arch_writes;
  } else if (bank) {
    if (a.version > reg(i.warp, a.reg).arch_version)
      fail("WAW", unit(), t, &i,
           "r" + std::to_string(a.reg) + " copy of version #" + std::to_string(a.version) +
               " written before its producer");
    ++counts_.bank_copy_writes;
  } else {
    fail("write", unit(), t, &i, "RFC write of a value not produced by the writing instruction");
  }
  if (!bank) {
    ++counts_.rfc_writes;
    if (bump(rfc_writes_[i.subcore], t) > spec_.rfc_write_ports)
      fail("ports", unit(), t, &i,
           "more than " + std::to_string(spec_.rfc_write_ports) + " RFC writes this cycle");
    return;
  }
  Reg& r = reg(i.warp, a.reg);
  if (spec_.renaming)
    phys(a) = a.version; // each producer writes its own physical register
  else if (a.version <= r.bank_version)
    fail("WAW", unit(), t, &i,
         "bank write of r" + std::to_string(a.reg) + " version #" + std::to_string(a.version) +
             " after version #" + std::to_string(r.bank_version));
  r.bank_version = a.version;
  last_bank_write_ = {a.version, a.reg, t};
  if (!ccu_.empty()) // the old value leaves every CCU of the warp unless written there now
    for (unsigned c = 0; c < spec_.collectors; ++c) {
      CcuModel& m = ccu_[size_t(i.subcore) * spec_.collectors + c];
      if (m.warp == int(i.warp)) m.holds.erase(a.reg);
    }
  ++counts_.bank_writes;
  counts_.bank_slice_writes += popcount(a.slice_mask);
  bank_port(a, true, t);
}

// One bank access: each slice's port(s) used at most once per cycle (split ports: its
// `bank_read_ports` read ports once each); port cycles counted (a shared port: one per cycle
// with any access; split ports: one for the write port, one per read port used).
inline void TimingChecker::bank_port(const RegAccess& a, bool write, Cycle t) {
  const auto unit = [&] { return Where{"bank", a.inst->subcore, a.bank}; };
  // A 64-bit operand's high half (frontend.reg64: one_operand) takes its low half's port
  // cycle: it must come right after that access, in the same cycle.
  if (a.companion) {
    if (last_access_.first != a.inst->seq || last_access_.second != t)
      fail("ports", unit(), t, a.inst,
           "r" + std::to_string(a.reg) +
               " accessed as a 64-bit operand's high half without its low half in this cycle");
    ++(write ? counts_.companion_writes : counts_.companion_reads);
    return;
  }
  last_access_ = {a.inst->seq, t};
  if (!spec_.collector_ports) { // limit study: every access its own port cycle, no limits
    ++counts_.bank_port_cycles;
    return;
  }
  PortUse& u = bank_use_[size_t(a.inst->subcore) * spec_.banks + unsigned(a.bank)];
  if (u.at != t) u.reset(t);
  const bool split = spec_.bank_split_ports;
  bool& used = split && write ? u.any_w : u.any_r;
  if (!split || write) counts_.bank_port_cycles += !used;
  used = true;
  // A shared port counts reads and writes together (u.r); split ports count them apart.
  SliceCounts& mine = split && write ? u.w : u.r;
  const unsigned limit = split && !write ? spec_.bank_read_ports : 1;
  const unsigned most = mine.depth; // split ports: the most reads of one slice (ports used)
  if (const uint32_t over = mine.add(a.slice_mask & slice_bits_, limit)) // lowest slice first
    bank_port_fail(a, write, t, ctz32(over), limit);
  if (split && !write) counts_.bank_port_cycles += mine.depth - most;
}

// Out of line, so that bank_port's own frame stays small.
void TimingChecker::bank_port_fail(const RegAccess& a, bool write, Cycle t, unsigned slice,
                                   unsigned limit) const {
  fail("ports", Where{"bank", a.inst->subcore, a.bank}, t, a.inst,
       "slice " + std::to_string(slice) + (write ? " written" : " read") + " by " +
           std::to_string(limit + 1) + " accesses in one cycle" +
           (spec_.bank_split_ports ? "" : " or read and written (one shared port)"));
}

void TimingChecker::retire(const WarpInst& i, Cycle t) {
  Inst& s = state(i, "retire", t);
  const InstInfo& info = *i.info;
  const auto unit = [&] { return Where{"writeback", i.subcore, -1}; };
  if (s.dispatch == kNever || s.ready == kNever || t < s.ready)
    fail("retire", unit(), t, &i, "retired before its result was ready");
  if (s.writes != info.n_dst)
    fail("retire", unit(), t, &i,
         "retired with " + std::to_string(s.writes) + " of " + std::to_string(info.n_dst) +
             " destinations written");
  // The predicate file is written as the instruction retires.
  for (unsigned k = 0; k < info.n_pdst; ++k)
    arch_write(i, spec_.regs_per_thread + info.pdst_reg[k], unit, t);
  if (info.async == InstInfo::Async::Copy) {
    auto& out = async_[i.warp].outstanding;
    if (--out[s.async_group] == 0) out.erase(s.async_group);
  }
  ++counts_.retired;
  live_.erase(i.seq);
}

void TimingChecker::active(unsigned subcore, unsigned scheduler, unsigned warp, bool on, Cycle t) {
  const size_t k = size_t(subcore) * spec_.schedulers + scheduler;
  const auto unit = [&] { return Where{"scheduler", subcore, scheduler}; };
  if (active_[warp] == on)
    fail("two-level", unit(), t, nullptr,
         "warp " + std::to_string(warp) + (on ? " activated twice" : " deactivated twice"));
  active_[warp] = on;
  on ? ++active_count_[k] : --active_count_[k];
  ++(on ? counts_.activations : counts_.deactivations);
  if (spec_.active_limit && active_count_[k] > spec_.active_limit)
    fail("two-level", unit(), t, nullptr,
         std::to_string(active_count_[k]) +
             " active warps, more than active = " + std::to_string(spec_.active_limit));
}

void TimingChecker::verify_read(const RegAccess& a, Cycle t) {
  const WarpInst& i = *a.inst;
  const auto unit = [&] { return Where{"bank", i.subcore, a.bank}; };
  Inst& s = state(i, "verify-read", t);
  if (!spec_.renaming)
    fail("write", unit(), t, &i, "a verify-read on a platform that does not rename");
  if (s.ready == kNever || t < s.ready + spec_.compress_latency)
    fail("latency", unit(), t, &i,
         "verify-read for r" + std::to_string(a.reg) +
             " before the register-allocation stage of its result ended");
  ++counts_.verify_reads;
  counts_.verify_slice_reads += popcount(a.slice_mask);
  bank_port(a, false, t);
}

void TimingChecker::reused(const WarpInst& i, Cycle t) {
  Inst& s = state(i, "reuse", t);
  const auto unit = [&] { return Where{"allocator", i.subcore, -1}; };
  if (!spec_.renaming) fail("reuse", unit(), t, &i, "a reuse on a platform that does not rename");
  if (s.alloc != kNever || s.reads)
    fail("reuse", unit(), t, &i, "reused after taking a collector or reading a source");
  if (t < s.issue + spec_.rename_stages)
    fail("latency", unit(), t, &i,
         "reused before the rename and reuse stages (" + std::to_string(spec_.rename_stages) +
             " cycles) ended");
  // It reads nothing: its sources are released; its result is ready now.
  const InstInfo& info = *i.info;
  for (unsigned k = 0; k < info.n_src; ++k) {
    auto& r = reg(i.warp, info.src_reg[k]).readers;
    auto it = find_reader(r, i.seq);
    if (it != r.end()) r.erase(it);
  }
  s.arrivals = s.sources = 0;
  s.dispatch = t;
  ++counts_.reused;
}

// Gebhart's RFC allocating an MRF operand as it passes (Sec. 3.1): a copy of a register the
// instruction read from a bank.
void TimingChecker::filled(const RegAccess& a, Cycle t) {
  const WarpInst& i = *a.inst;
  const auto unit = [&] { return Where{"rfc", i.subcore, -1}; };
  if (!spec_.rfc) fail("write", unit(), t, &i, "an RFC fill on a platform without an RFC");
  const Inst& s = state(i, "fill", t);
  bool from_bank = false;
  for (unsigned k = 0; k < s.reads; ++k)
    from_bank |= s.read[k].reg == a.reg && s.read[k].from == Store::Bank;
  if (!from_bank)
    fail("write", unit(), t, &i,
         "r" + std::to_string(a.reg) + " copied into the RFC without a bank read of it");
  ++counts_.rfc_fills;
}

} // namespace gpurf
