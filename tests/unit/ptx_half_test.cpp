// f16 and bf16 in software (modules/frontend/ptx/half.h), held to IEEE 754 values written from
// the standard and the PTX ISA (bit patterns worked out by hand), to the host's own _Float16
// conversion (round to nearest, an independent implementation) and to the bf16 rounding
// identities on the f32 bit pattern.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "gpurf/modules/frontend/ptx/half.h"

using namespace gpurf::ptx::half;

namespace {

float from_bits(uint32_t b) {
  float x;
  std::memcpy(&x, &b, 4);
  return x;
}
uint16_t f16(double v, Mode m = Mode::RN) { return round(v, kF16, m); }
uint16_t bf16(double v, Mode m = Mode::RN) { return round(v, kBF16, m); }

} // namespace

TEST(PtxHalf, KnownF16Encodings) {
  EXPECT_EQ(f16(1.0), 0x3c00);
  EXPECT_EQ(f16(-2.0), 0xc000);
  EXPECT_EQ(f16(65504.0), 0x7bff);              // the largest finite
  EXPECT_EQ(f16(std::ldexp(1.0, -14)), 0x0400); // the smallest normal
  EXPECT_EQ(f16(std::ldexp(1.0, -24)), 0x0001); // the smallest subnormal
  EXPECT_EQ(f16(1.0 / 3), 0x3555);
  EXPECT_EQ(f16(-0.0), 0x8000);
  EXPECT_EQ(f16(INFINITY), 0x7c00);
  EXPECT_EQ(f16(-INFINITY), 0xfc00);
  EXPECT_EQ(f16(std::nan("")), kCanonicalNaN);
  EXPECT_DOUBLE_EQ(to_double(0x3555, kF16), 0.333251953125);
  EXPECT_TRUE(std::isnan(to_double(0x7e00, kF16)));
  EXPECT_EQ(to_double(0x0001, kF16), std::ldexp(1.0, -24));
}

TEST(PtxHalf, EveryRoundingModeAtTiesOverflowAndSubnormals) {
  const double t = 1 + std::ldexp(1.0, -11); // halfway between 1 and 1 + 2^-10
  EXPECT_EQ(f16(t, Mode::RN), 0x3c00);       // ties to even
  EXPECT_EQ(f16(1 + 3 * std::ldexp(1.0, -11), Mode::RN), 0x3c02);
  EXPECT_EQ(f16(t, Mode::RZ), 0x3c00);
  EXPECT_EQ(f16(t, Mode::RM), 0x3c00);
  EXPECT_EQ(f16(t, Mode::RP), 0x3c01);
  EXPECT_EQ(f16(-t, Mode::RM), 0xbc01); // toward -inf: magnitude up
  EXPECT_EQ(f16(-t, Mode::RP), 0xbc00);
  EXPECT_EQ(f16(-t, Mode::RZ), 0xbc00);
  // 65520 is halfway between 65504 (odd) and 2^16 (even, past the range): inf under RN.
  EXPECT_EQ(f16(65519.0, Mode::RN), 0x7bff);
  EXPECT_EQ(f16(65520.0, Mode::RN), 0x7c00);
  EXPECT_EQ(f16(1e9, Mode::RZ), 0x7bff);
  EXPECT_EQ(f16(1e9, Mode::RP), 0x7c00);
  EXPECT_EQ(f16(1e9, Mode::RM), 0x7bff);
  EXPECT_EQ(f16(-1e9, Mode::RM), 0xfc00);
  EXPECT_EQ(f16(-1e9, Mode::RP), 0xfbff);
  // Subnormals: 2^-25 is halfway between 0 and the smallest subnormal.
  EXPECT_EQ(f16(std::ldexp(1.0, -25), Mode::RN), 0x0000);
  EXPECT_EQ(f16(3 * std::ldexp(1.0, -25), Mode::RN), 0x0002);
  EXPECT_EQ(f16(std::ldexp(1.0, -40), Mode::RP), 0x0001);
  EXPECT_EQ(f16(-std::ldexp(1.0, -40), Mode::RZ), 0x8000);
  // The largest subnormal rounding up into the smallest normal.
  EXPECT_EQ(f16(std::ldexp(1023.5, -24), Mode::RN), 0x0400);
}

