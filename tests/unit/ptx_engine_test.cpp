// Functional tests of the PTX SIMT engine on real nvcc output (tests/unit/ptx_data/*.cu).
#include <gtest/gtest.h>

#include <cfenv>
#include <climits>
#include <cmath>
#include <cstring>

#include "tests/unit/ptx_test_util.h"

using namespace gpurf::ptx;
using ptxtest::data_module;
using ptxtest::Launch;

namespace {

const Module& basic() { return data_module("ptx_basic.ptx"); }
const Module& warp() { return data_module("ptx_warp.ptx"); }

uint32_t fbits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

template <class F> auto with_round(int mode, F fn) {
  int old = fegetround();
  fesetround(mode);
  volatile auto r = fn();
  fesetround(old);
  return r;
}

} // namespace

TEST(PtxEngine, VectorAdd) {
  const int n = 1000;
  std::vector<float> a(n), b(n);
  for (int i = 0; i < n; ++i) {
    a[i] = float(i) * 0.5f;
    b[i] = float(n - i) * 0.25f;
  }
  Launch L(basic(), "vadd", Dim3(8), Dim3(128));
  uint64_t da = L.buf(a), db = L.buf(b), dc = L.zeros(1024 * 4);
  L.arg(da).arg(db).arg(dc).arg(n);
  auto st = L.run();
  auto c = L.get<float>(dc, 1024);
  for (int i = 0; i < n; ++i) ASSERT_EQ(c[i], a[i] + b[i]) << i;
  for (int i = n; i < 1024; ++i) ASSERT_EQ(c[i], 0.0f);
  EXPECT_EQ(st.ctas, 8u);
  EXPECT_GT(st.warp_instructions, 0u);
}

TEST(PtxEngine, DivergentIfElse) {
  const int n = 200;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i) in[i] = (i * 37 + 11) % 53 - 5;
  Launch L(basic(), "divergent", Dim3(2), Dim3(128));
  uint64_t di = L.buf(in), d_o = L.zeros(256 * 4);
  L.arg(di).arg(d_o).arg(n);
  L.run();
  auto out = L.get<int>(d_o, n);
  for (int i = 0; i < n; ++i) {
    int x = in[i], s = 0;
    if (x & 1) {
      for (int j = 0; j < (x % 7); ++j) s += j * x;
      s += 1000;
    } else if (x % 4 == 0) {
      s = x * x - 3;
    } else {
      for (int j = x; j > 0; j -= 3) s ^= j;
    }
    ASSERT_EQ(out[i], s + x) << "i=" << i << " x=" << x;
  }
}

TEST(PtxEngine, DivergentLoop) {
  const int n = 96;
  std::vector<int> counts(n);
  for (int i = 0; i < n; ++i) counts[i] = (i * 7) % 23;
  Launch L(basic(), "loop_sum", Dim3(3), Dim3(32));
  uint64_t dcnt = L.buf(counts), d_o = L.zeros(n * 8);
  L.arg(dcnt).arg(d_o);
  L.run();
  auto out = L.get<long long>(d_o, n);
  for (int i = 0; i < n; ++i) {
    long long s = 0;
    for (int j = 0; j < counts[i]; ++j) s += (long long)j * j + i;
    ASSERT_EQ(out[i], s) << i;
  }
}

TEST(PtxEngine, SharedReductionWithBarriers) {
  const int blocks = 3, threads = 256;
  std::vector<int> in(blocks * threads);
  for (size_t i = 0; i < in.size(); ++i) in[i] = int(i * 13 % 101) - 50;
  Launch L(basic(), "reduce_shared", Dim3(blocks), Dim3(threads));
  uint64_t di = L.buf(in), d_o = L.zeros(blocks * 4);
  L.arg(di).arg(d_o);
  L.run();
  auto out = L.get<int>(d_o, blocks);
  for (int b = 0; b < blocks; ++b) {
    int s = 0;
    for (int t = 0; t < threads; ++t) s += in[size_t(b * threads + t)];
    EXPECT_EQ(out[size_t(b)], s);
  }
}

TEST(PtxEngine, DynamicSharedMemory) {
  const int threads = 100; // partial last warp
  std::vector<int> in(threads);
  for (int i = 0; i < threads; ++i) in[i] = i + 1;
  Launch L(basic(), "dyn_shared", Dim3(1), Dim3(threads));
  L.cfg.dyn_shared_bytes = threads * 4;
  uint64_t di = L.buf(in), d_o = L.zeros(threads * 4);
  L.arg(di).arg(d_o);
  L.run();
  auto out = L.get<int>(d_o, threads);
  for (int t = 0; t < threads; ++t) EXPECT_EQ(out[t], in[threads - 1 - t] * 3) << t;
}

