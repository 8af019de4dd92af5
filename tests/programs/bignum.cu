// Integer arithmetic wider than a register, as bignum and hashing code writes it: unsigned and
// signed __int128 products, quotients and remainders by variables (nvcc's 128-bit division,
// whose carry chains test a remainder's sign with addc after sub.cc), 64-bit division by
// variables, 256-bit addition and 128-bit subtraction and multiplication with carry chains in
// inline PTX (add.cc/addc, sub.cc/subc, mad.lo.cc/madc.hi), bfe/bfi/lop3/bfind, clamped funnel
// shifts and byte permutes. Checked against the host's __int128.
#include <cstdint>
#include <cstdio>
#include <cuda_runtime.h>

#include "check.h"
typedef unsigned __int128 u128;
typedef __int128 i128;

__host__ __device__ inline uint64_t splitmix(uint64_t& s) {
  uint64_t z = (s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

struct R128 {
  uint64_t v[12];
};

__host__ __device__ inline void int128_ops(uint64_t a, uint64_t b, uint64_t c, uint64_t* r) {
  u128 x = (u128)a * b + c;
  u128 y = ((u128)c << 64 | a);
  r[0] = (uint64_t)x;
  r[1] = (uint64_t)(x >> 64);
  u128 d = y / (b | 1);
  r[2] = (uint64_t)d;
  r[3] = (uint64_t)(d >> 64);
  r[4] = (uint64_t)(y % (b | 1));
  u128 q = y / ((u128)(b >> 3) << 40 | 7);
  r[5] = (uint64_t)q ^ (uint64_t)(q >> 64);
  i128 s = (i128)(int64_t)a * (int64_t)b - (i128)(int64_t)c;
  r[6] = (uint64_t)(s >> 3);
  r[7] = (uint64_t)(s >> 67);
  i128 sd = s / (i128)(int64_t)(c | 1);
  r[8] = (uint64_t)sd;
  r[9] = (uint64_t)(s % (i128)(int64_t)(c | 1));
  r[10] = (uint64_t)(x >> (a & 127)) ^ (uint64_t)(y << (b & 127));
  r[11] = (int64_t)a / (int64_t)(((c & 0xffff) - 0x8000) | 1) + (a % ((b >> 40) + 1));
}

__global__ void k128(const uint64_t* in, R128* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) int128_ops(in[3 * i], in[3 * i + 1], in[3 * i + 2], out[i].v);
}

// 256-bit addition and 128x128 multiplication with carry chains.
__device__ void add256(const uint32_t* a, const uint32_t* b, uint32_t* r) {
  asm("add.cc.u32 %0, %8, %16;\n\t"
      "addc.cc.u32 %1, %9, %17;\n\t"
      "addc.cc.u32 %2, %10, %18;\n\t"
      "addc.cc.u32 %3, %11, %19;\n\t"
      "addc.cc.u32 %4, %12, %20;\n\t"
      "addc.cc.u32 %5, %13, %21;\n\t"
      "addc.cc.u32 %6, %14, %22;\n\t"
      "addc.u32 %7, %15, %23;"
      : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]),
        "=r"(r[7])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(a[4]), "r"(a[5]), "r"(a[6]), "r"(a[7]),
        "r"(b[0]), "r"(b[1]), "r"(b[2]), "r"(b[3]), "r"(b[4]), "r"(b[5]), "r"(b[6]), "r"(b[7]));
}
__device__ void sub128(const uint32_t* a, const uint32_t* b, uint32_t* r, uint32_t* borrow) {
  asm("sub.cc.u32 %0, %5, %9;\n\t"
      "subc.cc.u32 %1, %6, %10;\n\t"
      "subc.cc.u32 %2, %7, %11;\n\t"
      "subc.cc.u32 %3, %8, %12;\n\t"
      "subc.u32 %4, 0, 0;"
      : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(*borrow)
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(b[2]), "r"(b[3]));
}
// Schoolbook 64x64->128 with mad.lo.cc / madc.hi.
__device__ void mul64x64(uint32_t a0, uint32_t a1, uint32_t b0, uint32_t b1, uint32_t* r) {
  uint32_t t0, t1, t2, t3;
  asm("mul.lo.u32 %0, %4, %6;\n\t"
      "mul.hi.u32 %1, %4, %6;\n\t"
      "mad.lo.cc.u32 %1, %5, %6, %1;\n\t"
      "madc.hi.u32 %2, %5, %6, 0;\n\t"
      "mad.lo.cc.u32 %1, %4, %7, %1;\n\t"
      "madc.hi.cc.u32 %2, %4, %7, %2;\n\t"
      "addc.u32 %3, 0, 0;\n\t"
      "mad.lo.cc.u32 %2, %5, %7, %2;\n\t"
      "madc.hi.u32 %3, %5, %7, %3;"
      : "=&r"(t0), "=&r"(t1), "=&r"(t2), "=&r"(t3)
      : "r"(a0), "r"(a1), "r"(b0), "r"(b1));
  r[0] = t0;
  r[1] = t1;
  r[2] = t2;
  r[3] = t3;
}
__device__ uint32_t bitfield(uint32_t x, uint32_t y, uint32_t pos, uint32_t len) {
  uint32_t e, f, l, b;
  int32_t se;
  asm("bfe.u32 %0, %1, %2, %3;" : "=r"(e) : "r"(x), "r"(pos), "r"(len));
  asm("bfe.s32 %0, %1, %2, %3;" : "=r"(se) : "r"(x), "r"(pos), "r"(len));
  asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(f) : "r"(y), "r"(x), "r"(pos), "r"(len));
  asm("lop3.b32 %0, %1, %2, %3, 0xCA;" : "=r"(l) : "r"(x), "r"(y), "r"(pos)); // x ? y : z bitwise
  asm("bfind.u32 %0, %1;" : "=r"(b) : "r"(x ^ y));
  return e * 3 + uint32_t(se) * 5 + f * 7 + l * 11 + b * 13;
}