TEST(PtxHalf, EveryPatternRoundTripsInEveryMode) {
  for (const Format f : {kF16, kBF16})
    for (unsigned h = 0; h < 0x10000; ++h) {
      if (is_nan(uint16_t(h), f)) continue;
      for (Mode m : {Mode::RN, Mode::RZ, Mode::RM, Mode::RP})
        ASSERT_EQ(round(to_double(uint16_t(h), f), f, m), h) << std::hex << h;
    }
}

TEST(PtxHalf, F16RoundToNearestMatchesTheHostsFloat16) {
  std::mt19937 rng(7);
  for (int i = 0; i < 2000000; ++i) {
    const float x = from_bits(rng());
    if (std::isnan(x)) continue;
    const _Float16 h = _Float16(x);
    uint16_t want;
    std::memcpy(&want, &h, 2);
    ASSERT_EQ(f16(x), want) << x;
  }
}

TEST(PtxHalf, Bf16MatchesTheF32BitIdentities) {
  // RZ keeps the top 16 bits; RN adds 0x7fff plus the kept LSB (ties to even) before cutting.
  std::mt19937 rng(11);
  for (int i = 0; i < 2000000; ++i) {
    const uint32_t b = rng();
    const float x = from_bits(b);
    if (std::isnan(x)) continue;
    ASSERT_EQ(bf16(x, Mode::RZ), b >> 16) << std::hex << b;
    const uint32_t rn = (b + 0x7fff + ((b >> 16) & 1)) >> 16;
    ASSERT_EQ(bf16(x, Mode::RN), rn) << std::hex << b; // overflow to inf included
  }
  EXPECT_EQ(bf16(1.0), 0x3f80);
  EXPECT_EQ(bf16(from_bits(0x7f7fffff), Mode::RZ), 0x7f7f);
  EXPECT_EQ(bf16(from_bits(0x7f7fffff), Mode::RN), 0x7f80);
}

TEST(PtxHalf, ArithmeticRoundsTheExactResultOnce) {
  const uint16_t one = 0x3c00, tiny = 0x1000;                      // 1 and 2^-11
  EXPECT_EQ(arith(Op::Add, one, tiny, kF16, Mode::RN), 0x3c00);    // a tie: to even
  EXPECT_EQ(arith(Op::Add, 0x3c01, tiny, kF16, Mode::RN), 0x3c02); // a tie: to even
  EXPECT_EQ(arith(Op::Add, one, tiny, kF16, Mode::RP), 0x3c01);
  EXPECT_EQ(arith(Op::Sub, one, one, kF16, Mode::RN), 0x0000);
  EXPECT_EQ(arith(Op::Mul, 0x5c00, 0x5c00, kF16, Mode::RN), 0x7c00); // 256^2 > 65504
  // bf16: 1 + 2^-100 is not a double; the sum's low part still decides directed rounding.
  const uint16_t b_one = 0x3f80, b_tiny = bf16(std::ldexp(1.0, -100));
  EXPECT_EQ(arith(Op::Add, b_one, b_tiny, kBF16, Mode::RN), 0x3f80);
  EXPECT_EQ(arith(Op::Add, b_one, b_tiny, kBF16, Mode::RP), 0x3f81);
  EXPECT_EQ(arith(Op::Sub, b_one, b_tiny, kBF16, Mode::RZ), 0x3f7f); // the binade below
  EXPECT_EQ(arith(Op::Sub, b_one, b_tiny, kBF16, Mode::RN), 0x3f80);
  EXPECT_EQ(arith(Op::Sub, b_one, b_tiny, kBF16, Mode::RP), 0x3f80);
  EXPECT_EQ(fma(b_one, b_one, b_tiny, kBF16, Mode::RP), 0x3f81);
  EXPECT_EQ(fma(b_one, b_one, b_tiny, kBF16, Mode::RN), 0x3f80);
  // f16 fma rounds once: (1 + 2^-10)^2 - (1 + 2^-9) = 2^-20 exactly (a subnormal f16); a
  // multiply rounded to f16 first (1 + 2^-9) and then the add would give 0.
  EXPECT_EQ(fma(0x3c01, 0x3c01, 0xbc02, kF16, Mode::RN), 0x0010);
  EXPECT_EQ(arith(Op::Sub, arith(Op::Mul, 0x3c01, 0x3c01, kF16, Mode::RN), 0x3c02, kF16, Mode::RN),
            0x0000);
  EXPECT_EQ(arith(Op::Add, 0x7c00, 0xfc00, kF16, Mode::RN), kCanonicalNaN); // inf - inf
  EXPECT_EQ(arith(Op::Add, 0x7e01, one, kF16, Mode::RN), kCanonicalNaN);
}

