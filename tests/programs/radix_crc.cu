// Byte-level hashing and a 32-bit radix sort, as data-processing code writes them; every result
// against the host. Per message (a thread each, byte loads and uchar4 vectors): CRC-32 from a
// 256-entry table the CTA builds in shared memory, CRC-32C from a __constant__ table, Adler-32
// (remainders by 65521), 64-bit FNV-1a and a MurmurHash3-style 32-bit mix (rotates). Then a
// stable LSD radix sort of 32-bit signed keys with 32-bit values, 8-bit digits, 4 passes of
// three kernels (a per-CTA digit histogram with shared atomics, a one-CTA scan over CTAs and
// digits, a scatter ranking each key within its warp by __match_any_sync and %lanemask_lt, and
// across warps by per-warp counts in shared memory); then a bloom filter in 64-bit words
// (atomicOr on unsigned long long) and 64-bit atomics on shared memory (min, max, and, xor,
// exch, CAS), atomicInc/atomicDec with wrap-around. Arguments: messages, keys.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "check.h"

typedef unsigned long long u64;

__constant__ unsigned c_crc32c[256];

__device__ __forceinline__ unsigned rotl32(unsigned v, int s) { return __funnelshift_l(v, v, s); }

struct Hashes {
  unsigned crc32, crc32c, adler, murmur;
  u64 fnv;
};

// Messages: offsets[i]..offsets[i+1] in `bytes`.
__global__ void hash_messages(const unsigned char* bytes, const int* offsets, int n, Hashes* out) {
  __shared__ unsigned table[256];
  for (int i = threadIdx.x; i < 256; i += blockDim.x) {
    unsigned c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
    table[i] = c;
  }
  __syncthreads();
  int m = blockIdx.x * blockDim.x + threadIdx.x;
  if (m >= n) return;
  int begin = offsets[m], end = offsets[m + 1];
  unsigned crc = 0xffffffffu, crcc = 0xffffffffu, a = 1, b = 0, h = 0x9747b28cu;
  u64 fnv = 0xcbf29ce484222325ull;
  int i = begin;
  // Byte by byte up to 4-byte alignment, then uchar4 words, then the tail.
  auto byte = [&](unsigned char v) {
    crc = table[(crc ^ v) & 0xff] ^ (crc >> 8);
    crcc = c_crc32c[(crcc ^ v) & 0xff] ^ (crcc >> 8);
    a = (a + v) % 65521u;
    b = (b + a) % 65521u;
    fnv = (fnv ^ v) * 0x100000001b3ull;
  };
  for (; i < end && (i & 3); ++i) byte(bytes[i]);
  for (; i + 4 <= end; i += 4) {
    uchar4 w = *reinterpret_cast<const uchar4*>(bytes + i);
    byte(w.x), byte(w.y), byte(w.z), byte(w.w);
    unsigned k =
        __byte_perm((unsigned)w.x | (unsigned)w.y << 8, (unsigned)w.z | (unsigned)w.w << 8, 0x5410);
    k *= 0xcc9e2d51u;
    k = rotl32(k, 15);
    k *= 0x1b873593u;
    h ^= k;
    h = rotl32(h, 13);
    h = h * 5 + 0xe6546b64u;
  }
  for (; i < end; ++i) {
    byte(bytes[i]);
    h ^= bytes[i] * 0xcc9e2d51u;
  }
  h ^= (unsigned)(end - begin);
  h ^= h >> 16, h *= 0x85ebca6bu, h ^= h >> 13, h *= 0xc2b2ae35u, h ^= h >> 16;
  out[m] = Hashes{~crc, ~crcc, (b << 16) | a, h, fnv};
}

// Radix sort: CTAs of kThreads threads, each with kPerThread keys (a tile).
constexpr int kThreads = 256, kPerThread = 4, kTile = kThreads * kPerThread, kWarps = kThreads / 32;

__device__ __forceinline__ unsigned digit_of(int key, int shift) {
  return (((unsigned)key ^ 0x80000000u) >> shift) & 0xff; // signed order
}

