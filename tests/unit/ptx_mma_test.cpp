// mma.sync, ldmatrix and movmatrix through the engine, each against a reference written here
// from the PTX ISA's text (section 9.7.14.5, "Matrix fragments for mma.m16n8k*": groupID =
// %laneid >> 2, threadID_in_group = %laneid % 4, and the row/col formulas per element), not
// from modules/frontend/ptx/mma.cpp: whole matrices are made on the host, spread into each
// lane's registers by the ISA's formulas, multiplied by the engine, and the lanes' results
// gathered back by the same formulas and compared with a host matrix product. A wrong layout
// in the engine gives wrong elements here.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <sstream>

#include "gpurf/modules/frontend/ptx/parser.h"
#include "tests/unit/ptx_test_util.h"

using namespace gpurf::ptx;

namespace {

// ---------------------------------------------------------------- a kernel around one mma
// Each fragment register is read from in[slot * 32 + lane] (8-byte slots: a, then b, then c)
// and d written to out[slot * 32 + lane].
struct Frags {
  unsigned na, nb, nc, nd, bits; // registers per lane; bits: 32 or 64 (f64)
};

std::string mma_kernel(const std::string& instr, const Frags& f) {
  std::ostringstream s;
  const char* t = f.bits == 64 ? "b64" : "b32";
  const char* r = f.bits == 64 ? "%x" : "%r";
  s << ".version 8.0\n.target sm_80\n.address_size 64\n"
    << ".visible .entry k(.param .u64 pin, .param .u64 pout)\n{\n"
    << ".reg .b32 %r<64>;\n.reg .b64 %x<64>;\n.reg .b64 %rd<8>;\n.reg .b32 %t;\n"
    << "ld.param.u64 %rd1, [pin];\nld.param.u64 %rd2, [pout];\nmov.u32 %t, %tid.x;\n"
    << "mul.wide.u32 %rd3, %t, 8;\nadd.u64 %rd4, %rd1, %rd3;\nadd.u64 %rd5, %rd2, %rd3;\n";
  unsigned slot = 0;
  auto load = [&](unsigned n, unsigned base) {
    s << "{";
    for (unsigned i = 0; i < n; ++i) {
      s << (i ? ", " : "") << r << base + i;
    }
    s << "}";
  };
  for (unsigned i = 0; i < f.na + f.nb + f.nc; ++i)
    s << "ld.global." << t << " " << r << 10 + i << ", [%rd4+" << (slot++) * 256 << "];\n";
  s << instr << " ";
  load(f.nd, 40);
  s << ", ";
  load(f.na, 10);
  s << ", ";
  load(f.nb, 10 + f.na);
  s << ", ";
  load(f.nc, 10 + f.na + f.nb);
  s << ";\n";
  for (unsigned i = 0; i < f.nd; ++i)
    s << "st.global." << t << " [%rd5+" << i * 256 << "], " << r << 40 + i << ";\n";
  s << "ret;\n}\n";
  return s.str();
}

// Runs `instr` on the slots `in` (a, b, c registers: [slot][lane]); returns d's slots.
std::vector<uint64_t> run_mma(const std::string& instr, const Frags& f,
                              const std::vector<uint64_t>& in) {
  const Module m = parse_ptx(mma_kernel(instr, f), "mma_test.ptx");
  ptxtest::Launch L(m, "k", {1, 1, 1}, {32, 1, 1});
  const uint64_t I = L.buf(in), O = L.zeros(f.nd * 32 * 8);
  L.arg(I).arg(O);
  L.run();
  return L.get<uint64_t>(O, f.nd * 32);
}

// ---------------------------------------------------------------- the ISA's layouts
struct RC {
  unsigned row, col;
};
unsigned gid(unsigned lane) { return lane >> 2; }
unsigned tig(unsigned lane) { return lane % 4; }

// A (M x K), element i of a lane; written as the ISA states each case.
RC isa_a_f16_k16(unsigned l, unsigned i) {
  const unsigned row = (i < 2 || (i >= 4 && i < 6)) ? gid(l) : gid(l) + 8;
  const unsigned col = i < 4 ? tig(l) * 2 + (i & 1) : tig(l) * 2 + (i & 1) + 8;
  return {row, col};
}
RC isa_a_f16_k8(unsigned l, unsigned i) {
  return {i < 2 ? gid(l) : gid(l) + 8, tig(l) * 2 + (i & 1)};
}
RC isa_a_tf32_k8(unsigned l, unsigned i) { // a0, a2: groupID; a1, a3: +8; a0, a1: tig; else +4
  return {(i == 0 || i == 2) ? gid(l) : gid(l) + 8, i < 2 ? tig(l) : tig(l) + 4};
}
RC isa_a_s8_k32(unsigned l, unsigned i) {
  const unsigned row = (i < 4 || (i >= 8 && i < 12)) ? gid(l) : gid(l) + 8;
  const unsigned col = i < 8 ? tig(l) * 4 + (i & 3) : tig(l) * 4 + (i & 3) + 16;
  return {row, col};
}
RC isa_a_f64(unsigned l, unsigned) { return {gid(l), tig(l)}; }
// B (K x N)
RC isa_b_f16_k16(unsigned l, unsigned i) {
  return {i < 2 ? tig(l) * 2 + (i & 1) : tig(l) * 2 + (i & 1) + 8, gid(l)};
}
RC isa_b_f16_k8(unsigned l, unsigned i) { return {tig(l) * 2 + i, gid(l)}; }
RC isa_b_tf32_k8(unsigned l, unsigned i) { return {i == 0 ? tig(l) : tig(l) + 4, gid(l)}; }
RC isa_b_s8_k32(unsigned l, unsigned i) {
  return {i < 4 ? tig(l) * 4 + (i & 3) : tig(l) * 4 + (i & 3) + 16, gid(l)};
}
RC isa_b_f64(unsigned l, unsigned) { return {tig(l), gid(l)}; }
// C, D (M x N)
RC isa_c_m16n8(unsigned l, unsigned i) {
  return {i < 2 ? gid(l) : gid(l) + 8, tig(l) * 2 + (i & 1)};
}
RC isa_c_f64(unsigned l, unsigned i) { return {gid(l), tig(l) * 2 + i}; }

using Layout = std::function<RC(unsigned, unsigned)>;

// Puts matrix X (rows x cols, element bits `eb`) into `nreg` registers per lane at `slot0`.
void scatter(std::vector<uint64_t>& slots, unsigned slot0, unsigned nreg, unsigned eb,
             const std::vector<uint64_t>& X, unsigned cols, const Layout& at) {
  const unsigned per = eb == 64 ? 1 : 32 / eb;
  for (unsigned l = 0; l < 32; ++l)
    for (unsigned i = 0; i < nreg * per; ++i) {
      const RC p = at(l, i);
      const uint64_t v = X[p.row * cols + p.col] & (eb == 64 ? ~0ull : (1ull << eb) - 1);
      slots[(slot0 + i / per) * 32 + l] |= v << ((i % per) * eb);
    }
}
std::vector<uint64_t> gather(const std::vector<uint64_t>& slots, unsigned nreg, unsigned eb,
                             unsigned rows, unsigned cols, const Layout& at) {
  std::vector<uint64_t> X(rows * cols, ~0ull);
  const unsigned per = eb == 64 ? 1 : 32 / eb;
  for (unsigned l = 0; l < 32; ++l)
    for (unsigned i = 0; i < nreg * per; ++i) {
      const RC p = at(l, i);
      X[p.row * cols + p.col] =
          (slots[(i / per) * 32 + l] >> ((i % per) * eb)) & (eb == 64 ? ~0ull : (1ull << eb) - 1);
    }
  return X;
}

uint16_t f16(float x) {
  _Float16 h = _Float16(x);
  uint16_t u;
  std::memcpy(&u, &h, 2);
  return u;
}
uint16_t bf16(float x) { // values used here are exact in bf16
  uint32_t u;
  std::memcpy(&u, &x, 4);
  return uint16_t(u >> 16);
}
uint32_t f32b(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  return u;
}
float f32v(uint64_t u) {
  float f;
  const uint32_t b = uint32_t(u);
  std::memcpy(&f, &b, 4);
  return f;
}

// A float matmul reference: D[r][c] = C + sum_k A B, summed in k order in float.
std::vector<float> ref(const std::vector<float>& A, const std::vector<float>& B,
                       const std::vector<float>& C, unsigned M, unsigned N, unsigned K) {
  std::vector<float> D(M * N);
  for (unsigned r = 0; r < M; ++r)
    for (unsigned c = 0; c < N; ++c) {
      float acc = C[r * N + c];
      for (unsigned k = 0; k < K; ++k) acc += A[r * K + k] * B[k * N + c];
      D[r * N + c] = acc;
    }
  return D;
}

// The f16/bf16 m16n8kK products: A, B from small integers / 8 (exact in both formats and
// every partial sum exact in f32), so the result does not depend on the order of the sum.
void check_half_mma(const std::string& instr, bool bf, unsigned K, bool f16_acc) {
  const unsigned M = 16, N = 8;
  std::mt19937 rng(K * 7 + bf + 2 * f16_acc);
  std::vector<float> A(M * K), B(K * N), C(M * N);
  for (float& x : A) x = float(int(rng() % 33) - 16) / 8;
  for (float& x : B) x = float(int(rng() % 33) - 16) / 8;
  for (float& x : C) x = float(int(rng() % 201) - 100) / 4;
  auto enc = [&](float x) -> uint64_t { return bf ? bf16(x) : f16(x); };
  std::vector<uint64_t> Ab(M * K), Bb(K * N), Cb(M * N);
  for (size_t i = 0; i < A.size(); ++i) Ab[i] = enc(A[i]);
  for (size_t i = 0; i < B.size(); ++i) Bb[i] = enc(B[i]);
  for (size_t i = 0; i < C.size(); ++i) Cb[i] = f16_acc ? f16(C[i]) : f32b(C[i]);
  const Frags fr{K / 4, K / 8, f16_acc ? 2u : 4u, f16_acc ? 2u : 4u, 32};
  std::vector<uint64_t> in((fr.na + fr.nb + fr.nc) * 32);
  scatter(in, 0, fr.na, 16, Ab, K, K == 16 ? Layout(isa_a_f16_k16) : Layout(isa_a_f16_k8));
  scatter(in, fr.na, fr.nb, 16, Bb, N, K == 16 ? Layout(isa_b_f16_k16) : Layout(isa_b_f16_k8));
  scatter(in, fr.na + fr.nb, fr.nc, f16_acc ? 16 : 32, Cb, N, isa_c_m16n8);
  const std::vector<uint64_t> out = run_mma(instr, fr, in);
  const std::vector<uint64_t> D = gather(out, fr.nd, f16_acc ? 16 : 32, M, N, isa_c_m16n8);
  const std::vector<float> R = ref(A, B, C, M, N, K);
  for (unsigned i = 0; i < M * N; ++i) {
    if (f16_acc)
      EXPECT_EQ(D[i], f16(R[i])) << instr << " element (" << i / N << ", " << i % N << ")";
    else
      EXPECT_EQ(f32v(D[i]), R[i]) << instr << " element (" << i / N << ", " << i % N << ")";
  }
}

} // namespace

