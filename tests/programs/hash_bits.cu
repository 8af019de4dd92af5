// Integer and bit-manipulation kernels with many live values, each checked against the host:
// SHA-256 of 1,024 messages (one thread each: 64 rounds of rotates written as funnel shifts,
// the 64-word schedule and 8 state words live), then a mix of intrinsics per element
// (__byte_perm, __brev, __clz, __clzll, __popc, __popcll, __ffs, __ffsll, __funnelshift_l/r
// clamped and wrapping, __umul64hi, __mul64hi, __umulhi, __mulhi, __dp4a, __dp2a_lo/hi,
// __sad, __usad, __rhadd, __uhadd), and signed and unsigned 32- and 64-bit division and
// remainder by divisors read from memory (negative, 1, -1, powers of two, INT_MIN / -1 aside).
#include "check.h"
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

// SHA-256's round constants, for the device (__constant__, an initialised .const in the PTX)
// and the host reference.
#define SHA256_K                                                                                   \
  {                                                                                                \
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,            \
        0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,        \
        0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,        \
        0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,        \
        0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,        \
        0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,        \
        0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,        \
        0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,        \
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,        \
        0xc67178f2                                                                                 \
  }
__constant__ uint32_t K[64] = SHA256_K;
static const uint32_t K_host[64] = SHA256_K;

#define SHA_BODY(ROTR, KT)                                                                         \
  uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,                                 \
                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};                                \
  for (int blk = 0; blk < nblocks; ++blk) {                                                        \
    uint32_t w[64];                                                                                \
    for (int t = 0; t < 16; ++t) {                                                                 \
      const uint8_t* b = msg + blk * 64 + t * 4;                                                   \
      w[t] = uint32_t(b[0]) << 24 | uint32_t(b[1]) << 16 | uint32_t(b[2]) << 8 | b[3];             \
    }                                                                                              \
    for (int t = 16; t < 64; ++t) {                                                                \
      uint32_t s0 = ROTR(w[t - 15], 7) ^ ROTR(w[t - 15], 18) ^ (w[t - 15] >> 3);                   \
      uint32_t s1 = ROTR(w[t - 2], 17) ^ ROTR(w[t - 2], 19) ^ (w[t - 2] >> 10);                    \
      w[t] = w[t - 16] + s0 + w[t - 7] + s1;                                                       \
    }                                                                                              \
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];      \
    for (int t = 0; t < 64; ++t) {                                                                 \
      uint32_t t1 =                                                                                \
          hh + (ROTR(e, 6) ^ ROTR(e, 11) ^ ROTR(e, 25)) + ((e & f) ^ (~e & g)) + KT[t] + w[t];     \
      uint32_t t2 = (ROTR(a, 2) ^ ROTR(a, 13) ^ ROTR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));      \
      hh = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;                          \
    }                                                                                              \
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += hh;       \
  }

#define DEV_ROTR(x, n) __funnelshift_r((x), (x), (n))
#define HOST_ROTR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

// Message i: `len` bytes of a pattern, padded as SHA-256 pads, `nblocks` 64-byte blocks.
static int pad_message(uint8_t* out, int i, int len) {
  for (int k = 0; k < len; ++k) out[k] = uint8_t(i * 31 + k * 7 + (k >> 3));
  out[len] = 0x80;
  const int nblocks = (len + 9 + 63) / 64;
  for (int k = len + 1; k < nblocks * 64 - 8; ++k) out[k] = 0;
  const uint64_t bits = uint64_t(len) * 8;
  for (int k = 0; k < 8; ++k) out[nblocks * 64 - 1 - k] = uint8_t(bits >> (8 * k));
  return nblocks;
}

__global__ void sha256(const uint8_t* msgs, const int* nblocks_of, int stride, uint32_t* digests,
                       int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const uint8_t* msg = msgs + size_t(i) * stride;
  const int nblocks = nblocks_of[i];
  SHA_BODY(DEV_ROTR, K)
  for (int k = 0; k < 8; ++k) digests[i * 8 + k] = h[k];
}

static void sha256_host(const uint8_t* msg, int nblocks, uint32_t* out) {
  SHA_BODY(HOST_ROTR, K_host)
  for (int k = 0; k < 8; ++k) out[k] = h[k];
}

