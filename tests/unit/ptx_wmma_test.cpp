// wmma.load / wmma.mma / wmma.store through the engine, against matrices whose products are
// worked out here by hand or on the host. The ISA leaves the fragments opaque (a program may
// rely on load, mma, store, fill and element-wise operations over every element), so these
// tests use exactly those: whatever layout the engine chose, a load with one memory layout
// and stride, an mma and a store with another must give the matrix product.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <sstream>

#include "gpurf/modules/frontend/ptx/mma.h"
#include "gpurf/modules/frontend/ptx/parser.h"
#include "tests/unit/ptx_test_util.h"

using namespace gpurf::ptx;

using ptxtest::f16;
using ptxtest::from_f16;

namespace {

uint16_t bf16(float x) { // values used here are exact in bf16
  uint32_t u;
  std::memcpy(&u, &x, 4);
  return uint16_t(u >> 16);
}

std::string regs(const char* r, unsigned first, unsigned n) {
  std::ostringstream s;
  s << "{";
  for (unsigned i = 0; i < n; ++i) s << (i ? ", " : "") << r << first + i;
  s << "}";
  return s.str();
}

// A kernel k(pa, pb, pc, pd) around `body`: %rd1..%rd4 hold the four pointers; fragments
// live in %r (b32) or %x (b64).
std::string kernel(const std::string& body) {
  return ".version 8.0\n.target sm_80\n.address_size 64\n"
         ".visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)\n{\n"
         ".reg .b32 %r<100>;\n.reg .b64 %x<16>;\n.reg .b64 %rd<8>;\n.reg .pred %p<2>;\n"
         "ld.param.u64 %rd1, [pa];\nld.param.u64 %rd2, [pb];\nld.param.u64 %rd3, [pc];\n"
         "ld.param.u64 %rd4, [pd];\n" +
         body + "ret;\n}\n";
}

// One m x n x k product: A (m x k), B (k x n) of element type `in` (".f16"...), C of `acc`,
// loaded with the layouts and strides given, D stored with its own; `extra` runs between the
// mma and the store (element-wise operations on the D registers %r40..).
struct Case {
  unsigned m = 16, n = 16, k = 16;
  std::string in = "f16", acc = "f32", dacc = "f32";
  bool arow = true, brow = false, crow = true, drow = true;
  unsigned lda = 0, ldb = 0, ldc = 0, ldd = 0; // 0: no stride operand (the default)
  std::string extra, before_mma;
  std::string mma_types() const { // wmma.mma's type suffix
    if (in == "f16") return "." + dacc + "." + acc;
    return "." + dacc + "." + in + "." + in + "." + acc;
  }
};

unsigned ebytes(const std::string& t) {
  return t == "f16" || t == "bf16" ? 2 : t == "s8" || t == "u8" ? 1 : t == "f64" ? 8 : 4;
}

// Runs the case on raw element bytes; returns D's bytes as stored.
std::vector<uint8_t> run_case(const Case& c, const std::vector<uint8_t>& A,
                              const std::vector<uint8_t>& B, const std::vector<uint8_t>& C,
                              size_t d_bytes) {
  TensorSpec s;
  s.m = uint8_t(c.m), s.n = uint8_t(c.n), s.k = uint8_t(c.k);
  auto nregs = [&](char f, const std::string& t) {
    TensorSpec x = s;
    x.wmma = f == 'd' ? 's' : 'l';
    x.frag = f;
    MmaType mt = MmaType::F16;
    for (auto [name, v] : {std::pair<const char*, MmaType>{"f16", MmaType::F16},
                           {"bf16", MmaType::BF16},
                           {"tf32", MmaType::TF32},
                           {"f32", MmaType::F32},
                           {"f64", MmaType::F64},
                           {"s8", MmaType::S8},
                           {"u8", MmaType::U8},
                           {"s32", MmaType::S32}})
      if (t == name) mt = v;
    x.type[0] = mt;
    x.ntypes = 1;
    return wmma_regs(x, f);
  };
  const char* r = c.in == "f64" ? "%x" : "%r";
  const unsigned na = nregs('a', c.in), nb = nregs('b', c.in), nc = nregs('c', c.acc),
                 nd = nregs('d', c.dacc);
  const unsigned ra = 0, rb = 10, rc = 20, rd = 40;
  const std::string shape =
      ".m" + std::to_string(c.m) + "n" + std::to_string(c.n) + "k" + std::to_string(c.k);
  auto ld = [&](unsigned l) { return l ? ", " + std::to_string(l) : std::string(); };
  std::ostringstream b;
  b << "wmma.load.a.sync.aligned" << (c.arow ? ".row" : ".col") << shape << ".global." << c.in
    << " " << regs(r, ra, na) << ", [%rd1]" << ld(c.lda) << ";\n";
  b << "wmma.load.b.sync.aligned" << (c.brow ? ".row" : ".col") << shape << ".global." << c.in
    << " " << regs(r, rb, nb) << ", [%rd2]" << ld(c.ldb) << ";\n";
  b << "wmma.load.c.sync.aligned" << (c.crow ? ".row" : ".col") << shape << ".global." << c.acc
    << " " << regs(r, rc, nc) << ", [%rd3]" << ld(c.ldc) << ";\n";
  b << c.before_mma;
  b << "wmma.mma.sync.aligned" << (c.arow ? ".row" : ".col") << (c.brow ? ".row" : ".col") << shape
    << c.mma_types() << " " << regs(r, rd, nd) << ", " << regs(r, ra, na) << ", " << regs(r, rb, nb)
    << ", " << regs(r, rc, nc) << ";\n";
  b << c.extra;
  b << "wmma.store.d.sync.aligned" << (c.drow ? ".row" : ".col") << shape << ".global." << c.dacc
    << " [%rd4], " << regs(r, rd, nd) << ld(c.ldd) << ";\n";
  const Module m = parse_ptx(kernel(b.str()), "wmma_test.ptx");
  ptxtest::Launch L(m, "k", {1, 1, 1}, {32, 1, 1});
  const uint64_t pa = L.buf(A), pb = L.buf(B), pc = L.buf(C), pd = L.zeros(d_bytes);
  L.arg(pa).arg(pb).arg(pc).arg(pd);
  L.run();
  return L.get<uint8_t>(pd, d_bytes);
}

// Element (i, j) of an rows x cols matrix stored row- or column-major with leading dimension
// ld (0: rows' or columns' length).
size_t at(bool row, unsigned rows, unsigned cols, unsigned ld, unsigned i, unsigned j) {
  if (row) return size_t(i) * (ld ? ld : cols) + j;
  return size_t(j) * (ld ? ld : rows) + i;
}
size_t extent(bool row, unsigned rows, unsigned cols, unsigned ld) {
  return row ? size_t(rows - 1) * (ld ? ld : cols) + cols
             : size_t(cols - 1) * (ld ? ld : rows) + rows;
}

template <class T> void put(std::vector<uint8_t>& buf, size_t idx, T v) {
  std::memcpy(buf.data() + idx * sizeof(T), &v, sizeof(T));
}
template <class T> T get(const std::vector<uint8_t>& buf, size_t idx) {
  T v;
  std::memcpy(&v, buf.data() + idx * sizeof(T), sizeof(T));
  return v;
}

// A, B, C as floats (exact in their types), the f16/f32 case run, D as floats.
std::vector<float> run_float(const Case& c, const std::vector<float>& A,
                             const std::vector<float>& B, const std::vector<float>& C) {
  const bool half_in = c.in == "f16" || c.in == "bf16";
  const unsigned ie = ebytes(c.in), ce = ebytes(c.acc), de = ebytes(c.dacc);
  std::vector<uint8_t> a(extent(c.arow, c.m, c.k, c.lda) * ie),
      b(extent(c.brow, c.k, c.n, c.ldb) * ie), cc(extent(c.crow, c.m, c.n, c.ldc) * ce);
  auto enc_in = [&](std::vector<uint8_t>& buf, size_t idx, float v) {
    if (half_in)
      put<uint16_t>(buf, idx, c.in == "f16" ? f16(v) : bf16(v));
    else
      put<float>(buf, idx, v); // tf32: f32 bits
  };
  for (unsigned i = 0; i < c.m; ++i)
    for (unsigned k = 0; k < c.k; ++k) enc_in(a, at(c.arow, c.m, c.k, c.lda, i, k), A[i * c.k + k]);
  for (unsigned k = 0; k < c.k; ++k)
    for (unsigned j = 0; j < c.n; ++j) enc_in(b, at(c.brow, c.k, c.n, c.ldb, k, j), B[k * c.n + j]);
  for (unsigned i = 0; i < c.m; ++i)
    for (unsigned j = 0; j < c.n; ++j) {
      const size_t idx = at(c.crow, c.m, c.n, c.ldc, i, j);
      if (c.acc == "f16")
        put<uint16_t>(cc, idx, f16(C[i * c.n + j]));
      else
        put<float>(cc, idx, C[i * c.n + j]);
    }
  const std::vector<uint8_t> d = run_case(c, a, b, cc, extent(c.drow, c.m, c.n, c.ldd) * de);
  std::vector<float> D(c.m * c.n);
  for (unsigned i = 0; i < c.m; ++i)
    for (unsigned j = 0; j < c.n; ++j) {
      const size_t idx = at(c.drow, c.m, c.n, c.ldd, i, j);
      D[i * c.n + j] = c.dacc == "f16" ? from_f16(get<uint16_t>(d, idx)) : get<float>(d, idx);
    }
  return D;
}

} // namespace

