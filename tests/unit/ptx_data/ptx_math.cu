// Arithmetic kernels for the PTX engine unit tests.
// Regenerate: nvcc -arch=sm_75 -ptx ptx_math.cu -o ptx_math.ptx
#include <stdint.h>
extern "C" __global__ void math64(const unsigned long long* a, const unsigned long long* b,
                                  unsigned long long* out) {
  int t = threadIdx.x;
  unsigned long long x = a[t], y = b[t];
  long long sx = (long long)x, sy = (long long)y;
  out[t * 8 + 0] = x * y;
  out[t * 8 + 1] = __umul64hi(x, y);
  out[t * 8 + 2] = (unsigned long long)__mul64hi(sx, sy);
  out[t * 8 + 3] = y ? x / y : 0;
  out[t * 8 + 4] = y ? x % y : 0;
  out[t * 8 + 5] = sy ? (unsigned long long)(sx / sy) : 0;
  out[t * 8 + 6] = sy ? (unsigned long long)(sx % sy) : 0;
  out[t * 8 + 7] = (x >> (y & 63)) ^ (x << (y & 31)) ^ (unsigned long long)(sx >> (y & 63));
}

extern "C" __global__ void intops(const int* a, const int* b, int* out) {
  int t = threadIdx.x;
  int x = a[t], y = b[t];
  unsigned ux = x, uy = y;
  int* o = out + t * 16;
  o[0] = y ? x / y : 0;
  o[1] = y ? x % y : 0;
  o[2] = uy ? (int)(ux / uy) : 0;
  o[3] = uy ? (int)(ux % uy) : 0;
  o[4] = __mulhi(x, y);
  o[5] = (int)__umulhi(ux, uy);
  o[6] = abs(x);
  o[7] = min(x, y) + max(ux, uy);
  o[8] = __popc(ux) + (__clz(x) << 8);
  o[9] = (int)__brev(ux);
  o[10] = (int)__byte_perm(ux, uy, 0x5140 + (t & 7));
  o[11] = (int)__funnelshift_l(ux, uy, y & 31);
  o[12] = __ffs(x) + (__clzll((long long)x * y) << 8);
  o[13] = x >> (y & 31);
  o[14] = (int)(ux >> (uy & 31)) + (x << (y & 7));
  o[15] = __sad(x, y, 3) + __mul24(x, y);
}

extern "C" __global__ void fops(const float* a, const float* b, float* out) {
  int t = threadIdx.x;
  float x = a[t], y = b[t];
  float* o = out + t * 16;
  o[0] = __fadd_rn(x, y);
  o[1] = __fadd_rz(x, y);
  o[2] = __fadd_rd(x, y);
  o[3] = __fadd_ru(x, y);
  o[4] = __fmul_rz(x, y);
  o[5] = __fmul_ru(x, y);
  o[6] = __fmaf_rd(x, y, 1.0f / 3.0f);
  o[7] = __fdiv_rn(x, y);
  o[8] = __fdiv_rz(x, y);
  o[9] = __fsqrt_rn(fabsf(x));
  o[10] = __frcp_rz(y);
  o[11] = fminf(x, y);
  o[12] = fmaxf(x, y);
  o[13] = __saturatef(x);
  o[14] = fabsf(x) - y;
  o[15] = x / y; // div.rn.f32 (full precision default)
}

extern "C" __global__ void dops(const double* a, const double* b, double* out) {
  int t = threadIdx.x;
  double x = a[t], y = b[t];
  double* o = out + t * 8;
  o[0] = __dadd_rz(x, y);
  o[1] = __dmul_ru(x, y);
  o[2] = __fma_rd(x, y, 1.0 / 3.0);
  o[3] = __ddiv_rn(x, y);
  o[4] = __dsqrt_rz(fabs(x));
  o[5] = fmin(x, y);
  o[6] = __drcp_rn(y);
  o[7] = x - y * 3.0;
}

extern "C" __global__ void cvts(const float* f, const double* d, int* oi, unsigned* ou,
                                float* of, long long* ol) {
  int t = threadIdx.x;
  float x = f[t];
  double y = d[t];
  oi[t * 4 + 0] = __float2int_rn(x);
  oi[t * 4 + 1] = __float2int_rz(x);
  oi[t * 4 + 2] = __float2int_rd(x);
  oi[t * 4 + 3] = __float2int_ru(x);
  ou[t * 2 + 0] = __float2uint_rz(x);
  ou[t * 2 + 1] = __double2uint_rn(y);
  of[t * 6 + 0] = __double2float_rn(y);
  of[t * 6 + 1] = __double2float_rz(y);
  of[t * 6 + 2] = __double2float_rd(y);
  of[t * 6 + 3] = __double2float_ru(y);
  of[t * 6 + 4] = __int2float_rz((int)(y * 1000.0));
  of[t * 6 + 5] = __ull2float_ru((unsigned long long)(y * 1e15));
  ol[t * 2 + 0] = __double2ll_rd(y);
  ol[t * 2 + 1] = (long long)(short)(int)x + (long long)(signed char)(int)y;
}

