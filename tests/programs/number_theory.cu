// 64-bit number theory as integer code writes it, each result against the host: a segmented
// sieve of odd numbers (a bitmap in shared memory cleared by atomicAnd, small primes from a
// __constant__ table, counts by __popc and a warp-shuffle reduction), deterministic
// Miller-Rabin on 64-bit candidates with Montgomery multiplication (__umul64hi, 64-bit mul.lo,
// carries), binary GCD (__ffsll) and modular inverses (signed 64-bit extended Euclid), integer
// square roots (__clzll), 24-bit multiplies (__mul24, __umul24, __umulhi), find-nth-set
// (__fns), __brevll, 16- and 8-bit arithmetic, warp-aggregated atomics through %lanemask_lt.
// Argument: the sieve's segments (each 8,192 odd numbers).
#include <cstdint>
#include <cstring>
#include <vector>

#include "check.h"

typedef unsigned long long u64;

constexpr int kSmallPrimes = 300;
__constant__ unsigned c_primes[kSmallPrimes]; // 3, 5, 7, ... (odd primes)
constexpr int kSegOdds = 8192;                // odd numbers per segment (a CTA)
constexpr int kWords = kSegOdds / 32;

// Segment s covers the odd numbers base + 2*j, j < kSegOdds, base = 1 + 2*kSegOdds*s.
__global__ void sieve(u64 first_base, unsigned* bitmap, u64* count, unsigned* per_segment) {
  __shared__ unsigned words[kWords];
  for (int w = threadIdx.x; w < kWords; w += blockDim.x) words[w] = 0xffffffffu;
  __syncthreads();
  const u64 base = first_base + 2ull * kSegOdds * blockIdx.x;
  for (int pi = threadIdx.x; pi < kSmallPrimes; pi += blockDim.x) {
    u64 p = c_primes[pi];
    // First odd multiple of p at or above max(base, p*p).
    u64 start = p * p;
    if (start < base) {
      u64 r = base % p;
      start = r ? base + (p - r) : base;
      if ((start & 1) == 0) start += p;
    }
    for (u64 m = start; m < base + 2ull * kSegOdds; m += 2 * p) {
      unsigned j = (unsigned)((m - base) >> 1);
      atomicAnd(&words[j >> 5], ~(1u << (j & 31)));
    }
  }
  __syncthreads();
  if (blockIdx.x == 0 && first_base == 1 && threadIdx.x == 0) words[0] &= ~1u; // 1 is no prime
  __syncthreads();
  unsigned c = 0;
  for (int w = threadIdx.x; w < kWords; w += blockDim.x) {
    bitmap[(size_t)blockIdx.x * kWords + w] = words[w];
    c += __popc(words[w]);
  }
  for (int off = 16; off > 0; off >>= 1) c += __shfl_down_sync(0xffffffffu, c, off);
  __shared__ unsigned warp_sums[32];
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = c;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned t = 0;
    for (int w = 0; w < (int)(blockDim.x + 31) / 32; ++w) t += warp_sums[w];
    per_segment[blockIdx.x] = t;
    atomicAdd(count, (u64)t);
  }
}

