// The profiler's statistics on hand-made warp-instruction streams; every expected value is
// worked out by hand in the comments.
#include <gtest/gtest.h>

#include <deque>

#include "gpurf/platform/profile.h"

namespace gpurf {
namespace {

struct Stream {
  std::deque<InstInfo> infos; // stable addresses
  Profiler prof{2, [](unsigned, unsigned reg) { return reg % 2; }};

  // One full-mask instruction of `warp`: sources {reg, value} and destinations {reg, value}.
  void inst(unsigned warp, std::vector<std::pair<uint16_t, int32_t>> src,
            std::vector<std::pair<uint16_t, int32_t>> dst, bool exit = false) {
    InstInfo& info = infos.emplace_back();
    info.exit = exit;
    WarpInst w;
    w.info = &info;
    w.warp = warp;
    w.active_mask = 0xffffffffu;
    w.n_src = uint8_t(src.size());
    w.n_dst = uint8_t(dst.size());
    for (size_t k = 0; k < src.size(); ++k) {
      w.src[k].reg = src[k].first;
      w.src[k].value.fill(uint32_t(src[k].second));
    }
    for (size_t k = 0; k < dst.size(); ++k) {
      w.dst[k].reg = dst[k].first;
      w.dst[k].value.fill(uint32_t(dst[k].second));
    }
    prof.add(w);
  }
};

TEST(Profile, WidthIsTheNarrowestSignExtendedOverActiveLanes) {
  LaneValues v{};
  auto one = [&](int32_t x) {
    v.fill(uint32_t(x));
    return Profiler::width(v, 0xffffffffu);
  };
  EXPECT_EQ(one(0), 1u);
  EXPECT_EQ(one(127), 1u);
  EXPECT_EQ(one(128), 2u);
  EXPECT_EQ(one(-128), 1u);
  EXPECT_EQ(one(-129), 2u);
  EXPECT_EQ(one(0x7fffff), 3u);
  EXPECT_EQ(one(-0x800000), 3u);
  EXPECT_EQ(one(0x800000), 4u);
  EXPECT_EQ(one(-1), 1u);
  v.fill(1);
  v[7] = 0x12345678;
  EXPECT_EQ(Profiler::width(v, 0xffffffffu), 4u); // the widest lane decides
  EXPECT_EQ(Profiler::width(v, ~(1u << 7)), 1u);  // unless it is inactive
}

// Warp 0: 1 mov r0=5; 2 mov r1=0x1234; 3 add r2=r0,r1; 4 add r3=r2,r2; 5 mad r0=r2,r3,r0;
// 6 exit. Warp 1 (interleaved): 1 mov r5=200; 2-12 nothing; 13 read r5. After warp 0's
// exit a new warp in slot 0 reads r1, which it never wrote. Banks: reg % 2.
TEST(Profile, HandMadeStream) {
  Stream s;
  s.inst(0, {}, {{0, 5}});
  s.inst(1, {}, {{5, 200}});
  s.inst(0, {}, {{1, 0x1234}});
  s.inst(0, {{0, 5}, {1, 0x1234}}, {{2, 0x10000}});
  for (int k = 0; k < 11; ++k) s.inst(1, {}, {});
  s.inst(0, {{2, 0x10000}, {2, 0x10000}}, {{3, -1}});
  s.inst(0, {{2, 0x10000}, {3, -1}, {0, 5}}, {{0, 0x7fffffff}});
  s.inst(0, {}, {}, true);
  s.inst(1, {{5, 200}}, {});
  s.inst(0, {{1, 0}}, {});
  s.prof.finish();
  const ProfileStats& st = s.prof.stats();

  EXPECT_EQ(st.instructions, 20u);
  EXPECT_EQ(st.reads, 9u);
  EXPECT_EQ(st.writes, 6u);
  EXPECT_EQ(st.reads_by_reg, (std::vector<uint64_t>{2, 2, 3, 1, 0, 1}));
  EXPECT_EQ(st.reads_by_bank, (std::vector<uint64_t>{5, 4}));
  // Two distinct sources in instruction 3 (banks 0, 1), three in 5 (banks 0, 1, 0): one
  // same-bank instruction. Random, 2 banks: 1 - 1/2 for two sources, 1 for three.
  EXPECT_EQ(st.multi_source, 2u);
  EXPECT_EQ(st.same_bank, 1u);
  EXPECT_DOUBLE_EQ(st.same_bank_random, 1.5);
  // Values: r0=5 read at 3, 5 (2); r1 read at 3 (1, lifetime 1); r2 read at 4 (once, though
  // named twice) and 5 (2); r3 read at 5 (1, lifetime 1); r0=0x7fffffff never; r5 read at 13
  // (1, lifetime 12). The new warp's read of r1 reads no value of its own.
  EXPECT_EQ(st.values, 6u);
  EXPECT_EQ(st.reads_per_value, (std::array<uint64_t, 4>{1, 3, 2, 0}));
  EXPECT_EQ(st.once_within3, 2u);
  // Read lifetimes: 2, 4 (r0), 1 (r1), 1, 2 (r2), 1 (r3), 12 (r5).
  EXPECT_EQ(st.lifetime, (std::array<uint64_t, 6>{3, 2, 0, 1, 1, 0}));
  EXPECT_EQ(st.lifetime_once, (std::array<uint64_t, 6>{2, 0, 0, 0, 1, 0}));
  // Reuse distances from the previous access: r0 2 and 2, r1 1, r2 1 and 1, r3 1, r5 12.
  EXPECT_EQ(st.reuse, (std::array<uint64_t, 5>{6, 0, 1, 0, 0}));
  EXPECT_EQ(st.reuse_below12, 6u);
  EXPECT_EQ(st.reuse_above10, 1u);
  // Widths: reads 5,0x1234,0x10000,0x10000,0x10000,-1,5,200,0; writes 5,200,0x1234,0x10000,
  // -1,0x7fffffff.
  EXPECT_EQ(st.width_reads, (std::array<uint64_t, 4>{4, 2, 3, 0}));
  EXPECT_EQ(st.width_writes, (std::array<uint64_t, 4>{2, 2, 1, 1}));

  const nlohmann::ordered_json r = s.prof.report();
  EXPECT_DOUBLE_EQ(r["register_reads"]["hottest6_share"].get<double>(), 1.0);
  EXPECT_EQ(r["register_reads"]["registers_read"].get<int>(), 5);
  EXPECT_DOUBLE_EQ(r["banks"]["same_bank_share"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(r["banks"]["same_bank_share_random"].get<double>(), 0.75);
  EXPECT_DOUBLE_EQ(r["value_lifetime"]["read_once_share"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(r["value_lifetime"]["read_once_within3_share"].get<double>(), 2.0 / 6);
  // 15 accesses needing 6x1 + 4x2 + 4x3 + 1x4 = 30 of 60 bytes.
  EXPECT_DOUBLE_EQ(r["operand_width"]["wasted_bandwidth"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(r["operand_width"]["full_width_share"].get<double>(), 1.0 / 15);
  EXPECT_DOUBLE_EQ(r["reuse_distance"]["below12_share"].get<double>(), 6.0 / 7);
}

// A warp slot is reused only once every lane has exited: a partial exit keeps the values.
TEST(Profile, PartialExitKeepsTheWarp) {
  Profiler p(4, [](unsigned, unsigned reg) { return reg % 4; });
  InstInfo plain, exit;
  exit.exit = true;
  WarpInst w;
  w.info = &plain;
  w.active_mask = 0xffffffffu;
  w.n_dst = 1;
  p.add(w); // 1: write r0
  w.n_dst = 0;
  w.info = &exit;
  w.active_mask = 0xffff0000u;
  p.add(w); // 2: upper lanes exit
  w.info = &plain;
  w.active_mask = 0x0000ffffu;
  w.n_src = 1;
  p.add(w); // 3: read r0, lifetime 2
  p.finish();
  EXPECT_EQ(p.stats().values, 1u);
  EXPECT_EQ(p.stats().lifetime, (std::array<uint64_t, 6>{0, 1, 0, 0, 0, 0}));
  EXPECT_EQ(p.stats().once_within3, 1u);
}

// WIR Fig. 2: an instance repeats when an identical computation (operation, active lanes,
// source and result values) was issued earlier in the same window of 1000 instructions.
TEST(Profile, RepeatedComputationsWithinTheWindow) {
  std::deque<InstInfo> infos;
  Profiler p{2, [](unsigned, unsigned reg) { return reg % 2; }};
  auto inst = [&](uint32_t op, int32_t a, int32_t result, uint32_t mask = 0xffffffffu,
                  bool store = false, uint32_t reuse_op = 1) {
    InstInfo& info = infos.emplace_back();
    info.computation_op = op;
    info.reuse_op = reuse_op;
    info.mem = store ? MemKind::Store : MemKind::None;
    WarpInst w;
    w.info = &info;
    w.active_mask = mask;
    w.n_src = w.n_dst = 1;
    w.src[0].value.fill(uint32_t(a));
    w.dst[0].value.fill(uint32_t(result));
    p.add(w);
  };
  inst(7, 1, 2);                // first: not repeated
  inst(7, 1, 2);                // repeated (reusable)
  inst(7, 1, 2, 0xffffu);       // other lanes active: a different computation
  inst(7, 1, 2, 0xffffu);       // repeated, divergent (not reusable)
  inst(8, 1, 2);                // another operation
  inst(7, 3, 2);                // another source value
  inst(7, 1, 2, ~0u, false, 0); // repeated, no reuse tag (not reusable)
  inst(7, 1, 2, ~0u, true);     // a store never repeats
  for (unsigned k = 8; k < 1000; ++k) inst(100 + k, 0, 0); // fill the window (all distinct)
  inst(7, 1, 2);                                   // instruction 1001: a new window, first again
  for (unsigned k = 0; k < 11; ++k) inst(9, 4, 4); // 11 instances: 10 repeats, > 10 times
  p.finish();
  EXPECT_EQ(p.stats().repeated, 3u + 10u);
  EXPECT_EQ(p.stats().repeated_reusable, 1u + 10u);
  EXPECT_EQ(p.stats().repeated_over10, 11u);
  EXPECT_EQ(p.stats().instructions, 1000u + 1u + 11u);
}

} // namespace
} // namespace gpurf
