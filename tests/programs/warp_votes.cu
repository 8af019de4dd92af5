// Warp-level intrinsics with the masks and widths real code gives them (built with sm_80 PTX,
// the one gpurf runs: redux.sync, match.sync): __ballot_sync over the whole warp and over the
// lanes of a branch (a partial mask), __any_sync / __all_sync on a partial mask,
// __shfl_up/down/xor_sync and __shfl_sync with widths 4, 8 and 16 (offsets that leave the
// segment, lane indices from registers, 64-bit values), __match_any_sync on 32- and 64-bit keys,
// __match_all_sync with its predicate, __reduce_add/min/max_sync on the whole warp and on the
// even lanes, __activemask in a data-dependent branch, and a last warp cut short by the grid
// (its mask from a ballot before the idle lanes leave). The host computes every result from
// PTX's definitions (shfl's segment rules, match, redux); each of the 18 results per thread
// must match bit for bit. Argument: threads (a multiple of 32; the partial-warp kernel adds 13).
#include "check.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

constexpr int kOut = 18;
constexpr unsigned kFull = 0xffffffffu;

// sm_80's redux.sync; the compute_75 PTX nvcc also embeds (gpurf runs the higher) has shuffles.
__device__ unsigned red_add(unsigned mask, unsigned v) {
#if __CUDA_ARCH__ >= 800
  return __reduce_add_sync(mask, v);
#else
  unsigned s = 0;
  for (int l = 0; l < 32; ++l)
    if (mask >> l & 1) s += __shfl_sync(mask, v, l);
  return s;
#endif
}
__device__ unsigned red_min(unsigned v) {
#if __CUDA_ARCH__ >= 800
  return __reduce_min_sync(kFull, v);
#else
  for (int o = 1; o < 32; o *= 2) v = min(v, __shfl_xor_sync(kFull, v, o));
  return v;
#endif
}
__device__ int red_max(int v) {
#if __CUDA_ARCH__ >= 800
  return __reduce_max_sync(kFull, v);
#else
  for (int o = 1; o < 32; o *= 2) v = max(v, __shfl_xor_sync(kFull, v, o));
  return v;
#endif
}

__global__ void warp_ops(const unsigned* __restrict__ in, unsigned* __restrict__ out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned lane = threadIdx.x % 32;
  const unsigned v = in[i];
  unsigned* o = out + size_t(i) * kOut;
  o[0] = __ballot_sync(kFull, v & 1);
  // Lanes not divisible by 3: a branch whose mask the code knows.
  const unsigned not3 = 0xb6db6db6u; // lanes 1, 2, 4, 5, 7, 8, ...
  if (lane % 3 != 0) {
    o[1] = __ballot_sync(not3, v & 2);
    o[2] = __any_sync(not3, (v & 0xff) == 0x17) | __all_sync(not3, v != 0) << 1;
  } else {
    o[1] = 0;
    o[2] = 0;
  }
  o[3] = __shfl_xor_sync(kFull, v, 12, 8); // lane ^ 12 leaves the segment of 8
  o[4] = __shfl_up_sync(kFull, v, 3, 16);
  o[5] = __shfl_down_sync(kFull, v, 5, 8);
  o[6] = __shfl_sync(kFull, v, lane * 7 + 3, 16); // index from a register, past the segment
  o[7] = __shfl_xor_sync(kFull, v, 1, 4);
  o[8] = __match_any_sync(kFull, v % 5);
  int pred = 0;
  const unsigned key = lane < 16 ? 7u : v % 2;
  o[9] = __match_all_sync(kFull, key, &pred);
  o[10] = unsigned(pred);
  o[11] = red_add(kFull, v & 0xffff);
  o[12] = red_min(v);
  o[13] = unsigned(red_max(int(v)));
  if (lane % 2 == 0)
    o[14] = red_add(0x55555555u, v >> 20);
  else
    o[14] = 0;
  o[15] = (v % 4 == 0) ? __activemask() : 0;
  const unsigned long long wide = (unsigned long long)(v % 3) << 40 | (v % 2);
  o[16] = __match_any_sync(kFull, wide);
  const double d = double(v) * 0.5;
  const double got = __shfl_sync(kFull, d, (lane + 1) % 4, 4);
  o[17] = unsigned(got * 2.0) ^ __brev(__ballot_sync(kFull, lane < 20 && (v & 4)));
}