// The engine's shortcuts for common instructions (shared-memory loads, integer add, mul,
// mad and setp on register and literal rows) compute what the general per-lane code does:
// sign and zero extension of narrow loads, wrapping products, signed and unsigned compares
// of the same bits; a misaligned or out-of-bounds shared load is reported as before.
TEST(PtxEngine, RowShortcutsMatchTheGeneralCode) {
  const std::string text = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out, .param .u32 off)
{
  .shared .align 8 .b8 sh[64];
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [off];
  mov.u32 %r3, sh;
  st.shared.u32 [%r3], 0x8081FF7F;
  st.shared.u64 [%r3+8], -5;
  ld.shared.s8 %r4, [%r3+2];
  ld.shared.u16 %r5, [%r3+2];
  ld.shared.s16 %r6, [%r3+2];
  ld.shared.u64 %rd2, [%r3+8];
  add.u32 %r8, %r3, %r1;
  ld.shared.u32 %r7, [%r8];
  mov.u32 %r9, -3;
  mov.u32 %r10, 100000;
  mul.wide.s32 %rd3, %r9, %r10;
  mul.wide.u32 %rd4, %r9, %r10;
  mad.lo.s32 %r11, %r10, %r10, 7;
  mul.lo.u32 %r12, %r9, %r10;
  sub.s32 %r13, 5, %r10;
  setp.lt.s32 %p1, %r9, 5;
  setp.lo.u32 %p2, %r9, 5;
  setp.ge.s32 %p3, %r9, -3;
  selp.u32 %r14, 1, 0, %p1;
  selp.u32 %r15, 1, 0, %p2;
  selp.u32 %r16, 1, 0, %p3;
  st.global.v4.u32 [%rd1], {%r4, %r5, %r6, %r7};
  st.global.v4.u32 [%rd1+16], {%r11, %r12, %r13, %r14};
  st.global.v2.u32 [%rd1+32], {%r15, %r16};
  st.global.u64 [%rd1+40], %rd2;
  st.global.u64 [%rd1+48], %rd3;
  st.global.u64 [%rd1+56], %rd4;
  ret;
}
)";
  const Module m = parse_ptx(text, "t.ptx");
  ASSERT_TRUE(m.refused.empty()) << m.refused.begin()->second;
  auto run = [&](uint32_t off) {
    Launch L(m, "k", {1, 1, 1}, {1, 1, 1});
    const uint64_t o = L.zeros(64);
    L.arg(o).arg(off);
    L.run();
    return L.get<uint32_t>(o, 16);
  };
  const auto out = run(0);
  EXPECT_EQ(out[0], 0xFFFFFF81u); // the s8 0x81, sign-extended
  EXPECT_EQ(out[1], 0x8081u);
  EXPECT_EQ(out[2], 0xFFFF8081u);
  EXPECT_EQ(out[3], 0x8081FF7Fu);
  EXPECT_EQ(out[4], uint32_t(10000000000ull % (1ull << 32)) + 7);
  EXPECT_EQ(out[5], uint32_t(-300000));
  EXPECT_EQ(out[6], uint32_t(5 - 100000));
  EXPECT_EQ(out[7], 1u); // -3 < 5 signed
  EXPECT_EQ(out[8], 0u); // 0xFFFFFFFD < 5 unsigned: no
  EXPECT_EQ(out[9], 1u);
  EXPECT_EQ(uint64_t(out[10]) | uint64_t(out[11]) << 32, uint64_t(-5));
  EXPECT_EQ(uint64_t(out[12]) | uint64_t(out[13]) << 32, uint64_t(-300000));
  EXPECT_EQ(uint64_t(out[14]) | uint64_t(out[15]) << 32, 0xFFFFFFFDull * 100000);
  for (auto [off, what] : {std::pair<uint32_t, const char*>{2, "misaligned shared load of 4 bytes"},
                           {4096, "out-of-bounds shared access of 4 bytes"}}) {
    try {
      run(off);
      ADD_FAILURE() << "expected RuntimeError for offset " << off;
    } catch (const RuntimeError& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  }
}

// Every lane of a warp active takes loops without a per-lane test (exec_rows' lanes, scalar
// shared loads and stores, a span's loads, the addresses), a kernel parameter is read once per
// warp, and thread indices and `mov`s are rows: a full warp must compute what 31 threads (each
// lane tested) and the per-thread arithmetic below compute, in a 2-D block (tid.y, ntid.x).
TEST(PtxEngine, FullWarpShortcutsMatchThePerLaneCode) {
  const std::string text = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 in, .param .u64 out, .param .u32 base)
{
  .shared .align 8 .b8 sh[1024];
  .reg .pred %p<4>;
  .reg .b32 %r<30>;
  .reg .b64 %rd<12>;
  .reg .f32 %f<10>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [base];
  ld.param.u64 %rd10, [in];
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, %tid.y;
  mov.u32 %r4, %ntid.x;
  mad.lo.s32 %r5, %r3, %r4, %r2;
  sub.s32 %r6, %r5, %r1;
  mov.u32 %r20, -7;
  mul.wide.s32 %rd2, %r6, %r20;
  mov.u32 %r7, sh;
  shl.b32 %r8, %r5, 3;
  add.u32 %r9, %r7, %r8;
  st.shared.u64 [%r9], %rd2;
  st.shared.u8 [%r9], %r6;
  ld.shared.s8 %r10, [%r9];
  ld.shared.s16 %r11, [%r9];
  ld.shared.u64 %rd3, [%r9];
  ld.shared.u32 %r21, [%r9+4];
  setp.lt.s32 %p1, %r6, 0;
  mov.pred %p2, %p1;
  selp.u32 %r12, 1, 0, %p2;
  mov.u32 %r13, %laneid;
  min.s32 %r22, %r6, %r20;
  max.s32 %r23, %r6, 3;
  setp.gt.s32 %p3, %r6, -2;
  selp.u32 %r24, 1, 0, %p3;
  cvt.rn.f32.s32 %f1, %r6;
  add.f32 %f2, %f1, 0f3F000000;
  mul.f32 %f3, %f2, %f2;
  fma.rn.f32 %f4, %f3, %f1, %f2;
  sub.f32 %f5, %f4, %f1;
  sub.f32 %f7, %f1, %f1;
  mul.f32 %f6, %f7, 0f7F800000;
  shl.b32 %r25, %r6, 3;
  shl.b32 %r26, %r6, %r5;
  mul.wide.u32 %rd4, %r5, 96;
  add.s64 %rd5, %rd1, %rd4;
  mul.wide.u32 %rd6, %r5, 8;
  add.s64 %rd7, %rd10, %rd6;
  ld.global.u64 %rd8, [%rd7];
  ld.global.s32 %r14, [%rd7+4];
  st.global.v4.u32 [%rd5], {%r5, %r10, %r11, %r12};
  st.global.v4.u32 [%rd5+16], {%r13, %r4, %r14, %r21};
  st.global.u64 [%rd5+32], %rd3;
  st.global.u64 [%rd5+40], %rd8;
  st.global.v4.u32 [%rd5+48], {%r22, %r23, %r24, %r12};
  st.global.v4.f32 [%rd5+64], {%f2, %f3, %f4, %f5};
  st.global.f32 [%rd5+60], %f6;
  st.global.v2.u32 [%rd5+80], {%r25, %r26};
  ret;
}
)";
  const Module m = parse_ptx(text, "t.ptx");
  ASSERT_TRUE(m.refused.empty()) << m.refused.begin()->second;
  const uint32_t base = 20;
  std::vector<uint64_t> in(64);
  for (size_t i = 0; i < in.size(); ++i) in[i] = 0x8000000100000000ull * (i + 1) + 3 * i;
  auto run = [&](Dim3 block) {
    Launch L(m, "k", {1, 1, 1}, block);
    const uint64_t o = L.zeros(64 * 96);
    L.arg(L.buf(in)).arg(o).arg(base);
    L.run();
    return L.get<uint32_t>(o, 64 * 24);
  };
  for (const Dim3 block : {Dim3(8, 4, 1), Dim3(31, 1, 1), Dim3(16, 4, 1)}) {
    const auto out = run(block);
    for (uint32_t t = 0; t < block.x * block.y; ++t) {
      SCOPED_TRACE("block " + std::to_string(block.x) + "x" + std::to_string(block.y) +
                   ", thread " + std::to_string(t));
      const uint32_t* o = &out[t * 24];
      const int32_t d = int32_t(t) - int32_t(base);
      const uint64_t prod = uint64_t(int64_t(d) * -7);
      const uint64_t sh = (prod & ~0xffull) | uint8_t(d);
      EXPECT_EQ(o[0], t);
      EXPECT_EQ(o[1], uint32_t(int32_t(int8_t(uint8_t(d)))));
      EXPECT_EQ(o[2], uint32_t(int32_t(int16_t(uint16_t(sh)))));
      EXPECT_EQ(o[3], d < 0 ? 1u : 0u);
      EXPECT_EQ(o[4], t % 32);
      EXPECT_EQ(o[5], block.x);
      EXPECT_EQ(o[6], uint32_t(in[t] >> 32));
      EXPECT_EQ(o[7], uint32_t(sh >> 32));
      EXPECT_EQ(uint64_t(o[8]) | uint64_t(o[9]) << 32, sh);
      EXPECT_EQ(uint64_t(o[10]) | uint64_t(o[11]) << 32, in[t]);
      EXPECT_EQ(int32_t(o[12]), std::min(d, -7));
      EXPECT_EQ(int32_t(o[13]), std::max(d, 3));
      EXPECT_EQ(o[14], d > -2 ? 1u : 0u);
      EXPECT_EQ(o[15], 0x7fffffffu); // 0 * inf: the canonical NaN
      const float f1 = float(d), f2 = f1 + 0.5f, f3 = f2 * f2, f4 = std::fma(f3, f1, f2);
      EXPECT_EQ(o[16], fbits(f2));
      EXPECT_EQ(o[17], fbits(f3));
      EXPECT_EQ(o[18], fbits(f4));
      EXPECT_EQ(o[19], fbits(f4 - f1));
      EXPECT_EQ(o[20], uint32_t(d) << 3);
      EXPECT_EQ(o[21], t >= 32 ? 0u : uint32_t(d) << t); // a shift by 32 or more: 0
    }
  }
}