// Host versions of the intrinsics (CUDA Math API's definitions).
static uint32_t h_byte_perm(uint32_t x, uint32_t y, uint32_t s) {
  uint64_t v = uint64_t(y) << 32 | x;
  uint32_t r = 0;
  for (int k = 0; k < 4; ++k) r |= uint32_t((v >> (8 * ((s >> (4 * k)) & 7))) & 0xff) << (8 * k);
  return r;
}
static uint32_t h_brev(uint32_t x) {
  uint32_t r = 0;
  for (int k = 0; k < 32; ++k) r |= ((x >> k) & 1) << (31 - k);
  return r;
}
static int h_clz64(uint64_t x) {
  int n = 0;
  for (int k = 63; k >= 0 && !((x >> k) & 1); --k) ++n;
  return n;
}
static int h_popc64(uint64_t x) {
  int n = 0;
  for (; x; x &= x - 1) ++n;
  return n;
}
static int h_ffs64(uint64_t x) {
  for (int k = 0; k < 64; ++k)
    if ((x >> k) & 1) return k + 1;
  return 0;
}
static uint64_t h_umul64hi(uint64_t a, uint64_t b) {
  return uint64_t((unsigned __int128)a * b >> 64);
}
static int64_t h_mul64hi(int64_t a, int64_t b) { return int64_t((__int128)a * b >> 64); }
static uint32_t h_funnel_l(uint32_t lo, uint32_t hi, uint32_t s, bool clamp) {
  s = clamp ? (s > 32 ? 32 : s) : s & 31;
  uint64_t v = uint64_t(hi) << 32 | lo;
  return uint32_t((v << s) >> 32);
}
static uint32_t h_funnel_r(uint32_t lo, uint32_t hi, uint32_t s, bool clamp) {
  s = clamp ? (s > 32 ? 32 : s) : s & 31;
  uint64_t v = uint64_t(hi) << 32 | lo;
  return uint32_t(v >> s);
}
static int h_dp4a(int a, int b, int c) {
  for (int k = 0; k < 4; ++k) c += int(int8_t(a >> (8 * k))) * int(int8_t(b >> (8 * k)));
  return c;
}
static int h_dp2a(int a, int b, int c, bool hi) {
  for (int k = 0; k < 2; ++k)
    c += int(int16_t(a >> (16 * k))) * int(int8_t(b >> (8 * (k + (hi ? 2 : 0)))));
  return c;
}

constexpr int kOut = 24; // results per element of the mix kernel

// Division and remainder by values from memory, signed and unsigned, 32- and 64-bit: o[16] to
// o[22], the same source on the device and as the host's reference.
__host__ __device__ static void divisions(uint64_t x, uint64_t y, uint64_t* o) {
  const uint32_t xl = uint32_t(x), xh = uint32_t(x >> 32), yl = uint32_t(y), yh = uint32_t(y >> 32);
  int32_t sd = int32_t(yl >> (yh & 31));
  if (sd == 0 || sd == -1) sd = -7; // (INT_MIN / -1 overflows)
  uint32_t ud = yh >> (xl & 31);
  if (ud == 0) ud = 3;
  int64_t sd64 = int64_t(y) >> (xl & 63);
  if (sd64 == 0 || sd64 == -1) sd64 = 1000000007;
  uint64_t ud64 = y >> (xh & 63);
  if (ud64 == 0) ud64 = 1;
  o[16] = uint32_t(int32_t(xl) / sd) | uint64_t(uint32_t(int32_t(xl) % sd)) << 32;
  o[17] = (xh / ud) | uint64_t(xh % ud) << 32;
  o[18] = uint64_t(int64_t(x) / sd64);
  o[19] = uint64_t(int64_t(x) % sd64);
  o[20] = x / ud64;
  o[21] = x % ud64;
  const int p = 2 << (xl & 15); // a power of two known only at run time
  o[22] = uint32_t(int32_t(xh) / p) | uint64_t(uint32_t(int32_t(xh) % -p)) << 32;
}

