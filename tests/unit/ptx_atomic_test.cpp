// Atomics on halves (atom/red.add.noftz.f16, .f16x2, .bf16, .bf16x2: atomicAdd on __half and
// __nv_bfloat16) and on vectors (sm_90's atom.add.v2/.v4.f32): hand-written PTX, the lanes'
// adds applied in lane order (the engine's order) checked against the host's _Float16 and a
// bfloat16 rounding written here, and every lane's returned old value. mbarrier's rules
// (mbarrier.h) and a wait across warps.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "gpurf/modules/frontend/ptx/mbarrier.h"
#include "gpurf/modules/frontend/ptx/parser.h"
#include "tests/unit/ptx_test_util.h"

using namespace gpurf::ptx;
using ptxtest::Launch;

using ptxtest::f16;
using ptxtest::from_f16;

namespace {

const char* kHeader = ".version 8.0\n.target sm_90\n.address_size 64\n";

// bfloat16: the float's top half, rounded to nearest even (finite values).
uint16_t bf16(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  return uint16_t((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}
float from_bf16(uint16_t b) {
  const uint32_t u = uint32_t(b) << 16;
  float x;
  std::memcpy(&x, &u, 4);
  return x;
}

// out[0..1]: the f16 and bf16 sums (b16 words); out[1..]: f16x2 and bf16x2 (b32); each lane adds
// (lane + 1) / 8 to the halves (the x2 forms: and -(lane + 1) / 4 to the high half); olds[lane]
// is what lane's f16 add returned.
const std::string kHalves = std::string(kHeader) + R"(
.visible .entry halves(.param .u64 out, .param .u64 olds)
{
  .reg .b16 %h<4>;
  .reg .b32 %r<8>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [olds];
  mov.u32 %r1, %tid.x;
  add.u32 %r2, %r1, 1;
  cvt.rn.f32.u32 %f1, %r2;
  mul.f32 %f2, %f1, 0f3E000000;
  mul.f32 %f3, %f1, 0fBE800000;
  cvt.rn.f16.f32 %h1, %f2;
  cvt.rn.bf16.f32 %h2, %f2;
  atom.global.add.noftz.f16 %h3, [%rd1], %h1;
  red.global.add.noftz.bf16 [%rd1+2], %h2;
  cvt.rn.f16x2.f32 %r3, %f3, %f2;
  cvt.rn.bf16x2.f32 %r4, %f3, %f2;
  atom.global.add.noftz.f16x2 %r5, [%rd1+4], %r3;
  red.global.add.noftz.bf16x2 [%rd1+8], %r4;
  mul.wide.u32 %rd3, %r1, 2;
  add.s64 %rd4, %rd2, %rd3;
  st.global.b16 [%rd4], %h3;
  ret;
}
)";

// acc (4 floats) += {lane, 2 lane, lane / 2, 1} with one .v4 atomic per lane; old[lane] (16 B)
// what it returned; acc2 (2 floats) += {1, lane} with red.v2.
const std::string kVectors = std::string(kHeader) + R"(
.visible .entry vectors(.param .u64 acc, .param .u64 olds, .param .u64 acc2)
{
  .reg .b32 %r<4>;
  .reg .f32 %f<12>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [acc];
  ld.param.u64 %rd2, [olds];
  ld.param.u64 %rd5, [acc2];
  mov.u32 %r1, %tid.x;
  cvt.rn.f32.u32 %f1, %r1;
  add.f32 %f2, %f1, %f1;
  mul.f32 %f3, %f1, 0f3F000000;
  mov.f32 %f4, 0f3F800000;
  atom.global.add.v4.f32 {%f5, %f6, %f7, %f8}, [%rd1], {%f1, %f2, %f3, %f4};
  mul.wide.u32 %rd3, %r1, 16;
  add.s64 %rd4, %rd2, %rd3;
  st.global.v4.f32 [%rd4], {%f5, %f6, %f7, %f8};
  red.global.add.v2.f32 [%rd5], {%f4, %f1};
  ret;
}
)";

} // namespace