TEST(PtxHalf, F16ArithmeticMatchesTheHostsFloat16) {
  // GCC computes _Float16 a + b in float and rounds that to f16: correctly rounded, as float
  // has more than twice f16's precision plus two bits.
  std::mt19937 rng(13);
  auto as_host = [](uint16_t h) {
    _Float16 x;
    std::memcpy(&x, &h, 2);
    return x;
  };
  auto as_bits = [](_Float16 x) {
    uint16_t h;
    std::memcpy(&h, &x, 2);
    return h;
  };
  for (int i = 0; i < 1000000; ++i) {
    const uint16_t a = uint16_t(rng()), b = uint16_t(rng());
    if (is_nan(a, kF16) || is_nan(b, kF16)) continue;
    const _Float16 x = as_host(a), y = as_host(b);
    for (auto [op, want] : {std::pair{Op::Add, _Float16(x + y)},
                            {Op::Sub, _Float16(x - y)},
                            {Op::Mul, _Float16(x * y)}}) {
      if (std::isnan(float(want))) continue;
      ASSERT_EQ(arith(op, a, b, kF16, Mode::RN), as_bits(want))
          << std::hex << a << " " << b << " op " << int(op);
    }
  }
}

TEST(PtxHalf, MinMaxAndResultModifiers) {
  EXPECT_EQ(min_max(false, 0x0000, 0x8000, kF16, false), 0x8000); // -0 < +0
  EXPECT_EQ(min_max(true, 0x8000, 0x0000, kF16, false), 0x0000);
  EXPECT_EQ(min_max(true, 0x7e00, 0x3c00, kF16, false), 0x3c00); // NaN: the other
  EXPECT_EQ(min_max(true, 0x7e00, 0x3c00, kF16, true), kCanonicalNaN);
  EXPECT_EQ(min_max(false, 0x7e00, 0x7d00, kF16, false), kCanonicalNaN);
  EXPECT_EQ(min_max(false, 0xc000, 0x3c00, kF16, false), 0xc000);
  EXPECT_EQ(saturate(f16(1.5), kF16), 0x3c00);
  EXPECT_EQ(saturate(f16(-0.5), kF16), 0x0000);
  EXPECT_EQ(saturate(kCanonicalNaN, kF16), 0x0000);
  EXPECT_EQ(saturate(f16(0.25), kF16), f16(0.25));
  EXPECT_EQ(relu(f16(-3.0), kF16), 0x0000);
  EXPECT_EQ(relu(0x7e00, kF16), kCanonicalNaN);
  EXPECT_EQ(satfinite(0xfc00, kF16), 0xfbff);
  EXPECT_EQ(satfinite(0x7f80, kBF16), 0x7f7f);
  EXPECT_EQ(flush(0x0001, kF16), 0x0000);
  EXPECT_EQ(flush(0x8001, kF16), 0x8000);
  EXPECT_EQ(flush(0x0400, kF16), 0x0400);
}