// A = I: D = B + C exactly, B[k][j] = 16 k + j (hand-worked: D[i][j] = 16 i + j + 0.5). Every
// combination of memory layouts and padded strides for A, B, C and D.
TEST(PtxWmma, IdentityTimesBPlusCInEveryLayoutAndStride) {
  std::vector<float> A(256, 0.f), B(256), C(256, 0.5f);
  for (unsigned i = 0; i < 16; ++i) A[i * 16 + i] = 1.f;
  for (unsigned k = 0; k < 16; ++k)
    for (unsigned j = 0; j < 16; ++j) B[k * 16 + j] = float(16 * k + j);
  for (unsigned mask = 0; mask < 16; ++mask) {
    Case c;
    c.arow = mask & 1, c.brow = mask & 2, c.crow = mask & 4, c.drow = mask & 8;
    if (mask & 1) c.lda = 24; // padded rows (48 B: 16-B aligned, as the ISA's alignment asks)
    if (mask & 2) c.ldb = 40;
    if (mask & 4) c.ldc = 20;
    if (!(mask & 8)) c.ldd = 32;
    const std::vector<float> D = run_float(c, A, B, C);
    for (unsigned i = 0; i < 16; ++i)
      for (unsigned j = 0; j < 16; ++j)
        ASSERT_EQ(D[i * 16 + j], float(16 * i + j) + 0.5f)
            << "layouts " << mask << ": D[" << i << "][" << j << "]";
  }
}