__global__ void digit_histogram(const int* keys, int n, int shift,
                                unsigned* counts /*[256][ctas]*/) {
  __shared__ unsigned hist[256];
  for (int d = threadIdx.x; d < 256; d += blockDim.x) hist[d] = 0;
  __syncthreads();
  int base = blockIdx.x * kTile;
  for (int k = threadIdx.x; k < kTile; k += blockDim.x)
    if (base + k < n) atomicAdd(&hist[digit_of(keys[base + k], shift)], 1u);
  __syncthreads();
  for (int d = threadIdx.x; d < 256; d += blockDim.x) counts[d * gridDim.x + blockIdx.x] = hist[d];
}

// One CTA: exclusive scan of counts in digit-major order (digit d's CTAs after digit d-1's).
__global__ void scan_counts(unsigned* counts, int total) {
  __shared__ unsigned sums[1024];
  const int per = (total + blockDim.x - 1) / blockDim.x;
  int lo = threadIdx.x * per, hi = min(lo + per, total);
  unsigned s = 0;
  for (int i = lo; i < hi; ++i) s += counts[i];
  sums[threadIdx.x] = s;
  __syncthreads();
  for (int off = 1; off < (int)blockDim.x; off <<= 1) { // Hillis-Steele
    unsigned v = threadIdx.x >= off ? sums[threadIdx.x - off] : 0;
    __syncthreads();
    sums[threadIdx.x] += v;
    __syncthreads();
  }
  unsigned run = sums[threadIdx.x] - s;
  for (int i = lo; i < hi; ++i) {
    unsigned c = counts[i];
    counts[i] = run;
    run += c;
  }
}

__global__ void scatter(const int* keys_in, const unsigned* vals_in, int* keys_out,
                        unsigned* vals_out, int n, int shift,
                        const unsigned* offsets /*[256][ctas]*/) {
  __shared__ unsigned warp_counts[kWarps][256];
  __shared__ unsigned base_of[256];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (int d = threadIdx.x; d < 256; d += blockDim.x)
    base_of[d] = offsets[d * gridDim.x + blockIdx.x];
  unsigned lt;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(lt));
  const int base = blockIdx.x * kTile;
  // The tile in kPerThread rounds of kThreads keys, in order: within a round warp w's keys come
  // before warp w+1's, and lane order within a warp.
  for (int r = 0; r < kPerThread; ++r) {
    for (int i = threadIdx.x; i < kWarps * 256; i += blockDim.x) (&warp_counts[0][0])[i] = 0;
    __syncthreads();
    int idx = base + r * kThreads + threadIdx.x;
    bool valid = idx < n;
    int key = valid ? keys_in[idx] : 0;
    unsigned d = valid ? digit_of(key, shift) : 256 + lane; // invalid lanes match nobody
    unsigned peers = __match_any_sync(0xffffffffu, d);
    unsigned rank = __popc(peers & lt);
    bool leader = (peers & lt) == 0;
    if (valid && leader) warp_counts[warp][d] = __popc(peers);
    __syncthreads();
    if (valid) {
      unsigned before = 0;
      for (int w = 0; w < warp; ++w) before += warp_counts[w][d];
      unsigned pos = base_of[d] + before + rank;
      keys_out[pos] = key;
      vals_out[pos] = vals_in[idx];
    }
    __syncthreads();
    // This round's keys move the digits' bases on.
    for (int dd = threadIdx.x; dd < 256; dd += blockDim.x) {
      unsigned t = 0;
      for (int w = 0; w < kWarps; ++w) t += warp_counts[w][dd];
      base_of[dd] += t;
    }
    __syncthreads();
  }
}

// Bloom filter and 64-bit shared atomics.
struct Atom64 {
  u64 mn, mx, and_all, xor_all, cas_sum;
  long long smin, smax;
  unsigned inc, dec;
};

__global__ void bloom_insert(const int* keys, int n, u64* filter, int words) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned h1 = (unsigned)keys[i] * 0x9e3779b1u,
           h2 = rotl32((unsigned)keys[i] ^ 0x5bd1e995u, 17) | 1;
  for (int k = 0; k < 3; ++k) {
    unsigned bit = (h1 + k * h2) % (unsigned)(words * 64);
    atomicOr(&filter[bit / 64], 1ull << (bit % 64));
  }
}