// The grid ends 13 threads into its last warp: the live lanes' mask comes from a ballot taken
// before the others leave, and the remaining collectives use it.
__global__ void partial_warp(const unsigned* __restrict__ in, unsigned* __restrict__ out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned live = __ballot_sync(kFull, i < n);
  if (i >= n) return;
  const unsigned v = in[i];
  const unsigned sum = red_add(live, v & 0xff);
  const unsigned first = __shfl_sync(live, v, __ffs(live) - 1);
  const unsigned same = __match_any_sync(live, v & 3);
  out[3 * i] = sum;
  out[3 * i + 1] = first;
  out[3 * i + 2] = same;
}

namespace {
// PTX's shfl.sync for a warp of values: mode 0 up, 1 down, 2 bfly, 3 idx; b per lane; c as
// CUDA's headers pass it (width w: ((32 - w) << 8), | 0x1f except for up).
std::vector<uint64_t> shfl(const std::vector<uint64_t>& val, int mode,
                           const std::vector<unsigned>& b, unsigned c) {
  std::vector<uint64_t> r(32);
  const unsigned segmask = (c >> 8) & 0x1f, cval = c & 0x1f;
  for (unsigned lane = 0; lane < 32; ++lane) {
    const unsigned bval = b[lane] & 0x1f;
    const unsigned maxl = (lane & segmask) | (cval & ~segmask), minl = lane & segmask;
    int j = 0;
    bool p = false;
    switch (mode) {
    case 0:
      j = int(lane) - int(bval), p = j >= int(maxl);
      break;
    case 1:
      j = int(lane + bval), p = j <= int(maxl);
      break;
    case 2:
      j = int(lane ^ bval), p = j <= int(maxl);
      break;
    default:
      j = int(minl | (bval & ~segmask)), p = j <= int(maxl);
      break;
    }
    r[lane] = val[p ? j : lane];
  }
  return r;
}
unsigned brev(unsigned x) {
  unsigned r = 0;
  for (int b = 0; b < 32; ++b) r |= ((x >> b) & 1u) << (31 - b);
  return r;
}
unsigned width_c(unsigned w, bool up) { return ((32 - w) << 8) | (up ? 0 : 0x1f); }
} // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 2048;
  if (n % 32) return finish(1);
  std::vector<unsigned> in(n + 64);
  uint32_t s = 2463534242u;
  for (auto& x : in) {
    s ^= s << 13, s ^= s >> 17, s ^= s << 5;
    x = s;
  }
  for (int i = 0; i < n; i += 97) in[i] = in[i + 1]; // equal neighbours for the matches
  for (int i = 5; i < n; i += 64) in[i] = (in[i] & ~0xffu) | 0x17;
  unsigned *d_in, *d_out;
  const int pn = n / 2 + 13; // partial_warp's threads
  CHECK(cudaMalloc(&d_in, in.size() * sizeof(unsigned)));
  CHECK(cudaMalloc(&d_out, size_t(n) * kOut * sizeof(unsigned)));
  CHECK(cudaMemcpy(d_in, in.data(), in.size() * sizeof(unsigned), cudaMemcpyHostToDevice));
  warp_ops<<<n / 128, 128>>>(d_in, d_out, n);
  CHECK(cudaGetLastError());
  std::vector<unsigned> out(size_t(n) * kOut);
  CHECK(cudaMemcpy(out.data(), d_out, out.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
  partial_warp<<<(pn + 63) / 64, 64>>>(d_in, d_out, pn);
  CHECK(cudaGetLastError());
  std::vector<unsigned> pout(3 * size_t(pn));
  CHECK(cudaMemcpy(pout.data(), d_out, pout.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));

  int bad = 0;
  auto expect = [&](const char* what, int i, unsigned got, unsigned want) {
    if (got == want) return;
    if (bad < 12) std::printf("%s, thread %d: 0x%08x, host 0x%08x\n", what, i, got, want);
    ++bad;
  };
  const char* names[kOut] = {"ballot",       "partial ballot", "partial any/all", "xor 12 w8",
                             "up 3 w16",     "down 5 w8",      "idx w16",         "xor 1 w4",
                             "match_any",    "match_all",      "match_all pred",  "reduce_add",
                             "reduce_min",   "reduce_max",     "even reduce_add", "activemask",
                             "match_any 64", "double shfl w4"};
  for (int w = 0; w < n / 32; ++w) {
    std::vector<uint64_t> v(32);
    std::vector<unsigned> lanes(32), c3(32, 3), c5(32, 5), c12(32, 12), c1(32, 1), idx(32);
    for (unsigned l = 0; l < 32; ++l) {
      v[l] = in[w * 32 + l];
      lanes[l] = l;
      idx[l] = l * 7 + 3;
    }
    unsigned ballot = 0, pballot = 0, even_sum = 0, sum = 0, mn = ~0u, act = 0, hi20 = 0;
    int mx = INT32_MIN;
    bool any = false, all = true;
    for (unsigned l = 0; l < 32; ++l) {
      const unsigned x = unsigned(v[l]);
      ballot |= (x & 1u) << l;
      if (l % 3) {
        pballot |= unsigned((x & 2) != 0) << l;
        any |= (x & 0xff) == 0x17;
        all &= x != 0;
      }
      sum += x & 0xffff;
      mn = std::min(mn, x);
      mx = std::max(mx, int(x));
      if (l % 2 == 0) even_sum += x >> 20;
      if (x % 4 == 0) act |= 1u << l;
      hi20 |= unsigned(l < 20 && (x & 4)) << l;
    }
    const auto x12 = shfl(v, 2, c12, width_c(8, false)), u3 = shfl(v, 0, c3, width_c(16, true)),
               d5 = shfl(v, 1, c5, width_c(8, false)), i16 = shfl(v, 3, idx, width_c(16, false)),
               x1 = shfl(v, 2, c1, width_c(4, false));
    std::vector<unsigned> src4(32);
    for (unsigned l = 0; l < 32; ++l) src4[l] = (l + 1) % 4;
    const auto dsh = shfl(v, 3, src4, width_c(4, false));
    unsigned keys_equal = 1;
    for (unsigned l = 1; l < 32; ++l) {
      const unsigned k0 = 7u, kl = l < 16 ? 7u : unsigned(v[l]) % 2;
      keys_equal &= kl == k0;
    }
    for (unsigned l = 0; l < 32; ++l) {
      const int i = w * 32 + l;
      const unsigned* o = &out[size_t(i) * kOut];
      const unsigned x = unsigned(v[l]);
      unsigned m5 = 0, m64 = 0;
      for (unsigned k = 0; k < 32; ++k) {
        m5 |= unsigned(unsigned(v[k]) % 5 == x % 5) << k;
        m64 |= unsigned(unsigned(v[k]) % 3 == x % 3 && unsigned(v[k]) % 2 == x % 2) << k;
      }
      const unsigned want[kOut] = {ballot,
                                   l % 3 ? pballot : 0,
                                   l % 3 ? unsigned(any) | unsigned(all) << 1 : 0,
                                   unsigned(x12[l]),
                                   unsigned(u3[l]),
                                   unsigned(d5[l]),
                                   unsigned(i16[l]),
                                   unsigned(x1[l]),
                                   m5,
                                   keys_equal ? kFull : 0,
                                   keys_equal,
                                   sum,
                                   mn,
                                   unsigned(mx),
                                   l % 2 == 0 ? even_sum : 0,
                                   x % 4 == 0 ? act : 0,
                                   m64,
                                   unsigned(dsh[l]) ^ brev(hi20)};
      for (int k = 0; k < kOut; ++k) expect(names[k], i, o[k], want[k]);
    }
  }
  for (int w = 0; w * 32 < pn; ++w) {
    const int live = std::min(32, pn - w * 32);
    unsigned sum = 0;
    for (int l = 0; l < live; ++l) sum += in[w * 32 + l] & 0xff;
    for (int l = 0; l < live; ++l) {
      const int i = w * 32 + l;
      unsigned same = 0;
      for (int k = 0; k < live; ++k) same |= unsigned((in[w * 32 + k] & 3) == (in[i] & 3)) << k;
      expect("partial warp sum", i, pout[3 * i], sum);
      expect("partial warp shfl", i, pout[3 * i + 1], in[w * 32]);
      expect("partial warp match", i, pout[3 * i + 2], same);
    }
  }
  std::printf("%d threads x %d results, %d partial-warp threads: %d wrong\n", n, kOut, pn, bad);
  return finish(bad);
}