// Montgomery arithmetic modulo an odd n < 2^63.
struct Mont {
  u64 n, ninv, r2; // ninv = -n^-1 mod 2^64, r2 = 2^128 mod n
};
__device__ __host__ inline u64 mulhi64(u64 a, u64 b) {
#ifdef __CUDA_ARCH__
  return __umul64hi(a, b);
#else
  return (u64)(((unsigned __int128)a * b) >> 64);
#endif
}
__device__ __host__ inline u64 redc(const Mont& m, u64 hi, u64 lo) {
  u64 q = lo * m.ninv;
  u64 qh = mulhi64(q, m.n), ql = q * m.n;
  u64 carry = (lo + ql) < lo;
  u64 t = hi + qh + carry;
  return t >= m.n ? t - m.n : t;
}
__device__ __host__ inline u64 mont_mul(const Mont& m, u64 a, u64 b) {
  return redc(m, mulhi64(a, b), a * b);
}
__device__ __host__ Mont mont_make(u64 n) {
  Mont m;
  m.n = n;
  u64 inv = n; // Newton: correct to 3, 6, 12, 24, 48, 96 bits
  for (int i = 0; i < 5; ++i) inv *= 2 - n * inv;
  m.ninv = 0 - inv;
  u64 r = (0 - n) % n; // 2^64 mod n
  // r2 = r * 2^64 mod n by doubling 64 times.
  u64 r2 = r;
  for (int i = 0; i < 64; ++i) {
    r2 = (r2 >= n - r2) ? r2 - (n - r2) : r2 + r2;
  }
  m.r2 = r2;
  return m;
}
__device__ __host__ bool is_prime64(u64 n) {
  if (n < 2) return false;
  const unsigned small[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37};
  for (unsigned p : small) {
    if (n == p) return true;
    if (n % p == 0) return false;
  }
  Mont m = mont_make(n);
  u64 d = n - 1;
  int s = 0;
#ifdef __CUDA_ARCH__
  s = __ffsll((long long)d) - 1;
#else
  s = __builtin_ctzll(d);
#endif
  d >>= s;
  const u64 one = mont_mul(m, 1, m.r2), minus_one = m.n - one;
  const u64 bases[] = {2, 325, 9375, 28178, 450775, 9780504, 1795265022};
  for (u64 a : bases) {
    a %= n;
    if (a == 0) continue;
    u64 x = one, b = mont_mul(m, a, m.r2);
    for (u64 e = d; e; e >>= 1) {
      if (e & 1) x = mont_mul(m, x, b);
      b = mont_mul(m, b, b);
    }
    if (x == one || x == minus_one) continue;
    bool composite = true;
    for (int r = 1; r < s && composite; ++r) {
      x = mont_mul(m, x, x);
      if (x == minus_one) composite = false;
    }
    if (composite) return false;
  }
  return true;
}

__global__ void miller_rabin(const u64* cand, int n, unsigned char* prime, unsigned* found) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  bool p = false;
  if (i < n) {
    p = is_prime64(cand[i]);
    prime[i] = p;
  }
  // Warp-aggregated count: the leader adds the warp's primes.
  unsigned mask = __ballot_sync(0xffffffffu, p);
  unsigned lt;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(lt));
  if (p && (mask & lt) == 0) atomicAdd(found, __popc(mask));
}

// gcd, modular inverse, isqrt, 24-bit and byte arithmetic per pair.
__device__ __host__ u64 gcd_bin(u64 a, u64 b) {
  if (!a) return b;
  if (!b) return a;
#ifdef __CUDA_ARCH__
  int sh = __ffsll((long long)(a | b)) - 1;
  a >>= __ffsll((long long)a) - 1;
#else
  int sh = __builtin_ctzll(a | b);
  a >>= __builtin_ctzll(a);
#endif
  while (b) {
#ifdef __CUDA_ARCH__
    b >>= __ffsll((long long)b) - 1;
#else
    b >>= __builtin_ctzll(b);
#endif
    if (a > b) {
      u64 t = a;
      a = b;
      b = t;
    }
    b -= a;
  }
  return a << sh;
}
__device__ __host__ long long mod_inverse(long long a, long long m) {
  long long t = 0, nt = 1, r = m, nr = a % m;
  if (nr < 0) nr += m;
  while (nr) {
    long long q = r / nr, tmp = t - q * nt;
    t = nt, nt = tmp;
    tmp = r - q * nr;
    r = nr, nr = tmp;
  }
  if (r != 1) return -1;
  return t < 0 ? t + m : t;
}
__device__ __host__ u64 isqrt64(u64 v) {
  if (v < 2) return v;
#ifdef __CUDA_ARCH__
  int bits = 64 - __clzll((long long)v);
#else
  int bits = 64 - __builtin_clzll(v);
#endif
  u64 x = 1ull << ((bits + 1) / 2); // >= sqrt(v)
  while (true) {
    u64 y = (x + v / x) >> 1;
    if (y >= x) return x;
    x = y;
  }
}