TEST(PtxMma, F16M16n8k16IntoF32FollowsTheIsaLayouts) {
  check_half_mma("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", false, 16, false);
}
TEST(PtxMma, F16M16n8k16IntoF16FollowsTheIsaLayouts) {
  check_half_mma("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16", false, 16, true);
}
TEST(PtxMma, F16M16n8k8IntoF32AndF16) {
  check_half_mma("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32", false, 8, false);
  check_half_mma("mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16", false, 8, true);
}
TEST(PtxMma, Bf16M16n8k16AndK8IntoF32) {
  check_half_mma("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", true, 16, false);
  check_half_mma("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32", true, 8, false);
}

// An f16 accumulator: the f32 sum rounded once to nearest even (1 + 2^-11 is a tie that goes
// to 1; 1 + 3 * 2^-11 to 1 + 2^-9), and NaN and Inf as IEEE: a NaN in A makes its row of D
// the canonical NaN, Inf * 0 is NaN, Inf + finite is Inf.
TEST(PtxMma, F16AccumulatorRoundsOnceAndPropagatesNaN) {
  const unsigned M = 16, N = 8, K = 16;
  std::vector<uint64_t> Ab(M * K, f16(0)), Bb(K * N, f16(0)), Cb(M * N, f16(0));
  // Row 0: 1 + 2^-12 + 2^-12 (each product exact; f32 sum 1 + 2^-11, a tie in f16).
  Ab[0 * K + 0] = f16(1), Ab[0 * K + 1] = f16(0x1p-12f), Ab[0 * K + 2] = f16(0x1p-12f);
  // Row 1: 1 + 3 * 2^-11 (between 1 + 2^-10 and 1 + 2^-9: a tie to the even 1 + 2^-9).
  Ab[1 * K + 0] = f16(1), Ab[1 * K + 1] = f16(0x1p-11f), Ab[1 * K + 2] = f16(0x1p-10f);
  Ab[2 * K + 5] = 0x7e00; // row 2: a NaN
  Ab[3 * K + 3] = 0x7c00; // row 3: +Inf times B[3][c]
  for (unsigned c = 0; c < N; ++c) {
    Bb[0 * N + c] = Bb[1 * N + c] = Bb[2 * N + c] = f16(1);
    Bb[3 * N + c] = f16(c == 4 ? 0.0f : 1.0f); // Inf * 0 in column 4
  }
  const Frags fr{4, 2, 2, 2, 32};
  std::vector<uint64_t> in((4 + 2 + 2) * 32);
  scatter(in, 0, 4, 16, Ab, K, isa_a_f16_k16);
  scatter(in, 4, 2, 16, Bb, N, isa_b_f16_k16);
  scatter(in, 6, 2, 16, Cb, N, isa_c_m16n8);
  const auto D = gather(run_mma("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16", fr, in), 2, 16,
                        M, N, isa_c_m16n8);
  for (unsigned c = 0; c < N; ++c) {
    EXPECT_EQ(D[0 * N + c], 0x3c00u) << c;          // 1.0
    EXPECT_EQ(D[1 * N + c], f16(1 + 0x1p-9f)) << c; // 1 + 2^-9
    EXPECT_EQ(D[2 * N + c], 0x7fffu) << c;          // canonical NaN
    EXPECT_EQ(D[3 * N + c], c == 4 ? 0x7fffu : 0x7c00u) << c;
    EXPECT_EQ(D[4 * N + c], 0u) << c;
  }
}