// A warp's global load or store whose lanes lie in one span goes to the memory in one access
// (Kernel::Impl::global_span); it must leave what the lane-by-lane loop leaves: consecutive,
// strided, broadcast and generic loads, narrow signed elements, vector stores, and the stores
// it leaves to the loop (reversed lanes, several lanes at one address: the last lane's value,
// lanes with gaps between them), and a misaligned or out-of-bounds lane reported as before.
TEST(PtxEngine, GlobalSpansMatchTheLaneByLaneAccess) {
  const std::string text = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 in, .param .u64 out, .param .u32 off)
{
  .reg .pred %p<4>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<20>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  ld.param.u32 %r1, [off];
  mov.u32 %r2, %tid.x;
  mul.wide.u32 %rd3, %r2, 4;
  add.s64 %rd4, %rd1, %rd3;
  add.s64 %rd5, %rd2, %rd3;
  ld.global.u32 %r3, [%rd4];
  mul.wide.u32 %rd6, %r2, 12;
  add.s64 %rd7, %rd1, %rd6;
  ld.global.s16 %r4, [%rd7+2];
  ld.global.u32 %r5, [%rd1+8];
  ld.u32 %r6, [%rd4+4];
  st.global.u32 [%rd5], %r3;
  st.global.u32 [%rd5+128], %r4;
  st.global.u32 [%rd5+256], %r5;
  st.global.u32 [%rd5+384], %r6;
  mov.u32 %r9, 31;
  sub.u32 %r10, %r9, %r2;
  mul.wide.u32 %rd11, %r10, 4;
  add.s64 %rd12, %rd2, %rd11;
  st.global.u32 [%rd12+512], %r2;
  st.global.u32 [%rd2+640], %r2;
  and.b32 %r11, %r2, 1;
  setp.eq.u32 %p2, %r11, 0;
  @%p2 st.global.u32 [%rd5+768], %r2;
  mul.wide.u32 %rd13, %r2, 8;
  add.s64 %rd14, %rd2, %rd13;
  st.global.v2.u32 [%rd14+1024], {%r2, %r3};
  st.u32 [%rd5+1280], %r4;
  setp.eq.u32 %p1, %r2, 5;
  selp.u32 %r8, %r1, 0, %p1;
  cvt.u64.u32 %rd9, %r8;
  add.s64 %rd10, %rd4, %rd9;
  ld.global.u32 %r7, [%rd10];
  st.global.u32 [%rd5+1408], %r7;
  ret;
}
)";
  const Module m = parse_ptx(text, "t.ptx");
  ASSERT_TRUE(m.refused.empty()) << m.refused.begin()->second;
  std::vector<uint32_t> in(128);
  for (size_t i = 0; i < in.size(); ++i) in[i] = uint32_t(0x9000F000u + i * 0x10001u);
  auto run = [&](uint32_t off) {
    Launch L(m, "k", {1, 1, 1}, {32, 1, 1});
    const uint64_t di = L.buf(in), o = L.zeros(1536);
    Allocations allocs;
    allocs.add(di, in.size() * 4, "buffer 'in'");
    allocs.add(o, 1536, "buffer 'out'");
    L.cfg.allocations = &allocs;
    L.arg(di).arg(o).arg(off);
    L.run();
    return L.get<uint32_t>(o, 384);
  };
  const auto out = run(0);
  for (uint32_t t = 0; t < 32; ++t) {
    const uint32_t hi16 = (in[3 * t] >> 16) & 0xffff;
    EXPECT_EQ(out[t], in[t]) << t;
    EXPECT_EQ(out[32 + t], uint32_t(int32_t(int16_t(hi16)))) << t;
    EXPECT_EQ(out[64 + t], in[2]) << t;
    EXPECT_EQ(out[96 + t], in[t + 1]) << t;
    EXPECT_EQ(out[128 + t], 31 - t) << t;
    EXPECT_EQ(out[192 + t], t % 2 ? 0u : t) << t;
    EXPECT_EQ(out[256 + 2 * t], t) << t;
    EXPECT_EQ(out[257 + 2 * t], in[t]) << t;
    EXPECT_EQ(out[320 + t], uint32_t(int32_t(int16_t(hi16)))) << t;
    EXPECT_EQ(out[352 + t], in[t]) << t;
  }
  EXPECT_EQ(out[160], 31u); // every lane stored to one word: the last lane's value stays
  for (auto [off, what] : {std::pair<uint32_t, const char*>{2, "misaligned global load of 4 bytes"},
                           {4096, "global load of 4 bytes at"}}) {
    try {
      run(off);
      ADD_FAILURE() << "expected RuntimeError for offset " << off;
    } catch (const RuntimeError& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("thread 5"), std::string::npos) << e.what();
    }
  }
}

