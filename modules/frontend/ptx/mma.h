// Warp-level matrix instructions of the PTX ISA (plain C++, no engine state): mma.sync,
// ldmatrix and movmatrix. The per-lane fragment layouts are the ISA's ("Matrix fragments for
// mma.m16n8k16" etc., PTX ISA 8.x section 9.7.14.5); the engine gathers a warp's fragment
// registers, calls these, and writes the results back.
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
  MmaType d() const { return type[0]; }
  MmaType a() const { return type[1]; }
  MmaType b() const { return type[2]; }
  MmaType c() const { return type[3]; }
};

enum class TensorKind : uint8_t { Mma, Ldmatrix, Movmatrix };

// Applies one modifier of a tensor instruction (not the state space); false if it is none.
bool tensor_modifier(TensorKind kind, TensorSpec& s, const std::string& m);
// Once all modifiers are in: "" if gpurf runs this form, else why not and what it runs.
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

} // namespace gpurf::ptx
