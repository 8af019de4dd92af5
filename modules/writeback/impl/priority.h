// Writeback with `ports` register writes per cycle. Completed instructions wait per pipe;
// pipes are served in `priority` order, oldest ready first within a pipe. An instruction
// retires (scoreboard released, front-end told) when the banks have taken all its results.
#pragma once
#include <algorithm>
#include <deque>
#include <functional>
#include <queue>

#include "gpurf/modules/common/inst_pool.h"
#include "gpurf/modules/frontend/i_frontend.h"
#include "gpurf/modules/writeback/i_writeback.h"
#include "gpurf/policies/reg_mapping.h"

namespace gpurf {

class PriorityWriteback : public IWriteback {
public:
  PriorityWriteback(sc_core::sc_module_name nm, Params& p, const UnitContext& c)
      : IWriteback(nm, c), ports_(p.get_uint("ports", 2, "register writes per cycle", 1, 64)),
        buffer_(p.get_uint("results", 0,
                           "results the writeback holds at once, from the cycle they are "
                           "ready to retirement; a full buffer refuses more and stalls "
                           "dispatch (0: unlimited)",
                           0, 1u << 16)),
        retired_(
            stats().scalar("retired", "warp instructions retired", "instructions",
                           energy::no_event("retired instructions; priced by exec.instructions"))),
        writes_(stats().scalar(
            "register_writes", "destination registers written", "registers",
            energy::scope(
                "writeback of a result: scoreboard release and writeback arbitration (the bank "
                "write is priced by slice_writes; result wires to the banks not modelled)"))),
        hi_halves_(stats().scalar(
            "reg64_high_halves",
            "high halves of 64-bit results written with their low half, in its request "
            "(frontend.reg64: one_operand; counted in register_writes too)",
            "registers", energy::no_event("part of register_writes"))),
        port_stall_(stats().scalar("port_stall_cycles",
                                   "cycles a ready result waited for a write port", "cycles",
                                   energy::no_event("stalls"), check::unwatched("stalls"))),
        order_stall_(stats().scalar("order_stall_cycles",
                                    "forwarding: cycles a result waited for an older write of "
                                    "its register to leave first",
                                    "cycles", energy::no_event("stalls"),
                                    check::unwatched("stalls"))) {
    std::vector<std::string> names;
    for (unsigned i = 0; i < kNumPipes; ++i) names.push_back(pipe_name(static_cast<Pipe>(i)));
    for (const std::string& s :
         p.get_choice_list("priority", {"mem", "sfu", "dp", "int", "sp", "tensor"},
                           "pipes in the order their results take the write ports", names)) {
      Pipe pipe;
      pipe_from_name(s, pipe);
      order_.push_back(static_cast<unsigned>(pipe));
    }
    for (unsigned i = 0; i < kNumPipes; ++i)
      if (std::find(order_.begin(), order_.end(), i) == order_.end()) order_.push_back(i);
    std::fill(std::begin(earliest_), std::end(earliest_), kNever);
  }