// fp8 from the formats' definitions (OCP 8-bit floating point; PTX cvt .e4m3x2/.e5m2x2).
TEST(PtxHalf, Fp8RoundsToNearestEvenAndSaturates) {
  EXPECT_EQ(to_fp8(1.0, kE4M3, false), 0x38); // 2^0: exponent 7
  EXPECT_EQ(to_fp8(-1.0, kE4M3, false), 0xb8);
  EXPECT_EQ(to_fp8(448.0, kE4M3, false), 0x7e); // the largest: S.1111.110
  EXPECT_EQ(to_fp8(464.0, kE4M3, false), 0x7e); // satfinite
  EXPECT_EQ(to_fp8(INFINITY, kE4M3, false), 0x7e);
  EXPECT_EQ(to_fp8(-1e6, kE4M3, false), 0xfe);
  EXPECT_EQ(to_fp8(1.0 + 1.0 / 16, kE4M3, false), 0x38);       // a tie: to the even fraction 0
  EXPECT_EQ(to_fp8(1.0 + 3.0 / 16, kE4M3, false), 0x3a);       // a tie: to the even fraction 2
  EXPECT_EQ(to_fp8(std::ldexp(1.0, -9), kE4M3, false), 0x01);  // the smallest subnormal
  EXPECT_EQ(to_fp8(std::ldexp(1.0, -10), kE4M3, false), 0x00); // half of it: ties to 0
  EXPECT_EQ(to_fp8(-0.0, kE4M3, false), 0x80);
  EXPECT_EQ(to_fp8(NAN, kE4M3, false), kFp8NaN);
  EXPECT_EQ(to_fp8(-2.0, kE4M3, true), 0x00); // .relu
  EXPECT_EQ(to_fp8(57344.0, kE5M2, false), 0x7b);
  EXPECT_EQ(to_fp8(INFINITY, kE5M2, false), 0x7b);
  EXPECT_EQ(to_fp8(-1.5, kE5M2, false), 0xbe);
  EXPECT_EQ(to_fp8(std::ldexp(1.0, -16), kE5M2, false), 0x01);
  EXPECT_TRUE(std::isnan(from_fp8(0x7f, kE4M3)));
  EXPECT_TRUE(std::isnan(from_fp8(0xff, kE4M3)));
  EXPECT_EQ(from_fp8(0x7e, kE4M3), 448.0);
  EXPECT_EQ(from_fp8(0x7c, kE5M2), INFINITY);
  EXPECT_TRUE(std::isnan(from_fp8(0x7d, kE5M2)));
  // Every code round-trips.
  for (unsigned c = 0; c < 256; ++c)
    for (Fp8 f : {kE4M3, kE5M2}) {
      const double v = from_fp8(uint8_t(c), f);
      if (std::isnan(v) || std::isinf(v)) continue;
      EXPECT_EQ(to_fp8(v, f, false), c) << c << " " << f.man;
    }
}

TEST(PtxHalf, Tf32Rounding) {
  EXPECT_EQ(to_tf32(0x3f801000u, true, false, false), 0x3f802000u); // a tie: away from zero
  EXPECT_EQ(to_tf32(0x3f801000u, false, false, true), 0x3f800000u); // .rn: to even
  EXPECT_EQ(to_tf32(0x3f803000u, false, false, true), 0x3f804000u);
  EXPECT_EQ(to_tf32(0xbf801fffu, false, true, true), 0xbf800000u);  // .rz
  EXPECT_EQ(to_tf32(0x7f7fffffu, true, false, false), 0x7f800000u); // overflows to infinity
  EXPECT_EQ(to_tf32(0x7f7fffffu, false, false, true), 0x7f7fe000u); // .satfinite
  EXPECT_EQ(to_tf32(0x7fc00001u, true, false, false), 0x7fc00000u); // NaN: low bits cleared
  EXPECT_EQ(to_tf32(0xffffffffu, true, false, false), 0xffffe000u);
  EXPECT_EQ(to_tf32(0x7fc00001u, false, false, true), 0x7fffffffu); // .satfinite
  EXPECT_EQ(to_tf32(0xff800000u, true, false, false), 0xff800000u);
  EXPECT_EQ(to_tf32(0x00001000u, true, false, false), 0x00002000u); // subnormal
}
