// IEEE 754 binary16 (.f16) and bfloat16 (.bf16) for the PTX engine: conversions with every
// rounding mode and the arithmetic PTX defines on them, in software (the host has neither).
//
// Every operation computes the exact result as a double, or as an unevaluated sum hi + lo of
// two doubles (TwoSum) where a double cannot hold it, and rounds that once to the format, so
// each result is the correctly rounded one the ISA asks for (no double rounding):
//   f16 add/sub/mul: exact in a double (at most 40 significant bits); fma: product exact, the
//   sum as hi + lo. bf16 add/sub/fma: hi + lo (exponents span 2^-133..2^127); mul: exact.
// Choices where the PTX ISA leaves room (docs/frontend.md): a NaN result is the canonical NaN
// 0x7fff (as the ISA says for f16/bf16 arithmetic and NVIDIA GPUs produce); neg and abs only
// flip or clear the sign bit (NaN payloads kept); subnormals are kept unless .ftz.
// Plain C++, no engine state: tests/unit/ptx_half_test.cpp holds it to values from the ISA.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace gpurf::ptx::half {

struct Format {
  int man; // stored fraction bits
  int exp; // exponent bits
  int bias() const { return (1 << (exp - 1)) - 1; }
  uint16_t sign_bit() const { return uint16_t(1u << (man + exp)); }
  uint16_t inf() const { return uint16_t(((1u << exp) - 1) << man); }
  uint16_t max_finite() const { return uint16_t(inf() - 1); }
};
inline constexpr Format kF16{10, 5}, kBF16{7, 8};
inline constexpr uint16_t kCanonicalNaN = 0x7fff; // both formats

enum class Mode { RN, RZ, RM, RP };

inline bool is_nan(uint16_t h, Format f) {
  return (h & f.inf()) == f.inf() && (h & ((1u << f.man) - 1)) != 0;
}
inline bool is_subnormal(uint16_t h, Format f) {
  return (h & f.inf()) == 0 && (h & ((1u << f.man) - 1)) != 0;
}

inline double to_double(uint16_t h, Format f) {
  const bool neg = h & f.sign_bit();
  const unsigned e = (h >> f.man) & ((1u << f.exp) - 1);
  const unsigned m = h & ((1u << f.man) - 1);
  double v;
  if (e == (1u << f.exp) - 1)
    v = m ? std::nan("") : INFINITY;
  else if (e == 0)
    v = std::ldexp(double(m), 1 - f.bias() - f.man);
  else
    v = std::ldexp(double(m | (1u << f.man)), int(e) - f.bias() - f.man);
  return neg ? -v : v;
}

// The exact value hi + lo (|lo| at most half an ulp of hi, as TwoSum leaves it; lo = 0 for a
// single double) rounded to `f` in mode `m`.
inline uint16_t round(double hi, double lo, Format f, Mode m) {
  if (std::isnan(hi) || std::isnan(lo)) return kCanonicalNaN;
  const bool neg = std::signbit(hi);
  const uint16_t sign = neg ? f.sign_bit() : 0;
  const double a = std::fabs(hi), l = neg ? -lo : lo; // value = sign * (a + l)
  if (std::isinf(a)) return sign | f.inf();
  if (a == 0 && l == 0) return sign;
  // Rounding the magnitude up (away from zero) or down (toward zero), or to nearest.
  const bool up = (m == Mode::RP && !neg) || (m == Mode::RM && neg);
  const bool down = m == Mode::RZ || (m == Mode::RP && neg) || (m == Mode::RM && !neg);
  const int emin = 1 - f.bias();
  int e;
  std::frexp(a, &e);
  e = std::max(e - 1, emin); // the binade's exponent (emin: subnormals)
  // A power of two less a little lies in the binade below, whose quantum is half.
  if (l < 0 && e > emin && a == std::ldexp(1.0, e)) --e;
  const double q = std::ldexp(1.0, e - f.man); // the quantum of that binade
  const double scaled = a / q, n = std::floor(scaled), frac = scaled - n; // all exact
  // frac is a multiple of ulp(a)/q, which exceeds |l|/q: l decides only a tie or an exact
  // value.
  auto sgn = [](double x) { return (x > 0) - (x < 0); };
  const int vs_zero = frac != 0 ? 1 : sgn(l);
  const int vs_half = frac != 0.5 ? (frac > 0.5 ? 1 : -1) : sgn(l);
  double k = n;
  if (up)
    k += vs_zero > 0;
  else if (down)
    k -= vs_zero < 0;
  else if (vs_half > 0 || (vs_half == 0 && std::fmod(n, 2) == 1))
    k += 1;
  const double r = k * q;                 // exact
  if (r >= std::ldexp(1.0, f.bias() + 1)) // past the largest finite value
    return sign | (m == Mode::RN || up ? f.inf() : f.max_finite());
  if (r < std::ldexp(1.0, emin)) // subnormal (or zero)
    return sign | uint16_t(std::ldexp(r, f.man - emin));
  int re;
  std::frexp(r, &re);
  --re;
  const unsigned frac_bits = unsigned(std::ldexp(r, f.man - re)) - (1u << f.man);
  return sign | uint16_t(unsigned(re + f.bias()) << f.man | frac_bits);
}
inline uint16_t round(double v, Format f, Mode m) { return round(v, 0.0, f, m); }

