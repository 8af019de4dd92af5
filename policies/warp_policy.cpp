#include "gpurf/policies/warp_policy.h"

#include <algorithm>
#include <numeric>

namespace gpurf {

const std::vector<unsigned>& WarpPolicy::by_age(const std::vector<uint64_t>& age) {
  if (age != sorted_for_) {
    sorted_for_ = age;
    sorted_.resize(age.size());
    std::iota(sorted_.begin(), sorted_.end(), 0u);
    std::stable_sort(sorted_.begin(), sorted_.end(),
                     [&](unsigned a, unsigned b) { return age[a] < age[b]; });
  }
  return sorted_;
}

namespace {

// Loose round robin: start after the warp issued last.
class Lrr : public WarpPolicy {
public:
  explicit Lrr(Params&) {}
  void prioritize(const std::vector<uint64_t>& age, std::vector<unsigned>& order) override {
    const unsigned n = age.size();
    order.resize(n);
    for (unsigned i = 0; i < n; ++i) order[i] = (last_ + 1 + i) % n;
  }
};

// Greedy then oldest: keep issuing from the last warp, then fall back to the oldest.
class Gto : public WarpPolicy {
public:
  explicit Gto(Params&) {}
  void prioritize(const std::vector<uint64_t>& age, std::vector<unsigned>& order) override {
    const std::vector<unsigned>& oldest = by_age(age);
    order.clear(); // the last issuer first, then the others oldest first
    if (last_ < oldest.size()) order.push_back(last_);
    for (unsigned i : oldest)
      if (i != last_) order.push_back(i);
  }
};

class Oldest : public WarpPolicy {
public:
  explicit Oldest(Params&) {}
  void prioritize(const std::vector<uint64_t>& age, std::vector<unsigned>& order) override {
    order = by_age(age);
  }
};

// Malekeh's warp priority (shared/papers/001, Sec. IV-B1): the last issuer, then the warps
// whose registers a CCU holds, oldest first, then the others, oldest first.
class MalekehPriority : public WarpPolicy {
public:
  explicit MalekehPriority(Params&) {}
  std::vector<uint8_t>* ccu_state() override { return &held_; }
  void prioritize(const std::vector<uint64_t>& age, std::vector<unsigned>& order) override {
    order = by_age(age);
    held_.resize(age.size(), 0);
    std::stable_partition(order.begin(), order.end(), [&](unsigned i) { return held_[i] != 0; });
    auto it = std::find(order.begin(), order.end(), last_);
    if (it != order.end()) std::rotate(order.begin(), it, it + 1);
  }

private:
  std::vector<uint8_t> held_;
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