// B = I: D = A + C; A[i][k] = k - i (hand-worked D[i][j] = j - i - 1 with C = -1).
TEST(PtxWmma, ATimesIdentityPlusC) {
  std::vector<float> A(256), B(256, 0.f), C(256, -1.f);
  for (unsigned i = 0; i < 16; ++i)
    for (unsigned k = 0; k < 16; ++k) A[i * 16 + k] = float(int(k) - int(i));
  for (unsigned k = 0; k < 16; ++k) B[k * 16 + k] = 1.f;
  Case c;
  c.arow = false, c.brow = true;
  const std::vector<float> D = run_float(c, A, B, C);
  for (unsigned i = 0; i < 16; ++i)
    for (unsigned j = 0; j < 16; ++j)
      ASSERT_EQ(D[i * 16 + j], float(int(j) - int(i) - 1)) << "D[" << i << "][" << j << "]";
}

// f16 accumulators: the sum is formed in f32 and rounded once to f16 (nearest, ties to even).
// Row i of A is all ones over k < i + 1... hand-worked with C = 2048 (f16's spacing there is 2):
//   row 0: products 16 x 0.5 = 8   -> 2056 (exact; rounding each addition in f16 would give
//          2048: 2048.5 rounds to 2048 every time)
//   row 1: 1 x 1.5               -> 2049.5 -> 2050 (nearest)
//   row 2: 1 x 1                 -> 2049   -> 2048 (a tie: the even one)
//   row 3: 1 x 3                 -> 2051   -> 2052 (a tie: the even one)
TEST(PtxWmma, F16AccumulatorsRoundOnceToNearestEven) {
  std::vector<float> A(256, 0.f), B(256, 0.f), C(256, 2048.f);
  for (unsigned k = 0; k < 16; ++k) A[0 * 16 + k] = 0.5f;
  A[1 * 16 + 0] = 1.5f, A[2 * 16 + 0] = 1.f, A[3 * 16 + 0] = 3.f;
  for (unsigned k = 0; k < 16; ++k)
    for (unsigned j = 0; j < 16; ++j) B[k * 16 + j] = 1.f;
  Case c;
  c.acc = c.dacc = "f16";
  c.crow = false;
  const std::vector<float> D = run_float(c, A, B, C);
  const float want[4] = {2056.f, 2050.f, 2048.f, 2052.f};
  for (unsigned i = 0; i < 16; ++i)
    for (unsigned j = 0; j < 16; ++j)
      ASSERT_EQ(D[i * 16 + j], i < 4 ? want[i] : 2048.f) << "D[" << i << "][" << j << "]";
}

