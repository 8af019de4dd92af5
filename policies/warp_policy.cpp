#include "gpurf/policies/warp_policy.h"

#include <algorithm>
#include <numeric>

namespace gpurf {

const std::vector<unsigned>& WarpPolicy::by_age(const std::vector<uint64_t>& age) {
  const bool changed =
      age_stamp_ ? age_stamp_ != sorted_stamp_ || age.size() != sorted_.size() : age != sorted_for_;
  if (changed) {
    sorted_for_ = age;
    sorted_stamp_ = age_stamp_;
    sorted_.resize(age.size());
    std::iota(sorted_.begin(), sorted_.end(), 0u);
    std::stable_sort(sorted_.begin(), sorted_.end(),
                     [&](unsigned a, unsigned b) { return age[a] < age[b]; });
    ++sorts_;
  }
  return sorted_;
}

void WarpPolicy::last_first(const std::vector<unsigned>& from) {
  order_.resize(from.size());
  const auto at = std::find(from.begin(), from.end(), last_);
  if (at == from.end()) {
    std::copy(from.begin(), from.end(), order_.begin());
    return;
  }
  // Two block copies (the warps before the last issuer, then those after it), not a test
  // per warp.
  order_[0] = last_;
  const auto next = std::copy(from.begin(), at, order_.begin() + 1);
  std::copy(at + 1, from.end(), next);
}

namespace {

// Loose round robin: start after the warp issued last.
class Lrr : public WarpPolicy {
public:
  explicit Lrr(Params&) {}
  const std::vector<unsigned>& prioritize(const std::vector<uint64_t>& age) override {
    const unsigned n = age.size();
    order_.resize(n);
    for (unsigned i = 0; i < n; ++i) order_[i] = (last_ + 1 + i) % n;
    return order_;
  }
};

// Greedy then oldest: keep issuing from the last warp, then fall back to the oldest.
class Gto : public WarpPolicy {
public:
  explicit Gto(Params&) {}
  const std::vector<unsigned>& prioritize(const std::vector<uint64_t>& age) override {
    const std::vector<unsigned>& oldest = by_age(age);
    if (sorts_ == built_sorts_ && last_ == built_last_ && order_.size() == oldest.size())
      return order_; // most cycles: the same warp issues, no warp launched
    built_sorts_ = sorts_;
    built_last_ = last_;
    last_first(oldest);
    return order_;
  }

private:
  uint64_t built_sorts_ = ~uint64_t(0);
  unsigned built_last_ = 0;
};

class Oldest : public WarpPolicy {
public:
  explicit Oldest(Params&) {}
  const std::vector<unsigned>& prioritize(const std::vector<uint64_t>& age) override {
    return by_age(age);
  }
};

// Malekeh's warp priority (shared/papers/001, Sec. IV-B1): the last issuer, then the warps
// whose registers a CCU holds, oldest first, then the others, oldest first.
class MalekehPriority : public WarpPolicy {
public:
  explicit MalekehPriority(Params&) {}
  std::vector<uint8_t>* ccu_state() override { return &held_; }
  const std::vector<unsigned>& prioritize(const std::vector<uint64_t>& age) override {
    by_holding_ = by_age(age);
    held_.resize(age.size(), 0);
    std::stable_partition(by_holding_.begin(), by_holding_.end(),
                          [&](unsigned i) { return held_[i] != 0; });
    last_first(by_holding_);
    return order_;
  }

private:
  std::vector<uint8_t> held_;
  std::vector<unsigned> by_holding_; // by age, the CCU holders first
};

} // namespace

GPURF_REGISTER(WarpPolicy, MalekehPriority, "malekeh",
               "Malekeh: the last issuer, then warps with data in a CCU by age, then by age");
GPURF_REGISTER(WarpPolicy, Lrr, "lrr", "loose round robin, starting after the last issuer");
GPURF_REGISTER(WarpPolicy, Gto, "gto", "greedy-then-oldest: the last issuer, then by age");
GPURF_REGISTER(WarpPolicy, Oldest, "oldest", "oldest-first: always by launch age");
GPURF_SLOT(WarpPolicy, "warp_policy", "warp priority order of a scheduler",
           [](const std::string& impl, Params& p) {
             return WarpPolicy::Registry::create(impl, p);
           });

} // namespace gpurf