TEST(PtxEngine, DynamicSharedOutOfBoundsIsReported) {
  Launch L(basic(), "dyn_shared", Dim3(1), Dim3(64));
  L.cfg.dyn_shared_bytes = 16; // too small
  uint64_t di = L.zeros(256), d_o = L.zeros(256);
  L.arg(di).arg(d_o);
  try {
    L.run();
    FAIL() << "expected RuntimeError";
  } catch (const RuntimeError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("out-of-bounds shared access"), std::string::npos) << m;
    EXPECT_NE(m.find("warp 0, thread 4"), std::string::npos) << m;
    EXPECT_NE(m.find("ptx_basic.ptx:"), std::string::npos) << m;
  }
}

TEST(PtxEngine, CallsRecursionAndStructReturn) {
  const int threads = 40;
  Launch L(basic(), "calls", Dim3(1), Dim3(threads));
  uint64_t d_out = L.zeros(threads * 4), d_side = L.zeros(threads * 4), d_f = L.zeros(threads * 8),
           d_pf = L.zeros(threads * 8);
  L.arg(d_out).arg(d_side).arg(d_f).arg(d_pf);
  L.run();
  auto out = L.get<int>(d_out, threads);
  auto side = L.get<int>(d_side, threads);
  auto f = L.get<unsigned long long>(d_f, threads);
  auto pf = L.get<float>(d_pf, 2 * threads);
  for (int t = 0; t < threads; ++t) {
    if (t & 1) {
      EXPECT_EQ(out[t], t * 3 + 7) << t;
      EXPECT_EQ(side[t], t - 3) << t;
    } else {
      EXPECT_EQ(out[t], -1) << t;
      EXPECT_EQ(side[t], 0) << t;
    }
    unsigned long long e = 1;
    for (unsigned k = 2; k <= unsigned(t % 21); ++k) e *= k;
    EXPECT_EQ(f[t], e) << t;
    EXPECT_EQ(pf[2 * t], float(t) * 2.0f);
    EXPECT_EQ(pf[2 * t + 1], float(t) + 0.5f);
  }
}

TEST(PtxEngine, LocalArrayDynamicIndex) {
  const int threads = 64;
  std::vector<int> idx(threads);
  for (int t = 0; t < threads; ++t) idx[t] = (t * 11) & 0xff;
  Launch L(basic(), "local_array", Dim3(1), Dim3(threads));
  uint64_t di = L.buf(idx), d_o = L.zeros(threads * 4);
  L.arg(di).arg(d_o);
  L.run();
  auto out = L.get<int>(d_o, threads);
  for (int t = 0; t < threads; ++t) {
    int a = (idx[t] & 15) * t + 1, b = ((idx[t] >> 4) & 15) * t + 1;
    EXPECT_EQ(out[t], a + b) << t;
  }
}

TEST(PtxEngine, ThreeDimensionalGridAndBlock) {
  Launch L(basic(), "grid3d", Dim3(2, 3, 2), Dim3(4, 3, 5));
  const int nthreads = 60, nblocks = 12;
  uint64_t d_o = L.zeros(nthreads * nblocks * 4);
  L.arg(d_o);
  L.run();
  auto out = L.get<int>(d_o, nthreads * nblocks);
  for (unsigned bz = 0; bz < 2; ++bz)
    for (unsigned by = 0; by < 3; ++by)
      for (unsigned bx = 0; bx < 2; ++bx)
        for (unsigned tz = 0; tz < 5; ++tz)
          for (unsigned ty = 0; ty < 3; ++ty)
            for (unsigned tx = 0; tx < 4; ++tx) {
              unsigned b = bx + 2 * (by + 3 * bz), t = tx + 4 * (ty + 3 * tz);
              int e = int((tz << 16) | (ty << 8) | tx | (bz << 28) | (by << 24) | (bx << 20));
              ASSERT_EQ(out[b * nthreads + t], e);
            }
}