  void tick(Cycle now) override {
    unsigned ports = ports_;
    Cycle next = kNever;
    bool stalled = false, order_wait = false;
    // The values due (their order within a cycle does not matter: each notify only lowers the
    // scheduler's counts of its own instruction).
    while (!value_ready_.empty() && value_ready_.top().ready <= now) {
      WarpInst* inst = value_ready_.top().inst;
      value_ready_.pop();
      release_value(inst);
    }
    if (!value_ready_.empty()) next = value_ready_.top().ready;
    for (unsigned pipe : order_) {
      auto& q = waiting_[pipe];
      if (earliest_[pipe] > now) { // no result of this pipe is ready: the walk would only
        next = std::min(next, earliest_[pipe]); // find the earliest
        continue;
      }
      Cycle earliest = kNever; // of the results left in q, if the walk sees them all
      for (auto it = q.begin(); it != q.end();) {
        WarpInst* inst = it->inst;
        if (it->ready > now) {
          next = std::min(next, it->ready);
          earliest = std::min(earliest, it->ready);
          ++it;
          continue;
        }
        bool ordered = false; // waits for an older write of the same register
        while (inst->wb_sent < inst->n_dst && ports) {
          const SmShape& s = *ctx_.shape;
          const unsigned reg = inst->info->dst_reg[inst->wb_sent];
          if (s.forward_stages && writer_in_flight(inst->warp, reg, inst->seq)) {
            ordered = true;
            break;
          }
          // A 64-bit destination under frontend.reg64: one_operand is one write: its high
          // half rides the low half's request (Txn::hi), one port for both.
          const unsigned k = inst->wb_sent;
          Txn::Hi hi;
          if (k + 1 < inst->n_dst && inst->info->dst_is_hi(k + 1)) {
            Txn& h = write_request(inst, k + 1);
            if (prepare_write(h) != WriteAction::Send)
              throw std::logic_error(std::string(name()) + ": a 64-bit result's high half "
                                                           "must be written with its low half");
            hi = {true, h.reg, h.bank, h.row, h.slice_mask, h.data};
          }
          Txn& t = write_request(inst, k);
          const WriteAction a = prepare_write(t);
          if (a == WriteAction::Wait) break; // retried next cycle
          ++inst->wb_sent;
          if (a == WriteAction::Skip) continue;
          ++inst->wb_pending;
          if (hi.on) {
            t.hi = hi;
            ++inst->wb_sent, ++inst->wb_pending;
            if (t.kind == Txn::Kind::Write) ++writes_; // the high half's
            ++hi_halves_;
          }
          to_arb->b_transport(pkt_.gp, pkt_.delay);
          --ports;
          writes_ += t.kind == Txn::Kind::Write;
        }
        if (inst->wb_sent < inst->n_dst) {
          next = now + 1;
          if (ordered) { // the older one may stand behind it in this queue: go on
            order_wait = true;
            earliest = std::min(earliest, it->ready);
            ++it;
            continue;
          }
          stalled = true;
          earliest = 0; // the results behind it were not looked at
          break;
        }
        // Mostly the oldest: pop_front is inline, a deque's erase a call that works out which
        // end to move.
        if (it == q.begin()) {
          q.pop_front();
          it = q.begin();
        } else {
          it = q.erase(it);
        }
        // Every request answered (none sent: no destination or all remapped; or the last
        // answer came before the last destination was done). Answers never come within the
        // request's b_transport (the arbiter and the RFC queue them), so request_done() has
        // not retired it already.
        if (!inst->wb_pending) retire(inst);
      }
      earliest_[pipe] = earliest;
    }
    port_stall_ += stalled;
    order_stall_ += order_wait;
    if (next != kNever) wake(next);
  }

  void dump_state(std::ostream& os) const override {
    for (unsigned i = 0; i < kNumPipes; ++i)
      if (!waiting_[i].empty())
        os << "  " << pipe_name(static_cast<Pipe>(i)) << ": " << waiting_[i].size()
           << " results waiting\n";
  }

protected:
  struct Waiting;
  void on_complete(int, tlm::tlm_generic_payload& gp, sc_core::sc_time& d) override {
    Txn& t = txn_of(gp);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    auto queue = [&]() -> std::deque<Waiting>& {
      return waiting_[static_cast<unsigned>(ctx_.shape->pipe_for(*t.inst->info))];
    };
    const Cycle ready = now() + clock_->cycles(d);
    if (t.kind == Txn::Kind::Answered) { // an announced result (it took its entry then)
      auto& q = queue();
      auto it =
          std::find_if(q.begin(), q.end(), [&](const Waiting& w) { return w.inst == t.inst; });
      sc_assert(it != q.end() && it->ready == kNever);
      --announced_;
      return ready_at(*it, ready);
    }
    if (buffer_ && produced() >= buffer_) { // full: the pipe retries (backpressure to dispatch)
      t.busy = true;
      return;
    }
    if (t.kind == Txn::Kind::ResultSlot) return;
    auto& q = queue();
    ++held_;
    t.inst->wb_sent = t.inst->wb_pending = 0;
    // Queued in the order the pipes hand results over: the write ports serve ready results in
    // that order, so a load the memory answers later (AT) holds its place from its announcement
    // as the direct port's load, whose ready cycle is known at once, holds it.
    q.push_back({kNever, t.inst});
    if (t.kind == Txn::Kind::Announce)
      ++announced_;
    else
      ready_at(q.back(), ready);
  }