struct PairOut {
  u64 gcd, isqrt, brev;
  long long inv;
  int mul24, fns;
  unsigned umul24, umulhi;
  short s16;
  unsigned char u8;
};

__global__ void pairs(const u64* a, const u64* b, int n, PairOut* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  u64 x = a[i], y = b[i];
  PairOut o;
  o.gcd = gcd_bin(x, y);
  o.isqrt = isqrt64(x ^ (y << 7));
  o.brev = __brevll(x);
  o.inv = mod_inverse((long long)(x % 1000003), 1000003) + mod_inverse(-(long long)(y % 997), 997);
  o.mul24 = __mul24((int)(x << 4) >> 4, (int)y);
  o.umul24 = __umul24((unsigned)x, (unsigned)(y >> 5));
  o.umulhi = __umulhi((unsigned)x, (unsigned)y);
  o.fns = (int)__fns((unsigned)x, (unsigned)(y % 32), (int)(y >> 40) % 9 - 4);
  short s = (short)x, t = (short)(y >> 16);
  o.s16 = (short)(s * t + (s >> 3) - (short)(t / (short)((x & 7) + 1)));
  unsigned char c = (unsigned char)(x >> 24), d = (unsigned char)(y >> 8);
  o.u8 = (unsigned char)(c * d + (c ^ d) - (d >> 2));
  out[i] = o;
}

// Host references for the 24-bit and find-nth-set intrinsics (CUDA Math API's definitions).
static int mul24_ref(int a, int b) {
  long long x = (long long)((a << 8) >> 8) * ((b << 8) >> 8);
  return (int)(unsigned)x;
}
static unsigned umul24_ref(unsigned a, unsigned b) { return (a & 0xffffff) * (b & 0xffffff); }
// fns: the position of the offset-th set bit counting from base (up for offset > 0, down for
// offset < 0; offset 0: base itself if set), 0xffffffff when there is none.
static unsigned fns_ref(unsigned mask, unsigned base, int offset) {
  if (offset == 0) return (mask >> base) & 1 ? base : 0xffffffffu;
  int dir = offset > 0 ? 1 : -1, need = offset > 0 ? offset : -offset;
  for (int pos = base; pos >= 0 && pos < 32; pos += dir)
    if ((mask >> pos) & 1 && --need == 0) return pos;
  return 0xffffffffu;
}