TEST(PtxEngine, GlobalAndConstVariables) {
  Launch L(basic(), "globals", Dim3(1), Dim3(32));
  L.cfg.data_base = 0x40000000;
  uint64_t d_o = L.zeros(32 * 4);
  L.arg(d_o);
  L.run();
  const int table[8] = {3, 1, 4, 1, 5, 9, 2, 6};
  auto out = L.get<int>(d_o, 32);
  for (int t = 0; t < 32; ++t) EXPECT_EQ(out[t], table[t & 7] + 5);
  // The data segment lives in global memory at data_base: `counter` was updated.
  Kernel k(basic(), "globals", L.cfg, L.pk.bytes(), L.mem);
  uint64_t a = k.symbol_address("counter");
  EXPECT_GE(a, 0x40000000u);
  int counter = 0;
  L.mem.read(a, &counter, 4); // constructing `k` re-initialised the data segment
  EXPECT_EQ(counter, 5);
}

TEST(PtxEngine, EarlyExitThenBarrier) {
  const int n = 50; // warp 1 partially exited, warps 2..3 fully exited
  std::vector<int> in(128);
  for (int i = 0; i < 128; ++i) in[i] = i * i;
  Launch L(basic(), "early_exit_sync", Dim3(1), Dim3(128));
  uint64_t di = L.buf(in), d_o = L.zeros(128 * 4);
  L.arg(di).arg(d_o).arg(n);
  L.run();
  auto out = L.get<int>(d_o, 128);
  for (int t = 0; t < n; ++t) EXPECT_EQ(out[t], in[(t + 1) % n]);
  for (int t = n; t < 128; ++t) EXPECT_EQ(out[t], 0);
}

TEST(PtxEngine, BarrierReductions) {
  const int threads = 96;
  std::vector<int> in(threads);
  for (int t = 0; t < threads; ++t) in[t] = (t * 5) % 31;
  Launch L(basic(), "sync_count", Dim3(1), Dim3(threads));
  uint64_t di = L.buf(in), d_o = L.zeros(threads * 4);
  L.arg(di).arg(d_o);
  L.run();
  int cnt = 0;
  for (int t = 0; t < threads; ++t) cnt += in[t] > 10;
  auto out = L.get<int>(d_o, threads);
  for (int t = 0; t < threads; ++t) EXPECT_EQ(out[t], cnt * 100 + 10 + 0);
}

TEST(PtxEngine, DivergentBarrierIsDetected) {
  Launch L(basic(), "divergent_sync", Dim3(1), Dim3(64));
  uint64_t d_o = L.zeros(64 * 4);
  L.arg(d_o);
  try {
    L.run();
    FAIL() << "expected RuntimeError";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("divergent barrier"), std::string::npos) << e.what();
  }
}

TEST(PtxEngine, InstructionBudget) {
  Launch L(basic(), "spin", Dim3(1), Dim3(32));
  L.cfg.instr_budget = 5000;
  uint64_t flag = L.zeros(4);
  L.arg(flag);
  try {
    L.run();
    FAIL() << "expected RuntimeError";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("instruction budget of 5000"), std::string::npos)
        << e.what();
  }
}

TEST(PtxEngine, LaunchErrors) {
  SparseMemory mem;
  LaunchConfig cfg;
  try {
    Kernel k(basic(), "nope", cfg, {}, mem);
    FAIL();
  } catch (const RuntimeError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("unknown kernel 'nope'"), std::string::npos) << m;
    EXPECT_NE(m.find("vadd"), std::string::npos) << m;
    EXPECT_NE(m.find("reduce_shared"), std::string::npos) << m;
  }
  try {
    Kernel k(basic(), "vadd", cfg, std::vector<uint8_t>(8), mem);
    FAIL();
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("takes 4 parameters (28 bytes)"), std::string::npos)
        << e.what();
  }
  ParamPacker pk(Kernel::find_entry(basic(), "vadd"));
  EXPECT_THROW(pk.set(3, uint64_t(1)), RuntimeError); // n is an int
  EXPECT_THROW(pk.set(4, 1), RuntimeError);
  const auto& layout = Kernel::find_entry(basic(), "vadd").params;
  ASSERT_EQ(layout.size(), 4u);
  EXPECT_EQ(layout[2].offset, 16u);
  EXPECT_EQ(layout[3].offset, 24u);
  EXPECT_EQ(layout[3].size, 4u);
}

// -------------------------------------------------------------------------------------------
// Step-level API
// -------------------------------------------------------------------------------------------
TEST(PtxEngine, StepReportsValuesMasksAndAddresses) {
  const Module& m = basic();
  SparseMemory mem;
  const int n = 40;
  std::vector<float> a(64, 1.5f), b(64, 2.0f);
  uint64_t da = mem.alloc(256), db = mem.alloc(256), dc = mem.alloc(256);
  mem.write_vec(da, a);
  mem.write_vec(db, b);
  LaunchConfig cfg;
  cfg.grid = Dim3(1);
  cfg.block = Dim3(64);
  ParamPacker pk(Kernel::find_entry(m, "vadd"));
  pk.set(0, da).set(1, db).set(2, dc).set(3, n);
  Kernel k(m, "vadd", cfg, pk.bytes(), mem);
  unsigned cta = k.launch_cta(0);
  ASSERT_EQ(k.cta_warps(cta).size(), 2u);
  unsigned w1 = k.cta_warps(cta)[1]; // lanes 32..63: only 8 are < n
  StepResult r;
  bool saw_guarded = false, saw_load = false, saw_store = false;
  while (k.peek(w1).state == Peek::State::Ready) {
    Peek p = k.peek(w1);
    k.step(w1, r);
    EXPECT_EQ(r.pc, p.pc);
    EXPECT_EQ(r.instr, p.instr);
    if (r.instr->op == Op::Ld && r.instr->space == Space::Global) {
      saw_load = true;
      EXPECT_EQ(r.active_mask, 0xffu);
      EXPECT_EQ(r.exec_mask, 0xffu);
      EXPECT_EQ(r.access_bytes, 4u);
      EXPECT_EQ(r.space, Space::Global);
      for (unsigned l = 0; l < 8; ++l) {
        uint64_t base = r.reads.back().v[l];
        EXPECT_TRUE(r.addr[l] == base) << l;
      }
      ASSERT_EQ(r.writes.size(), 1u);
      for (unsigned l = 0; l < 8; ++l)
        EXPECT_TRUE(r.writes[0].v[l] == fbits(1.5f) || r.writes[0].v[l] == fbits(2.0f)) << l;
    }
    if (r.instr->op == Op::St) {
      saw_store = true;
      EXPECT_EQ(r.exec_mask, 0xffu);
      for (unsigned l = 0; l < 8; ++l) EXPECT_EQ(r.addr[l], dc + 4 * (32 + l));
    }
    if (r.instr->op == Op::Bra && r.instr->guard >= 0) {
      saw_guarded = true;
      EXPECT_EQ(r.active_mask, 0xffffffffu);
      EXPECT_EQ(r.exec_mask, 0xffffff00u); // @%p bra: lanes with i >= n jump to the exit
      ASSERT_FALSE(r.reads.empty());
      EXPECT_EQ(r.reads[0].vreg, unsigned(r.instr->guard));
    }
  }
  EXPECT_TRUE(saw_guarded && saw_load && saw_store);
  EXPECT_EQ(k.peek(w1).state, Peek::State::Finished);
  EXPECT_TRUE(r.warp_finished);
  EXPECT_FALSE(k.cta_done(cta)); // warp 0 has not run
  auto c = mem.read_vec<float>(dc, 64);
  for (int i = 32; i < 40; ++i) EXPECT_EQ(c[i], 3.5f);
  for (int i = 40; i < 64; ++i) EXPECT_EQ(c[i], 0.0f);
}