__global__ void mix(const uint64_t* in, uint64_t* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const uint64_t x = in[i], y = in[(i + 1) % n];
  const uint32_t xl = uint32_t(x), xh = uint32_t(x >> 32), yl = uint32_t(y), yh = uint32_t(y >> 32);
  uint64_t* o = out + size_t(i) * kOut;
  uint32_t prmt; // PTX's prmt with a full selector: a nibble's bit 3 replicates the byte's sign
  asm("prmt.b32 %0, %1, %2, %3;" : "=r"(prmt) : "r"(xl), "r"(yl), "r"(yh));
  o[0] = __byte_perm(xl, yl, yh & 0x7777) | uint64_t(prmt) << 32;
  o[1] = __brev(xl);
  o[2] = __brevll(x);
  o[3] = __clz(xl) | uint64_t(__clzll(x)) << 32;
  o[4] = __popc(xh) | uint64_t(__popcll(y)) << 32;
  o[5] = __ffs(xl) | uint64_t(__ffsll(y)) << 32;
  o[6] = __funnelshift_l(xl, xh, yl) | uint64_t(__funnelshift_lc(xl, xh, yl & 63)) << 32;
  o[7] = __funnelshift_r(yl, yh, xl) | uint64_t(__funnelshift_rc(yl, yh, xl & 63)) << 32;
  o[8] = __umul64hi(x, y);
  o[9] = __mul64hi(int64_t(x), int64_t(y));
  o[10] = __umulhi(xl, yh) | uint64_t(uint32_t(__mulhi(int(xh), int(yl)))) << 32;
  o[11] = uint32_t(__dp4a(int(xl), int(yl), int(xh)));
  o[12] = uint32_t(__dp4a(xl, yl, yh)); // unsigned bytes
  o[13] = uint32_t(__dp2a_lo(int(xl), int(yl), int(yh))) |
          uint64_t(uint32_t(__dp2a_hi(int(xh), int(yh), int(xl)))) << 32;
  o[14] = __sad(int(xl), int(yl), xh) | uint64_t(__usad(xh, yh, yl & 0xffff)) << 32;
  o[15] = uint32_t(__rhadd(int(xl), int(yl))) | uint64_t(__uhadd(xh, yh)) << 32;
  divisions(x, y, o);
  o[23] = uint32_t(int32_t(xl) / -1) | uint64_t(uint32_t(int32_t(yl) % 1)) << 32;
}

static void mix_host(const uint64_t* in, uint64_t* o, int i, int n) {
  const uint64_t x = in[i], y = in[(i + 1) % n];
  const uint32_t xl = uint32_t(x), xh = uint32_t(x >> 32), yl = uint32_t(y), yh = uint32_t(y >> 32);
  auto ffs32 = [](uint32_t v) { return h_ffs64(v); };
  uint32_t prmt = 0;
  for (int k = 0; k < 4; ++k) {
    const uint32_t sel = (yh >> (4 * k)) & 15, b = (uint64_t(yl) << 32 | xl) >> (8 * (sel & 7));
    prmt |= ((sel & 8) ? (b & 0x80 ? 0xffu : 0u) : b & 0xff) << (8 * k);
  }
  o[0] = h_byte_perm(xl, yl, yh & 0x7777) | uint64_t(prmt) << 32;
  o[1] = h_brev(xl);
  o[2] = uint64_t(h_brev(uint32_t(x))) << 32 | h_brev(uint32_t(x >> 32));
  o[3] = uint32_t(h_clz64(xl) - 32) | uint64_t(h_clz64(x)) << 32;
  o[4] = uint32_t(h_popc64(xh)) | uint64_t(h_popc64(y)) << 32;
  o[5] = uint32_t(ffs32(xl)) | uint64_t(h_ffs64(y)) << 32;
  o[6] = h_funnel_l(xl, xh, yl, false) | uint64_t(h_funnel_l(xl, xh, yl & 63, true)) << 32;
  o[7] = h_funnel_r(yl, yh, xl, false) | uint64_t(h_funnel_r(yl, yh, xl & 63, true)) << 32;
  o[8] = h_umul64hi(x, y);
  o[9] = uint64_t(h_mul64hi(int64_t(x), int64_t(y)));
  o[10] = uint32_t(uint64_t(xl) * yh >> 32) |
          uint64_t(uint32_t(int64_t(int32_t(xh)) * int32_t(yl) >> 32)) << 32;
  o[11] = uint32_t(h_dp4a(int(xl), int(yl), int(xh)));
  uint32_t u = yh;
  for (int k = 0; k < 4; ++k) u += ((xl >> (8 * k)) & 0xff) * ((yl >> (8 * k)) & 0xff);
  o[12] = u;
  o[13] = uint32_t(h_dp2a(int(xl), int(yl), int(yh), false)) |
          uint64_t(uint32_t(h_dp2a(int(xh), int(yh), int(xl), true))) << 32;
  auto absdiff_s = [](int a, int b) { return uint32_t(a > b ? int64_t(a) - b : int64_t(b) - a); };
  o[14] = uint32_t(absdiff_s(int(xl), int(yl)) + xh) |
          uint64_t(uint32_t((xh > yh ? xh - yh : yh - xh) + (yl & 0xffff))) << 32;
  o[15] = uint32_t(int32_t((int64_t(int32_t(xl)) + int32_t(yl) + 1) >> 1)) |
          uint64_t(uint32_t((uint64_t(xh) + yh) >> 1)) << 32;
  divisions(x, y, o);
  o[23] = uint32_t(int32_t(xl) == INT32_MIN ? xl : uint32_t(-int32_t(xl))) | 0;
}

