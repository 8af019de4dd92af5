// redux.sync, dp4a, dp2a, prmt (every mode), fns, bfind, brev, activemask, elect.sync and
// cp.async on nvcc's own output; the SIMD video instructions (vadd2 ... vmax4), tanh.approx
// and the reserved shared memory registers on hand-written PTX
// (tests/unit/ptx_data/ptx_warp_ops.cu), each lane against a reference written here from the PTX
// ISA's text (the pseudocode and tables of each instruction's page), independent of the engine's
// code; and the parser's refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "gpurf/modules/frontend/ptx/parser.h"
#include "tests/unit/ptx_test_util.h"

using namespace gpurf::ptx;
using ptxtest::data_module;
using ptxtest::Launch;

namespace {

const Module& ops() { return data_module("ptx_warp_ops.ptx"); }

std::vector<uint32_t> random_words(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<uint32_t> v(n);
  for (auto& x : v) x = rng();
  return v;
}

// ---- references, from the ISA pages -----------------------------------------------------
// dp4a: d = c + sum Va[i] * Vb[i], bytes sign- or zero-extended by type.
uint32_t ref_dp4a(uint32_t a, uint32_t b, uint32_t c, bool as, bool bs) {
  int64_t d = int32_t(c);
  for (int i = 0; i < 4; ++i) {
    const uint8_t x = uint8_t(a >> (8 * i)), y = uint8_t(b >> (8 * i));
    d += (as ? int64_t(int8_t(x)) : int64_t(x)) * (bs ? int64_t(int8_t(y)) : int64_t(y));
  }
  return uint32_t(d);
}
// dp2a: Va = a's two 16-bit values, Vb = b's four bytes; b_select = lo ? 0 : 2.
uint32_t ref_dp2a(uint32_t a, uint32_t b, uint32_t c, bool as, bool bs, bool hi) {
  int64_t d = int32_t(c);
  for (int i = 0; i < 2; ++i) {
    const uint16_t x = uint16_t(a >> (16 * i));
    const uint8_t y = uint8_t(b >> (8 * ((hi ? 2 : 0) + i)));
    d += (as ? int64_t(int16_t(x)) : int64_t(x)) * (bs ? int64_t(int8_t(y)) : int64_t(y));
  }
  return uint32_t(d);
}
// prmt: the ISA's table, rows c[1:0] = 0..3, columns d.b3 d.b2 d.b1 d.b0 (source byte).
const int kPrmtTable[6][4][4] = {
    {{3, 2, 1, 0}, {4, 3, 2, 1}, {5, 4, 3, 2}, {6, 5, 4, 3}}, // f4e
    {{5, 6, 7, 0}, {6, 7, 0, 1}, {7, 0, 1, 2}, {0, 1, 2, 3}}, // b4e
    {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}}, // rc8
    {{3, 2, 1, 0}, {3, 2, 1, 1}, {3, 2, 2, 2}, {3, 3, 3, 3}}, // ecl
    {{0, 0, 0, 0}, {1, 1, 1, 0}, {2, 2, 1, 0}, {3, 2, 1, 0}}, // ecr
    {{1, 0, 1, 0}, {3, 2, 3, 2}, {1, 0, 1, 0}, {3, 2, 3, 2}}, // rc16
};
uint32_t ref_prmt(uint32_t a, uint32_t b, uint32_t c, int mode) { // mode -1: default
  const uint64_t tmp64 = uint64_t(b) << 32 | a;
  auto byte = [&](int i) { return uint32_t(tmp64 >> (8 * i)) & 0xff; };
  uint32_t d = 0;
  for (int k = 0; k < 4; ++k) { // target byte k
    uint32_t v;
    if (mode < 0) {
      const uint32_t ctl = (c >> (4 * k)) & 0xf;
      v = byte(int(ctl & 7));
      if (ctl & 8) v = (v & 0x80) ? 0xff : 0x00; // replicate the sign
    } else {
      v = byte(kPrmtTable[mode][c & 3][3 - k]);
    }
    d |= v << (8 * k);
  }
  return d;
}
// bmsk: a mask of b bits from bit a (the ISA's description); .clamp takes a and b past 31 as
// "beyond the word" (a: no bits, b: every bit up to 31), .wrap takes them mod 32.
uint32_t ref_bmsk(uint32_t a, uint32_t b, bool clamp) {
  const uint32_t pos = clamp ? std::min(a, 32u) : a % 32;
  const uint32_t width = clamp ? std::min(b, 32u) : b % 32;
  uint32_t d = 0;
  for (uint32_t k = pos; k < 32 && k < uint64_t(pos) + width; ++k) d |= 1u << k;
  return d;
}
// fns: the ISA's loop.
uint32_t ref_fns(uint32_t mask, uint32_t base, int32_t offset) {
  uint32_t d = 0xffffffff;
  if (offset == 0) {
    if ((mask >> base) & 1) d = base;
  } else {
    int pos = int(base);
    int count = std::abs(offset) - 1;
    const int inc = offset > 0 ? 1 : -1;
    while (pos >= 0 && pos < 32) {
      if ((mask >> pos) & 1) {
        if (count == 0) {
          d = uint32_t(pos);
          break;
        }
        --count;
      }
      pos += inc;
    }
  }
  return d;
}
// bfind: the most significant non-sign bit; .shiftamt: msb - that position.
uint32_t ref_bfind(uint64_t a, int bits, bool is_signed, bool shiftamt) {
  const int msb = bits - 1;
  if (is_signed && ((a >> msb) & 1)) a = ~a;
  uint32_t d = 0xffffffff;
  for (int i = msb; i >= 0; --i)
    if ((a >> i) & 1) {
      d = uint32_t(i);
      break;
    }
  if (shiftamt && d != 0xffffffff) d = uint32_t(msb) - d;
  return d;
}

} // namespace