// tf32: the low 13 bits of each 32-bit operand are ignored (0x3f801fff is 1.0 as tf32).
TEST(PtxMma, Tf32M16n8k8IgnoresTheLow13Bits) {
  const unsigned M = 16, N = 8, K = 8;
  std::mt19937 rng(5);
  std::vector<float> A(M * K), B(K * N), C(M * N);
  std::vector<uint64_t> Ab(M * K), Bb(K * N), Cb(M * N);
  for (unsigned i = 0; i < M * K; ++i) {
    A[i] = float(int(rng() % 41) - 20) / 4;
    Ab[i] = f32b(A[i]) | (rng() & 0x1fff); // noise below tf32's mantissa
  }
  for (unsigned i = 0; i < K * N; ++i) {
    B[i] = float(int(rng() % 41) - 20) / 4;
    Bb[i] = f32b(B[i]) | (rng() & 0x1fff);
  }
  for (unsigned i = 0; i < M * N; ++i) C[i] = float(i) + 0x1p-20f, Cb[i] = f32b(C[i]);
  const Frags fr{4, 2, 4, 4, 32};
  std::vector<uint64_t> in(14 * 32);
  scatter(in, 0, 4, 32, Ab, K, isa_a_tf32_k8);
  scatter(in, 4, 2, 32, Bb, N, isa_b_tf32_k8);
  scatter(in, 6, 4, 32, Cb, N, isa_c_m16n8);
  const auto D = gather(run_mma("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", fr, in), 4,
                        32, M, N, isa_c_m16n8);
  const auto R = ref(A, B, C, M, N, K);
  for (unsigned i = 0; i < M * N; ++i) EXPECT_EQ(f32v(D[i]), R[i]) << i;
}