TEST(PtxEngine, PeekShowsBarrierWait) {
  const Module& m = basic();
  SparseMemory mem;
  LaunchConfig cfg;
  cfg.grid = Dim3(1);
  cfg.block = Dim3(64);
  std::vector<int> in(64, 1);
  uint64_t di = mem.alloc(256), d_o = mem.alloc(256);
  mem.write_vec(di, in);
  ParamPacker pk(Kernel::find_entry(m, "reduce_shared"));
  pk.set(0, di).set(1, d_o);
  Kernel k(m, "reduce_shared", cfg, pk.bytes(), mem);
  unsigned cta = k.launch_cta(0);
  unsigned w0 = k.cta_warps(cta)[0], w1 = k.cta_warps(cta)[1];
  StepResult r;
  while (k.peek(w0).state == Peek::State::Ready) k.step(w0, r);
  EXPECT_TRUE(r.barrier_wait);
  EXPECT_EQ(r.instr->op, Op::Bar);
  EXPECT_EQ(k.peek(w0).state, Peek::State::AtBarrier);
  EXPECT_NE(k.describe_warp(w0).find("waiting at barrier 0"), std::string::npos);
  EXPECT_THROW(k.step(w0, r), RuntimeError);
  do {
    k.step(w1, r);
  } while (r.instr->op != Op::Bar);
  EXPECT_FALSE(r.barrier_wait);
  // warp 1 arrived last: both are released
  EXPECT_EQ(k.peek(w0).state, Peek::State::Ready);
  EXPECT_EQ(k.peek(w1).state, Peek::State::Ready);
}

// -------------------------------------------------------------------------------------------
// Warp-level operations and atomics
// -------------------------------------------------------------------------------------------
TEST(PtxEngine, ShflModes) {
  const int threads = 64;
  std::vector<int> in(threads);
  for (int t = 0; t < threads; ++t) in[t] = t * 100 + 7;
  Launch L(warp(), "shfl_ops", Dim3(1), Dim3(threads));
  uint64_t di = L.buf(in), d_o = L.zeros(threads * 6 * 4);
  L.arg(di).arg(d_o);
  L.run();
  auto out = L.get<int>(d_o, threads * 6);
  for (int t = 0; t < threads; ++t) {
    int w = t & ~31, l = t & 31;
    auto v = [&](int lane) { return in[w + lane]; };
    EXPECT_EQ(out[t * 6 + 0], l + 3 < 32 ? v(l + 3) : v(l)) << t;
    EXPECT_EQ(out[t * 6 + 1], l - 5 >= 0 ? v(l - 5) : v(l)) << t;
    EXPECT_EQ(out[t * 6 + 2], v(l ^ 9)) << t;
    EXPECT_EQ(out[t * 6 + 3], v((t * 7) & 31)) << t;
    int seg = l & ~7;
    EXPECT_EQ(out[t * 6 + 4], (l & 7) + 2 < 8 ? v(seg + (l & 7) + 2) : v(l)) << t;
    EXPECT_EQ(out[t * 6 + 5], v((l & ~15) + 3)) << t;
  }
}

TEST(PtxEngine, WarpReduceWithShflDown) {
  const int threads = 128, blocks = 2;
  std::vector<int> in(threads * blocks);
  for (size_t i = 0; i < in.size(); ++i) in[i] = int(i % 17) * 3 - 20;
  Launch L(warp(), "warp_reduce", Dim3(blocks), Dim3(threads));
  uint64_t di = L.buf(in), d_o = L.zeros(8 * 4);
  L.arg(di).arg(d_o);
  L.run();
  auto out = L.get<int>(d_o, 8);
  for (int w = 0; w < 8; ++w) {
    int s = 0;
    for (int l = 0; l < 32; ++l) s += in[size_t(w * 32 + l)];
    EXPECT_EQ(out[w], s) << w;
  }
}