int main(int argc, char** argv) {
  int bad = 0;
  // SHA-256: argument 1 (default 1,024) messages of 0 to 300 bytes (1 to 6 blocks; warps
  // diverge on the count).
  const int n = argc > 1 ? std::atoi(argv[1]) : 1024, stride = 6 * 64;
  if (n < 1) {
    std::printf("usage: hash_bits [messages] (positive)\n");
    return 2;
  }
  uint8_t* msgs = new uint8_t[size_t(n) * stride];
  int* nblocks = new int[n];
  for (int i = 0; i < n; ++i)
    nblocks[i] = pad_message(msgs + size_t(i) * stride, i, (i * 37) % 301);
  uint8_t* dmsgs;
  int* dnb;
  uint32_t* ddig;
  CHECK(cudaMalloc(&dmsgs, size_t(n) * stride));
  CHECK(cudaMalloc(&dnb, n * sizeof(int)));
  CHECK(cudaMalloc(&ddig, n * 8 * sizeof(uint32_t)));
  CHECK(cudaMemcpy(dmsgs, msgs, size_t(n) * stride, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dnb, nblocks, n * sizeof(int), cudaMemcpyHostToDevice));
  sha256<<<(n + 127) / 128, 128>>>(dmsgs, dnb, stride, ddig, n);
  CHECK(cudaGetLastError());
  uint32_t* dig = new uint32_t[n * 8];
  CHECK(cudaMemcpy(dig, ddig, n * 8 * sizeof(uint32_t), cudaMemcpyDeviceToHost));
  // The host reference, and a known digest: SHA-256("") = e3b0c442...
  uint8_t empty[64];
  uint32_t want[8];
  pad_message(empty, 0, 0);
  sha256_host(empty, 1, want);
  if (want[0] != 0xe3b0c442 || want[7] != 0x7852b855) std::printf("host SHA-256 wrong\n"), ++bad;
  int sha_bad = 0;
  for (int i = 0; i < n; ++i) {
    sha256_host(msgs + size_t(i) * stride, nblocks[i], want);
    if (std::memcmp(want, dig + i * 8, sizeof want) != 0 && sha_bad++ < 5)
      std::printf("sha256 message %d: %08x..., expected %08x...\n", i, dig[i * 8], want[0]);
  }
  bad += sha_bad;

  // The intrinsics over 2,048 64-bit values: edge values first, then a generator.
  const int m = 2048;
  uint64_t* in = new uint64_t[m];
  const uint64_t edges[] = {0,
                            1,
                            ~0ull,
                            0x8000000000000000ull,
                            0x7fffffffffffffffull,
                            0x80000000ull,
                            0xffffffff00000000ull,
                            0x00000001ffffffffull,
                            0x8000000080000000ull,
                            0x0123456789abcdefull};
  uint64_t s = 0x9e3779b97f4a7c15ull;
  for (int i = 0; i < m; ++i) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    in[i] = i < 10 ? edges[i] : (i % 7 == 0 ? s >> (i % 61) : s);
  }
  uint64_t *din, *dout;
  CHECK(cudaMalloc(&din, m * sizeof(uint64_t)));
  CHECK(cudaMalloc(&dout, size_t(m) * kOut * sizeof(uint64_t)));
  CHECK(cudaMemcpy(din, in, m * sizeof(uint64_t), cudaMemcpyHostToDevice));
  mix<<<(m + 255) / 256, 256>>>(din, dout, m);
  CHECK(cudaGetLastError());
  uint64_t* out = new uint64_t[size_t(m) * kOut];
  CHECK(cudaMemcpy(out, dout, size_t(m) * kOut * sizeof(uint64_t), cudaMemcpyDeviceToHost));
  int mix_bad = 0;
  for (int i = 0; i < m; ++i) {
    uint64_t w[kOut];
    mix_host(in, w, i, m);
    // o[23]: -x (INT_MIN / -1 wraps on the device too) and y % 1 == 0.
    for (int k = 0; k < kOut; ++k)
      if (out[size_t(i) * kOut + k] != w[k] && mix_bad++ < 8)
        std::printf("mix element %d (x %016llx y %016llx) result %d: %016llx, expected %016llx\n",
                    i, (unsigned long long)in[i], (unsigned long long)in[(i + 1) % m], k,
                    (unsigned long long)out[size_t(i) * kOut + k], (unsigned long long)w[k]);
  }
  bad += mix_bad;
  if (!bad) std::printf("sha256 %d messages, %d x %d intrinsic results\n", n, m, kOut);
  return finish(bad);
}