extern "C" __global__ void cmps(const float* a, const float* b, unsigned* out) {
  int t = threadIdx.x;
  float x = a[t], y = b[t];
  unsigned r = 0;
  r |= (x < y) << 0;
  r |= (x <= y) << 1;
  r |= (x > y) << 2;
  r |= (x >= y) << 3;
  r |= (x == y) << 4;
  r |= (x != y) << 5;
  r |= (!(x < y)) << 6;
  r |= (!(x >= y)) << 7;
  r |= (!(x == y)) << 8;
  r |= (!(x != y)) << 9;
  r |= (isnan(x)) << 10;
  r |= (isinf(y)) << 11;
  r |= (!(x > y) && !(x < y)) << 12;
  out[t] = r;
}

extern "C" __global__ void carry(const unsigned* a, const unsigned* b, unsigned* out) {
  int t = threadIdx.x;
  const unsigned* x = a + t * 4;
  const unsigned* y = b + t * 4;
  unsigned s0, s1, s2, s3, d0, d1, d2, d3, m0, m1;
  asm("add.cc.u32 %0, %4, %8;\n\t"
      "addc.cc.u32 %1, %5, %9;\n\t"
      "addc.cc.u32 %2, %6, %10;\n\t"
      "addc.u32 %3, %7, %11;"
      : "=r"(s0), "=r"(s1), "=r"(s2), "=r"(s3)
      : "r"(x[0]), "r"(x[1]), "r"(x[2]), "r"(x[3]), "r"(y[0]), "r"(y[1]), "r"(y[2]), "r"(y[3]));
  asm("sub.cc.u32 %0, %4, %8;\n\t"
      "subc.cc.u32 %1, %5, %9;\n\t"
      "subc.cc.u32 %2, %6, %10;\n\t"
      "subc.u32 %3, %7, %11;"
      : "=r"(d0), "=r"(d1), "=r"(d2), "=r"(d3)
      : "r"(x[0]), "r"(x[1]), "r"(x[2]), "r"(x[3]), "r"(y[0]), "r"(y[1]), "r"(y[2]), "r"(y[3]));
  asm("mad.lo.cc.u32 %0, %2, %3, %4;\n\t"
      "madc.hi.u32 %1, %2, %3, %5;"
      : "=r"(m0), "=r"(m1)
      : "r"(x[0]), "r"(y[0]), "r"(x[1]), "r"(y[1]));
  unsigned* o = out + t * 10;
  o[0] = s0; o[1] = s1; o[2] = s2; o[3] = s3;
  o[4] = d0; o[5] = d1; o[6] = d2; o[7] = d3;
  o[8] = m0; o[9] = m1;
}

// The carry flag read across kinds, as nvcc's own 128-bit division reads it: an addc after a
// subtraction chain (1: no borrow) and a subc after an addition (it borrows the complement of
// the carry); and a 128-bit quotient by a constant, which nvcc expands into such chains.
extern "C" __global__ void carry_mixed(const unsigned* a, const unsigned* b, unsigned* out,
                                       unsigned long long* quot) {
  int t = threadIdx.x;
  unsigned x = a[t], y = b[t], d0, d1, no_borrow, s0, s1;
  asm("sub.cc.u32 %0, %3, %4;\n\t"
      "subc.cc.u32 %1, %3, %4;\n\t"
      "addc.u32 %2, 0, 0;"
      : "=r"(d0), "=r"(d1), "=r"(no_borrow)
      : "r"(x), "r"(y));
  asm("add.cc.u32 %0, %2, %3;\n\t"
      "subc.u32 %1, %2, %3;"
      : "=r"(s0), "=r"(s1)
      : "r"(x), "r"(y));
  unsigned* o = out + t * 5;
  o[0] = d0; o[1] = d1; o[2] = no_borrow; o[3] = s0; o[4] = s1;
  unsigned __int128 v = ((unsigned __int128)x << 96) | ((unsigned __int128)y << 40) | (x ^ y);
  v /= 1000003u;
  quot[2 * t] = (unsigned long long)v;
  quot[2 * t + 1] = (unsigned long long)(v >> 64);
}

extern "C" __global__ void bitfield(const unsigned* a, const unsigned* b, unsigned* out) {
  int t = threadIdx.x;
  unsigned x = a[t], y = b[t], r0, r1, r2, r3;
  int s0;
  asm("bfe.u32 %0, %1, %2, %3;" : "=r"(r0) : "r"(x), "r"(y & 0xff), "r"((y >> 8) & 0xff));
  asm("bfe.s32 %0, %1, %2, %3;" : "=r"(s0) : "r"(x), "r"(y & 0xff), "r"((y >> 8) & 0xff));
  asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(r1) : "r"(y), "r"(x), "r"(y & 0x3f), "r"((y >> 8) & 0x3f));
  asm("prmt.b32.f4e %0, %1, %2, %3;" : "=r"(r2) : "r"(x), "r"(y), "r"(y));
  asm("bfind.u32 %0, %1;" : "=r"(r3) : "r"(x));
  unsigned* o = out + t * 5;
  o[0] = r0; o[1] = (unsigned)s0; o[2] = r1; o[3] = r2; o[4] = r3;
}