TEST(PtxWarpOps, ReduxOverTheMemberLanes) {
  const unsigned n = 64; // two warps
  auto a = random_words(n, 7);
  for (unsigned i = 0; i < n; i += 5) a[i] = 0x80000000u + i; // negatives as s32
  Launch L(ops(), "redux_ops", {1, 1, 1}, {n, 1, 1});
  const uint64_t A = L.buf(a), O = L.zeros(n * 48);
  L.arg(A).arg(O);
  L.run();
  const auto out = L.get<uint32_t>(O, n * 12);
  for (unsigned w = 0; w < n / 32; ++w) {
    uint32_t add = 0, umin = ~0u, umax = 0, band = ~0u, bor = 0, bxor = 0, madd = 0, mxor = 0,
             mask = 0;
    int32_t smin = INT32_MAX, smax = INT32_MIN, msmin = INT32_MAX;
    for (unsigned l = 0; l < 32; ++l) {
      const uint32_t v = a[w * 32 + l];
      add += v, umin = std::min(umin, v), umax = std::max(umax, v);
      smin = std::min(smin, int32_t(v)), smax = std::max(smax, int32_t(v));
      band &= v, bor |= v, bxor ^= v;
      if ((w * 32 + l) % 3 != 0)
        madd += v, msmin = std::min(msmin, int32_t(v)), mxor ^= v, mask |= 1u << l;
    }
    for (unsigned l = 0; l < 32; ++l) {
      const uint32_t* o = &out[(w * 32 + l) * 12];
      const uint32_t want[8] = {add, umin, umax, uint32_t(smin), uint32_t(smax), band, bor, bxor};
      for (int k = 0; k < 8; ++k) EXPECT_EQ(o[k], want[k]) << "lane " << l << " op " << k;
      EXPECT_EQ(o[11], mask);
      if ((w * 32 + l) % 3 != 0) { // threadIdx.x % 3
        EXPECT_EQ(o[8], madd) << l;
        EXPECT_EQ(o[9], uint32_t(msmin)) << l;
        EXPECT_EQ(o[10], mxor) << l;
      }
    }
  }
}

TEST(PtxWarpOps, Dp4aAndDp2aInEverySignedness) {
  const unsigned n = 128;
  auto a = random_words(n, 11), b = random_words(n, 12), c = random_words(n, 13);
  a[0] = 0x80808080u, b[0] = 0x80808080u, c[0] = 0x7fffffffu; // extremes, wrap-around
  a[1] = 0xffffffffu, b[1] = 0x7f7f7f7fu, c[1] = 0x80000000u;
  Launch L(ops(), "dp_ops", {2, 1, 1}, {64, 1, 1});
  const uint64_t A = L.buf(a), B = L.buf(b), C = L.buf(c), O = L.zeros(n * 48);
  L.arg(A).arg(B).arg(C).arg(O);
  L.run();
  const auto out = L.get<uint32_t>(O, n * 12);
  for (unsigned i = 0; i < n; ++i) {
    const uint32_t* o = &out[i * 12];
    for (int k = 0; k < 4; ++k) // atype, btype = u32/s32 in the kernel's order
      EXPECT_EQ(o[k], ref_dp4a(a[i], b[i], c[i], k >= 2, k & 1)) << i << " dp4a " << k;
    for (int k = 0; k < 8; ++k)
      EXPECT_EQ(o[4 + k], ref_dp2a(a[i], b[i], c[i], (k & 3) >= 2, k & 1, k >= 4))
          << i << " dp2a " << k;
  }
}