TEST(PtxEngine, VoteBallotActivemask) {
  const int threads = 64;
  std::vector<int> in(threads);
  for (int t = 0; t < threads; ++t) in[t] = (t % 3 == 0) ? -t : t;
  in[40] = 12345;
  Launch L(warp(), "vote_ops", Dim3(1), Dim3(threads));
  uint64_t di = L.buf(in), d_o = L.zeros(threads * 16);
  L.arg(di).arg(d_o);
  L.run();
  auto out = L.get<unsigned>(d_o, threads * 4);
  for (int w = 0; w < 2; ++w) {
    unsigned ballot = 0, odd = 0;
    bool any = false, all = true;
    for (int l = 0; l < 32; ++l) {
      int v = in[w * 32 + l];
      if (v > 0) ballot |= 1u << l;
      if (v & 1) odd |= 1u << l;
      any = any || v == 12345;
      all = all && v > -100;
    }
    for (int l = 0; l < 32; ++l) {
      int t = w * 32 + l;
      EXPECT_EQ(out[t * 4 + 0], ballot) << t;
      EXPECT_EQ(out[t * 4 + 1], unsigned(all)) << t;
      EXPECT_EQ(out[t * 4 + 2], unsigned(any)) << t;
      EXPECT_EQ(out[t * 4 + 3], (in[t] & 1) ? odd : 0u) << t;
    }
  }
}

TEST(PtxEngine, Atomics) {
  const int threads = 96;
  Launch L(warp(), "atomics", Dim3(1), Dim3(threads));
  std::vector<int> gi(16, 0);
  gi[1] = 1000;
  gi[2] = -1000;
  std::vector<unsigned> gu = {0xffffffffu, 0, 0, 0, 0};
  std::vector<float> gf = {1.0f};
  std::vector<unsigned long long> gull = {5};
  std::vector<double> gd = {0.5};
  uint64_t dgi = L.buf(gi), dgu = L.buf(gu), dgf = L.buf(gf), dgull = L.buf(gull), dgd = L.buf(gd),
           d_o = L.zeros(threads * 4);
  L.arg(dgi).arg(dgu).arg(dgf).arg(dgull).arg(dgd).arg(d_o);
  L.run();
  auto ri = L.get<int>(dgi, 16);
  auto ru = L.get<unsigned>(dgu, 5);
  int sum = 0, mx = INT_MIN;
  unsigned x = 0, orv = 0, andv = 0xffffffffu;
  unsigned long long su = 5;
  for (int t = 0; t < threads; ++t) {
    sum += t;
    mx = std::max(mx, t * 3 - 50);
    x ^= unsigned(t) * 2654435761u;
    orv |= 1u << (t & 31);
    andv &= ~(1u << (t & 31));
    su += (unsigned long long)t << 33;
  }
  EXPECT_EQ(ri[0], sum);
  EXPECT_EQ(ri[1], 100 - (threads - 1));
  EXPECT_EQ(ri[2], mx);
  EXPECT_EQ(ru[0], andv);
  EXPECT_EQ(ru[1], orv);
  EXPECT_EQ(ru[2], x);
  // atomicInc with limit 10: 0,1,..,10,0,...; 96 increments
  unsigned inc = 0, dec = 0;
  for (int t = 0; t < threads; ++t) {
    inc = inc >= 10 ? 0 : inc + 1;
    dec = (dec == 0 || dec > 7) ? 7 : dec - 1;
  }
  EXPECT_EQ(ru[3], inc);
  EXPECT_EQ(ru[4], dec);
  EXPECT_EQ(L.get<float>(dgf, 1)[0], 1.0f + 0.5f * threads);
  EXPECT_EQ(L.get<unsigned long long>(dgull, 1)[0], su);
  EXPECT_EQ(L.get<double>(dgd, 1)[0], 0.5 + 0.25 * threads);
  // CAS chain: thread t succeeds iff the token is t when it runs. Lanes of a warp run in lane
  // order, so the successful threads are exactly 0..K-1 where K is the final token, K >= 32.
  auto out = L.get<int>(d_o, threads);
  const int K = ri[3];
  EXPECT_GE(K, 32);
  EXPECT_EQ(K % 32, 0);
  for (int t = 0; t < threads; ++t) {
    if (t < K)
      EXPECT_EQ(out[t], t) << t;
    else
      EXPECT_NE(out[t], t) << t;
  }
  EXPECT_GE(ri[4], 0);
  EXPECT_LT(ri[4], threads);
  EXPECT_EQ(ri[8], threads / 4);
  EXPECT_EQ(ri[9], threads / 4);
  // sh[2] mixes increments and max(t): order-dependent, but bounded
  EXPECT_GE(ri[10], threads - 1);
  EXPECT_LE(ri[10], threads - 1 + threads / 4);
  EXPECT_EQ(ri[11], threads / 4);
}

TEST(PtxEngine, MatchAny) {
  const int threads = 32;
  std::vector<int> in(threads);
  for (int t = 0; t < threads; ++t) in[t] = t % 5;
  Launch L(warp(), "match_any", Dim3(1), Dim3(threads));
  uint64_t di = L.buf(in), d_o = L.zeros(threads * 4);
  L.arg(di).arg(d_o);
  L.run();
  auto out = L.get<unsigned>(d_o, threads);
  for (int t = 0; t < threads; ++t) {
    unsigned e = 0;
    for (int j = 0; j < threads; ++j)
      if (in[j] == in[t]) e |= 1u << j;
    EXPECT_EQ(out[t], e);
  }
}

// A CTA's shared memory beyond the engine's 1 GiB is refused with both parts (the front-end
// names the launch file and key from them); the static part is known for a launch that fits.
TEST(PtxEngine, SharedMemoryLimitNamesStaticAndDynamicParts) {
  const Module& m = basic();
  SparseMemory mem;
  LaunchConfig cfg;
  cfg.grid = Dim3(1);
  cfg.block = Dim3(64);
  ParamPacker pk(Kernel::find_entry(m, "reduce_shared"));
  pk.set(0, uint64_t(0)).set(1, uint64_t(0));
  const unsigned st = Kernel(m, "reduce_shared", cfg, pk.bytes(), mem).static_shared_bytes();
  EXPECT_GE(st, 1024u);                                  // its 1 KiB buffer
  cfg.dyn_shared_bytes = unsigned(kMaxSharedBytes - st); // exactly 1 GiB
  Kernel fits(m, "reduce_shared", cfg, pk.bytes(), mem);
  EXPECT_EQ(fits.static_shared_bytes(), st);
  EXPECT_EQ(fits.shared_bytes(), kMaxSharedBytes);
  cfg.dyn_shared_bytes += 1;
  try {
    Kernel k(m, "reduce_shared", cfg, pk.bytes(), mem);
    FAIL() << "expected a SharedMemoryError";
  } catch (const SharedMemoryError& e) {
    EXPECT_EQ(e.static_bytes, st);
    EXPECT_EQ(e.dynamic_bytes, kMaxSharedBytes - st + 1);
    EXPECT_NE(std::string(e.what()).find(std::to_string(st) + " bytes static +"), std::string::npos)
        << e.what();
  }
}