  // The result of `w.inst` is ready at `ready`.
  void ready_at(Waiting& w, Cycle ready) {
    w.inst->complete_cycle = ready;
    if (ctx_.probe) ctx_.probe->complete(*w.inst, ready);
    w.ready = write_ready(*w.inst, ready);
    Cycle& e = earliest_[static_cast<unsigned>(ctx_.shape->pipe_for(*w.inst->info))];
    e = std::min(e, w.ready);
    if (buffer_) readies_.push(w.ready);
    wake(w.ready);
    WarpInst* inst = w.inst;
    // Fixed-stage read with forwarding: a dependent issued `stages` cycles before the
    // result is ready dispatches when it is (collector/impl/fixed_stage.cpp).
    if (const unsigned n = ctx_.shape->forward_stages; n && inst->n_dst) {
      for (unsigned k = 0; k < inst->n_dst; ++k) writers(inst->warp, k, inst).push_back({inst, k});
      const Cycle at = ready > now() + n ? ready - n : now();
      if (at == now()) return release_value(inst);
      value_ready_.push({at, inst});
      wake(at);
    }
  }

  void on_forward(int, tlm::tlm_generic_payload& gp, sc_core::sc_time& d) override {
    Txn& t = txn_of(gp);
    unsigned slot = 0;
    const WarpInst* found = writer_in_flight(t.warp, t.reg, ~uint64_t(0), &slot);
    t.busy = !found;
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    if (!found) return;
    t.version = found->seq;
    gp.set_data_ptr(
        reinterpret_cast<unsigned char*>(const_cast<WarpInst*>(found)->dst[slot].value.data()));
    d = clock_->time(found->complete_cycle > now() ? found->complete_cycle - now() : 0);
  }

  void on_write_done(tlm::tlm_generic_payload& gp, sc_core::sc_time&) override {
    if (unsigned char* buf = txn_of(gp).data) free_.push_back(buf);
    request_done(txn_of(gp).inst);
  }

  // pkt_ as the write of destination k of inst: all its slices, to the register mapping's
  // bank and row.
  Txn& write_request(WarpInst* inst, unsigned k) {
    const SmShape& s = *ctx_.shape;
    pkt_.prepare(Txn::Kind::Write, tlm::TLM_WRITE_COMMAND);
    Txn& t = pkt_.txn;
    t.inst = inst;
    t.warp = inst->warp;
    t.reg = inst->info->dst_reg[k];
    const BankLoc loc = s.mapping->map(s.local_warp(inst->warp), t.reg);
    t.bank = loc.bank;
    t.row = loc.row;
    t.slice_mask = (1u << s.slices) - 1;
    t.operand = uint8_t(k);
    t.version = inst->seq;
    return t;
  }

  // One of inst's requests is answered; it retires when every destination is done.
  void request_done(WarpInst* inst) {
    if (--inst->wb_pending == 0 && inst->wb_sent == inst->n_dst) retire(inst);
  }

protected:
  // Variants adjust a write request before it goes to the arbiter (CMRC, W-C: slice mask,
  // the stored form in t.data from write_buffer(), which returns to the pool when written;
  // WIR: the physical register, or a verify-read instead), or say that the destination needs
  // no request (Skip: done, no port) or cannot go yet (Wait: retried next cycle).
  enum class WriteAction { Send, Skip, Wait };
  virtual WriteAction prepare_write(Txn&) { return WriteAction::Send; }
  // The cycle a result that is ready at `ready` may request its writes (W-C: after the
  // compression stage). The result is complete (and counted) at `ready` either way.
  virtual Cycle write_ready(const WarpInst&, Cycle ready) { return ready; }
  // A 128 B buffer for a write's stored form, valid until the bank has taken the write.
  unsigned char* write_buffer() {
    if (free_.empty()) return store_.emplace_back().data();
    unsigned char* b = free_.back();
    free_.pop_back();
    return b;
  }
  // Results produced (ready) and not yet retired: those the result buffer holds. A result
  // announced for a later cycle (a load on its way from memory) takes no entry yet.
  unsigned produced() {
    // Ready cycles only pass: those reached leave the heap for good (their results are
    // produced, or written and gone from the queues).
    while (!readies_.empty() && readies_.top() <= now()) readies_.pop();
    return held_ - announced_ - unsigned(readies_.size());
  }