TEST(PtxWarpOps, BmskClampAndWrap) {
  std::vector<uint32_t> a, b;
  for (uint32_t x : {0u, 1u, 5u, 31u, 32u, 33u, 64u, 0xffffffffu})
    for (uint32_t y : {0u, 1u, 2u, 27u, 31u, 32u, 40u, 0x80000001u}) a.push_back(x), b.push_back(y);
  const unsigned n = unsigned(a.size()); // 64: two warps
  Launch L(ops(), "bmsk_ops", {1, 1, 1}, {n, 1, 1});
  const uint64_t A = L.buf(a), B = L.buf(b), O = L.zeros(n * 8);
  L.arg(A).arg(B).arg(O);
  L.run();
  const auto out = L.get<uint32_t>(O, n * 2);
  for (unsigned i = 0; i < n; ++i) {
    EXPECT_EQ(out[2 * i], ref_bmsk(a[i], b[i], true)) << a[i] << " " << b[i] << " clamp";
    EXPECT_EQ(out[2 * i + 1], ref_bmsk(a[i], b[i], false)) << a[i] << " " << b[i] << " wrap";
  }
  EXPECT_EQ(ref_bmsk(1, 2, false), 0x6u); // the ISA's example
}

TEST(PtxWarpOps, PrmtEveryModeFnsBfindBrev) {
  const unsigned n = 128;
  auto a = random_words(n, 21), b = random_words(n, 22), c = random_words(n, 23);
  std::vector<uint64_t> w(n);
  std::mt19937_64 rng(24);
  for (auto& x : w) x = rng() >> (rng() % 64);
  a[0] = 0, a[1] = 0xffffffffu, a[2] = 1, a[3] = 0x80000000u; // bfind: none, -1, bit 0, sign
  w[0] = 0, w[1] = ~0ull, w[2] = 0x8000000000000000ull;
  for (unsigned i = 4; i < 8; ++i) c[i] = 0x89ab0000u | (0x7654u + i); // sign-replicating nibbles
  for (unsigned i = 8; i < 16; ++i) c[i] = i % 4;                      // each c[1:0] of the modes
  Launch L(ops(), "bit_ops", {2, 1, 1}, {64, 1, 1});
  const uint64_t A = L.buf(a), B = L.buf(b), C = L.buf(c), W = L.buf(w), O = L.zeros(n * 64);
  L.arg(A).arg(B).arg(C).arg(W).arg(O);
  L.run();
  const auto out = L.get<uint32_t>(O, n * 16);
  for (unsigned i = 0; i < n; ++i) {
    const uint32_t* o = &out[i * 16];
    EXPECT_EQ(o[0], ref_prmt(a[i], b[i], c[i] & 0x7777, -1)) << i; // __byte_perm: msb clear
    EXPECT_EQ(o[1], ref_prmt(a[i], b[i], c[i], -1)) << i;
    for (int m = 0; m < 6; ++m) EXPECT_EQ(o[2 + m], ref_prmt(a[i], b[i], c[i], m)) << i << " " << m;
    EXPECT_EQ(o[8], ref_fns(a[i], b[i] & 31, int32_t(c[i] % 41) - 20)) << i;
    EXPECT_EQ(o[9], ref_bfind(a[i], 32, false, false)) << i;
    EXPECT_EQ(o[10], ref_bfind(a[i], 32, true, false)) << i;
    EXPECT_EQ(o[11], ref_bfind(a[i], 32, false, true)) << i;
    EXPECT_EQ(o[12], ref_bfind(w[i], 64, true, true)) << i;
    uint32_t rv = 0;
    uint64_t rw = 0;
    for (int k = 0; k < 32; ++k) rv |= ((a[i] >> k) & 1) << (31 - k);
    for (int k = 0; k < 64; ++k) rw |= ((w[i] >> k) & 1) << (63 - k);
    EXPECT_EQ(o[13], rv) << i;
    EXPECT_EQ(o[14], uint32_t(rw)) << i;
    EXPECT_EQ(o[15], uint32_t(rw >> 32)) << i;
  }
  // The ISA's own fns examples.
  EXPECT_EQ(ref_fns(0xaaaaaaaa, 3, 1), 3u);
  EXPECT_EQ(ref_fns(0xaaaaaaaa, 3, -1), 3u);
  EXPECT_EQ(ref_fns(0xaaaaaaaa, 2, 1), 3u);
  EXPECT_EQ(ref_fns(0xaaaaaaaa, 2, -1), 1u);
}