// f32 accumulators hold what f16 cannot: 16 products of 100 x 100 = 160000 (f16's largest
// finite value is 65504), and C = 0.25 survives beside 2^20 (f16 would drop it).
TEST(PtxWmma, F32AccumulationBeyondF16Range) {
  std::vector<float> A(256, 100.f), B(256, 100.f), C(256, 0.25f);
  Case c;
  c.acc = "f16";
  c.dacc = "f32";
  std::vector<float> D = run_float(c, A, B, C);
  for (float v : D) ASSERT_EQ(v, 160000.25f);
  std::vector<float> A2(256, 0.f), B2(256, 0.f), C2(256, 0.25f);
  for (unsigned i = 0; i < 16; ++i) A2[i * 16] = 1024.f; // 1024 x 1024 = 2^20
  for (unsigned j = 0; j < 16; ++j) B2[j] = 1024.f;
  c.acc = "f32";
  D = run_float(c, A2, B2, C2);
  for (unsigned i = 0; i < 256; ++i) ASSERT_EQ(D[i], 1048576.25f) << i;
}

// The element-wise operations a program may apply (every element of a fragment): a scale of
// every f16 A register (mul.f16x2 by 2, copies included) and of every f32 D register (by
// 0.5), and fill_fragment's mov of 0 into C, give D = (2A) B / 2 = A B.
TEST(PtxWmma, ElementWiseScaleAndFillOverEveryRegister) {
  std::vector<float> A(256), B(256), C(256, 99.f); // C is replaced by the fill
  std::mt19937 rng(5);
  for (float& x : A) x = float(int(rng() % 17) - 8) / 4;
  for (float& x : B) x = float(int(rng() % 17) - 8) / 4;
  Case c;
  std::ostringstream before, after;
  for (unsigned i = 0; i < 8; ++i)
    before << "mul.f16x2 %r" << i << ", %r" << i << ", 0x40004000;\n";
  for (unsigned i = 0; i < 8; ++i) before << "mov.b32 %r" << 20 + i << ", 0;\n";
  for (unsigned i = 0; i < 8; ++i)
    after << "mul.f32 %r" << 40 + i << ", %r" << 40 + i << ", 0f3F000000;\n";
  c.before_mma = before.str();
  c.extra = after.str();
  const std::vector<float> D = run_float(c, A, B, C);
  for (unsigned i = 0; i < 16; ++i)
    for (unsigned j = 0; j < 16; ++j) {
      float want = 0;
      for (unsigned k = 0; k < 16; ++k) want += A[i * 16 + k] * B[k * 16 + j];
      ASSERT_EQ(D[i * 16 + j], want) << "D[" << i << "][" << j << "]";
    }
}