TEST(PtxMma, F64M8n8k4IsFmaInKOrder) {
  const unsigned M = 8, N = 8, K = 4;
  std::mt19937 rng(9);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> A(M * K), B(K * N), C(M * N);
  for (double& x : A) x = u(rng);
  for (double& x : B) x = u(rng);
  for (double& x : C) x = u(rng);
  auto bits = [](const std::vector<double>& v) {
    std::vector<uint64_t> o(v.size());
    std::memcpy(o.data(), v.data(), v.size() * 8);
    return o;
  };
  const Frags fr{1, 1, 2, 2, 64};
  std::vector<uint64_t> in(4 * 32);
  scatter(in, 0, 1, 64, bits(A), K, isa_a_f64);
  scatter(in, 1, 1, 64, bits(B), N, isa_b_f64);
  scatter(in, 2, 2, 64, bits(C), N, isa_c_f64);
  const auto D = gather(run_mma("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64", fr, in), 2, 64,
                        M, N, isa_c_f64);
  for (unsigned r = 0; r < M; ++r)
    for (unsigned c = 0; c < N; ++c) {
      double acc = C[r * N + c];
      for (unsigned k = 0; k < K; ++k) acc = std::fma(A[r * K + k], B[k * N + c], acc);
      double got;
      std::memcpy(&got, &D[r * N + c], 8);
      EXPECT_EQ(got, acc) << r << "," << c;
    }
}

