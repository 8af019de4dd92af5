// Events of the timing model, for observers that do not share its code: the timing
// checker (platform/check/timing_checker.h) proves the timing rules, the tracer
// (platform/trace.h) draws the instruction lifecycle. Units report what they did through
// UnitContext::probe, which is null when nobody listens (one null check per hook).
#pragma once

#include <vector>

#include "gpurf/modules/common/warp_inst.h"

namespace gpurf {

// One register access (a granted read or a write) of one storage structure.
struct RegAccess {
  const WarpInst* inst = nullptr; // the reading instruction, or the writing one
  unsigned reg = 0;
  Store store = Store::Bank;
  int bank = -1; // bank within the sub-core (-1: not a bank; Store::Ccu: the collector)
  unsigned row = 0;
  unsigned slice_mask = 0;
  uint64_t version = 0; // writes: sequence number of the instruction that produced the value
  // The high half of a 64-bit operand, accessed with its low half (frontend.reg64:
  // one_operand): the low half's port cycle, no port of its own.
  bool companion = false;
};

class Observer {
public:
  virtual ~Observer() = default;
  // The scheduler issued `i` (after the allocator took it; i.seq and versions are set).
  virtual void issue(const WarpInst&, Cycle) {}
  // Collector `collector` of the sub-core was bound to `i`.
  virtual void allocated(const WarpInst&, unsigned /*collector*/, Cycle) {}
  // A read was granted: the storage handed over its data in this cycle.
  virtual void read(const RegAccess&, Cycle) {}
  // Operand `reg` of `i` reaches collector `collector` at cycle `at`, from `from`.
  virtual void arrived(const WarpInst&, unsigned /*reg*/, unsigned /*collector*/, Store /*from*/,
                       unsigned /*slice_mask*/, Cycle /*at*/) {}
  // The collector has every source of `i` (its sources may be overwritten from now on).
  virtual void operands_read(const WarpInst&, Cycle) {}
  // The execution unit took `i` into `pipe` (result after `latency` cycles; 0: variable).
  virtual void dispatch(const WarpInst&, Pipe, unsigned /*latency*/, Cycle) {}
  // The writeback learnt that the result of `i` is ready at `ready`.
  virtual void complete(const WarpInst&, Cycle /*ready*/) {}
  // A write was granted: the storage holds the new value from this cycle on. Store::Rename:
  // no storage written; the destination now maps to the physical register (bank, row) that
  // holds the value of instruction #version (WIR's register reuse).
  virtual void write(const RegAccess&, Cycle) {}
  // WIR: a verify-read of physical register (bank, row) took a bank read port in this cycle.
  virtual void verify_read(const RegAccess&, Cycle) {}
  // WIR: `i` found its result in the reuse buffer and bypasses read, execution and write.
  virtual void reused(const WarpInst&, Cycle) {}
  // A storage took a copy of a source operand another storage delivered to `a.inst` (Gebhart's
  // RFC allocating MRF operands, Sec. 3.1); `a.version` is the copied value's producer.
  virtual void filled(const RegAccess&, Cycle) {}
  // `i` retired (every result written, predicates included).
  virtual void retire(const WarpInst&, Cycle) {}
  // Row `row` of bank `bank` holds no live register any more (power gating may clear it).
  virtual void released(unsigned /*subcore*/, unsigned /*bank*/, unsigned /*row*/, Cycle) {}
  // Warp `warp` entered (true) or left the active set of scheduler `scheduler` (two-level).
  virtual void active(unsigned /*subcore*/, unsigned /*scheduler*/, unsigned /*warp*/, bool,
                      Cycle) {}
};

// Hands every event to each observer, in the order they were added. With one observer (the
// timing checker in every run that does not trace) an event goes straight to it, without the
// loop.
class Probes : public Observer {
public:
  void add(Observer* o) {
    obs_.push_back(o);
    one_ = obs_.size() == 1 ? o : nullptr;
  }
  bool empty() const { return obs_.empty(); }
  void issue(const WarpInst& i, Cycle t) override {
    if (one_) return one_->issue(i, t);
    for (Observer* o : obs_) o->issue(i, t);
  }
  void allocated(const WarpInst& i, unsigned c, Cycle t) override {
    if (one_) return one_->allocated(i, c, t);
    for (Observer* o : obs_) o->allocated(i, c, t);
  }
  void read(const RegAccess& a, Cycle t) override {
    if (one_) return one_->read(a, t);
    for (Observer* o : obs_) o->read(a, t);
  }
  void arrived(const WarpInst& i, unsigned r, unsigned c, Store s, unsigned m, Cycle t) override {
    if (one_) return one_->arrived(i, r, c, s, m, t);
    for (Observer* o : obs_) o->arrived(i, r, c, s, m, t);
  }
  void operands_read(const WarpInst& i, Cycle t) override {
    if (one_) return one_->operands_read(i, t);
    for (Observer* o : obs_) o->operands_read(i, t);
  }
  void dispatch(const WarpInst& i, Pipe p, unsigned l, Cycle t) override {
    if (one_) return one_->dispatch(i, p, l, t);
    for (Observer* o : obs_) o->dispatch(i, p, l, t);
  }
  void complete(const WarpInst& i, Cycle t) override {
    if (one_) return one_->complete(i, t);
    for (Observer* o : obs_) o->complete(i, t);
  }
  void write(const RegAccess& a, Cycle t) override {
    if (one_) return one_->write(a, t);
    for (Observer* o : obs_) o->write(a, t);
  }
  void verify_read(const RegAccess& a, Cycle t) override {
    if (one_) return one_->verify_read(a, t);
    for (Observer* o : obs_) o->verify_read(a, t);
  }
  void reused(const WarpInst& i, Cycle t) override {
    if (one_) return one_->reused(i, t);
    for (Observer* o : obs_) o->reused(i, t);
  }
  void filled(const RegAccess& a, Cycle t) override {
    if (one_) return one_->filled(a, t);
    for (Observer* o : obs_) o->filled(a, t);
  }
  void released(unsigned s, unsigned b, unsigned r, Cycle t) override {
    if (one_) return one_->released(s, b, r, t);
    for (Observer* o : obs_) o->released(s, b, r, t);
  }
  void retire(const WarpInst& i, Cycle t) override {
    if (one_) return one_->retire(i, t);
    for (Observer* o : obs_) o->retire(i, t);
  }
  void active(unsigned s, unsigned k, unsigned w, bool a, Cycle t) override {
    if (one_) return one_->active(s, k, w, a, t);
    for (Observer* o : obs_) o->active(s, k, w, a, t);
  }

private:
  std::vector<Observer*> obs_;
  Observer* one_ = nullptr; // the only observer, if there is exactly one
};

} // namespace gpurf
