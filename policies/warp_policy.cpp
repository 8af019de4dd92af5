#include "policies/warp_policy.h"

#include <algorithm>
#include <numeric>

namespace gpurf {
namespace {

void by_age(const std::vector<uint64_t>& age, std::vector<unsigned>& order) {
  order.resize(age.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](unsigned a, unsigned b) { return age[a] < age[b]; });
}

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
    by_age(age, order);
    auto it = std::find(order.begin(), order.end(), last_);
    if (it != order.end()) std::rotate(order.begin(), it, it + 1);
  }
};

class Oldest : public WarpPolicy {
public:
  explicit Oldest(Params&) {}
  void prioritize(const std::vector<uint64_t>& age, std::vector<unsigned>& order) override {
    by_age(age, order);
  }
};

} // namespace

GPURF_REGISTER(WarpPolicy, Lrr, "lrr", "loose round robin, starting after the last issuer");
GPURF_REGISTER(WarpPolicy, Gto, "gto", "greedy-then-oldest: the last issuer, then by age");
GPURF_REGISTER(WarpPolicy, Oldest, "oldest", "oldest-first: always by launch age");
GPURF_SLOT(WarpPolicy, "warp_policy", "warp priority order of a scheduler",
           [](const std::string& impl, Params& p) {
             return WarpPolicy::Registry::create(impl, p);
           });

} // namespace gpurf
