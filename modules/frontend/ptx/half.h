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

} // namespace gpurf::ptx::half
