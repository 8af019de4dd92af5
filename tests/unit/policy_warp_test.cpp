// Unit tests of the warp priority policies (policies/warp_policy): the order each one gives
// after issued() calls, and the registry's error for an unknown policy.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpurf/platform/config.h"
#include "gpurf/policies/warp_policy.h"

using namespace gpurf;

namespace {

std::unique_ptr<WarpPolicy> make(const std::string& impl) {
  Params p(nullptr, "scheduler");
  return WarpPolicy::Registry::create(impl, p);
}

std::vector<unsigned> order(WarpPolicy& w, const std::vector<uint64_t>& age) {
  return w.prioritize(age);
}

using V = std::vector<unsigned>;

// Launch ages of four warps: warp 3 is the oldest, then 1, 0, 2.
const std::vector<uint64_t> kAge = {5, 2, 9, 1};

} // namespace

TEST(PolicyWarp, LrrStartsAfterTheLastIssuer) {
  auto p = make("lrr");
  EXPECT_EQ(order(*p, kAge), (V{1, 2, 3, 0})); // nothing issued yet: as if warp 0 had
  p->issued(1);
  EXPECT_EQ(order(*p, kAge), (V{2, 3, 0, 1}));
  p->issued(3);
  EXPECT_EQ(order(*p, kAge), (V{0, 1, 2, 3}));
  p->issued(2);
  EXPECT_EQ(order(*p, kAge), (V{3, 0, 1, 2}));
  // Age plays no part.
  EXPECT_EQ(order(*p, {0, 0, 0, 0}), (V{3, 0, 1, 2}));
}

TEST(PolicyWarp, GtoKeepsTheLastIssuerThenOldestFirst) {
  auto p = make("gto");
  p->issued(2);
  EXPECT_EQ(order(*p, kAge), (V{2, 3, 1, 0}));
  p->issued(0);
  EXPECT_EQ(order(*p, kAge), (V{0, 3, 1, 2}));
  p->issued(3); // the oldest issuing: plain age order
  EXPECT_EQ(order(*p, kAge), (V{3, 1, 0, 2}));
  // Equal ages keep slot order (stable).
  p->issued(1);
  EXPECT_EQ(order(*p, {4, 4, 4, 4}), (V{1, 0, 2, 3}));
}

TEST(PolicyWarp, OldestIgnoresTheLastIssuer) {
  auto p = make("oldest");
  EXPECT_EQ(order(*p, kAge), (V{3, 1, 0, 2}));
  for (unsigned i : {2u, 0u, 1u}) {
    p->issued(i);
    EXPECT_EQ(order(*p, kAge), (V{3, 1, 0, 2})) << "after issued(" << i << ")";
  }
  EXPECT_EQ(order(*p, {7, 3, 3, 1, 2}), (V{3, 4, 1, 2, 0}));
}

TEST(PolicyWarp, MalekehRanksTheLastIssuerThenCcuHoldersThenTheRestByAge) {
  auto p = make("malekeh");
  std::vector<uint8_t>* held = p->ccu_state();
  ASSERT_NE(held, nullptr);
  *held = {1, 0, 1, 0}; // CCUs hold warps 0 and 2 (ages 5, 9); 3 and 1 (ages 1, 2) hold none
  p->issued(1);
  EXPECT_EQ(order(*p, kAge), (V{1, 0, 2, 3}));
  p->issued(2);
  EXPECT_EQ(order(*p, kAge), (V{2, 0, 3, 1}));
  *held = {0, 0, 0, 0}; // no warp holds a CCU: GTO
  EXPECT_EQ(order(*p, kAge), (V{2, 3, 1, 0}));
  *held = {0, 1, 1, 1};
  p->issued(0);
  EXPECT_EQ(order(*p, kAge), (V{0, 3, 1, 2}));
  EXPECT_EQ(make("gto")->ccu_state(), nullptr); // the others do not look
}

TEST(PolicyWarp, SingleWarp) {
  for (const char* impl : {"lrr", "gto", "oldest", "malekeh"}) {
    auto p = make(impl);
    p->issued(0);
    EXPECT_EQ(order(*p, {42}), (V{0})) << impl;
  }
}

TEST(PolicyWarp, UnknownPolicyNamesTheRegisteredOnes) {
  Params p(nullptr, "scheduler");
  try {
    WarpPolicy::Registry::create("lru", p);
    FAIL() << "no ConfigError";
  } catch (const ConfigError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("unknown implementation 'lru'"), std::string::npos) << m;
    EXPECT_NE(m.find("registered: gto, lrr, malekeh, oldest"), std::string::npos) << m;
  }
}