TEST(PtxWarpOps, ActivemaskAndElectInADivergentWarp) {
  const unsigned n = 64;
  auto a = random_words(n, 31);
  for (unsigned i = 32; i < 64; ++i) a[i] &= ~1u; // the second warp: no lane takes the branch
  a[33] |= 1, a[62] |= 1;                         // but these two
  Launch L(ops(), "lane_ops", {1, 1, 1}, {n, 1, 1});
  const uint64_t A = L.buf(a), O = L.zeros(n * 16);
  L.arg(A).arg(O);
  L.run();
  const auto out = L.get<uint32_t>(O, n * 4);
  for (unsigned w = 0; w < 2; ++w) {
    uint32_t odd = 0;
    for (unsigned l = 0; l < 32; ++l) odd |= (a[w * 32 + l] & 1) << l;
    const unsigned leader = unsigned(__builtin_ctz(odd));
    for (unsigned l = 0; l < 32; ++l) {
      const uint32_t* o = &out[(w * 32 + l) * 4];
      if ((odd >> l) & 1) {
        EXPECT_EQ(o[0], odd) << w << " " << l;
        EXPECT_EQ(o[1], leader) << l; // every member learns the same leader, a member
        EXPECT_EQ(o[2], l == leader ? 1u : 0u) << l;
      } else {
        EXPECT_EQ(o[3], ~odd) << w << " " << l;
      }
    }
  }
}

// The bytes of a cp.async reach shared memory only at the wait that covers its group: a read
// before it sees the old contents (a model landing them at the cp.async fails here), one after
// it the copied bytes, zero-filled past src-size.
TEST(PtxWarpOps, CpAsyncLandsAtTheWaitThatCoversItsGroup) {
  const unsigned n = 32;
  std::vector<int32_t> g(128 * 4);
  for (unsigned k = 0; k < g.size(); ++k) g[k] = int32_t(1000 + k);
  Launch L(ops(), "cp_async_ops", {1, 1, 1}, {n, 1, 1});
  const uint64_t G = L.buf(g), O = L.zeros(n * 32);
  L.arg(G).arg(O);
  L.run();
  const auto out = L.get<int32_t>(O, n * 8);
  for (unsigned i = 0; i < n; ++i) {
    const int32_t* o = &out[i * 8];
    EXPECT_EQ(o[0], -1) << i;                  // group 0 before any wait
    EXPECT_EQ(o[1], g[i * 4]) << i;            // wait_group 2: group 0 landed
    EXPECT_EQ(o[2], -1) << i;                  // group 1 (8 B) not yet
    EXPECT_EQ(o[3], g[(32 + i) * 4 + 1]) << i; // wait_group 1: group 1 landed
    EXPECT_EQ(o[4], g[(64 + i) * 4]) << i;     // its 4-byte copy too
    EXPECT_EQ(o[7], -1) << i;                  // group 2 before wait_all
    EXPECT_EQ(o[5], g[(96 + i) * 4]) << i;     // src-size 4: the first word copied
    EXPECT_EQ(o[6], 0) << i;                   // the rest zero-filled
  }
}

namespace {
std::string refusal(const std::string& body) {
  const std::string text = ".version 8.0\n.target sm_90\n.address_size 64\n"
                           ".visible .entry k(.param .u64 p)\n{\n.reg .b32 %r<4>;\n"
                           ".reg .b64 %rd<2>;\n.reg .pred %p<2>;\n" +
                           body + "\nret;\n}\n";
  const Module m = parse_ptx(text, "t.ptx");
  auto it = m.refused.find("k");
  return it == m.refused.end() ? "" : it->second;
}
} // namespace

