// Module tests of the collector allocators (round_robin, first_free, random) alone, with stub
// schedulers and collectors: which collector each instruction gets, busy when none serves its
// pipe.
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpurf/modules/allocator/i_allocator.h"
#include "tests/support/stubs.h"

using namespace gpurf;
using namespace gpurf::test;

namespace {

struct Bench {
  SimClock clock;
  SmShape shape;
  UnitConfig conf;
  std::unique_ptr<IAllocator> al;
  StubInit sched{"sched"};
  std::vector<std::unique_ptr<StubInit>> release;
  std::vector<std::unique_ptr<StubTarget>> col;
  InstInfo sp, sfu;
  WarpInst inst;

  // Collectors 0-2 serve every pipe, collector 3 only the SFU.
  explicit Bench(const std::string& impl = "round_robin", const std::string& yaml = "") {
    shape.collectors = 4;
    al = make_unit<IAllocator>(conf, yaml, "allocator.yaml", "allocator", impl, "allocator", clock,
                               &shape);
    sched.sock.bind(al->in);
    for (unsigned i = 0; i < 4; ++i) {
      const std::string n = std::to_string(i);
      col.push_back(std::make_unique<StubTarget>(("col" + n).c_str(), &clock));
      release.push_back(std::make_unique<StubInit>(("rel" + n).c_str()));
      al->to_collector.bind(col[i]->sock);
      release[i]->sock.bind(al->release);
      al->add_collector(i < 3 ? ~0u : 1u << unsigned(Pipe::SFU));
    }
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
    sfu.pipe = Pipe::SFU;
  }
  bool refuses_pipe = false; // what the last refusal said (Txn::refuses_pipe)
  // The collector `info` was bound to, or -1 when the allocator answered busy.
  int issue(const InstInfo& info) {
    inst.info = &info;
    Packet p;
    p.prepare(Txn::Kind::Issue);
    p.txn.inst = &inst;
    sched.sock->b_transport(p.gp, p.delay);
    refuses_pipe = p.txn.refuses_pipe;
    if (p.txn.busy) return -1;
    for (unsigned i = 0; i < 4; ++i)
      if (!col[i]->seen.empty() && col[i]->seen.back().txn.inst == &inst) {
        col[i]->seen.clear();
        return int(i);
      }
    return -2;
  }
  void free(unsigned i) {
    Packet p;
    p.prepare(Txn::Kind::Release);
    release[i]->sock->b_transport(p.gp, p.delay);
  }
};

} // namespace

// Round robin from the collector after the one allocated last, skipping busy ones and those
// that do not serve the pipe.
TEST(UnitAllocator, RoundRobinFromTheNextCollector) {
  Bench b;
  EXPECT_EQ(b.issue(b.sp), 1);
  b.free(1);
  EXPECT_EQ(b.issue(b.sp), 2); // not 1 again, though it is free
  EXPECT_EQ(b.issue(b.sp), 0); // 3 serves only the SFU
  EXPECT_EQ(b.issue(b.sp), 1);
  EXPECT_EQ(b.issue(b.sp), -1); // 0-2 busy: busy, counted
  EXPECT_EQ(stat(*b.al, "full"), 1u);
  EXPECT_EQ(b.issue(b.sfu), 3);
  EXPECT_EQ(stat(*b.al, "allocations"), 5u);
}

// A refusal with no free collector for the pipe holds for every instruction of it until a
// release (Txn::refuses_pipe); the issues a scheduler then did not send are counted as refused.
TEST(UnitAllocator, ARefusalHoldsForThePipeAndUnsentOnesCount) {
  Bench b;
  for (int i = 0; i < 3; ++i) EXPECT_GE(b.issue(b.sp), 0);
  EXPECT_EQ(b.issue(b.sp), -1);
  EXPECT_TRUE(b.refuses_pipe);
  EXPECT_EQ(b.issue(b.sfu), 3);
  Packet p;
  p.prepare(Txn::Kind::Refused);
  p.txn.skipped = 4;
  b.sched.sock->b_transport(p.gp, p.delay);
  EXPECT_EQ(stat(*b.al, "full"), 5u);
  EXPECT_EQ(stat(*b.al, "allocations"), 4u);
}

TEST(UnitAllocator, FirstFreeTakesTheLowestFreeIndex) {
  Bench b("first_free");
  EXPECT_EQ(b.issue(b.sp), 0);
  EXPECT_EQ(b.issue(b.sp), 1);
  b.free(0);
  EXPECT_EQ(b.issue(b.sp), 0); // free again: lowest first
  EXPECT_EQ(b.issue(b.sp), 2);
  EXPECT_EQ(b.issue(b.sp), -1); // 3 serves only the SFU
  EXPECT_EQ(b.issue(b.sfu), 3);
}

// Every free collector that serves the pipe is chosen sometimes, a busy or foreign one never;
// the same seed gives the same choices.
TEST(UnitAllocator, RandomChoosesAmongTheFreeOnesDeterministically) {
  Bench b("random", "{seed: 7}");
  std::vector<int> got, count(4, 0);
  for (unsigned k = 0; k < 300; ++k) {
    const int i = b.issue(b.sp);
    ASSERT_TRUE(i >= 0 && i <= 2) << i;
    ++count[unsigned(i)];
    got.push_back(i);
    b.free(unsigned(i));
  }
  for (int i = 0; i < 3; ++i) EXPECT_GT(count[unsigned(i)], 60) << "collector " << i;
  EXPECT_EQ(count[3], 0);
  // The choices are a function of the seed: uniform over the three SP-capable collectors.
  std::mt19937 rng(7);
  for (unsigned k = 0; k < 20; ++k)
    EXPECT_EQ(got[k], int(std::uniform_int_distribution<size_t>(0, 2)(rng))) << k;
}