__global__ void kbig(const uint32_t* in, uint32_t* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const uint32_t* a = in + 16 * i;
  uint32_t* o = out + 20 * i;
  add256(a, a + 8, o);
  uint32_t borrow;
  sub128(a, a + 4, o + 8, &borrow);
  o[12] = borrow;
  mul64x64(a[0], a[1], a[2], a[3], o + 13);
  o[17] = bitfield(a[4], a[5], a[6] & 63, a[7] & 63);
  o[18] = __funnelshift_lc(a[8], a[9], a[10]) ^ __funnelshift_rc(a[11], a[12], a[13]);
  o[19] = __byte_perm(a[14], a[15], a[0] & 0xffff);
}

// Host references.
static void h_add256(const uint32_t* a, const uint32_t* b, uint32_t* r) {
  uint64_t c = 0;
  for (int k = 0; k < 8; ++k) {
    uint64_t s = (uint64_t)a[k] + b[k] + c;
    r[k] = (uint32_t)s;
    c = s >> 32;
  }
}
static uint32_t h_bitfield(uint32_t x, uint32_t y, uint32_t pos, uint32_t len) {
  uint32_t e =
      (pos >= 32 || len == 0) ? 0 : (x >> pos) & (len >= 32 ? 0xffffffffu : ((1u << len) - 1));
  uint32_t se;
  if (len == 0)
    se = 0;
  else {
    uint32_t msbpos = pos + len - 1 > 31 ? 31 : pos + len - 1;
    uint32_t sbit = (x >> msbpos) & 1;
    se = 0;
    for (uint32_t k = 0; k < 32; ++k) {
      uint32_t bit = (k < len && pos + k <= 31) ? (x >> (pos + k)) & 1 : sbit;
      se |= bit << k;
    }
  }
  uint32_t f = x;
  for (uint32_t k = 0; k < len && pos + k < 32; ++k)
    f = (f & ~(1u << (pos + k))) | (((y >> k) & 1) << (pos + k));
  uint32_t l = (x & y) | (~x & pos);
  uint32_t v = x ^ y, b = v ? 31 - __builtin_clz(v) : 0xffffffffu;
  return e * 3 + se * 5 + f * 7 + l * 11 + b * 13;
}
static uint32_t h_funnel_lc(uint32_t lo, uint32_t hi, uint32_t s) {
  s = s > 32 ? 32 : s;
  uint64_t v = ((uint64_t)hi << 32 | lo) << s;
  return (uint32_t)(v >> 32);
}
static uint32_t h_funnel_rc(uint32_t lo, uint32_t hi, uint32_t s) {
  s = s > 32 ? 32 : s;
  return (uint32_t)(((uint64_t)hi << 32 | lo) >> s);
}
static uint32_t h_perm(uint32_t x, uint32_t y, uint32_t s) {
  uint8_t b[8];
  for (int k = 0; k < 4; ++k) {
    b[k] = x >> (8 * k);
    b[4 + k] = y >> (8 * k);
  }
  uint32_t r = 0;
  for (int k = 0; k < 4; ++k) r |= (uint32_t)b[(s >> (4 * k)) & 7] << (8 * k);
  return r;
}