namespace {
// vop2 / vop4 with the default selectors (element i of a with element i of b) and mask, from
// the ISA's pseudocode: extract and extend by type, operate, .sat clamps to dtype's element
// range, .add sums the elements into c, else d holds each element's low bits.
uint32_t ref_video(const std::string& op, unsigned n, uint32_t a, uint32_t b, uint32_t c, bool as,
                   bool bs, bool ds, bool sat, bool add) {
  const unsigned w = 32 / n;
  auto elem = [&](uint32_t x, unsigned i, bool s) {
    const uint32_t e = (x >> (w * i)) & ((1u << w) - 1);
    return s && (e >> (w - 1)) ? int64_t(e) - (int64_t(1) << w) : int64_t(e);
  };
  uint32_t d = add ? c : 0;
  for (unsigned i = 0; i < n; ++i) {
    const int64_t x = elem(a, i, as), y = elem(b, i, bs);
    int64_t t = op == "vadd"       ? x + y
                : op == "vsub"     ? x - y
                : op == "vavrg"    ? (x + y >= 0 ? (x + y + 1) >> 1 : (x + y) >> 1)
                : op == "vabsdiff" ? (x > y ? x - y : y - x)
                : op == "vmin"     ? std::min(x, y)
                                   : std::max(x, y);
    if (sat) {
      const int64_t lo = ds ? -(int64_t(1) << (w - 1)) : 0;
      const int64_t hi = ds ? (int64_t(1) << (w - 1)) - 1 : (int64_t(1) << w) - 1;
      t = std::clamp(t, lo, hi);
    }
    if (add)
      d += uint32_t(t);
    else
      d |= (uint32_t(t) & ((1u << w) - 1)) << (w * i);
  }
  return d;
}
} // namespace

// Every operation, width and signedness, with and without .sat and .add, lane by lane.
TEST(PtxWarpOps, SimdVideoInstructions) {
  struct Form {
    std::string op;
    unsigned n;
    bool ds, as, bs, sat, add;
  };
  std::vector<Form> forms;
  for (std::string op : {"vadd", "vsub", "vavrg", "vabsdiff", "vmin", "vmax"})
    for (unsigned n : {2u, 4u})
      for (int k = 0; k < 5; ++k) // u32 / s32 / mixed, plain, .sat, .add
        forms.push_back(
            {op, n, k == 1 || k == 3, k == 1 || k == 4, k >= 3, k == 2 || k == 3, k == 4});
  std::string body;
  for (size_t f = 0; f < forms.size(); ++f) {
    const Form& x = forms[f];
    auto ty = [](bool s) { return std::string(s ? ".s32" : ".u32"); };
    body += x.op + std::to_string(x.n) + ty(x.ds) + ty(x.as) + ty(x.bs) + (x.sat ? ".sat" : "") +
            (x.add ? ".add" : "") + " %r5, %r2, %r3, %r4;\nst.global.u32 [%rd4+" +
            std::to_string(4 * f) + "], %r5;\n";
  }
  const std::string text = ".version 8.0\n.target sm_75\n.address_size 64\n"
                           ".visible .entry k(.param .u64 pa, .param .u64 po)\n{\n"
                           ".reg .b32 %r<8>;\n.reg .b64 %rd<8>;\n"
                           "ld.param.u64 %rd1, [pa];\nld.param.u64 %rd2, [po];\n"
                           "mov.u32 %r1, %tid.x;\nmul.wide.u32 %rd3, %r1, 12;\n"
                           "add.s64 %rd3, %rd1, %rd3;\nld.global.u32 %r2, [%rd3];\n"
                           "ld.global.u32 %r3, [%rd3+4];\nld.global.u32 %r4, [%rd3+8];\n"
                           "mul.wide.u32 %rd4, %r1, " +
                           std::to_string(4 * forms.size()) + ";\nadd.s64 %rd4, %rd2, %rd4;\n" +
                           body + "ret;\n}\n";
  const Module m = parse_ptx(text, "video.ptx");
  ASSERT_TRUE(m.refused.empty()) << m.refused.begin()->second;
  const unsigned lanes = 64;
  auto in = random_words(lanes * 3, 21);
  in[0] = 0x80ff7f00u, in[1] = 0x7f0180ffu, in[2] = 0xffffffffu; // extremes
  in[3] = 0xffffffffu, in[4] = 0x00000000u, in[5] = 0x80000000u;
  Launch L(m, "k", {1, 1, 1}, {lanes, 1, 1});
  const uint64_t A = L.buf(in), O = L.zeros(lanes * forms.size() * 4);
  L.arg(A).arg(O);
  L.run();
  const auto out = L.get<uint32_t>(O, lanes * forms.size());
  for (unsigned l = 0; l < lanes; ++l)
    for (size_t f = 0; f < forms.size(); ++f) {
      const Form& x = forms[f];
      EXPECT_EQ(out[l * forms.size() + f], ref_video(x.op, x.n, in[3 * l], in[3 * l + 1],
                                                     in[3 * l + 2], x.as, x.bs, x.ds, x.sat, x.add))
          << "lane " << l << ": " << x.op << x.n << " ds " << x.ds << " as " << x.as << " bs "
          << x.bs << " sat " << x.sat << " add " << x.add;
    }
  // worked by hand: bytes |0x10-0x20| + |0xff-0x01| + |0x00-0x80| + |0x7f-0x7f| + 5 = 16+254+128+5
  EXPECT_EQ(ref_video("vabsdiff", 4, 0x7f00ff10u, 0x7f800120u, 5, false, false, false, false, true),
            403u);
}