int main(int argc, char** argv) {
  const int segments = argc > 1 ? atoi(argv[1]) : 3;
  int bad = 0;
  // Small odd primes for the constant table.
  std::vector<unsigned> small;
  for (unsigned v = 3; (int)small.size() < kSmallPrimes; v += 2) {
    bool p = true;
    for (unsigned d = 3; d * d <= v; d += 2) p &= v % d != 0;
    if (p) small.push_back(v);
  }
  CHECK(cudaMemcpyToSymbol(c_primes, small.data(), sizeof(unsigned) * kSmallPrimes));
  // The sieve is exact below the square of the largest small prime.
  const u64 limit = (u64)small.back() * small.back();

  // 1. Sieve in two launches of `segments` CTAs each (the second continuing the first).
  unsigned* d_bitmap;
  u64* d_count;
  unsigned* d_per;
  CHECK(cudaMalloc(&d_bitmap, (size_t)segments * kWords * 4));
  CHECK(cudaMalloc(&d_count, 8));
  CHECK(cudaMalloc(&d_per, segments * 4));
  std::vector<unsigned> bitmap((size_t)segments * kWords), per(segments);
  for (int half = 0; half < 2; ++half) {
    u64 first = 1 + 2ull * kSegOdds * segments * half, c = 0;
    CHECK(cudaMemset(d_count, 0, 8));
    sieve<<<segments, 128>>>(first, d_bitmap, d_count, d_per);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(bitmap.data(), d_bitmap, bitmap.size() * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(per.data(), d_per, segments * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&c, d_count, 8, cudaMemcpyDeviceToHost));
    u64 last = first + 2ull * kSegOdds * segments;
    if (last > limit) {
      std::printf("sieve: %llu beyond the exact limit %llu\n", last, limit);
      return finish(1);
    }
    // Host sieve of the same range.
    std::vector<char> comp(kSegOdds * (size_t)segments, 0);
    for (unsigned p : small)
      for (u64 m = std::max<u64>((u64)p * p, (first + p - 1) / p * p); m < last; m += p)
        if (m & 1) comp[(m - first) / 2] = 1;
    u64 want = 0;
    int wrong = 0;
    for (size_t j = 0; j < comp.size(); ++j) {
      u64 v = first + 2 * j;
      bool is = v > 1 && !comp[j];
      want += is;
      bool got = (bitmap[j / 32] >> (j % 32)) & 1;
      if (got != is && wrong++ < 5) std::printf("sieve: %llu: %d, want %d\n", v, got, is);
    }
    for (int s = 0; s < segments; ++s) {
      unsigned w = 0;
      for (int k = 0; k < kWords; ++k) w += __builtin_popcount(bitmap[(size_t)s * kWords + k]);
      if (w != per[s]) ++wrong;
    }
    if (c != want || wrong) {
      std::printf("sieve half %d: %llu primes, want %llu; %d wrong\n", half, c, want, wrong);
      ++bad;
    }
  }

  // 2. Miller-Rabin over 64-bit candidates: products of two primes, primes near 2^62, Carmichael
  // numbers, strong pseudoprimes to base 2, and random odd numbers.
  std::vector<u64> cand;
  const u64 specials[] = {561,
                          1105,
                          1729,
                          2047,
                          3215031751ull,
                          3825123056546413051ull,
                          341550071728321ull,
                          4611686018427387847ull,
                          4611686018427387903ull,
                          9223372036854775783ull % (1ull << 62),
                          1,
                          2,
                          3,
                          4,
                          97,
                          1000000007ull,
                          998244353ull,
                          1000000007ull * 998244353ull};
  for (u64 s : specials) cand.push_back(s);
  u64 x = 88172645463325252ull;
  while (cand.size() < 160) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    cand.push_back((x >> 2) | 1);
    cand.push_back((x >> 34) | 1); // small: more primes among them
  }
  const int cn = (int)cand.size();
  u64* d_cand;
  unsigned char* d_prime;
  unsigned* d_found;
  CHECK(cudaMalloc(&d_cand, cn * 8));
  CHECK(cudaMalloc(&d_prime, cn));
  CHECK(cudaMalloc(&d_found, 4));
  CHECK(cudaMemcpy(d_cand, cand.data(), cn * 8, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(d_found, 0, 4));
  miller_rabin<<<(cn + 127) / 128, 128>>>(d_cand, cn, d_prime, d_found);
  CHECK(cudaGetLastError());
  std::vector<unsigned char> prime(cn);
  unsigned found;
  CHECK(cudaMemcpy(prime.data(), d_prime, cn, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&found, d_found, 4, cudaMemcpyDeviceToHost));
  unsigned want_found = 0;
  for (int i = 0; i < cn; ++i) {
    // Host: trial division for small candidates, the host's own Miller-Rabin (__int128 inside
    // mulhi64) for the others; the two agree on the small ones.
    bool want = is_prime64(cand[i]);
    if (cand[i] < (1ull << 32)) {
      bool td = cand[i] >= 2;
      for (u64 d = 2; d * d <= cand[i] && td; ++d) td = cand[i] % d != 0;
      if (td != want) std::printf("host Miller-Rabin wrong for %llu\n", cand[i]), ++bad;
    }
    want_found += want;
    if (prime[i] != want) {
      if (bad < 20) std::printf("miller_rabin %llu: %d, want %d\n", cand[i], prime[i], want);
      ++bad;
    }
  }
  if (found != want_found)
    std::printf("miller_rabin: found %u, want %u\n", found, want_found), ++bad;

  // 3. Pairs, three launches over shifted inputs.
  const int pn = 600;
  std::vector<u64> a(pn), b(pn);
  u64 *d_a, *d_b;
  PairOut* d_o;
  CHECK(cudaMalloc(&d_a, pn * 8));
  CHECK(cudaMalloc(&d_b, pn * 8));
  CHECK(cudaMalloc(&d_o, pn * sizeof(PairOut)));
  std::vector<PairOut> o(pn);
  for (int rep = 0; rep < 3; ++rep) {
    for (int i = 0; i < pn; ++i) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      a[i] = i % 7 == 0 ? x >> (i % 60) : x * (rep + 1);
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      b[i] = i % 5 == 0 ? a[i] * (i % 13 + 1) : x;
      if (i % 11 == 0) b[i] = 0;
    }
    CHECK(cudaMemcpy(d_a, a.data(), pn * 8, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_b, b.data(), pn * 8, cudaMemcpyHostToDevice));
    pairs<<<(pn + 63) / 64, 64>>>(d_a, d_b, pn, d_o);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(o.data(), d_o, pn * sizeof(PairOut), cudaMemcpyDeviceToHost));
    for (int i = 0; i < pn; ++i) {
      u64 xa = a[i], yb = b[i];
      PairOut w;
      memset(&w, 0, sizeof w);
      w.gcd = gcd_bin(xa, yb);
      w.isqrt = isqrt64(xa ^ (yb << 7));
      u64 r = 0;
      for (int k = 0; k < 64; ++k) r |= ((xa >> k) & 1) << (63 - k);
      w.brev = r;
      w.inv = mod_inverse((long long)(xa % 1000003), 1000003) +
              mod_inverse(-(long long)(yb % 997), 997);
      w.mul24 = mul24_ref((int)(xa << 4) >> 4, (int)yb);
      w.umul24 = umul24_ref((unsigned)xa, (unsigned)(yb >> 5));
      w.umulhi = (unsigned)(((u64)(unsigned)xa * (unsigned)yb) >> 32);
      w.fns = (int)fns_ref((unsigned)xa, (unsigned)(yb % 32), (int)(yb >> 40) % 9 - 4);
      short s = (short)xa, t = (short)(yb >> 16);
      w.s16 = (short)(s * t + (s >> 3) - (short)(t / (short)((xa & 7) + 1)));
      unsigned char c = (unsigned char)(xa >> 24), d = (unsigned char)(yb >> 8);
      w.u8 = (unsigned char)(c * d + (c ^ d) - (d >> 2));
      const PairOut& g = o[i];
      // The root: the largest r with r*r <= v.
      u64 v = xa ^ (yb << 7), q = g.isqrt;
      bool root_ok = (unsigned __int128)q * q <= v && (unsigned __int128)(q + 1) * (q + 1) > v;
      if (g.gcd != w.gcd || g.isqrt != w.isqrt || !root_ok || g.brev != w.brev || g.inv != w.inv ||
          g.mul24 != w.mul24 || g.umul24 != w.umul24 || g.umulhi != w.umulhi || g.fns != w.fns ||
          g.s16 != w.s16 || g.u8 != w.u8) {
        if (bad < 20)
          std::printf("pairs %d.%d (%llx, %llx): gcd %llu/%llu isqrt %llu/%llu brev %llx/%llx inv "
                      "%lld/%lld "
                      "mul24 %d/%d umul24 %u/%u umulhi %u/%u fns %d/%d s16 %d/%d u8 %d/%d\n",
                      rep, i, xa, yb, g.gcd, w.gcd, g.isqrt, w.isqrt, g.brev, w.brev, g.inv, w.inv,
                      g.mul24, w.mul24, g.umul24, w.umul24, g.umulhi, w.umulhi, g.fns, w.fns, g.s16,
                      w.s16, g.u8, w.u8);
        ++bad;
      }
    }
  }
  CHECK(cudaDeviceSynchronize());
  return finish(bad);
}