int main() {
  const int n = 64 * 48;
  uint64_t* in = new uint64_t[3 * n];
  uint64_t s = 42;
  for (int i = 0; i < 3 * n; ++i) {
    uint64_t v = splitmix(s);
    if (i % 7 == 0) v >>= (v & 63);       // small values too
    if (i % 11 == 0) v = ~0ull - (v & 3); // near the top
    in[i] = v;
  }
  uint64_t* din;
  R128* dout;
  CHECK(cudaMalloc(&din, 3 * n * 8));
  CHECK(cudaMalloc(&dout, n * sizeof(R128)));
  CHECK(cudaMemcpy(din, in, 3 * n * 8, cudaMemcpyHostToDevice));
  k128<<<n / 64, 64>>>(din, dout, n);
  CHECK(cudaDeviceSynchronize());
  R128* out = new R128[n];
  CHECK(cudaMemcpy(out, dout, n * sizeof(R128), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    uint64_t r[12];
    int128_ops(in[3 * i], in[3 * i + 1], in[3 * i + 2], r);
    for (int k = 0; k < 12; ++k)
      if (r[k] != out[i].v[k] && bad++ < 8)
        printf("int128[%d][%d] = %016llx, want %016llx\n", i, k, (unsigned long long)out[i].v[k],
               (unsigned long long)r[k]);
  }
  // The same random words, 16 per element of the carry-chain kernel.
  uint32_t* in32 = reinterpret_cast<uint32_t*>(in);
  const int m = 3 * n / 8;
  uint32_t *d32, *dres;
  CHECK(cudaMalloc(&d32, 16 * m * 4));
  CHECK(cudaMalloc(&dres, 20 * m * 4));
  CHECK(cudaMemcpy(d32, in32, 16 * m * 4, cudaMemcpyHostToDevice));
  for (int rep = 0; rep < 3; ++rep) kbig<<<(m + 31) / 32, 32>>>(d32, dres, m);
  CHECK(cudaDeviceSynchronize());
  uint32_t* res = new uint32_t[20 * m];
  CHECK(cudaMemcpy(res, dres, 20 * m * 4, cudaMemcpyDeviceToHost));
  for (int i = 0; i < m; ++i) {
    const uint32_t* a = in32 + 16 * i;
    const uint32_t* o = res + 20 * i;
    uint32_t w[20];
    h_add256(a, a + 8, w);
    uint64_t lo = ((uint64_t)a[1] << 32 | a[0]), lo2 = ((uint64_t)a[5] << 32 | a[4]);
    uint64_t hi = ((uint64_t)a[3] << 32 | a[2]), hi2 = ((uint64_t)a[7] << 32 | a[6]);
    u128 A = (u128)hi << 64 | lo, B = (u128)hi2 << 64 | lo2, D = A - B;
    for (int k = 0; k < 4; ++k) w[8 + k] = (uint32_t)(D >> (32 * k));
    w[12] = A < B ? 0xffffffffu : 0;
    u128 P = (u128)lo * hi;
    for (int k = 0; k < 4; ++k) w[13 + k] = (uint32_t)(P >> (32 * k));
    w[17] = h_bitfield(a[4], a[5], a[6] & 63, a[7] & 63);
    w[18] = h_funnel_lc(a[8], a[9], a[10]) ^ h_funnel_rc(a[11], a[12], a[13]);
    w[19] = h_perm(a[14], a[15], a[0] & 0xffff);
    for (int k = 0; k < 20; ++k)
      if (w[k] != o[k] && bad++ < 16) printf("big[%d][%d] = %08x, want %08x\n", i, k, o[k], w[k]);
  }
  return finish(bad);
}