TEST(PtxAtomic, HalfAddsRoundEachStepInLaneOrder) {
  const Module m = parse_ptx(kHalves, "halves.ptx");
  Launch L(m, "halves", {1, 1, 1}, {32, 1, 1});
  const uint64_t out = L.zeros(12), olds = L.zeros(64);
  L.arg(out).arg(olds).run();
  const auto w16 = L.get<uint16_t>(out, 6);
  const auto old = L.get<uint16_t>(olds, 32);
  uint16_t h = 0, b = 0, h2lo = 0, h2hi = 0, b2lo = 0, b2hi = 0;
  for (int lane = 0; lane < 32; ++lane) {
    const float x = float(lane + 1) / 8, y = -float(lane + 1) / 4;
    EXPECT_EQ(old[lane], h) << "lane " << lane;
    h = f16(from_f16(h) + from_f16(f16(x))); // sums of f16s are exact in a float here
    b = bf16(from_bf16(b) + from_bf16(bf16(x)));
    h2lo = f16(from_f16(h2lo) + from_f16(f16(x)));
    h2hi = f16(from_f16(h2hi) + from_f16(f16(y)));
    b2lo = bf16(from_bf16(b2lo) + from_bf16(bf16(x)));
    b2hi = bf16(from_bf16(b2hi) + from_bf16(bf16(y)));
  }
  EXPECT_EQ(w16[0], h);
  EXPECT_EQ(w16[1], b);
  EXPECT_EQ(w16[2], h2lo);
  EXPECT_EQ(w16[3], h2hi);
  EXPECT_EQ(w16[4], b2lo);
  EXPECT_EQ(w16[5], b2hi);
  EXPECT_EQ(from_f16(h), 66.0f);  // 528 / 8: exact in f16
  EXPECT_NE(from_bf16(b), 66.0f); // bf16's 8 bits round the running sum
}

TEST(PtxAtomic, VectorAddsEveryElementAndReturnsTheOldVector) {
  const Module m = parse_ptx(kVectors, "vectors.ptx");
  Launch L(m, "vectors", {1, 1, 1}, {32, 1, 1});
  const uint64_t acc = L.zeros(16), olds = L.zeros(32 * 16), acc2 = L.zeros(8);
  L.arg(acc).arg(olds).arg(acc2).run();
  const auto got = L.get<float>(acc, 4);
  const auto old = L.get<float>(olds, 32 * 4);
  const auto got2 = L.get<float>(acc2, 2);
  float s[4] = {0, 0, 0, 0};
  for (int lane = 0; lane < 32; ++lane) {
    for (int e = 0; e < 4; ++e) EXPECT_EQ(old[lane * 4 + e], s[e]) << lane << " " << e;
    s[0] += float(lane);
    s[1] += 2.0f * float(lane);
    s[2] += float(lane) / 2;
    s[3] += 1;
  }
  for (int e = 0; e < 4; ++e) EXPECT_EQ(got[e], s[e]) << e;
  EXPECT_EQ(got2[0], 32.0f);
  EXPECT_EQ(got2[1], 496.0f);
}

TEST(PtxAtomic, VectorsOnlyOnAtomicsLoadsAndStores) {
  // A function gpurf cannot read is refused alone, saying why.
  const Module m = parse_ptx(std::string(kHeader) + ".visible .entry k() { .reg .f32 %f<4>; "
                                                    "add.v2.f32 %f1, %f2, %f3; ret; }",
                             "bad.ptx");
  ASSERT_EQ(m.refused.count("k"), 1u);
  EXPECT_NE(m.refused.at("k").find("'.v2'"), std::string::npos) << m.refused.at("k");
}

// ------------------------------------------------------------------------------ mbarrier

TEST(PtxMbarrier, PhasesCompleteWhenTheExpectedArrivalsAreIn) {
  namespace mb = gpurf::ptx::mbarrier;
  uint64_t m = mb::init(3);
  const uint64_t s0 = m; // the state an arrive of phase 0 returns
  ASSERT_TRUE(mb::arrive(m, 1, false));
  ASSERT_TRUE(mb::arrive(m, 1, false));
  EXPECT_FALSE(mb::phase_done(m, s0));
  EXPECT_FALSE(mb::parity_done(m, 0));
  ASSERT_TRUE(mb::arrive(m, 1, false)); // the third: phase 0 completes, phase 1 expects 3
  EXPECT_TRUE(mb::phase_done(m, s0));
  EXPECT_TRUE(mb::parity_done(m, 0));
  EXPECT_FALSE(mb::parity_done(m, 1));
  EXPECT_EQ(mb::pending(m), 3u);
  ASSERT_TRUE(mb::arrive(m, 2, true)); // arrive_drop of 2: 1 pending, 1 expected from now on
  EXPECT_EQ(mb::expected(m), 1u);
  EXPECT_EQ(mb::pending(m), 1u);
  EXPECT_FALSE(mb::parity_done(m, 1));
  EXPECT_FALSE(mb::arrive(m, 2, false)); // more than are pending
  ASSERT_TRUE(mb::arrive(m, 1, false));  // phase 1 completes; phase 0 again expects 1
  EXPECT_TRUE(mb::parity_done(m, 1));
  EXPECT_EQ(mb::pending(m), 1u);
}