// Exact sum a + b = s + err (Knuth's TwoSum; round-to-nearest doubles).
inline void two_sum(double a, double b, double& s, double& err) {
  s = a + b;
  const double bb = s - a;
  err = (a - (s - bb)) + (b - bb);
}

// The PTX result modifiers, applied to a rounded result.
inline uint16_t flush(uint16_t h, Format f) { // .ftz: a subnormal is a zero of its sign
  return is_subnormal(h, f) ? uint16_t(h & f.sign_bit()) : h;
}
inline uint16_t saturate(uint16_t h, Format f) { // .sat: [0, 1], NaN -> +0
  if (is_nan(h, f) || (h & f.sign_bit())) return 0;
  const uint16_t one = uint16_t(unsigned(f.bias()) << f.man);
  return h > one ? one : h;
}
inline uint16_t relu(uint16_t h, Format f) { // .relu: negative -> +0, NaN -> canonical NaN
  if (is_nan(h, f)) return kCanonicalNaN;
  return h & f.sign_bit() ? uint16_t(0) : h;
}
inline uint16_t satfinite(uint16_t h, Format f) { // .satfinite: +-inf -> +-largest finite
  if ((h & ~f.sign_bit()) == f.inf()) return uint16_t((h & f.sign_bit()) | f.max_finite());
  return h;
}

enum class Op { Add, Sub, Mul };
// add/sub/mul{.rnd} in `f` (operands already flushed where .ftz asks).
inline uint16_t arith(Op op, uint16_t a, uint16_t b, Format f, Mode m) {
  const double x = to_double(a, f), y = to_double(b, f);
  if (op == Op::Mul) return round(x * y, f, m); // at most 16 bits: exact
  double s, err;
  two_sum(x, op == Op::Add ? y : -y, s, err);
  return round(s, std::isfinite(s) ? err : 0.0, f, m);
}
// fma{.rnd}: a * b + c rounded once.
inline uint16_t fma(uint16_t a, uint16_t b, uint16_t c, Format f, Mode m) {
  const double p = to_double(a, f) * to_double(b, f), z = to_double(c, f); // p exact
  double s, err;
  two_sum(p, z, s, err);
  return round(s, std::isfinite(s) ? err : 0.0, f, m);
}

// min/max: a NaN operand yields the other (both NaN: canonical NaN); -0 is below +0. With
// .NaN, any NaN operand yields the canonical NaN.
inline uint16_t min_max(bool is_max, uint16_t a, uint16_t b, Format f, bool nan_wins) {
  const bool na = is_nan(a, f), nb = is_nan(b, f);
  if (na || nb) return nan_wins || (na && nb) ? kCanonicalNaN : na ? b : a;
  const double x = to_double(a, f), y = to_double(b, f);
  if (x == y) { // only +0 and -0 differ in sign
    const bool a_neg = a & f.sign_bit();
    return is_max == a_neg ? b : a;
  }
  return (x < y) != is_max ? a : b;
}