// s8 x u8 into s32: exact; without .satfinite a sum past INT32_MAX wraps, with it it clamps.
TEST(PtxMma, Int8M16n8k32WrapsOrSaturates) {
  const unsigned M = 16, N = 8, K = 32;
  std::mt19937 rng(11);
  std::vector<int64_t> A(M * K), B(K * N), C(M * N);
  for (auto& x : A) x = int(rng() % 256) - 128; // s8
  for (auto& x : B) x = int(rng() % 256);       // u8
  for (unsigned i = 0; i < M * N; ++i) C[i] = int(rng() % 2001) - 1000;
  C[0] = INT32_MAX - 5, C[1] = INT32_MIN + 3; // row 0 columns 0 and 1: past the range
  for (unsigned k = 0; k < K; ++k) A[k] = 127, B[k * N + 0] = 255, B[k * N + 1] = 255;
  for (unsigned k = 0; k < K; ++k) A[1 * K + k] = -128; // row 1 negative
  A[0] = 127;
  auto u = [](const std::vector<int64_t>& v) {
    std::vector<uint64_t> o(v.size());
    for (size_t i = 0; i < v.size(); ++i) o[i] = uint64_t(v[i]);
    return o;
  };
  const Frags fr{4, 2, 4, 4, 32};
  std::vector<uint64_t> in(10 * 32);
  scatter(in, 0, 4, 8, u(A), K, isa_a_s8_k32);
  scatter(in, 4, 2, 8, u(B), N, isa_b_s8_k32);
  scatter(in, 6, 4, 32, u(C), N, isa_c_m16n8);
  for (bool sat : {false, true}) {
    const std::string instr = std::string("mma.sync.aligned.m16n8k32.row.col") +
                              (sat ? ".satfinite" : "") + ".s32.s8.u8.s32";
    const auto D = gather(run_mma(instr, fr, in), 4, 32, M, N, isa_c_m16n8);
    for (unsigned r = 0; r < M; ++r)
      for (unsigned c = 0; c < N; ++c) {
        int64_t acc = C[r * N + c];
        for (unsigned k = 0; k < K; ++k) acc += A[r * K + k] * B[k * N + c];
        const int64_t want = sat ? std::min<int64_t>(std::max<int64_t>(acc, INT32_MIN), INT32_MAX)
                                 : int64_t(int32_t(uint32_t(acc)));
        EXPECT_EQ(int32_t(uint32_t(D[r * N + c])), want) << instr << " " << r << "," << c;
      }
  }
}