// Two warps: warp 1 stores, arrives; warp 0 spins on test_wait until the phase completes, then
// reads what warp 1 stored. The engine runs warps in turn, so the spin must see the arrival.
TEST(PtxMbarrier, AWaitSeesTheOtherWarpsArrival) {
  const Module m = parse_ptx(std::string(kHeader) + R"(
.visible .entry k(.param .u64 out)
{
  .shared .align 8 .b64 bar;
  .shared .align 4 .u32 data;
  .reg .pred %p<4>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra INITED;
  mov.u32 %r2, 64;
  mbarrier.init.shared.b64 [bar], %r2;
INITED:
  bar.sync 0;
  setp.lt.u32 %p2, %r1, 32;
  @%p2 bra WAITER;
  setp.ne.u32 %p3, %r1, 32;
  @%p3 bra ARRIVE;
  mov.u32 %r3, 4242;
  st.shared.u32 [data], %r3;
ARRIVE:
  mbarrier.arrive.shared.b64 %rd2, [bar];
  ret;
WAITER:
  mbarrier.arrive.shared.b64 %rd2, [bar];
SPIN:
  mbarrier.test_wait.shared.b64 %p3, [bar], %rd2;
  @!%p3 bra SPIN;
  mbarrier.try_wait.parity.shared.b64 %p2, [bar], 0;
  ld.shared.u32 %r4, [data];
  selp.u32 %r5, 1, 0, %p2;
  add.u32 %r6, %r4, %r5;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd3, %rd1, %rd3;
  st.global.u32 [%rd3], %r6;
  ret;
}
)",
                             "mbar.ptx");
  ASSERT_TRUE(m.refused.empty()) << m.refused.begin()->second;
  Launch L(m, "k", {1, 1, 1}, {64, 1, 1});
  const uint64_t out = L.zeros(32 * 4);
  L.arg(out).run();
  for (uint32_t v : L.get<uint32_t>(out, 32)) EXPECT_EQ(v, 4243u); // the data and parity 0 done
}

// mbarrier.arrive.noComplete (CUDA's barrier::arrive(n > 1) and debug builds of cuda::pipeline):
// lane 0 arrives for 8 without completing; the warp's 32 arrivals then complete the phase of
// 40, and only then (without the 8, the phase would still wait). Once refused as unsupported.
TEST(PtxMbarrier, ANoCompleteArriveCountsItsArrivals) {
  const Module m = parse_ptx(std::string(kHeader) + R"(
.visible .entry k(.param .u64 out)
{
  .shared .align 8 .b64 bar;
  .reg .pred %p<4>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra INITED;
  mov.u32 %r2, 40;
  mbarrier.init.shared.b64 [bar], %r2;
  mov.u32 %r3, 8;
  mbarrier.arrive.noComplete.shared.b64 %rd2, [bar], %r3;
  mbarrier.test_wait.shared.b64 %p2, [bar], %rd2;
  selp.u32 %r4, 1, 0, %p2;
  st.global.u32 [%rd1+128], %r4;
INITED:
  bar.sync 0;
  mbarrier.arrive.shared.b64 %rd2, [bar];
  mbarrier.test_wait.shared.b64 %p3, [bar], %rd2;
  selp.u32 %r5, 1, 0, %p3;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd3, %rd1, %rd3;
  st.global.u32 [%rd3], %r5;
  ret;
}
)",
                             "nocomplete.ptx");
  ASSERT_TRUE(m.refused.empty()) << m.refused.begin()->second;
  Launch L(m, "k", {1, 1, 1}, {32, 1, 1});
  const uint64_t out = L.zeros(33 * 4);
  L.arg(out).run();
  const std::vector<uint32_t> got = L.get<uint32_t>(out, 33);
  for (unsigned i = 0; i < 32; ++i) EXPECT_EQ(got[i], 1u) << "lane " << i; // phase complete
  EXPECT_EQ(got[32], 0u); // after the 8 alone: pending
}

TEST(PtxAtomic, AVectorAtomicOnScalarsStopsTheKernelSayingWhy) {
  const Module m = parse_ptx(std::string(kHeader) + R"(
.visible .entry k(.param .u64 acc)
{
  .reg .f32 %f<4>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [acc];
  mov.f32 %f2, 0f3F800000;
  atom.global.add.v2.f32 %f1, [%rd1], %f2;
  ret;
}
)",
                             "scalar_vector.ptx");
  Launch L(m, "k", {1, 1, 1}, {32, 1, 1});
  const uint64_t acc = L.zeros(8);
  L.arg(acc);
  try {
    L.run();
    FAIL() << "a .v2 atomic of scalar operands ran";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("a vector atomic needs vectors of 2 elements"),
              std::string::npos)
        << e.what();
  }
}