// Every shape and input type nvcc's mma.h emits, on random small integers (every sum exact, so
// the order of the sum does not matter), both layouts of A and B, against a host product.
TEST(PtxWmma, EveryShapeAndTypeAgainstAHostProduct) {
  struct Form {
    unsigned m, n, k;
    const char *in, *acc;
  };
  const Form forms[] = {
      {16, 16, 16, "f16", "f32"}, {32, 8, 16, "f16", "f32"},  {8, 32, 16, "f16", "f32"},
      {32, 8, 16, "f16", "f16"},  {8, 32, 16, "f16", "f16"},  {16, 16, 16, "bf16", "f32"},
      {32, 8, 16, "bf16", "f32"}, {8, 32, 16, "bf16", "f32"}, {16, 16, 8, "tf32", "f32"}};
  std::mt19937 rng(11);
  for (const Form& f : forms)
    for (unsigned lay = 0; lay < 4; ++lay) {
      Case c;
      c.m = f.m, c.n = f.n, c.k = f.k;
      c.in = f.in, c.acc = c.dacc = f.acc;
      c.arow = lay & 1, c.brow = lay & 2, c.crow = lay & 1, c.drow = !(lay & 2);
      std::vector<float> A(f.m * f.k), B(f.k * f.n), C(f.m * f.n);
      for (float& x : A) x = float(int(rng() % 9) - 4);
      for (float& x : B) x = float(int(rng() % 9) - 4);
      for (float& x : C) x = float(int(rng() % 21) - 10);
      const std::vector<float> D = run_float(c, A, B, C);
      for (unsigned i = 0; i < f.m; ++i)
        for (unsigned j = 0; j < f.n; ++j) {
          float want = C[i * f.n + j];
          for (unsigned k = 0; k < f.k; ++k) want += A[i * f.k + k] * B[k * f.n + j];
          ASSERT_EQ(D[i * f.n + j], want) << "m" << f.m << "n" << f.n << "k" << f.k << " " << f.in
                                          << " layouts " << lay << ": D[" << i << "][" << j << "]";
        }
    }
}