// ---------------------------------------------------------------- ldmatrix and movmatrix
namespace {

// 4 matrices of 8 rows x 8 b16 in shared memory, element (m, r, c) = m << 12 | r << 8 | c,
// row (m, r) at 16 * perm(8 m + r); lane l passes the address of row (l / 8, l % 8).
std::string ldmatrix_kernel(const std::string& instr, unsigned n) {
  std::ostringstream s;
  s << ".version 8.0\n.target sm_80\n.address_size 64\n"
    << ".visible .entry k(.param .u64 pin, .param .u64 pout)\n{\n"
    << ".shared .align 16 .b8 sm[512];\n"
    << ".reg .b32 %r<16>;\n.reg .b64 %rd<8>;\n"
    << "ld.param.u64 %rd1, [pin];\nld.param.u64 %rd2, [pout];\nmov.u32 %r1, %tid.x;\n"
    // each thread copies 16 bytes: shared row `tid` from in[tid]
    << "mul.wide.u32 %rd3, %r1, 16;\nadd.u64 %rd4, %rd1, %rd3;\n"
    << "ld.global.v4.b32 {%r2, %r3, %r4, %r5}, [%rd4];\n"
    << "mov.u32 %r6, sm;\nshl.b32 %r7, %r1, 4;\nadd.u32 %r8, %r6, %r7;\n"
    << "st.shared.v4.b32 [%r8], {%r2, %r3, %r4, %r5};\nbar.sync 0;\n"
    // lane l reads row (l * 5) % 32: a permutation, so each lane's own address matters
    << "mul.lo.u32 %r9, %r1, 5;\nand.b32 %r9, %r9, 31;\nshl.b32 %r9, %r9, 4;\n"
    << "add.u32 %r9, %r6, %r9;\n"
    << instr << " {";
  for (unsigned i = 0; i < n; ++i) s << (i ? ", " : "") << "%r" << 10 + i;
  s << "}, [%r9];\nmul.wide.u32 %rd5, %r1, 4;\nadd.u64 %rd6, %rd2, %rd5;\n";
  for (unsigned i = 0; i < n; ++i)
    s << "st.global.b32 [%rd6+" << i * 128 << "], %r" << 10 + i << ";\n";
  s << "ret;\n}\n";
  return s.str();
}

// The ISA: "each thread holds two elements of a row": lane l of matrix m holds row l / 4,
// elements 2 (l % 4) and 2 (l % 4) + 1; .trans: the same of the transposed matrix.
void check_ldmatrix(unsigned n, bool trans) {
  // Shared row q (q = 0..31) holds the row lane p reads where (p * 5) % 32 == q; that lane's
  // row is (matrix p / 8, row p % 8).
  std::vector<uint16_t> rows(32 * 8);
  for (unsigned p = 0; p < 32; ++p) {
    const unsigned q = (p * 5) % 32;
    for (unsigned c = 0; c < 8; ++c) rows[q * 8 + c] = uint16_t((p / 8) << 12 | (p % 8) << 8 | c);
  }
  const std::string instr = std::string("ldmatrix.sync.aligned.m8n8.x") + char('0' + n) +
                            (trans ? ".trans" : "") + ".shared.b16";
  const Module m = parse_ptx(ldmatrix_kernel(instr, n), "ldmatrix_test.ptx");
  ptxtest::Launch L(m, "k", {1, 1, 1}, {32, 1, 1});
  const uint64_t I = L.buf(rows), O = L.zeros(n * 32 * 4);
  L.arg(I).arg(O);
  L.run();
  const auto out = L.get<uint32_t>(O, n * 32);
  for (unsigned mat = 0; mat < n; ++mat)
    for (unsigned l = 0; l < 32; ++l)
      for (unsigned j = 0; j < 2; ++j) {
        unsigned r = l / 4, c = 2 * (l % 4) + j;
        if (trans) std::swap(r, c);
        const uint16_t want = uint16_t(mat << 12 | r << 8 | c);
        EXPECT_EQ(uint16_t(out[mat * 32 + l] >> (16 * j)), want)
            << instr << " matrix " << mat << " lane " << l << " half " << j;
      }
}

} // namespace

TEST(PtxLdmatrix, X1X2X4FollowTheIsaLayout) {
  for (unsigned n : {1u, 2u, 4u}) check_ldmatrix(n, false);
}
TEST(PtxLdmatrix, TransHoldsTheTranspose) {
  for (unsigned n : {1u, 2u, 4u}) check_ldmatrix(n, true);
}