__global__ void atomics64(const int* keys, int n, Atom64* out, unsigned wrap) {
  __shared__ u64 mn, mx, and_all, xor_all, cas_sum;
  __shared__ long long smin, smax;
  __shared__ unsigned inc, dec;
  if (threadIdx.x == 0) {
    mn = ~0ull, mx = 0, and_all = ~0ull, xor_all = 0, cas_sum = 0;
    smin = 1ll << 62, smax = -(1ll << 62);
    inc = 0, dec = 0;
  }
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    long long k = keys[i];
    u64 v = (u64)(k * 0x100000001ll) ^ ((u64)i << 40);
    atomicMin(&mn, v);
    atomicMax(&mx, v);
    atomicAnd(&and_all, v | 0x0101010101010101ull);
    atomicXor(&xor_all, v);
    atomicMin(&smin, k * 1000003ll);
    atomicMax(&smax, k * 1000003ll);
    u64 old = cas_sum, seen;
    do {
      seen = old;
      old = atomicCAS(&cas_sum, seen, seen + (u64)(k & 0xffff));
    } while (old != seen);
    atomicInc(&inc, wrap);
    atomicDec(&dec, wrap);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    atomicMin(&out->mn, mn);
    atomicMax(&out->mx, mx);
    atomicAnd(&out->and_all, and_all);
    atomicXor(&out->xor_all, xor_all);
    atomicAdd(&out->cas_sum, cas_sum);
    atomicMin(&out->smin, smin);
    atomicMax(&out->smax, smax);
    atomicExch(&out->inc, inc); // the last CTA's, all equal: every CTA sees the same count
    atomicExch(&out->dec, dec);
  }
}

// Host references.
static unsigned crc_table(unsigned poly, unsigned i) {
  for (int k = 0; k < 8; ++k) i = (i & 1) ? poly ^ (i >> 1) : i >> 1;
  return i;
}
static unsigned rotl_h(unsigned v, int s) { return (v << s) | (v >> (32 - s)); }