  // The youngest instruction of `warp` older than `before` whose result for `reg` is in
  // flight (completed, not retired), and that destination's slot; null if none. Forwarding
  // takes its value; a younger result of the register waits for it: WAW is released with the
  // value, so only retirement keeps the writes in order whatever path each takes (an RFC may
  // allocate one and send another straight to the MRF).
  const WarpInst* writer_in_flight(unsigned warp, unsigned reg, uint64_t before,
                                   unsigned* slot = nullptr) const {
    const WarpInst* found = nullptr;
    const size_t at = size_t(warp) * ctx_.shape->regs_per_thread + reg;
    if (at >= writers_.size()) return nullptr;
    for (const Writer& w : writers_[at]) // an instruction writing reg twice: its last slot
      if (w.inst->seq < before &&
          (!found || w.inst->seq > found->seq || (w.inst == found && slot && w.slot > *slot))) {
        found = w.inst;
        if (slot) *slot = w.slot;
      }
    return found;
  }

  // Dependents of inst's data results may issue from now on (forwarding).
  void release_value(WarpInst* inst) {
    inst->value_ready = true;
    pkt_.prepare(Txn::Kind::ValueReady);
    pkt_.txn.inst = inst;
    to_sched[inst->scheduler]->b_transport(pkt_.gp, pkt_.delay);
  }

  virtual void retire(WarpInst* inst) {
    --held_;
    if (ctx_.shape->forward_stages && inst->n_dst) {
      for (unsigned k = 0; k < inst->n_dst; ++k) {
        auto& mine = writers(inst->warp, k, inst);
        mine.erase(std::remove_if(mine.begin(), mine.end(),
                                  [inst](const Writer& w) { return w.inst == inst; }),
                   mine.end());
      }
    }
    inst->retire_cycle = now();
    if (ctx_.probe) ctx_.probe->retire(*inst, now());
    pkt_.prepare(Txn::Kind::Written);
    pkt_.txn.inst = inst;
    to_sched[inst->scheduler]->b_transport(pkt_.gp, pkt_.delay);
    ctx_.frontend->retire(*inst);
    ctx_.pool->put(inst);
    ++retired_;
    ctx_.wake_issue();
  }

  struct Waiting {
    Cycle ready;
    WarpInst* inst;
  };
  const unsigned ports_;
  const unsigned buffer_; // results held at once; 0: unlimited
  unsigned held_ = 0;     // results taken and not retired (some not ready yet)
  // With a result buffer: the ready cycles of the queued results, those past removed when
  // counted (produced()), and the announced results with no ready cycle yet.
  std::priority_queue<Cycle, std::vector<Cycle>, std::greater<Cycle>> readies_;
  unsigned announced_ = 0;
  std::vector<unsigned> order_;
  std::deque<Waiting> waiting_[kNumPipes];
  // Per pipe: the earliest ready cycle of its waiting results (kNever: none; lower when not
  // known), so that a tick skips the queues with nothing ready.
  Cycle earliest_[kNumPipes];
  // Forwarding: the completed, not retired results, per warp and register (a lookup scans only
  // the results of its register), each with its destination slot.
  struct Writer {
    const WarpInst* inst;
    unsigned slot;
  };
  std::vector<std::vector<Writer>> writers_; // [warp * regs_per_thread + register]
  std::vector<Writer>& writers(unsigned warp, unsigned k, const WarpInst* inst) {
    const size_t at = size_t(warp) * ctx_.shape->regs_per_thread + inst->info->dst_reg[k];
    if (at >= writers_.size()) writers_.resize(at + 1);
    return writers_[at];
  }
  // Forwarding: ValueReady due at `ready`, soonest first (a load's waits hundreds of cycles:
  // a scan of them all in every tick cost a third of the tick).
  struct Later {
    bool operator()(const Waiting& a, const Waiting& b) const { return a.ready > b.ready; }
  };
  std::priority_queue<Waiting, std::vector<Waiting>, Later> value_ready_;
  std::deque<std::array<unsigned char, kRegBytes>> store_; // write_buffer(): stable addresses
  std::vector<unsigned char*> free_;
  Packet pkt_;
  uint64_t& retired_;
  uint64_t& writes_;
  uint64_t& hi_halves_;
  uint64_t& port_stall_;
  uint64_t& order_stall_;
};

} // namespace gpurf