// A kernel's static shared memory is what it and the functions it calls name, as ptxas sizes
// it: nvcc puts every kernel's __shared__ arrays at module scope, and a module of many kernels
// (CUB's) must not give each kernel the sum of all of them. Values still land where they go.
TEST(PtxEngine, StaticSharedIsTheKernelsOwn) {
  const char* text = R"(
.version 8.0
.target sm_75
.address_size 64
.shared .align 4 .b8 big_a[40000];
.shared .align 4 .b8 big_b[30000];
.shared .align 4 .b8 helper_buf[64];
.func (.param .b32 r) helper(.param .b32 x)
{
  .reg .b32 %r<3>;
  ld.param.u32 %r1, [x];
  st.shared.u32 [helper_buf], %r1;
  ld.shared.u32 %r2, [helper_buf];
  add.u32 %r2, %r2, 1;
  st.param.b32 [r], %r2;
  ret;
}
.visible .entry ka(.param .u64 out)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, 41;
  st.shared.u32 [big_a+39996], %r1;
  ld.shared.u32 %r2, [big_a+39996];
  st.global.u32 [%rd1], %r2;
  ret;
}
.visible .entry kb(.param .u64 out)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, 6;
  st.shared.u32 [big_b], %r1;
  ld.shared.u32 %r1, [big_b];
  {
  .param .b32 p0;
  st.param.b32 [p0], %r1;
  .param .b32 r0;
  call.uni (r0), helper, (p0);
  ld.param.b32 %r2, [r0];
  }
  st.global.u32 [%rd1], %r2;
  ret;
}
)";
  const Module m = parse_ptx(text, "t.ptx");
  ASSERT_TRUE(m.refused.empty()) << m.refused.begin()->second;
  auto run = [&](const char* k, unsigned& shared) {
    Launch L(m, k, {1, 1, 1}, {32, 1, 1});
    const uint64_t o = L.zeros(4);
    L.arg(o);
    L.run();
    SparseMemory mem;
    LaunchConfig cfg;
    cfg.block = Dim3(32);
    ParamPacker pk(Kernel::find_entry(m, k));
    pk.set(0, uint64_t(0));
    shared = Kernel(m, k, cfg, pk.bytes(), mem).static_shared_bytes();
    return L.get<uint32_t>(o, 1)[0];
  };
  unsigned a = 0, b = 0;
  EXPECT_EQ(run("ka", a), 41u);
  EXPECT_EQ(run("kb", b), 7u);
  EXPECT_EQ(a, 40000u);       // big_a alone (was 70,064: every module array)
  EXPECT_EQ(b, 30000u + 64u); // big_b and its callee's buffer
}

// Indirect calls (`call %rd, (args), prototype`: function pointers, and nvcc -G's calls of
// functors through the stack): the address `mov` takes of a function calls that function; a
// warp whose lanes call different functions calls them one after another (the first active
// lane's target first), each with its lanes, and runs on together after the call.
TEST(PtxEngine, IndirectCallsThroughFunctionAddresses) {
  const char* text = R"(
.version 8.0
.target sm_75
.address_size 64
.func (.param .b32 r) twice(.param .b32 x)
{
  .reg .b32 %r<3>;
  ld.param.u32 %r1, [x];
  shl.b32 %r2, %r1, 1;
  st.param.b32 [r], %r2;
  ret;
}
.func (.param .b32 r) thrice(.param .b32 x)
{
  .reg .b32 %r<3>;
  ld.param.u32 %r1, [x];
  mul.lo.u32 %r2, %r1, 3;
  st.param.b32 [r], %r2;
  ret;
}
.visible .entry k(.param .u64 out, .param .u32 which)
{
  .reg .pred %p<3>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [which];
  mov.u32 %r2, %tid.x;
  mov.u64 %rd2, twice;
  mov.u64 %rd3, thrice;
  and.b32 %r4, %r2, 1;
  setp.eq.u32 %p2, %r1, 2;
  selp.b32 %r5, %r4, %r1, %p2;
  setp.ne.u32 %p1, %r5, 0;
  selp.b64 %rd4, %rd3, %rd2, %p1;
  {
  .param .b32 p0;
  st.param.b32 [p0], %r2;
  .param .b32 r0;
  proto_1 : .callprototype (.param .b32 _) _ (.param .b32 _);
  call (r0), %rd4, (p0), proto_1;
  ld.param.b32 %r3, [r0];
  }
  mul.wide.u32 %rd5, %r2, 4;
  add.s64 %rd6, %rd1, %rd5;
  st.global.u32 [%rd6], %r3;
  ret;
}
)";
  const Module m = parse_ptx(text, "t.ptx");
  ASSERT_TRUE(m.refused.empty()) << m.refused.begin()->second;
  auto run = [&](uint32_t which) {
    Launch L(m, "k", {1, 1, 1}, {32, 1, 1});
    const uint64_t o = L.zeros(128);
    L.arg(o).arg(which);
    L.run();
    return L.get<uint32_t>(o, 32);
  };
  const auto two = run(0), three = run(1);
  for (uint32_t t = 0; t < 32; ++t) {
    EXPECT_EQ(two[t], 2 * t);
    EXPECT_EQ(three[t], 3 * t);
  }
  const auto mixed = run(2); // odd lanes call thrice, even lanes twice
  for (uint32_t t = 0; t < 32; ++t) EXPECT_EQ(mixed[t], (t & 1 ? 3 : 2) * t) << t;
}