// s8 x u8 into s32 (every shape), with .satfinite clamping: A = 127 or -128, B = 255, C near
// the limits (hand-worked: 16 x 127 x 255 = 518160 on C = 2^31 - 1000 clamps to 2^31 - 1; 16 x
// -128 x 255 = -522240 on -2^31 + 5 clamps to -2^31; without .satfinite it wraps).
TEST(PtxWmma, Int8IntoS32WrapsOrSaturates) {
  const unsigned shapes[3][3] = {{16, 16, 16}, {32, 8, 16}, {8, 32, 16}};
  for (const auto& sh : shapes)
    for (int sat = 0; sat < 2; ++sat) {
      const unsigned M = sh[0], N = sh[1], K = sh[2];
      Case c;
      c.m = M, c.n = N, c.k = K, c.in = "s8", c.acc = c.dacc = "s32";
      c.brow = true;
      std::vector<uint8_t> a(M * K), b(K * N, 255), cc(M * N * 4);
      std::vector<int64_t> want(M * N);
      for (unsigned i = 0; i < M; ++i)
        for (unsigned j = 0; j < N; ++j) {
          const bool hi = (i + j) % 2 == 0;
          put<int32_t>(cc, i * N + j, hi ? INT32_MAX - 1000 : INT32_MIN + 5);
        }
      for (unsigned i = 0; i < M; ++i)
        for (unsigned k = 0; k < K; ++k) a[i * K + k] = (i % 2 == 0) ? 127 : uint8_t(-128);
      for (unsigned i = 0; i < M; ++i)
        for (unsigned j = 0; j < N; ++j) {
          const int64_t cv = (i + j) % 2 == 0 ? INT32_MAX - 1000 : int64_t(INT32_MIN) + 5;
          int64_t s = cv + int64_t(K) * (i % 2 == 0 ? 127 : -128) * 255;
          want[i * N + j] = sat ? std::min<int64_t>(std::max<int64_t>(s, INT32_MIN), INT32_MAX)
                                : int64_t(int32_t(uint32_t(s)));
        }
      // A s8, B u8: the loads say so, the mma says .s32.s8.u8.s32.
      const std::string shape = ".m" + std::to_string(M) + "n" + std::to_string(N) + "k16";
      TensorSpec s;
      s.m = uint8_t(M), s.n = uint8_t(N), s.k = 16, s.wmma = 'l', s.ntypes = 1;
      s.frag = 'a', s.type[0] = MmaType::S8;
      const unsigned na = wmma_regs(s, 'a');
      s.frag = 'b', s.type[0] = MmaType::U8;
      const unsigned nb = wmma_regs(s, 'b');
      std::ostringstream body;
      body << "wmma.load.a.sync.aligned.row" << shape << ".global.s8 " << regs("%r", 0, na)
           << ", [%rd1];\n"
           << "wmma.load.b.sync.aligned.row" << shape << ".global.u8 " << regs("%r", 10, nb)
           << ", [%rd2];\n"
           << "wmma.load.c.sync.aligned.row" << shape << ".global.s32 " << regs("%r", 20, 8)
           << ", [%rd3];\n"
           << "wmma.mma.sync.aligned.row.row" << shape << ".s32.s8.u8.s32"
           << (sat ? ".satfinite " : " ") << regs("%r", 40, 8) << ", " << regs("%r", 0, na) << ", "
           << regs("%r", 10, nb) << ", " << regs("%r", 20, 8) << ";\n"
           << "wmma.store.d.sync.aligned.col" << shape << ".global.s32 [%rd4], "
           << regs("%r", 40, 8) << ";\n";
      const Module m = parse_ptx(kernel(body.str()), "wmma_int.ptx");
      ptxtest::Launch L(m, "k", {1, 1, 1}, {32, 1, 1});
      const uint64_t pa = L.buf(a), pb = L.buf(b), pc = L.buf(cc), pd = L.zeros(M * N * 4);
      L.arg(pa).arg(pb).arg(pc).arg(pd);
      L.run();
      const std::vector<int32_t> d = L.get<int32_t>(pd, M * N);
      for (unsigned i = 0; i < M; ++i)
        for (unsigned j = 0; j < N; ++j)
          ASSERT_EQ(d[j * M + i], want[i * N + j])
              << shape << " sat " << sat << " D[" << i << "][" << j << "]";
    }
}

// m8n8k4 .f64 (sm_80's DMMA): a fused multiply-add chain in k order. The mma as nvcc writes
// it for nvcuda::wmma's double fragments, its rounding last (.rn: refused before, so every
// double-precision wmma kernel was; program fft_lbm).
TEST(PtxWmma, F64M8n8k4) {
  std::vector<uint8_t> a(8 * 4 * 8), b(4 * 8 * 8), cc(64 * 8);
  std::vector<double> A(32), B(32), C(64);
  for (unsigned i = 0; i < 32; ++i) A[i] = 1.0 + i / 8.0, B[i] = 0.5 - i / 16.0;
  for (unsigned i = 0; i < 64; ++i) C[i] = i * 0.25;
  for (unsigned i = 0; i < 32; ++i)
    put<double>(a, i, A[i]), put<double>(b, (i % 8) * 4 + i / 8, B[i]);
  for (unsigned i = 0; i < 64; ++i) put<double>(cc, i, C[i]);
  const std::string body =
      "wmma.load.a.sync.aligned.row.m8n8k4.global.f64 {%x0}, [%rd1];\n"
      "wmma.load.b.sync.aligned.col.m8n8k4.global.f64 {%x1}, [%rd2];\n"
      "wmma.load.c.sync.aligned.row.m8n8k4.global.f64 {%x2, %x3}, [%rd3];\n"
      "wmma.mma.sync.aligned.row.col.m8n8k4.f64.f64.f64.f64.rn {%x4, %x5}, {%x0}, {%x1}, {%x2, "
      "%x3};\n"
      "wmma.store.d.sync.aligned.row.m8n8k4.global.f64 [%rd4], {%x4, %x5};\n";
  const Module m = parse_ptx(kernel(body), "wmma_f64.ptx");
  ASSERT_TRUE(m.refused.empty()) << m.refused.begin()->second;
  ptxtest::Launch L(m, "k", {1, 1, 1}, {32, 1, 1});
  const uint64_t pa = L.buf(a), pb = L.buf(b), pc = L.buf(cc), pd = L.zeros(64 * 8);
  L.arg(pa).arg(pb).arg(pc).arg(pd);
  L.run();
  const std::vector<double> d = L.get<double>(pd, 64);
  for (unsigned i = 0; i < 8; ++i)
    for (unsigned j = 0; j < 8; ++j) {
      double acc = C[i * 8 + j];
      for (unsigned k = 0; k < 4; ++k) acc = std::fma(A[i * 4 + k], B[k * 8 + j], acc);
      ASSERT_EQ(d[i * 8 + j], acc) << i << "," << j;
    }
}

