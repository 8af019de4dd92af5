#include "gpurf/modules/frontend/ptx/mma.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "gpurf/modules/frontend/ptx/half.h"

namespace gpurf::ptx {

const char* mma_type_name(MmaType t) {
  static const char* const n[] = {"none", "f16", "bf16", "tf32", "f32",
                                  "f64",  "s8",  "u8",   "s32",  "b16"};
  return n[unsigned(t)];
}

namespace {

bool type_from(const std::string& m, MmaType& t) {
  static const std::pair<const char*, MmaType> tab[] = {
      {"f16", MmaType::F16}, {"bf16", MmaType::BF16}, {"tf32", MmaType::TF32},
      {"f32", MmaType::F32}, {"f64", MmaType::F64},   {"s8", MmaType::S8},
      {"u8", MmaType::U8},   {"s32", MmaType::S32},   {"b16", MmaType::B16}};
  for (const auto& [name, v] : tab)
    if (m == name) {
      t = v;
      return true;
    }
  return false;
}

unsigned elem_bits(MmaType t) {
  switch (t) {
  case MmaType::S8:
  case MmaType::U8:
    return 8;
  case MmaType::F16:
  case MmaType::BF16:
  case MmaType::B16:
    return 16;
  case MmaType::F64:
    return 64;
  default:
    return 32;
  }
}

bool is_int8(MmaType t) { return t == MmaType::S8 || t == MmaType::U8; }

// The fragment element `i` of a lane, as (row, col) of its matrix (PTX ISA, "Matrix fragments
// for mma.mMnNkK"). g = %laneid >> 2 (groupID), t = %laneid % 4 (threadID_in_group).
struct Coord {
  unsigned row, col;
};

Coord a_coord(const TensorSpec& s, unsigned lane, unsigned i) {
  const unsigned g = lane >> 2, t = lane & 3;
  switch (s.a()) {
  case MmaType::F16:
  case MmaType::BF16:
    if (s.k == 16) return {g + 8 * ((i >> 1) & 1), 2 * t + (i & 1) + 8 * (i >> 2)};
    return {g + 8 * (i >> 1), 2 * t + (i & 1)}; // k8
  case MmaType::TF32:
    if (s.k == 8) return {g + 8 * (i & 1), t + 4 * (i >> 1)};
    return {g + 8 * i, t}; // k4
  case MmaType::F64:
    return {g, t};
  default: // s8/u8
    if (s.k == 32) return {g + 8 * ((i >> 2) & 1), 4 * t + (i & 3) + 16 * (i >> 3)};
    return {g + 8 * (i >> 2), 4 * t + (i & 3)}; // k16
  }
}

Coord b_coord(const TensorSpec& s, unsigned lane, unsigned i) { // (k, n)
  const unsigned g = lane >> 2, t = lane & 3;
  switch (s.b()) {
  case MmaType::F16:
  case MmaType::BF16:
    if (s.k == 16) return {2 * t + (i & 1) + 8 * (i >> 1), g};
    return {2 * t + i, g};
  case MmaType::TF32:
    if (s.k == 8) return {t + 4 * i, g};
    return {t, g};
  case MmaType::F64:
    return {t, g};
  default:
    if (s.k == 32) return {4 * t + (i & 3) + 16 * (i >> 2), g};
    return {4 * t + i, g};
  }
}

Coord c_coord(const TensorSpec& s, unsigned lane, unsigned i) {
  const unsigned g = lane >> 2, t = lane & 3;
  if (s.m == 8) return {g, 2 * t + i}; // m8n8k4 f64
  return {g + 8 * (i >> 1), 2 * t + (i & 1)};
}

// Element `i` of a lane's fragment, as bits, from its registers (elements packed low first).
uint64_t elem(const Fragment& f, unsigned bits, unsigned lane, unsigned i) {
  if (bits == 64) return f[i][lane];
  const unsigned per = 32 / bits;
  return (f[i / per][lane] >> ((i % per) * bits)) & ((uint64_t(1) << bits) - 1);
}

double as_double(MmaType t, uint64_t v) {
  switch (t) {
  case MmaType::F16:
    return half::to_double(uint16_t(v), half::kF16);
  case MmaType::BF16:
    return half::to_double(uint16_t(v), half::kBF16);
  case MmaType::TF32:
    v &= ~uint64_t(0x1fff); // the 13 bits below tf32's 10-bit mantissa are ignored
    [[fallthrough]];
  case MmaType::F32: {
    float f;
    const uint32_t u = uint32_t(v);
    std::memcpy(&f, &u, 4);
    return f;
  }
  case MmaType::F64: {
    double d;
    std::memcpy(&d, &v, 8);
    return d;
  }
  default:
    return 0;
  }
}

int64_t as_int(MmaType t, uint64_t v) {
  switch (t) {
  case MmaType::S8:
    return int8_t(uint8_t(v));
  case MmaType::U8:
    return uint8_t(v);
  default: // s32
    return int32_t(uint32_t(v));
  }
}

uint64_t f32_result(float f) {
  if (std::isnan(f)) return 0x7fffffffu;
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

} // namespace

bool tensor_modifier(TensorKind kind, TensorSpec& s, const std::string& m) {
  if (m == "sync") return s.sync = true;
  if (m == "aligned") return s.aligned = true;
  if (kind == TensorKind::Wmma) {
    if (!s.wmma) { // the first modifier says which wmma it is
      if (m != "load" && m != "store" && m != "mma") return false;
      s.wmma = m[0] == 'l' ? 'l' : m[0] == 's' ? 's' : 'm';
      return true;
    }
    if (s.wmma != 'm' && !s.frag && m.size() == 1 && m[0] >= 'a' && m[0] <= 'd') {
      s.frag = m[0];
      return true;
    }
    if ((m == "row" || m == "col") && s.nlayouts < 2) {
      s.row[s.nlayouts++] = m == "row";
      return true;
    }
    if (m == "satfinite" && s.wmma == 'm') return s.satfinite = true;
    // .f64's rounding (nvcc writes .rn, after the types): the fma chain below rounds to nearest;
    // .rz/.rm/.rp are refused with the forms gpurf runs.
    if (m == "rn" && s.wmma == 'm') return true;
  }
  unsigned mm, nn, kk = 0;
  char tail;
  if (std::sscanf(m.c_str(), "m%un%uk%u%c", &mm, &nn, &kk, &tail) == 3 ||
      (kind != TensorKind::Mma && std::sscanf(m.c_str(), "m%un%u%c", &mm, &nn, &tail) == 2)) {
    if (s.m || mm > 64 || nn > 64 || kk > 64) return false;
    s.m = uint8_t(mm), s.n = uint8_t(nn), s.k = uint8_t(kk);
    return true;
  }
  MmaType t;
  if (type_from(m, t)) {
    if (s.ntypes == 4) return false;
    s.type[s.ntypes++] = t;
    return true;
  }
  if (kind == TensorKind::Wmma) return false;
  if (kind == TensorKind::Mma) {
    if ((m == "row" || m == "col") && s.nlayouts < 2) {
      s.row[s.nlayouts++] = m == "row";
      return true;
    }
    if (m == "satfinite") return s.satfinite = true;
    return false;
  }
  if (m == "trans") return s.trans = true;
  if (kind == TensorKind::Ldmatrix && (m == "x1" || m == "x2" || m == "x4") && !s.num) {
    s.num = uint8_t(m[1] - '0');
    return true;
  }
  return false;
}

namespace {
std::string wmma_check(const TensorSpec& s);
}

void tensor_normalize(TensorKind kind, TensorSpec& s) {
  // wmma.mma with .f16 inputs writes only .dtype.ctype: the inputs are .f16.
  if (kind == TensorKind::Wmma && s.wmma == 'm' && s.ntypes == 2)
    s.type = {s.type[0], MmaType::F16, MmaType::F16, s.type[1]}, s.ntypes = 4;
}

std::string tensor_check(TensorKind kind, const TensorSpec& s) {
  if (!s.sync || !s.aligned) return "needs .sync.aligned";
  if (kind == TensorKind::Wmma) return wmma_check(s);
  if (kind != TensorKind::Mma) {
    const bool ok = s.m == 8 && s.n == 8 && s.ntypes == 1 && s.type[0] == MmaType::B16 &&
                    (kind == TensorKind::Ldmatrix ? s.num != 0 : s.trans);
    if (!ok)
      return kind == TensorKind::Ldmatrix
                 ? "gpurf runs ldmatrix.sync.aligned.m8n8.{x1,x2,x4}[.trans].shared.b16"
                 : "gpurf runs movmatrix.sync.aligned.m8n8.trans.b16";
    return "";
  }
  const char* const runs =
      "gpurf runs mma.sync.aligned.row.col with m16n8k8/m16n8k16 .f16 or .bf16 inputs "
      "(.f32 accumulators; .f16 ones for .f16 inputs), m16n8k4/m16n8k8 .tf32 (.f32), m8n8k4 "
      ".f64, m16n8k16/m16n8k32 .s8/.u8 into .s32 (optionally .satfinite)";
  if (s.ntypes != 4 || s.nlayouts != 2 || !s.row[0] || s.row[1]) return runs;
  const MmaType d = s.d(), a = s.a(), b = s.b(), c = s.c();
  bool ok = false;
  if (a == MmaType::F16 && b == a)
    ok = s.m == 16 && s.n == 8 && (s.k == 8 || s.k == 16) &&
         (d == MmaType::F16 || d == MmaType::F32) && (c == MmaType::F16 || c == MmaType::F32);
  else if (a == MmaType::BF16 && b == a)
    ok = s.m == 16 && s.n == 8 && (s.k == 8 || s.k == 16) && d == MmaType::F32 && c == MmaType::F32;
  else if (a == MmaType::TF32 && b == a)
    ok = s.m == 16 && s.n == 8 && (s.k == 4 || s.k == 8) && d == MmaType::F32 && c == MmaType::F32;
  else if (a == MmaType::F64 && b == a)
    ok = s.m == 8 && s.n == 8 && s.k == 4 && d == MmaType::F64 && c == MmaType::F64;
  else if (is_int8(a) && is_int8(b))
    ok =
        s.m == 16 && s.n == 8 && (s.k == 16 || s.k == 32) && d == MmaType::S32 && c == MmaType::S32;
  if (!ok) return runs;
  if (s.satfinite && !is_int8(a)) return ".satfinite applies to integer mma only";
  return "";
}

unsigned mma_reg_bits(const TensorSpec& s, char) { return s.a() == MmaType::F64 ? 64 : 32; }

unsigned mma_regs(const TensorSpec& s, char frag) {
  const unsigned elems = frag == 'a'   ? unsigned(s.m) * s.k
                         : frag == 'b' ? unsigned(s.k) * s.n
                                       : unsigned(s.m) * s.n;
  const MmaType t = frag == 'a' ? s.a() : frag == 'b' ? s.b() : frag == 'c' ? s.c() : s.d();
  const unsigned per_lane = elems / 32;
  const unsigned bits = elem_bits(t);
  return bits == 64 ? per_lane : per_lane * bits / 32;
}

void mma_execute(const TensorSpec& s, const Fragment& a, const Fragment& b, const Fragment& c,
                 Fragment& d) {
  const unsigned M = s.m, N = s.n, K = s.k;
  const unsigned ab = elem_bits(s.a()), bb = elem_bits(s.b());
  const unsigned cb = elem_bits(s.c()), db = elem_bits(s.d());
  const unsigned na = M * K / 32, nb = K * N / 32, nc = M * N / 32;
  const bool integer = is_int8(s.a());
  // Whole matrices from the fragments.
  std::vector<double> A(M * K), B(K * N), C(M * N);
  std::vector<int64_t> Ai, Bi, Ci;
  if (integer) Ai.resize(M * K), Bi.resize(K * N), Ci.resize(M * N);
  // One operand's fragment elements into its matrix (`cols` wide): integers or doubles.
  auto place = [&](const Fragment& f, unsigned n, unsigned bits, MmaType t, unsigned cols,
                   Coord (*coord)(const TensorSpec&, unsigned, unsigned), std::vector<double>& x,
                   std::vector<int64_t>& xi) {
    for (unsigned l = 0; l < 32; ++l)
      for (unsigned i = 0; i < n; ++i) {
        const Coord p = coord(s, l, i);
        const uint64_t v = elem(f, bits, l, i);
        if (integer)
          xi[p.row * cols + p.col] = as_int(t, v);
        else
          x[p.row * cols + p.col] = as_double(t, v);
      }
  };
  place(a, na, ab, s.a(), K, a_coord, A, Ai);
  place(b, nb, bb, s.b(), N, b_coord, B, Bi);
  place(c, nc, cb, s.c(), N, c_coord, C, Ci);
  // D, as bits of its type, by (row, col).
  std::vector<uint64_t> D(M * N);
  for (unsigned r = 0; r < M; ++r)
    for (unsigned col = 0; col < N; ++col) {
      uint64_t& out = D[r * N + col];
      if (integer) {
        int64_t acc = Ci[r * N + col];
        for (unsigned k = 0; k < K; ++k) acc += Ai[r * K + k] * Bi[k * N + col];
        if (s.satfinite) acc = std::min<int64_t>(std::max<int64_t>(acc, INT32_MIN), INT32_MAX);
        out = uint32_t(acc);
      } else if (s.d() == MmaType::F64) {
        double acc = C[r * N + col];
        for (unsigned k = 0; k < K; ++k) acc = std::fma(A[r * K + k], B[k * N + col], acc);
        std::memcpy(&out, &acc, 8);
      } else {
        float acc = float(C[r * N + col]); // exact: an f16 or f32 value
        for (unsigned k = 0; k < K; ++k) acc += float(A[r * K + k] * B[k * N + col]); // exact
        out = s.d() == MmaType::F16 ? half::round(double(acc), half::kF16, half::Mode::RN)
                                    : f32_result(acc);
      }
    }
  // ... back into D's fragment.
  const unsigned nd = mma_regs(s, 'd');
  d.assign(nd, LaneRegs{});
  for (unsigned l = 0; l < 32; ++l)
    for (unsigned i = 0; i < nc; ++i) {
      const Coord p = c_coord(s, l, i);
      const uint64_t v = D[p.row * N + p.col];
      if (db == 64)
        d[i][l] = v;
      else
        d[i / (32 / db)][l] |= v << ((i % (32 / db)) * db);
    }
}

// ---------------------------------------------------------------------------------- wmma
namespace {

bool wmma_f16_shape(const TensorSpec& s) { // m16n16k16, m32n8k16, m8n32k16
  return s.k == 16 &&
         ((s.m == 16 && s.n == 16) || (s.m == 32 && s.n == 8) || (s.m == 8 && s.n == 32));
}

// How a wmma form is tiled (mma.h): the mma.sync piece, whether it runs transposed
// (m8n32k16), and the tiles along M' and N' of the (possibly transposed) problem.
struct Geom {
  TensorSpec part;
  bool trans = false;
  unsigned mt = 1, nt = 1;
};

// The piece for inputs `a`, `b` and accumulators `c`, `d`.
Geom geom_of(const TensorSpec& s, MmaType a, MmaType b, MmaType c, MmaType d) {
  Geom g;
  TensorSpec& p = g.part;
  p.sync = p.aligned = true;
  p.row = {true, false};
  p.nlayouts = 2;
  p.ntypes = 4;
  g.trans = s.m == 8 && s.n == 32;
  p.type = {d, g.trans ? b : a, g.trans ? a : b, c}; // transposed: B^T is the piece's A
  p.satfinite = s.satfinite;
  if (a == MmaType::F64) {
    p.m = 8, p.n = 8, p.k = 4;
    return g;
  }
  p.m = 16, p.n = 8, p.k = a == MmaType::TF32 ? 8 : 16;
  const unsigned M = g.trans ? s.n : s.m, N = g.trans ? s.m : s.n;
  g.mt = M / 16, g.nt = N / 8;
  return g;
}

MmaType frag_type(const TensorSpec& s, char frag) {
  if (s.wmma != 'm') return s.type[0];
  return frag == 'a' ? s.a() : frag == 'b' ? s.b() : frag == 'c' ? s.c() : s.d();
}

// The tiling seen by fragment `frag` (a load or store knows its own type only).
Geom geom(const TensorSpec& s, char frag) {
  if (s.wmma == 'm') return geom_of(s, s.a(), s.b(), s.c(), s.d());
  const MmaType t = s.type[0];
  if (frag == 'a' || frag == 'b') {
    const MmaType acc = is_int8(t) ? MmaType::S32 : t == MmaType::F64 ? MmaType::F64 : MmaType::F32;
    return geom_of(s, t, t, acc, acc);
  }
  const MmaType in = t == MmaType::S32   ? MmaType::S8
                     : t == MmaType::F64 ? MmaType::F64
                     : s.k == 8          ? MmaType::TF32
                                         : MmaType::F16;
  return geom_of(s, in, in, t, t);
}

// Registers of one tile of fragment `frag`, whether its tiles are the piece's A tiles, and
// how many registers the tiles fill.
struct Tiles {
  unsigned regs, count;
  bool as_a;
};
Tiles tiles(const Geom& g, char frag) {
  if (frag == 'c' || frag == 'd') return {mma_regs(g.part, frag), g.mt * g.nt, false};
  const bool as_a = (frag == 'a') != g.trans;
  return {mma_regs(g.part, as_a ? 'a' : 'b'), as_a ? g.mt : g.nt, as_a};
}

const char* const kWmmaForms =
    "gpurf runs wmma.load.{a,b,c}/wmma.store.d .sync.aligned.{row,col} with "
    "m16n16k16/m32n8k16/m8n32k16 .f16/.bf16/.s8/.u8 (accumulators .f16/.f32/.s32), m16n16k8 "
    ".tf32 (.f32), m8n8k4 .f64, and wmma.mma.sync.aligned.{row,col}.{row,col} of those: "
    ".dtype.ctype (f16 inputs), .f32.bf16.bf16.f32, .f32.tf32.tf32.f32, "
    ".s32.{s8,u8}.{s8,u8}.s32[.satfinite], .f64.f64.f64.f64[.rn]";

std::string wmma_check(const TensorSpec& s) {
  const char* const runs = kWmmaForms;
  if (!s.wmma) return "wmma needs .load, .store or .mma";
  auto shape_ok = [&](MmaType in) {
    if (in == MmaType::TF32) return s.m == 16 && s.n == 16 && s.k == 8;
    if (in == MmaType::F64) return s.m == 8 && s.n == 8 && s.k == 4;
    return wmma_f16_shape(s);
  };
  if (s.wmma != 'm') {
    if (s.nlayouts != 1 || s.ntypes != 1) return runs;
    const MmaType t = s.type[0];
    bool ok = false;
    if (s.wmma == 'l' && (s.frag == 'a' || s.frag == 'b'))
      ok = (t == MmaType::F16 || t == MmaType::BF16 || is_int8(t) || t == MmaType::TF32 ||
            t == MmaType::F64) &&
           shape_ok(t);
    else if ((s.wmma == 'l' && s.frag == 'c') || (s.wmma == 's' && s.frag == 'd'))
      ok = t == MmaType::F16   ? wmma_f16_shape(s)
           : t == MmaType::F32 ? wmma_f16_shape(s) || shape_ok(MmaType::TF32)
           : t == MmaType::S32 ? wmma_f16_shape(s)
           : t == MmaType::F64 ? shape_ok(MmaType::F64)
                               : false;
    return ok ? "" : runs;
  }
  if (s.nlayouts != 2 || s.ntypes != 4) return runs;
  const MmaType d = s.d(), a = s.a(), b = s.b(), c = s.c();
  auto fp = [](MmaType t) { return t == MmaType::F16 || t == MmaType::F32; };
  bool ok = false;
  if (a == MmaType::F16 && b == a)
    ok = fp(d) && fp(c);
  else if ((a == MmaType::BF16 || a == MmaType::TF32) && b == a)
    ok = d == MmaType::F32 && c == MmaType::F32;
  else if (a == MmaType::F64 && b == a)
    ok = d == MmaType::F64 && c == MmaType::F64;
  else if (is_int8(a) && is_int8(b))
    ok = d == MmaType::S32 && c == MmaType::S32;
  if (!ok || !shape_ok(a)) return runs;
  if (s.satfinite && !is_int8(a)) return ".satfinite applies to integer wmma.mma only";
  return "";
}

} // namespace

const char* wmma_forms() { return kWmmaForms; }

unsigned wmma_elem_bits(const TensorSpec& s, char frag) { return elem_bits(frag_type(s, frag)); }

unsigned wmma_reg_bits(const TensorSpec& s, char frag) {
  return frag_type(s, frag) == MmaType::F64 ? 64 : 32;
}

unsigned wmma_regs(const TensorSpec& s, char frag) {
  if ((frag == 'a' || frag == 'b') && frag_type(s, frag) == MmaType::F16) return 8; // the ISA's
  const Tiles t = tiles(geom(s, frag), frag);
  return t.regs * t.count;
}

MatrixCoord wmma_coord(const TensorSpec& s, char frag, unsigned lane, unsigned i) {
  const Geom g = geom(s, frag);
  const Tiles t = tiles(g, frag);
  const unsigned bits = wmma_elem_bits(s, frag), per = bits == 64 ? 1 : 32 / bits;
  const unsigned reg = (i / per) % (t.regs * t.count); // copies repeat the filled registers
  const unsigned tile = reg / t.regs, e = (reg % t.regs) * per + i % per;
  if (frag == 'c' || frag == 'd') {
    const Coord p = c_coord(g.part, lane, e);
    const unsigned r = p.row + 16 * (tile / g.nt), c = p.col + 8 * (tile % g.nt);
    return g.trans ? MatrixCoord{c, r} : MatrixCoord{r, c};
  }
  if (t.as_a) { // an A tile of the piece: (m', k)
    const Coord p = a_coord(g.part, lane, e);
    const unsigned m = p.row + 16 * tile;
    return frag == 'a' ? MatrixCoord{m, p.col} : MatrixCoord{p.col, m}; // B^T's row m' is B's col
  }
  const Coord p = b_coord(g.part, lane, e); // a B tile: (k, n')
  const unsigned n = p.col + 8 * tile;
  return frag == 'b' ? MatrixCoord{p.row, n} : MatrixCoord{n, p.row}; // A^T's col n' is A's row
}

std::vector<WmmaPart> wmma_parts(const TensorSpec& s) {
  const Geom g = geom(s, 'd');
  const unsigned ra = mma_regs(g.part, 'a'), rb = mma_regs(g.part, 'b');
  const unsigned rc = mma_regs(g.part, 'c'), rd = mma_regs(g.part, 'd');
  std::vector<WmmaPart> parts;
  for (unsigned mi = 0; mi < g.mt; ++mi)
    for (unsigned ni = 0; ni < g.nt; ++ni) {
      WmmaPart p;
      p.mma = g.part;
      p.a_from = g.trans ? 'b' : 'a';
      p.b_from = g.trans ? 'a' : 'b';
      for (unsigned r = 0; r < ra; ++r) p.a.push_back(uint8_t(mi * ra + r));
      for (unsigned r = 0; r < rb; ++r) p.b.push_back(uint8_t(ni * rb + r));
      const unsigned tile = mi * g.nt + ni;
      for (unsigned r = 0; r < rc; ++r) p.c.push_back(uint8_t(tile * rc + r));
      for (unsigned r = 0; r < rd; ++r) p.d.push_back(uint8_t(tile * rd + r));
      parts.push_back(std::move(p));
    }
  return parts;
}

void wmma_mma_execute(const TensorSpec& s, const Fragment& a, const Fragment& b, const Fragment& c,
                      Fragment& d) {
  d.assign(wmma_regs(s, 'd'), LaneRegs{});
  auto pick = [](const Fragment& f, const std::vector<uint8_t>& idx) {
    Fragment out;
    for (uint8_t i : idx) out.push_back(f[i]);
    return out;
  };
  for (const WmmaPart& p : wmma_parts(s)) {
    const Fragment& fa = p.a_from == 'a' ? a : b;
    const Fragment& fb = p.b_from == 'a' ? a : b;
    Fragment pd;
    mma_execute(p.mma, pick(fa, p.a), pick(fb, p.b), pick(c, p.c), pd);
    for (size_t r = 0; r < p.d.size(); ++r) d[p.d[r]] = pd[r];
  }
}

void ldmatrix_distribute(const TensorSpec& s, const std::vector<Matrix8x8>& mats, Fragment& d) {
  // Lane l holds row l / 4, elements 2 (l % 4) and 2 (l % 4) + 1 of each matrix (low half
  // first); with .trans, of the matrix's transpose.
  d.assign(mats.size(), LaneRegs{});
  for (size_t m = 0; m < mats.size(); ++m)
    for (unsigned l = 0; l < 32; ++l) {
      const unsigned r = l / 4, c = 2 * (l % 4);
      const uint16_t lo = s.trans ? mats[m][c][r] : mats[m][r][c];
      const uint16_t hi = s.trans ? mats[m][c + 1][r] : mats[m][r][c + 1];
      d[m][l] = uint32_t(lo) | uint32_t(hi) << 16;
    }
}

void movmatrix_execute(const LaneRegs& a, LaneRegs& d) {
  std::vector<Matrix8x8> m(1);
  for (unsigned l = 0; l < 32; ++l) {
    m[0][l / 4][2 * (l % 4)] = uint16_t(a[l]);
    m[0][l / 4][2 * (l % 4) + 1] = uint16_t(a[l] >> 16);
  }
  TensorSpec s;
  s.trans = true;
  Fragment f;
  ldmatrix_distribute(s, m, f);
  d = f[0];
}

} // namespace gpurf::ptx