// fp8 (cvt to and from .e4m3x2 / .e5m2x2, sm_89): E4M3 has bias 7, no infinity, S.1111.111 its
// only NaN and 448 its largest value; E5M2 is binary16's upper byte (bias 15, infinities).
struct Fp8 {
  int man, bias;
  double max; // largest finite value
  bool ieee;  // the top exponent holds infinities and NaNs (E5M2), else values and one NaN
};
inline constexpr Fp8 kE4M3{3, 7, 448.0, false}, kE5M2{2, 15, 57344.0, true};
inline constexpr uint8_t kFp8NaN = 0x7f; // both formats

// The ISA's one rounding to fp8: to nearest even with .satfinite (a value beyond the largest
// finite one, infinity too, is the largest finite one of its sign); NaN -> 0x7f; .relu makes a
// negative result +0. Exact: v comes from an f32 or f16, and a / q scales by a power of two.
inline uint8_t to_fp8(double v, Fp8 f, bool relu) {
  if (std::isnan(v)) return kFp8NaN;
  if (relu && std::signbit(v)) return 0;
  const uint8_t sign = std::signbit(v) ? 0x80 : 0;
  const double a = std::fabs(v);
  const int emin = 1 - f.bias;
  int e;
  std::frexp(a, &e);
  e = std::max(e - 1, emin);
  const double q = std::ldexp(1.0, e - f.man), s = std::isinf(a) ? 0 : a / q;
  double n = std::floor(s);
  if (s - n > 0.5 || (s - n == 0.5 && std::fmod(n, 2) == 1)) n += 1;
  const double r = std::isinf(a) ? f.max : std::min(n * q, f.max);
  if (r < std::ldexp(1.0, emin)) // subnormal or zero
    return uint8_t(sign | unsigned(std::ldexp(r, f.man - emin)));
  int re;
  std::frexp(r, &re);
  --re;
  const unsigned frac = unsigned(std::ldexp(r, f.man - re)) - (1u << f.man);
  return uint8_t(sign | unsigned(re + f.bias) << f.man | frac);
}
inline double from_fp8(uint8_t x, Fp8 f) {
  const int ebits = 7 - f.man;
  const unsigned e = (x >> f.man) & ((1u << ebits) - 1), m = x & ((1u << f.man) - 1);
  double v;
  if (f.ieee && e == (1u << ebits) - 1)
    v = m ? NAN : INFINITY;
  else if (!f.ieee && (x & 0x7f) == kFp8NaN)
    v = NAN;
  else if (e == 0)
    v = std::ldexp(double(m), 1 - f.bias - f.man);
  else
    v = std::ldexp(double(m | (1u << f.man)), int(e) - f.bias - f.man);
  return x & 0x80 ? -v : v;
}

// tf32 (cvt.rna.tf32.f32; .rn/.rz{.satfinite} on sm_90): an f32 with the 13 low fraction bits
// zero. .rna rounds to nearest with ties away from zero, .rn to even, .rz truncates. A NaN or
// an infinity has its low bits cleared and nothing added, as sm_86 runs cvt.rna (FSETP.GEU
// |a|, +INF skips the IADD of 0x1000; the LOP3 AND 0xffffe000 applies to all); .satfinite
// makes a NaN 0x7fffffff and an infinite result (an infinite input too) the largest finite
// tf32 of its sign.
inline uint32_t to_tf32(uint32_t u, bool rna, bool rz, bool satfinite) {
  const uint32_t mag = u & 0x7fffffffu, sign = u & 0x80000000u;
  if (mag > 0x7f800000u) return satfinite ? 0x7fffffffu : u & ~0x1fffu;
  uint32_t r = mag;
  if (mag < 0x7f800000u && !rz) r = mag + (rna ? 0x1000u : 0xfffu + ((mag >> 13) & 1));
  r &= ~0x1fffu;
  if (satfinite && r >= 0x7f800000u) r = 0x7f7fe000u;
  return sign | r;
}

} // namespace gpurf::ptx::half