int main(int argc, char** argv) {
  const int msgs = argc > 1 ? atoi(argv[1]) : 300;
  const int n = argc > 2 ? atoi(argv[2]) : 4000;
  int bad = 0;
  unsigned seed = 2463534242u;
  auto rnd = [&] {
    seed ^= seed << 13, seed ^= seed >> 17, seed ^= seed << 5;
    return seed;
  };

  // 1. Hashes.
  std::vector<unsigned> t32c(256);
  for (int i = 0; i < 256; ++i) t32c[i] = crc_table(0x82f63b78u, i);
  CHECK(cudaMemcpyToSymbol(c_crc32c, t32c.data(), 256 * 4));
  std::vector<int> offsets(msgs + 1, 0);
  for (int m = 0; m < msgs; ++m)
    offsets[m + 1] = offsets[m] + (m % 9 == 0 ? m % 4 : 5 + rnd() % 90);
  std::vector<unsigned char> bytes(offsets[msgs] + 4);
  for (auto& c : bytes) c = (unsigned char)(rnd() >> 7);
  memcpy(bytes.data(), "123456789", 9); // message 0 is empty (0 % 4), so this spans 1..
  unsigned char* d_bytes;
  int* d_off;
  Hashes* d_h;
  CHECK(cudaMalloc(&d_bytes, bytes.size()));
  CHECK(cudaMalloc(&d_off, (msgs + 1) * 4));
  CHECK(cudaMalloc(&d_h, msgs * sizeof(Hashes)));
  CHECK(cudaMemcpy(d_bytes, bytes.data(), bytes.size(), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_off, offsets.data(), (msgs + 1) * 4, cudaMemcpyHostToDevice));
  hash_messages<<<(msgs + 127) / 128, 128>>>(d_bytes, d_off, msgs, d_h);
  CHECK(cudaGetLastError());
  std::vector<Hashes> hs(msgs);
  CHECK(cudaMemcpy(hs.data(), d_h, msgs * sizeof(Hashes), cudaMemcpyDeviceToHost));
  for (int m = 0; m < msgs; ++m) {
    unsigned crc = ~0u, crcc = ~0u, a = 1, b = 0, h = 0x9747b28cu;
    u64 fnv = 0xcbf29ce484222325ull;
    int i = offsets[m], end = offsets[m + 1];
    auto byte = [&](unsigned char v) {
      crc = crc_table(0xedb88320u, (crc ^ v) & 0xff) ^ (crc >> 8);
      crcc = t32c[(crcc ^ v) & 0xff] ^ (crcc >> 8);
      a = (a + v) % 65521u;
      b = (b + a) % 65521u;
      fnv = (fnv ^ v) * 0x100000001b3ull;
    };
    for (; i < end && (i & 3); ++i) byte(bytes[i]);
    for (; i + 4 <= end; i += 4) {
      for (int k = 0; k < 4; ++k) byte(bytes[i + k]);
      unsigned k;
      memcpy(&k, &bytes[i], 4);
      k *= 0xcc9e2d51u;
      k = rotl_h(k, 15);
      k *= 0x1b873593u;
      h ^= k;
      h = rotl_h(h, 13);
      h = h * 5 + 0xe6546b64u;
    }
    for (; i < end; ++i) {
      byte(bytes[i]);
      h ^= bytes[i] * 0xcc9e2d51u;
    }
    h ^= (unsigned)(end - offsets[m]);
    h ^= h >> 16, h *= 0x85ebca6bu, h ^= h >> 13, h *= 0xc2b2ae35u, h ^= h >> 16;
    const Hashes& g = hs[m];
    if (g.crc32 != ~crc || g.crc32c != ~crcc || g.adler != ((b << 16) | a) || g.murmur != h ||
        g.fnv != fnv) {
      if (bad < 20)
        std::printf("hash %d (%d bytes): crc32 %08x/%08x crc32c %08x/%08x adler %08x/%08x murmur "
                    "%08x/%08x fnv %016llx/%016llx\n",
                    m, end - offsets[m], g.crc32, ~crc, g.crc32c, ~crcc, g.adler, (b << 16) | a,
                    g.murmur, h, g.fnv, fnv);
      ++bad;
    }
  }
  // The check value of CRC-32 ("123456789"): the reference's table is right.
  {
    unsigned c = ~0u;
    for (int i = 0; i < 9; ++i) c = crc_table(0xedb88320u, (c ^ "123456789"[i]) & 0xff) ^ (c >> 8);
    if (~c != 0xcbf43926u) std::printf("host CRC-32 check value wrong\n"), ++bad;
  }

  // 2. Radix sort, twice (random keys, then keys with many duplicates and the extremes).
  const int ctas = (n + kTile - 1) / kTile;
  if (ctas * 256 > 1024 * 64) return finish(1);
  int* d_k[2];
  unsigned *d_v[2], *d_counts;
  for (int j = 0; j < 2; ++j) {
    CHECK(cudaMalloc(&d_k[j], n * 4));
    CHECK(cudaMalloc(&d_v[j], n * 4));
  }
  CHECK(cudaMalloc(&d_counts, 256 * ctas * 4));
  for (int rep = 0; rep < 2; ++rep) {
    std::vector<int> keys(n);
    std::vector<unsigned> vals(n);
    for (int i = 0; i < n; ++i) {
      keys[i] = rep == 0 ? (int)rnd() : (int)(rnd() % 37) - 18;
      if (rep == 1 && i % 97 == 0) keys[i] = i % 2 ? INT32_MIN : INT32_MAX;
      vals[i] = i;
    }
    CHECK(cudaMemcpy(d_k[0], keys.data(), n * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_v[0], vals.data(), n * 4, cudaMemcpyHostToDevice));
    for (int pass = 0; pass < 4; ++pass) {
      int in = pass % 2, shift = pass * 8;
      digit_histogram<<<ctas, kThreads>>>(d_k[in], n, shift, d_counts);
      scan_counts<<<1, 256>>>(d_counts, 256 * ctas);
      scatter<<<ctas, kThreads>>>(d_k[in], d_v[in], d_k[1 - in], d_v[1 - in], n, shift, d_counts);
      CHECK(cudaGetLastError());
    }
    std::vector<int> sk(n);
    std::vector<unsigned> sv(n);
    CHECK(cudaMemcpy(sk.data(), d_k[0], n * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(sv.data(), d_v[0], n * 4, cudaMemcpyDeviceToHost));
    std::vector<unsigned> order(n);
    for (int i = 0; i < n; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](unsigned x, unsigned y) { return keys[x] < keys[y]; });
    int wrong = 0;
    for (int i = 0; i < n; ++i)
      if (sk[i] != keys[order[i]] || sv[i] != order[i]) {
        if (wrong++ < 5)
          std::printf("sort %d: [%d] = (%d, %u), want (%d, %u)\n", rep, i, sk[i], sv[i],
                      keys[order[i]], order[i]);
      }
    bad += wrong;
  }

  // 3. Bloom filter over the last keys, then 64-bit atomics.
  std::vector<int> keys(n);
  CHECK(cudaMemcpy(keys.data(), d_k[0], n * 4, cudaMemcpyDeviceToHost));
  const int words = 512;
  u64* d_f;
  CHECK(cudaMalloc(&d_f, words * 8));
  CHECK(cudaMemset(d_f, 0, words * 8));
  bloom_insert<<<(n + 255) / 256, 256>>>(d_k[0], n, d_f, words);
  CHECK(cudaGetLastError());
  std::vector<u64> f(words), wf(words, 0);
  CHECK(cudaMemcpy(f.data(), d_f, words * 8, cudaMemcpyDeviceToHost));
  for (int k : keys) {
    unsigned h1 = (unsigned)k * 0x9e3779b1u, h2 = rotl_h((unsigned)k ^ 0x5bd1e995u, 17) | 1;
    for (int j = 0; j < 3; ++j) {
      unsigned bit = (h1 + j * h2) % (unsigned)(words * 64);
      wf[bit / 64] |= 1ull << (bit % 64);
    }
  }
  if (f != wf) std::printf("bloom filter differs\n"), ++bad;

  const int actas = 5, athreads = 128;
  const unsigned wrap = 777;
  Atom64 init{~0ull, 0, ~0ull, 0, 0, 1ll << 62, -(1ll << 62), 0, 0}, got;
  Atom64* d_a;
  CHECK(cudaMalloc(&d_a, sizeof(Atom64)));
  CHECK(cudaMemcpy(d_a, &init, sizeof init, cudaMemcpyHostToDevice));
  // Each CTA handles the same number of keys: n a multiple of actas * athreads below.
  const int an = n / (actas * athreads) * (actas * athreads);
  atomics64<<<actas, athreads>>>(d_k[0], an, d_a, wrap);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(&got, d_a, sizeof got, cudaMemcpyDeviceToHost));
  Atom64 w = init;
  for (int i = 0; i < an; ++i) {
    long long k = keys[i];
    u64 v = (u64)(k * 0x100000001ll) ^ ((u64)i << 40);
    w.mn = std::min(w.mn, v), w.mx = std::max(w.mx, v);
    w.and_all &= v | 0x0101010101010101ull;
    w.xor_all ^= v;
    w.cas_sum += (u64)(k & 0xffff);
    w.smin = std::min(w.smin, k * 1000003ll), w.smax = std::max(w.smax, k * 1000003ll);
  }
  unsigned per = an / actas, inc = 0, dec = 0;
  for (unsigned j = 0; j < per; ++j) {
    inc = inc >= wrap ? 0 : inc + 1;
    dec = (dec == 0 || dec > wrap) ? wrap : dec - 1;
  }
  if (got.mn != w.mn || got.mx != w.mx || got.and_all != w.and_all || got.xor_all != w.xor_all ||
      got.cas_sum != w.cas_sum || got.smin != w.smin || got.smax != w.smax || got.inc != inc ||
      got.dec != dec) {
    std::printf("atomics64: min %llx/%llx max %llx/%llx and %llx/%llx xor %llx/%llx cas %llu/%llu "
                "smin %lld/%lld smax %lld/%lld inc %u/%u dec %u/%u\n",
                got.mn, w.mn, got.mx, w.mx, got.and_all, w.and_all, got.xor_all, w.xor_all,
                got.cas_sum, w.cas_sum, got.smin, w.smin, got.smax, w.smax, got.inc, inc, got.dec,
                dec);
    ++bad;
  }
  CHECK(cudaDeviceSynchronize());
  return finish(bad);
}