// add/sub/min/max on packed halfwords (.u16x2/.s16x2, PTX 8.0; what nvcc emits for __vadd2,
// __vsubss2 and __vmaxs2 in compute_90 PTX): each half on its own, from the ISA's pseudocode
// (d[i] = iA[i] op iB[i], wrapping in 16 bits; min/max.s16x2.relu clamps a negative half to 0).
TEST(PtxWarpOps, PackedHalfwordIntegers) {
  const char* forms[] = {"add.u16x2", "add.s16x2", "sub.u16x2", "sub.s16x2",      "min.u16x2",
                         "min.s16x2", "max.u16x2", "max.s16x2", "max.relu.s16x2", "min.relu.s16x2"};
  const unsigned nf = sizeof(forms) / sizeof(forms[0]);
  std::string body;
  for (unsigned f = 0; f < nf; ++f)
    body += std::string(forms[f]) + " %r5, %r2, %r3;\nst.global.u32 [%rd4+" +
            std::to_string(4 * f) + "], %r5;\n";
  const std::string text = ".version 8.0\n.target sm_90\n.address_size 64\n"
                           ".visible .entry k(.param .u64 pa, .param .u64 po)\n{\n"
                           ".reg .b32 %r<8>;\n.reg .b64 %rd<8>;\n"
                           "ld.param.u64 %rd1, [pa];\nld.param.u64 %rd2, [po];\n"
                           "mov.u32 %r1, %tid.x;\nmul.wide.u32 %rd3, %r1, 8;\n"
                           "add.s64 %rd3, %rd1, %rd3;\nld.global.u32 %r2, [%rd3];\n"
                           "ld.global.u32 %r3, [%rd3+4];\n"
                           "mul.wide.u32 %rd4, %r1, " +
                           std::to_string(4 * nf) + ";\nadd.s64 %rd4, %rd2, %rd4;\n" + body +
                           "ret;\n}\n";
  const Module m = parse_ptx(text, "packed16.ptx");
  ASSERT_TRUE(m.refused.empty()) << m.refused.begin()->second;
  const unsigned lanes = 64;
  auto in = random_words(lanes * 2, 5);
  in[0] = 0x0000ffffu, in[1] = 0x00ff0001u; // a carry out of the low half stays there
  in[2] = 0x80007fffu, in[3] = 0x00018000u;
  Launch L(m, "k", {1, 1, 1}, {lanes, 1, 1});
  const uint64_t A = L.buf(in), O = L.zeros(lanes * nf * 4);
  L.arg(A).arg(O);
  L.run();
  const auto out = L.get<uint32_t>(O, lanes * nf);
  for (unsigned l = 0; l < lanes; ++l)
    for (unsigned f = 0; f < nf; ++f) {
      const std::string op = forms[f];
      const bool sg = op.find(".s16x2") != std::string::npos, relu = op.find("relu") != op.npos;
      uint32_t want = 0;
      for (int i = 0; i < 2; ++i) {
        const uint16_t ua = uint16_t(in[2 * l] >> (16 * i)),
                       ub = uint16_t(in[2 * l + 1] >> (16 * i));
        const int32_t x = sg ? int16_t(ua) : ua, y = sg ? int16_t(ub) : ub;
        int32_t t = op[0] == 'a'   ? x + y
                    : op[0] == 's' ? x - y
                    : op[1] == 'i' ? std::min(x, y)
                                   : std::max(x, y);
        if (relu && t < 0) t = 0;
        want |= (uint32_t(t) & 0xffffu) << (16 * i);
      }
      EXPECT_EQ(out[l * nf + f], want) << "lane " << l << ": " << op;
    }
  EXPECT_EQ(out[0], 0x00ff0000u);      // add.u16x2: 0xffff + 1 wraps to 0 in the low half
  EXPECT_EQ(out[nf + 3], 0x7fffffffu); // sub.s16x2: 0x7fff - 0x8000 and 0x8000 - 1 wrap
}

