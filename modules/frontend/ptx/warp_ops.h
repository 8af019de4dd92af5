// Integer dot products, find-nth-set, the warp reduction's combine step, the shuffle's source
// lane and the SIMD video instructions, as the PTX ISA defines them (dp4a, dp2a, fns,
// redux.sync, shfl.sync, vop2/vop4:
// docs/ptx.md). Plain functions the engine calls
// per lane; tests/unit/ptx_warp_ops_test.cpp holds them to references written from the ISA.
#pragma once

#include <cstdint>

#include "gpurf/modules/frontend/ptx/ir.h"

namespace gpurf::ptx::warp_ops {

// shfl.sync's source for `lane` with operands b and c: the lane whose value it takes (its own
// when out of its segment) and whether it was in range (the predicate result). The engine
// runs it; the front-end asks which lanes' values a shuffle takes (undefined reads).
struct ShflSource {
  unsigned lane;
  bool in_range;
};
inline ShflSource shfl_source(ShflMode mode, unsigned lane, uint32_t b, uint32_t c) {
  const uint32_t bval = b & 31, cval = c & 31, segmask = (c >> 8) & 31;
  const int l = int(lane), max_lane = int((lane & segmask) | (cval & ~segmask));
  int j;
  bool in_range;
  switch (mode) {
  case ShflMode::Up:
    j = l - int(bval), in_range = j >= max_lane;
    break;
  case ShflMode::Down:
    j = l + int(bval), in_range = j <= max_lane;
    break;
  case ShflMode::Bfly:
    j = l ^ int(bval), in_range = j <= max_lane;
    break;
  default: // idx
    j = int(lane & segmask) | int(bval & ~segmask), in_range = j <= max_lane;
    break;
  }
  return {in_range ? unsigned(j) & 31 : lane, in_range};
}

// Byte or halfword i of x, sign- or zero-extended.
inline int64_t byte_of(uint32_t x, unsigned i, bool sign) {
  const uint32_t b = (x >> (8 * i)) & 0xff;
  return sign ? int64_t(int8_t(b)) : int64_t(b);
}
inline int64_t half_of(uint32_t x, unsigned i, bool sign) {
  const uint32_t h = (x >> (16 * i)) & 0xffff;
  return sign ? int64_t(int16_t(h)) : int64_t(h);
}

// dp4a.atype.btype d, a, b, c: c + the four byte products, modulo 2^32.
inline uint32_t dp4a(uint32_t a, uint32_t b, uint32_t c, bool a_signed, bool b_signed) {
  int64_t d = int64_t(int32_t(c));
  for (unsigned i = 0; i < 4; ++i) d += byte_of(a, i, a_signed) * byte_of(b, i, b_signed);
  return uint32_t(d);
}

// dp2a.{lo,hi}.atype.btype d, a, b, c: c + a's two halfwords times bytes 0,1 (lo) or 2,3
// (hi) of b, modulo 2^32.
inline uint32_t dp2a(uint32_t a, uint32_t b, uint32_t c, bool a_signed, bool b_signed, bool hi) {
  int64_t d = int64_t(int32_t(c));
  const unsigned sel = hi ? 2 : 0;
  for (unsigned i = 0; i < 2; ++i) d += half_of(a, i, a_signed) * byte_of(b, sel + i, b_signed);
  return uint32_t(d);
}

// fns.b32 d, mask, base, offset: the position of the |offset|-th set bit of mask counting
// from bit base upwards (offset > 0) or downwards (offset < 0), base itself included;
// offset 0: base if that bit is set. 0xffffffff when there is none. base > 31 is undefined
// in the ISA: here it finds nothing.
inline uint32_t fns(uint32_t mask, uint32_t base, int32_t offset) {
  if (base > 31) return 0xffffffffu;
  if (offset == 0) return (mask >> base & 1) ? base : 0xffffffffu;
  const int step = offset > 0 ? 1 : -1;
  int64_t left = offset > 0 ? int64_t(offset) : -int64_t(offset);
  for (int pos = int(base); pos >= 0 && pos < 32; pos += step)
    if ((mask >> pos & 1) && --left == 0) return uint32_t(pos);
  return 0xffffffffu;
}

// One step of redux.sync's reduction (integer forms: add wraps at 32 bits).
inline uint32_t redux_combine(AtomOp op, bool is_signed, uint32_t x, uint32_t y) {
  switch (op) {
  case AtomOp::Add:
    return x + y;
  case AtomOp::Min:
    return is_signed ? (int32_t(x) < int32_t(y) ? x : y) : (x < y ? x : y);
  case AtomOp::Max:
    return is_signed ? (int32_t(x) > int32_t(y) ? x : y) : (x > y ? x : y);
  case AtomOp::And:
    return x & y;
  case AtomOp::Or:
    return x | y;
  default: // Xor
    return x ^ y;
  }
}

// vop2 / vop4.dtype.atype.btype{.sat|.add} d, a, b, c with the default selectors and mask
// (nvcc's only form): element i of a with element i of b, `n` elements of 32/n bits each,
// extended by atype/btype; vavrg rounds a sum >= 0 up ((s + 1) >> 1) and a negative one
// down (s >> 1), as the ISA writes it; .sat clamps to
// dtype's element range; .add: d = c + the elements' sum (modulo 2^32), else d holds the
// elements' low bits (the merge with c keeps none of c under the full mask).
inline uint32_t video(VideoOp op, unsigned n, uint32_t a, uint32_t b, uint32_t c, bool a_signed,
                      bool b_signed, bool d_signed, bool sat, bool add) {
  const unsigned w = 32 / n;
  const int64_t lo = d_signed ? -(int64_t(1) << (w - 1)) : 0;
  const int64_t hi = d_signed ? (int64_t(1) << (w - 1)) - 1 : (int64_t(1) << w) - 1;
  uint32_t d = add ? c : 0;
  for (unsigned i = 0; i < n; ++i) {
    const int64_t x = w == 8 ? byte_of(a, i, a_signed) : half_of(a, i, a_signed);
    const int64_t y = w == 8 ? byte_of(b, i, b_signed) : half_of(b, i, b_signed);
    int64_t t = 0;
    switch (op) {
    case VideoOp::Add:
      t = x + y;
      break;
    case VideoOp::Sub:
      t = x - y;
      break;
    case VideoOp::Avrg:
      t = x + y >= 0 ? (x + y + 1) >> 1 : (x + y) >> 1;
      break;
    case VideoOp::Absdiff:
      t = x > y ? x - y : y - x;
      break;
    case VideoOp::Min:
      t = x < y ? x : y;
      break;
    default: // Max
      t = x > y ? x : y;
      break;
    }
    if (sat) t = t < lo ? lo : t > hi ? hi : t;
    if (add)
      d += uint32_t(t);
    else
      d |= (uint32_t(t) & ((w == 8 ? 0xffu : 0xffffu))) << (w * i);
  }
  return d;
}

} // namespace gpurf::ptx::warp_ops