TEST(PtxMovmatrix, TransposesTheFragment) {
  // Lane l holds row l / 4, elements 2 (l % 4), +1 of M, M[r][c] = r << 8 | c.
  const std::string ptx = ".version 8.0\n.target sm_80\n.address_size 64\n"
                          ".visible .entry k(.param .u64 pout)\n{\n.reg .b32 %r<8>;\n"
                          ".reg .b64 %rd<4>;\nld.param.u64 %rd1, [pout];\nmov.u32 %r1, %tid.x;\n"
                          "shr.u32 %r2, %r1, 2;\nshl.b32 %r2, %r2, 8;\nand.b32 %r3, %r1, 3;\n"
                          "shl.b32 %r3, %r3, 1;\nor.b32 %r4, %r2, %r3;\nadd.u32 %r5, %r4, 1;\n"
                          "shl.b32 %r5, %r5, 16;\nor.b32 %r4, %r4, %r5;\n"
                          "movmatrix.sync.aligned.m8n8.trans.b16 %r6, %r4;\n"
                          "mul.wide.u32 %rd2, %r1, 4;\nadd.u64 %rd3, %rd1, %rd2;\n"
                          "st.global.b32 [%rd3], %r6;\nret;\n}\n";
  const Module m = parse_ptx(ptx, "movmatrix_test.ptx");
  ptxtest::Launch L(m, "k", {1, 1, 1}, {32, 1, 1});
  const uint64_t O = L.zeros(128);
  L.arg(O);
  L.run();
  const auto out = L.get<uint32_t>(O, 32);
  for (unsigned l = 0; l < 32; ++l)
    for (unsigned j = 0; j < 2; ++j) { // T[l / 4][2 (l % 4) + j] = M[2 (l % 4) + j][l / 4]
      const unsigned r = 2 * (l % 4) + j, c = l / 4;
      EXPECT_EQ(uint16_t(out[l] >> (16 * j)), uint16_t(r << 8 | c)) << l << " " << j;
    }
}

// ---------------------------------------------------------------- refusals
TEST(PtxMma, UnsupportedFormsAndWrongOperandsAreRefusedPerKernel) {
  auto why = [](const std::string& body) {
    const std::string ptx = ".version 8.0\n.target sm_80\n.address_size 64\n"
                            ".visible .entry bad()\n{\n.reg .b32 %r<20>;\n.reg .f32 %f<8>;\n" +
                            body + "\nret;\n}\n.visible .entry good()\n{\nret;\n}\n";
    const Module m = parse_ptx(ptx, "t.ptx");
    EXPECT_NE(m.find_function("good"), nullptr);
    EXPECT_TRUE(m.find_function("good")->has_body);
    auto it = m.refused.find("bad");
    return it == m.refused.end() ? std::string() : it->second;
  };
  EXPECT_NE(why("mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {%f0,%f1,%f2,%f3,%f4,%f5,%f6,"
                "%f7}, {%r0,%r1}, {%r2,%r3}, {%f0,%f1,%f2,%f3,%f4,%f5,%f6,%f7};")
                .find("gpurf runs mma.sync.aligned.row.col"),
            std::string::npos);
  EXPECT_NE(why("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f0,%f1,%f2,%f3}, "
                "{%r0,%r1,%r2}, {%r4,%r5}, {%f0,%f1,%f2,%f3};")
                .find("a of 'mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32' must be 4 "
                      "32-bit registers"),
            std::string::npos);
  EXPECT_NE(why("ldmatrix.sync.aligned.m8n8.x2.b16 {%r0,%r1}, [%r2];").find("needs .shared"),
            std::string::npos);
  EXPECT_NE(why("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r0,%r1}, [%r2];")
                .find("must be 4 32-bit registers"),
            std::string::npos);
}

TEST(PtxMma, APartialWarpIsAnError) {
  const std::string ptx = ".version 8.0\n.target sm_80\n.address_size 64\n"
                          ".visible .entry k()\n{\n.reg .b32 %r<4>;\n"
                          "movmatrix.sync.aligned.m8n8.trans.b16 %r1, %r2;\nret;\n}\n";
  const Module m = parse_ptx(ptx, "t.ptx");
  ptxtest::Launch L(m, "k", {1, 1, 1}, {16, 1, 1});
  try {
    L.run();
    FAIL() << "a 16-thread warp ran movmatrix";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("needs all 32 threads"), std::string::npos) << e.what();
  }
}