// tanh.approx.f32: tanh within the ISA's 2^-10.987 relative error, subnormals kept; the
// reserved shared memory registers: a region of its own after the CTA's shared variables.
TEST(PtxWarpOps, TanhApproxAndReservedSharedMemory) {
  const std::string text =
      ".version 8.0\n.target sm_80\n.address_size 64\n"
      ".visible .entry k(.param .u64 pa, .param .u64 po)\n{\n"
      ".reg .b32 %r<12>;\n.reg .f32 %f<4>;\n.reg .b64 %rd<8>;\n.shared .align 4 .b8 s[40];\n"
      "ld.param.u64 %rd1, [pa];\nld.param.u64 %rd2, [po];\n"
      "mov.u32 %r1, %tid.x;\nmul.wide.u32 %rd3, %r1, 4;\nadd.s64 %rd4, %rd1, %rd3;\n"
      "ld.global.f32 %f1, [%rd4];\ntanh.approx.f32 %f2, %f1;\n"
      "mul.wide.u32 %rd5, %r1, 32;\nadd.s64 %rd5, %rd2, %rd5;\nst.global.f32 [%rd5], %f2;\n"
      "mov.u32 %r2, %reserved_smem_offset_begin;\nmov.u32 %r3, %reserved_smem_offset_end;\n"
      "mov.u32 %r4, %reserved_smem_offset_cap;\nmov.u32 %r5, %reserved_smem_offset_0;\n"
      "mov.u32 %r6, %reserved_smem_offset_1;\nmov.u32 %r7, %total_smem_size;\n"
      "st.shared.u32 [%r6], %r1;\nbar.sync 0;\nld.shared.u32 %r8, [%r6];\n"
      "st.global.u32 [%rd5+4], %r2;\nst.global.u32 [%rd5+8], %r3;\n"
      "st.global.u32 [%rd5+12], %r4;\nst.global.u32 [%rd5+16], %r5;\n"
      "st.global.u32 [%rd5+20], %r6;\nst.global.u32 [%rd5+24], %r7;\n"
      "st.global.u32 [%rd5+28], %r8;\nret;\n}\n";
  const Module m = parse_ptx(text, "tanh.ptx");
  ASSERT_TRUE(m.refused.empty()) << m.refused.begin()->second;
  std::vector<float> x = {0.0f, 0.5f, -1.25f, 3.0f, -20.0f, 1e-40f, -1e-3f, 0.9f};
  Launch L(m, "k", {1, 1, 1}, {8, 1, 1});
  const uint64_t A = L.buf(x), O = L.zeros(8 * 32);
  L.arg(A).arg(O);
  L.run();
  const auto out = L.get<uint32_t>(O, 8 * 8);
  for (unsigned l = 0; l < 8; ++l) {
    float got;
    std::memcpy(&got, &out[l * 8], 4);
    const double want = std::tanh(double(x[l]));
    EXPECT_LE(std::fabs(got - want), std::ldexp(std::fabs(want), -11)) << x[l];
    // the region after the 40 bytes of .shared (aligned to 16): [48, 48 + 1024)
    EXPECT_EQ(out[l * 8 + 1], 48u);
    EXPECT_EQ(out[l * 8 + 2], 48u + 1024u);
    EXPECT_EQ(out[l * 8 + 3], 1024u);
    EXPECT_EQ(out[l * 8 + 4], 48u);
    EXPECT_EQ(out[l * 8 + 5], 48u + 512u);
    EXPECT_EQ(out[l * 8 + 6], 48u + 1024u); // the CTA's shared memory includes it
    EXPECT_LT(out[l * 8 + 7], 8u);          // a thread's store there, read back
  }
  EXPECT_GT(std::fabs(float(std::tanh(1e-40))), 0.0f);
  float sub;
  std::memcpy(&sub, &out[5 * 8], 4);
  EXPECT_EQ(sub, 1e-40f); // a subnormal stays
}

