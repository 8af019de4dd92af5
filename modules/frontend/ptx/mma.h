// Warp-level matrix instructions of the PTX ISA (plain C++, no engine state): mma.sync,
// ldmatrix, movmatrix and wmma (load, store, mma). The per-lane fragment layouts are the ISA's
// ("Matrix fragments for mma.m16n8k16" etc., PTX ISA 8.x section 9.7.14.5); the engine gathers a
// warp's fragment registers, calls these, and writes the results back.
//
// Arithmetic (the ISA leaves accumulation order and intermediate rounding to the
// implementation, "at least single precision"; docs/frontend.md records these choices):
//   f16, bf16, tf32 inputs: every product is exact in f32 (at most 22 significant bits); the
//   sum starts from C and adds the products in k order in f32, each addition rounded to
//   nearest even; an f16 D is that f32 sum rounded once to nearest even. tf32 inputs use the
//   upper 19 bits of their 32-bit register (the low 13 mantissa bits are ignored). A NaN result
//   is the canonical NaN (f32 0x7fffffff, f16 0x7fff). Subnormal inputs are kept.
//   f64 (m8n8k4): fma.rn.f64 in k order, starting from C.
//   s8/u8 into s32: exact sum; without .satfinite wrapped to 32 bits, with it clamped to
//   [INT32_MIN, INT32_MAX].
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace gpurf::ptx {

enum class MmaType : uint8_t { None, F16, BF16, TF32, F32, F64, S8, U8, S32, B16 };
const char* mma_type_name(MmaType t);

// What a tensor instruction's modifiers say (the instruction itself is ir.h's Op).
struct TensorSpec {
  uint8_t m = 0, n = 0, k = 0;   // mma shape; ldmatrix/movmatrix: m8n8
  std::array<MmaType, 4> type{}; // mma: d, a, b, c in the order written; ldmatrix: b16
  uint8_t ntypes = 0;            // types written so far
  std::array<bool, 2> row{};     // mma .alayout (true: .row) and .blayout
  uint8_t nlayouts = 0;          // layouts written so far
  uint8_t num = 0;               // ldmatrix .x1/.x2/.x4: matrices loaded
  bool trans = false;            // ldmatrix/movmatrix .trans
  bool satfinite = false;        // mma .satfinite (integer types)
  bool sync = false, aligned = false;
  char wmma = 0; // wmma: 'l' load, 's' store, 'm' mma
  char frag = 0; // wmma.load/store: the fragment 'a', 'b', 'c' or 'd'
  MmaType d() const { return type[0]; }
  MmaType a() const { return type[1]; }
  MmaType b() const { return type[2]; }
  MmaType c() const { return type[3]; }
};

enum class TensorKind : uint8_t { Mma, Ldmatrix, Movmatrix, Wmma };

// Applies one modifier of a tensor instruction (not the state space); false if it is none.
bool tensor_modifier(TensorKind kind, TensorSpec& s, const std::string& m);
// Once all modifiers are in: completes the types a form implies (wmma.mma's .f16 inputs).
void tensor_normalize(TensorKind kind, TensorSpec& s);
// Then: "" if gpurf runs this form, else why not and what it runs.
std::string tensor_check(TensorKind kind, const TensorSpec& s);

// Registers per lane of each mma fragment ('a', 'b', 'c', 'd') and their width in bits.
unsigned mma_regs(const TensorSpec& s, char frag);
unsigned mma_reg_bits(const TensorSpec& s, char frag);

// A fragment: its registers' values (low bits) per lane, register-major.
using LaneRegs = std::array<uint64_t, 32>;
using Fragment = std::vector<LaneRegs>;

// d = a * b + c for one warp (every lane's fragment registers).
void mma_execute(const TensorSpec& s, const Fragment& a, const Fragment& b, const Fragment& c,
                 Fragment& d);

// ldmatrix: rows[mat][r] is the 8 b16 elements of row r of matrix `mat` (read from the address
// lane 8 * mat + r gave); d gets one register per matrix.
using Matrix8x8 = std::array<std::array<uint16_t, 8>, 8>;
void ldmatrix_distribute(const TensorSpec& s, const std::vector<Matrix8x8>& mats, Fragment& d);
// movmatrix.trans: a holds an 8x8 b16 matrix in ldmatrix's layout; d its transpose.
void movmatrix_execute(const LaneRegs& a, LaneRegs& d);

// ---------------------------------------------------------------------------------- wmma
// The ISA leaves wmma's fragment layouts unspecified ("opaque", section 9.7.14.4.1): a program
// may rely on load, mma, store, fill and element-wise operations over every element only.
// gpurf's layout is the mma.sync one, tiled: a wmma.mma is computed as mma.sync pieces
// ("parts": m16n8k16 for f16, bf16, s8, u8; m16n8k8 for tf32; m8n8k4 for f64), and each
// wmma fragment is the fragments of those pieces, one after another, in the ISA's mma.sync
// layouts. For m16n16k16, m32n8k16 and m16n16k8, A holds the M/16 A tiles (rows 16 i..), B the
// N/8 B tiles (columns 8 j..), C and D the (i, j) tiles in row-major tile order. m8n32k16 is
// computed transposed, D^T = B^T A^T + C^T as m32n8k16: B holds B^T's two A tiles, A holds A^T
// as one B tile, C and D hold C^T's two tiles. Where the ISA gives a fragment more registers
// than its tiles fill (.f16 A and B: always eight .f16x2), register r holds what register
// r mod (registers filled) holds: the copies are loaded and kept by element-wise operations
// and never read by the mma. The memory layout (.row/.col, stride) is absorbed by the load
// and the store, so fragments do not depend on it.

// "gpurf runs wmma..." : the wmma forms gpurf runs (for messages).
const char* wmma_forms();
// Registers per lane of wmma fragment `frag` ('a', 'b', 'c', 'd') of a wmma.load/store
// (spec.frag's, of type spec.type[0]) or wmma.mma (`frag` of its types).
unsigned wmma_regs(const TensorSpec& s, char frag);
unsigned wmma_reg_bits(const TensorSpec& s, char frag); // 64 for .f64, else 32
// The (row, col) in its matrix (A: M x K, B: K x N, C/D: M x N) of element `i` (counted over
// the lane's registers, low bits first) of fragment `frag`.
struct MatrixCoord {
  unsigned row, col;
};
MatrixCoord wmma_coord(const TensorSpec& s, char frag, unsigned lane, unsigned i);
unsigned wmma_elem_bits(const TensorSpec& s, char frag);
// The mma.sync pieces of a wmma.mma, in issue order: each reads registers `a` of the wmma's
// operand `a_from` ('a', or 'b' when transposed), `b` of `b_from`, `c` of C, and writes the
// registers `d` of D.
struct WmmaPart {
  TensorSpec mma;
  char a_from = 'a', b_from = 'b';
  std::vector<uint8_t> a, b, c, d;
};
std::vector<WmmaPart> wmma_parts(const TensorSpec& s);
// d = a * b + c for one warp, as the parts compute it.
void wmma_mma_execute(const TensorSpec& s, const Fragment& a, const Fragment& b, const Fragment& c,
                      Fragment& d);

} // namespace gpurf::ptx
