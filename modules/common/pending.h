// An answer whose time is not known when the request is made: an AT memory says when the data
// is there only at BEGIN_RESP (gpu.memory_port: at, docs/vp.md). A b_transport that cannot
// say when returns with the payload marked pending (set_pending); the initiator takes the
// Pending off (take_pending) and registers what to do with the cycle the data is ready. The
// caches chain them: an L1 request waits on its L2 fill, the fill on the memory's response.
// With every other memory no request is ever pending and nothing here runs.
#pragma once

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <tlm>

#include "gpurf/modules/common/unit.h"

namespace gpurf {

class Pending {
public:
  // `f` runs with the ready cycle (and the error, "" if none) once it is known; at once if it
  // already is.
  void then(std::function<void(Cycle, const std::string&)> f) {
    if (done_)
      f(ready_, error_);
    else
      waiters_.push_back(std::move(f));
  }
  void complete(Cycle ready, const std::string& error = "") {
    done_ = true;
    ready_ = ready;
    error_ = error;
    auto w = std::move(waiters_);
    for (auto& f : w) f(ready_, error_);
  }
  bool done() const { return done_; }

private:
  bool done_ = false;
  Cycle ready_ = kNever;
  std::string error_;
  std::vector<std::function<void(Cycle, const std::string&)>> waiters_;
};
using PendingPtr = std::shared_ptr<Pending>;

// Ready when every part is, at the latest of max(part's cycle, its floor) and `known`.
class PendingJoin {
public:
  explicit PendingJoin(Cycle known) : ready_(known) {}
  void add(const PendingPtr& p, Cycle floor) { parts_.push_back({p, floor}); }
  void at_least(Cycle c) { ready_ = std::max(ready_, c); }
  bool empty() const { return parts_.empty(); }
  PendingPtr make() {
    auto out = std::make_shared<Pending>();
    auto left = std::make_shared<size_t>(parts_.size());
    auto ready = std::make_shared<Cycle>(ready_);
    auto error = std::make_shared<std::string>();
    for (auto& [p, floor] : parts_)
      p->then([=, f = floor](Cycle c, const std::string& e) {
        *ready = std::max(*ready, std::max(c, f));
        if (!e.empty() && error->empty()) *error = e;
        if (--*left == 0) out->complete(*ready, *error);
      });
    return out;
  }

private:
  Cycle ready_;
  std::vector<std::pair<PendingPtr, Cycle>> parts_;
};

// A cache's fills that the memory answers later, by line: each holds its MSHR (complete =
// kPending) until its answer, then frees it and runs `after`. `M` is policies/cache.h's Mshrs.
template <class M> class PendingFills {
public:
  explicit PendingFills(M& mshrs) : mshrs_(mshrs) {}
  void add(uint64_t line, const PendingPtr& p, std::function<void(Cycle)> after = {}) {
    mshrs_.add(line, M::kPending);
    fills_[line] = p;
    p->then([this, line, after = std::move(after)](Cycle c, const std::string&) {
      mshrs_.set_complete(line, c);
      fills_.erase(line);
      if (after) after(c);
    });
  }
  // The answer line `line`'s MSHR waits on (its entry's complete is kPending).
  const PendingPtr& of(uint64_t line) const { return fills_.at(line); }

private:
  M& mshrs_;
  std::unordered_map<uint64_t, PendingPtr> fills_;
};

struct PendingExt : tlm::tlm_extension<PendingExt> {
  PendingPtr pending;
  tlm::tlm_extension_base* clone() const override { return new PendingExt(*this); }
  void copy_from(const tlm::tlm_extension_base& e) override {
    pending = static_cast<const PendingExt&>(e).pending;
  }
};

// The responder: `gp`'s answer comes when `p` completes.
inline void set_pending(tlm::tlm_generic_payload& gp, PendingPtr p) {
  PendingExt* x = nullptr;
  gp.get_extension(x);
  if (!x) {
    x = new PendingExt;
    gp.set_extension(x);
  }
  x->pending = std::move(p);
}

// The initiator, after b_transport: the pending answer, or null when the delay is the answer.
inline PendingPtr take_pending(tlm::tlm_generic_payload& gp) {
  PendingExt* x = nullptr;
  gp.get_extension(x);
  if (!x) return nullptr;
  PendingPtr p = std::move(x->pending);
  gp.clear_extension(x);
  delete x;
  return p;
}

} // namespace gpurf