// isspacep (CUDA's __isShared, __isGlobal, __isLocal, __isConstant): generic addresses of
// each space, and a global buffer, against each space.
TEST(PtxWarpOps, IsspacepNamesTheWindowOfAGenericAddress) {
  const std::string text =
      ".version 8.0\n.target sm_75\n.address_size 64\n.const .align 4 .b8 c[16];\n"
      ".visible .entry k(.param .u64 pg, .param .u64 po)\n{\n"
      ".reg .b32 %r<8>;\n.reg .b64 %rd<12>;\n.reg .pred %p<4>;\n"
      ".shared .align 4 .b8 s[16];\n.local .align 4 .b8 l[16];\n"
      "ld.param.u64 %rd1, [pg];\nld.param.u64 %rd2, [po];\ncvta.to.global.u64 %rd9, %rd2;\n"
      "mov.u64 %rd3, s;\ncvta.shared.u64 %rd3, %rd3;\nmov.u64 %rd4, l;\n"
      "cvta.local.u64 %rd4, %rd4;\nmov.u64 %rd5, c;\ncvta.const.u64 %rd5, %rd5;\n"
      "mov.u32 %r1, %tid.x;\nsetp.eq.u32 %p1, %r1, 1;\nselp.b64 %rd6, %rd3, %rd1, %p1;\n"
      "setp.eq.u32 %p1, %r1, 2;\nselp.b64 %rd6, %rd4, %rd6, %p1;\n"
      "setp.eq.u32 %p1, %r1, 3;\nselp.b64 %rd6, %rd5, %rd6, %p1;\n"
      "isspacep.global %p1, %rd6;\nselp.u32 %r2, 1, 0, %p1;\n"
      "isspacep.shared %p1, %rd6;\nselp.u32 %r3, 2, 0, %p1;\n"
      "isspacep.local %p1, %rd6;\nselp.u32 %r4, 4, 0, %p1;\n"
      "isspacep.const %p1, %rd6;\nselp.u32 %r5, 8, 0, %p1;\n"
      "add.u32 %r2, %r2, %r3;\nadd.u32 %r2, %r2, %r4;\nadd.u32 %r2, %r2, %r5;\n"
      "mul.wide.u32 %rd7, %r1, 4;\nadd.s64 %rd8, %rd9, %rd7;\nst.global.u32 [%rd8], %r2;\n"
      "ret;\n}\n";
  const Module m = parse_ptx(text, "isspacep.ptx");
  ASSERT_TRUE(m.refused.empty()) << m.refused.begin()->second;
  Launch L(m, "k", {1, 1, 1}, {4, 1, 1});
  const uint64_t G = L.zeros(64), O = L.zeros(16);
  L.arg(G).arg(O);
  L.run();
  // lane 0: a global buffer; 1: shared; 2: local; 3: a .const variable
  EXPECT_EQ(L.get<uint32_t>(O, 4), std::vector<uint32_t>({1, 2, 4, 8}));
}

TEST(PtxWarpOps, UnsupportedFormsAreRefusedNamingWhatIs) {
  EXPECT_NE(refusal("redux.sync.min.f32 %r1, %r2, -1;").find("redux.sync .add/.min/.max"),
            std::string::npos);
  EXPECT_NE(refusal("redux.sync.add.b32 %r1, %r2, -1;").find(".u32/.s32"), std::string::npos);
  EXPECT_NE(refusal("dp2a.u32.u32 %r1, %r2, %r3, %r0;").find("dp2a.{lo,hi}"), std::string::npos);
  EXPECT_NE(refusal("cp.async.ca.shared.global [%r1], [%rd1], 12;").find("4, 8 or 16"),
            std::string::npos);
  EXPECT_NE(refusal("cp.async.cg.shared.global [%r1], [%rd1], 8;").find("16 bytes"),
            std::string::npos);
  EXPECT_NE(refusal("cp.async.bulk.shared.global [%r1], [%rd1], 8;").find("wait_all are"),
            std::string::npos);
  EXPECT_EQ(refusal("cp.async.ca.shared.global [%r1], [%rd1], 4, %p1;\ncp.async.wait_all;"), "");
  EXPECT_NE(refusal("vadd4.u32.u32.u32.sat.add %r1, %r2, %r3, %r0;").find("vop2/vop4"),
            std::string::npos);
  EXPECT_NE(refusal("vmin2.u16.u32.u32 %r1, %r2, %r3, %r0;").find(".u32 or .s32"),
            std::string::npos);
  EXPECT_NE(refusal("add.sat.s16x2 %r1, %r2, %r3;").find("no .sat"), std::string::npos);
  EXPECT_NE(refusal("add.relu.s16x2 %r1, %r2, %r3;").find("min/max.s16x2"), std::string::npos);
  EXPECT_NE(refusal("tanh.approx.ftz.f32 %r1, %r2;").find("tanh.approx.{f32,f16,f16x2"),
            std::string::npos);
  EXPECT_NE(refusal("isspacep %p1, %rd1;").find("isspacep.global, .shared"), std::string::npos);
}