// What gpurf does not run is refused per kernel, naming the forms it runs; wrong operands are
// refused with the count the form needs.
TEST(PtxWmma, UnsupportedFormsAndWrongOperandsAreRefusedPerKernel) {
  auto refusal = [](const std::string& body) {
    const Module m = parse_ptx(kernel(body), "bad.ptx");
    auto it = m.refused.find("k");
    return it == m.refused.end() ? std::string() : it->second;
  };
  EXPECT_NE(refusal("wmma.load.a.sync.aligned.row.m8n8k32.global.s4 {%r0}, [%rd1];\n")
                .find("gpurf runs wmma.load"),
            std::string::npos);
  EXPECT_NE(refusal("wmma.load.a.row.m16n16k16.global.f16 {%r0, %r1, %r2, %r3, %r4, %r5, %r6, "
                    "%r7}, [%rd1];\n")
                .find(".sync.aligned"),
            std::string::npos);
  EXPECT_NE(refusal("wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r0, %r1}, [%rd1];\n")
                .find("must be 8 32-bit registers"),
            std::string::npos);
  EXPECT_NE(refusal("wmma.mma.sync.aligned.row.col.m16n16k16.f32.bf16.bf16.f16 {%r0}, {%r1}, "
                    "{%r2}, {%r3};\n")
                .find("gpurf runs wmma"),
            std::string::npos);
  EXPECT_NE(refusal("wmma.mma.sync.aligned.row.col.m8n8k4.f64.f64.f64.f64.rz {%x0, %x1}, "
                    "{%x2}, {%x3}, {%x4, %x5};\n")
                .find(".f64.f64.f64.f64[.rn]"),
            std::string::npos);
  EXPECT_EQ(refusal("wmma.load.c.sync.aligned.col.m16n16k16.shared.f32 {%r0, %r1, %r2, %r3, "
                    "%r4, %r5, %r6, %r7}, [%rd1], %r9;\n"),
            "");
}

// A partial warp is an error naming the lanes (.sync.aligned).
TEST(PtxWmma, APartialWarpIsAnError) {
  const std::string body =
      "mov.u32 %r90, %tid.x;\nsetp.lt.u32 %p1, %r90, 16;\n"
      "@%p1 wmma.load.c.sync.aligned.row.m16n16k16.global.f32 {%r0, %r1, %r2, %r3, %r4, %r5, "
      "%r6, %r7}, [%rd3];\n";
  const Module m = parse_ptx(kernel(body), "partial.ptx");
  ptxtest::Launch L(m, "k", {1, 1, 1}, {32, 1, 1});
  const uint64_t p = L.zeros(1024);
  L.arg(p).arg(p).arg(p).arg(p);
  try {
    L.run();
    FAIL() << "a half warp ran wmma.load";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("needs all 32 threads"), std::string::npos) << e.what();
  }
}
