// Cooperative groups below the grid, as libraries and applications use them (built with sm_80
// PTX, the one gpurf runs: redux.sync, match.sync): cg::reduce over thread_block_tile<16>,
// tile<4> and a dynamic tiled_partition(block, 8); warp-aggregated atomics through
// coalesced_threads() in divergent code (a stream compaction); labeled_partition and
// binary_partition against __match_any_sync and __reduce_add/min/max_sync; a stable LSD radix
// sort of 16-bit keys built from cg::exclusive_scan / inclusive_scan of tiles (4 passes of
// histogram, scan and scatter kernels in a host loop: 12 launches); a stencil whose tiles come
// in through cg::memcpy_async with double buffering (wait_prior); tiles of 64 and 128 threads
// (their scratch in the CTA's reserved shared memory); tile votes, matches and shuffles. Every
// output against the host.
#include "check.h"

#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace cg = cooperative_groups;

constexpr int kBlock = 256;

// Per tile of 16: the sum of floats (small multiples of 1/8: exact in any order) and the
// maximum of ints; per tile of 4 the minimum; per dynamic tile of 8 the bitwise or.
__global__ void tile_reduce(const float* f, const int* v, float* sum16, int* max16, int* min4,
                            unsigned* or8, int n) {
  cg::thread_block block = cg::this_thread_block();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float x = i < n ? f[i] : 0.0f;
  int k = i < n ? v[i] : 0;
  cg::thread_block_tile<16> t16 = cg::tiled_partition<16>(block);
  float s = cg::reduce(t16, x, cg::plus<float>());
  int m = cg::reduce(t16, k, cg::greater<int>());
  if (t16.thread_rank() == 0) {
    int tile = i / 16;
    sum16[tile] = s;
    max16[tile] = m;
  }
  cg::thread_block_tile<4> t4 = cg::tiled_partition<4>(block);
  int lo = cg::reduce(t4, k, cg::less<int>());
  if (t4.thread_rank() == 3) min4[i / 4] = lo;
  cg::thread_group t8 = cg::tiled_partition(block, 8);
  __shared__ unsigned bits[kBlock];
  bits[threadIdx.x] = (unsigned)k;
  block.sync();
  // a thread_group has no reduce: a tree over shared memory, synchronised by the group
  for (int w = 4; w > 0; w /= 2) {
    unsigned other = 0;
    if ((int)t8.thread_rank() < w) other = bits[threadIdx.x + w];
    t8.sync();
    if ((int)t8.thread_rank() < w) bits[threadIdx.x] |= other;
    t8.sync();
  }
  if (t8.thread_rank() == 0) or8[i / 8] = bits[threadIdx.x];
}

// Warp-aggregated atomics: the lanes that take the branch elect one to reserve their slots.
__device__ __noinline__ int reserve(int* counter) {
  cg::coalesced_group active = cg::coalesced_threads();
  int base = 0;
  if (active.thread_rank() == 0) base = atomicAdd(counter, (int)active.size());
  base = active.shfl(base, 0);
  return base + (int)active.thread_rank();
}

__global__ void compact(const int* in, int* out, int* counter, int* group_sizes, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = in[i];
  if (v % 3 == 0) {
    int slot = reserve(counter);
    out[slot] = v;
  } else if (v % 3 == 1) {
    cg::coalesced_group g = cg::coalesced_threads();
    // the odd lanes of the group among those with v % 3 == 1
    if (g.thread_rank() % 2 == 1) {
      cg::coalesced_group h = cg::coalesced_threads();
      if (h.thread_rank() == 0) group_sizes[i / 32] = (int)(h.size() * 100 + g.size());
    }
  }
}

// labeled_partition by key against __match_any_sync, and their reductions against
// __reduce_*_sync; binary_partition by parity.
__global__ void labeled(const int* keys, const int* vals, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(cg::this_thread_block());
  int key = i < n ? keys[i] : -1;
  int val = i < n ? vals[i] : 0;
  cg::coalesced_group g = cg::labeled_partition(warp, key);
  int sum = cg::reduce(g, val, cg::plus<int>());
  unsigned peers = __match_any_sync(0xffffffffu, key);
#if __CUDA_ARCH__ >= 800 // redux.sync (the PTX gpurf runs: sm_80's)
  int sum2 = (int)__reduce_add_sync(peers, (unsigned)val);
  int lo = __reduce_min_sync(peers, val);
  int hi = (int)__reduce_max_sync(peers, (unsigned)val);
#else
  int sum2 = sum, lo = cg::reduce(g, val, cg::less<int>()),
      hi = cg::reduce(g, val, cg::greater<int>());
#endif
  cg::coalesced_group b = cg::binary_partition(warp, (val & 1) != 0);
  int bsum = cg::reduce(b, val, cg::plus<int>());
  unsigned all_same = 0;
  int pred = 0;
  __match_all_sync(0xffffffffu, key / 8, &pred);
  all_same = (unsigned)pred;
  if (i < n) {
    int* o = out + i * 8;
    o[0] = sum;
    o[1] = sum2;
    o[2] = (int)g.size();
    o[3] = (int)g.thread_rank();
    o[4] = lo;
    o[5] = hi;
    o[6] = bsum;
    o[7] = (int)all_same;
  }
}

// A block-wide exclusive scan out of tile scans: each warp scans, warp 0 scans the totals.
template <typename T> __device__ T block_exclusive_scan(T v, T* total) {
  __shared__ T warp_totals[kBlock / 32];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  T incl = cg::inclusive_scan(warp, v);
  if (warp.thread_rank() == 31) warp_totals[warp.meta_group_rank()] = incl;
  block.sync();
  if (warp.meta_group_rank() == 0) {
    T t = warp.thread_rank() < kBlock / 32 ? warp_totals[warp.thread_rank()] : 0;
    T ex = cg::exclusive_scan(warp, t, cg::plus<T>());
    if (warp.thread_rank() < kBlock / 32) warp_totals[warp.thread_rank()] = ex;
    if (warp.thread_rank() == kBlock / 32 - 1) *total = ex + t;
  }
  block.sync();
  T r = incl - v + warp_totals[warp.meta_group_rank()];
  block.sync();
  return r;
}

constexpr int kRadix = 16;
// Pass 1: each block's count of each digit, stored digit-major (digit * blocks + block).
__global__ void radix_histogram(const unsigned* keys, unsigned* counts, int n, int shift) {
  __shared__ unsigned hist[kRadix];
  if (threadIdx.x < kRadix) hist[threadIdx.x] = 0;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&hist[(keys[i] >> shift) & (kRadix - 1)], 1u);
  __syncthreads();
  if (threadIdx.x < kRadix) counts[threadIdx.x * gridDim.x + blockIdx.x] = hist[threadIdx.x];
}

// Pass 2: one block scans the counts (every digit of every block, in that order).
__global__ void radix_scan(unsigned* counts, int m) {
  __shared__ unsigned carry;
  if (threadIdx.x == 0) carry = 0;
  __syncthreads();
  for (int base = 0; base < m; base += kBlock) {
    int i = base + threadIdx.x;
    unsigned v = i < m ? counts[i] : 0;
    __shared__ unsigned total;
    unsigned ex = block_exclusive_scan<unsigned>(v, &total);
    if (i < m) counts[i] = ex + carry;
    __syncthreads();
    if (threadIdx.x == 0) carry += total;
    __syncthreads();
  }
}

// Pass 3: a stable scatter: each key's rank among its block's keys of the same digit.
__global__ void radix_scatter(const unsigned* keys, const unsigned* vals, unsigned* keys_out,
                              unsigned* vals_out, const unsigned* offsets, int n, int shift) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned key = i < n ? keys[i] : 0;
  int digit = i < n ? (int)((key >> shift) & (kRadix - 1)) : -1;
  unsigned dest = 0;
  for (int d = 0; d < kRadix; ++d) {
    __shared__ unsigned total;
    unsigned rank = block_exclusive_scan<unsigned>(digit == d ? 1u : 0u, &total);
    if (digit == d) dest = offsets[d * gridDim.x + blockIdx.x] + rank;
  }
  if (i < n) {
    keys_out[dest] = key;
    vals_out[dest] = vals[i];
  }
}

// A 1D 5-point stencil over tiles loaded with memcpy_async, the next tile in flight while
// the current one is computed (two stages, wait_prior<1>).
constexpr int kTile = 512, kHalo = 2;
__global__ void stencil_async(const float* in, float* out, int tiles_per_block, int n) {
  __shared__ float buf[2][kTile + 2 * kHalo];
  cg::thread_block block = cg::this_thread_block();
  int first = blockIdx.x * tiles_per_block;
  auto load = [&](int t, int stage) {
    // tile t covers [t*kTile, (t+1)*kTile) with its halo, clamped by the padded input
    cg::memcpy_async(block, buf[stage], in + (size_t)t * kTile,
                     sizeof(float) * (kTile + 2 * kHalo));
  };
  load(first, 0);
  for (int k = 0; k < tiles_per_block; ++k) {
    int t = first + k;
    if (k + 1 < tiles_per_block) {
      load(t + 1, (k + 1) % 2);
      cg::wait_prior<1>(block);
    } else {
      cg::wait(block);
    }
    float* b = buf[k % 2];
    for (int j = threadIdx.x; j < kTile; j += blockDim.x) {
      int g = t * kTile + j;
      if (g < n)
        out[g] = 0.5f * b[j + 2] + 0.25f * (b[j + 1] + b[j + 3]) - 0.125f * (b[j] + b[j + 4]);
    }
    block.sync();
  }
}

// Tiles of several warps (sm_80: their scratch lives in the CTA's reserved shared memory):
// sums over tiles of 64 and 128 threads, and a barrier of the tile between two phases.
__global__ void big_tiles(const int* in, int* out, int n) {
  cg::thread_block block = cg::this_thread_block();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  cg::thread_block_tile<64> t64 = cg::tiled_partition<64>(block);
  int s64 = cg::reduce(t64, v, cg::plus<int>());
  cg::thread_block_tile<128> t128 = cg::tiled_partition<128>(block);
  int m128 = cg::reduce(t128, v * 3 + 1, cg::greater<int>());
  __shared__ int stage[kBlock];
  stage[threadIdx.x] = v;
  t128.sync();
  // the tile's last thread's value, through shared memory after the tile's barrier
  int last = stage[(threadIdx.x / 128) * 128 + 127];
  if (i < n) {
    out[i * 3] = s64;
    out[i * 3 + 1] = m128;
    out[i * 3 + 2] = last + (int)t64.meta_group_rank() * 1000;
  }
}

// Votes, matches and shuffles of tiles of 8, and meta-group ranks.
__global__ void tile_vote(const int* in, int* out, int n) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<8> t = cg::tiled_partition<8>(block);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  int* o = out + i * 6;
  unsigned ballot = t.ballot(v > 50);
  int any = t.any(v > 90);
  int all = t.all(v > 5);
  unsigned match = t.match_any(v % 4);
  int up = t.shfl_up(v, 3);
  int x = t.shfl_xor(v, 5);
  if (i < n) {
    o[0] = (int)ballot;
    o[1] = any | all << 1 | (int)t.meta_group_rank() << 8 | (int)t.meta_group_size() << 16;
    o[2] = (int)match;
    o[3] = up;
    o[4] = x;
    o[5] = t.shfl(v, (int)(t.thread_rank() * 3) % 8);
  }
}

// ---------------------------------------------------------------------------------------------

static uint32_t rng = 12345;
static uint32_t next_u32() {
  rng ^= rng << 13;
  rng ^= rng >> 17;
  rng ^= rng << 5;
  return rng;
}

int main(int argc, char** argv) {
  int bad = 0;
  // Elements (argument 1, default 4,000): not a multiple of the block, the last block's tail is
  // idle.
  const int n = argc > 1 ? std::atoi(argv[1]) : 4000;
  const int grid = (n + kBlock - 1) / kBlock;
  const int padded = grid * kBlock;
  std::vector<float> f(n);
  std::vector<int> v(n);
  for (int i = 0; i < n; ++i) {
    f[i] = (float)((int)(next_u32() % 2001) - 1000) / 8.0f;
    v[i] = (int)(next_u32() % 100);
  }
  float *d_f, *d_sum16;
  int *d_v, *d_max16, *d_min4, *d_out, *d_counter, *d_sizes;
  unsigned* d_or8;
  CHECK(cudaMalloc(&d_f, n * 4));
  CHECK(cudaMalloc(&d_v, n * 4));
  CHECK(cudaMalloc(&d_sum16, padded / 16 * 4));
  CHECK(cudaMalloc(&d_max16, padded / 16 * 4));
  CHECK(cudaMalloc(&d_min4, padded / 4 * 4));
  CHECK(cudaMalloc(&d_or8, padded / 8 * 4));
  CHECK(cudaMalloc(&d_out, padded * 8 * 4));
  CHECK(cudaMalloc(&d_counter, 4));
  CHECK(cudaMalloc(&d_sizes, padded / 32 * 4));
  CHECK(cudaMemcpy(d_f, f.data(), n * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_v, v.data(), n * 4, cudaMemcpyHostToDevice));

  // 1. Tile reductions.
  tile_reduce<<<grid, kBlock>>>(d_f, d_v, d_sum16, d_max16, d_min4, d_or8, n);
  CHECK(cudaGetLastError());
  {
    std::vector<float> s16(padded / 16);
    std::vector<int> m16(padded / 16), m4(padded / 4);
    std::vector<unsigned> o8(padded / 8);
    CHECK(cudaMemcpy(s16.data(), d_sum16, s16.size() * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(m16.data(), d_max16, m16.size() * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(m4.data(), d_min4, m4.size() * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(o8.data(), d_or8, o8.size() * 4, cudaMemcpyDeviceToHost));
    int b = 0;
    for (int t = 0; t < padded / 16; ++t) {
      float s = 0;
      int m = INT32_MIN;
      for (int j = t * 16; j < t * 16 + 16; ++j) {
        s += j < n ? f[j] : 0.0f;
        m = std::max(m, j < n ? v[j] : 0);
      }
      if (s != s16[t] || m != m16[t]) {
        if (b++ < 5) std::printf("tile16 %d: sum %g max %d, want %g %d\n", t, s16[t], m16[t], s, m);
      }
    }
    for (int t = 0; t < padded / 4; ++t) {
      int m = INT32_MAX;
      for (int j = t * 4; j < t * 4 + 4; ++j) m = std::min(m, j < n ? v[j] : 0);
      if (m != m4[t] && b++ < 5) std::printf("tile4 %d: min %d, want %d\n", t, m4[t], m);
    }
    for (int t = 0; t < padded / 8; ++t) {
      unsigned o = 0;
      for (int j = t * 8; j < t * 8 + 8; ++j) o |= j < n ? (unsigned)v[j] : 0u;
      if (o != o8[t] && b++ < 5) std::printf("tile8 %d: or %#x, want %#x\n", t, o8[t], o);
    }
    std::printf("tile reductions: %d wrong\n", b);
    bad += b;
  }

  // 2. Stream compaction through coalesced groups, three times (the counter carried over).
  {
    CHECK(cudaMemset(d_counter, 0, 4));
    CHECK(cudaMemset(d_sizes, 0xff, padded / 32 * 4));
    int* d_compact;
    CHECK(cudaMalloc(&d_compact, 3 * n * 4));
    for (int r = 0; r < 3; ++r) compact<<<grid, kBlock>>>(d_v, d_compact, d_counter, d_sizes, n);
    CHECK(cudaGetLastError());
    int count = 0;
    CHECK(cudaMemcpy(&count, d_counter, 4, cudaMemcpyDeviceToHost));
    std::vector<int> got(count > 0 && count <= 3 * n ? count : 0), sizes(padded / 32);
    CHECK(cudaMemcpy(got.data(), d_compact, got.size() * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(sizes.data(), d_sizes, sizes.size() * 4, cudaMemcpyDeviceToHost));
    std::vector<int> want;
    for (int r = 0; r < 3; ++r)
      for (int x : v)
        if (x % 3 == 0) want.push_back(x);
    std::sort(got.begin(), got.end());
    std::sort(want.begin(), want.end());
    int b = got != want;
    if (b) std::printf("compaction: %d values, want %zu\n", count, want.size());
    for (int w = 0; w < padded / 32; ++w) {
      // per warp: g = lanes with v % 3 == 1; h = g's odd ranks; the last writer wins, but all
      // of them write the same value
      int g = 0;
      for (int j = w * 32; j < w * 32 + 32 && j < n; ++j) g += v[j] % 3 == 1;
      int want_size = g >= 2 ? (g / 2) * 100 + g : -1;
      if (sizes[w] != want_size && b++ < 5)
        std::printf("coalesced sizes warp %d: %d, want %d\n", w, sizes[w], want_size);
    }
    std::printf("compaction: %d wrong\n", b);
    bad += b;
    CHECK(cudaFree(d_compact));
  }

  // 3. Labeled and binary partitions, matches and warp reductions.
  {
    std::vector<int> keys(n);
    for (int i = 0; i < n; ++i) keys[i] = (int)(next_u32() % 5) + (i / 256) * 8;
    int* d_keys;
    CHECK(cudaMalloc(&d_keys, n * 4));
    CHECK(cudaMemcpy(d_keys, keys.data(), n * 4, cudaMemcpyHostToDevice));
    labeled<<<grid, kBlock>>>(d_keys, d_v, d_out, n);
    CHECK(cudaGetLastError());
    std::vector<int> out(n * 8);
    CHECK(cudaMemcpy(out.data(), d_out, out.size() * 4, cudaMemcpyDeviceToHost));
    int b = 0;
    for (int i = 0; i < n; ++i) {
      int w0 = i / 32 * 32;
      int sum = 0, size = 0, rank = 0, lo = INT32_MAX, hi = INT32_MIN, bsum = 0, same = 1;
      for (int j = w0; j < w0 + 32; ++j) {
        int kj = j < n ? keys[j] : -1, vj = j < n ? v[j] : 0;
        if (kj == keys[i]) {
          sum += vj;
          size++;
          rank += j < i;
          lo = std::min(lo, vj);
          hi = std::max(hi, vj);
        }
        if ((vj & 1) == (v[i] & 1)) bsum += vj;
        if (kj / 8 != keys[w0] / 8) same = 0;
      }
      int want[8] = {sum, sum, size, rank, lo, hi, bsum, same};
      for (int k = 0; k < 8; ++k)
        if (out[i * 8 + k] != want[k] && b++ < 8)
          std::printf("labeled: thread %d field %d: %d, want %d\n", i, k, out[i * 8 + k], want[k]);
    }
    std::printf("partitions: %d wrong\n", b);
    bad += b;
    CHECK(cudaFree(d_keys));
  }

  // 4. LSD radix sort of 16-bit keys with a value each: 4 passes of 4 bits, 3 kernels each.
  {
    std::vector<unsigned> keys(n), vals(n);
    for (int i = 0; i < n; ++i) {
      keys[i] = next_u32() & 0xffff;
      vals[i] = (unsigned)i;
    }
    unsigned *d_k[2], *d_val[2], *d_counts;
    for (int s = 0; s < 2; ++s) {
      CHECK(cudaMalloc(&d_k[s], n * 4));
      CHECK(cudaMalloc(&d_val[s], n * 4));
    }
    CHECK(cudaMalloc(&d_counts, kRadix * grid * 4));
    CHECK(cudaMemcpy(d_k[0], keys.data(), n * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_val[0], vals.data(), n * 4, cudaMemcpyHostToDevice));
    int cur = 0;
    for (int shift = 0; shift < 16; shift += 4) {
      radix_histogram<<<grid, kBlock>>>(d_k[cur], d_counts, n, shift);
      radix_scan<<<1, kBlock>>>(d_counts, kRadix * grid);
      radix_scatter<<<grid, kBlock>>>(d_k[cur], d_val[cur], d_k[1 - cur], d_val[1 - cur], d_counts,
                                      n, shift);
      CHECK(cudaGetLastError());
      cur = 1 - cur;
    }
    std::vector<unsigned> got_k(n), got_v(n);
    CHECK(cudaMemcpy(got_k.data(), d_k[cur], n * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(got_v.data(), d_val[cur], n * 4, cudaMemcpyDeviceToHost));
    std::vector<unsigned> order(n);
    for (int i = 0; i < n; ++i) order[i] = (unsigned)i;
    std::stable_sort(order.begin(), order.end(),
                     [&](unsigned a, unsigned b) { return keys[a] < keys[b]; });
    int b = 0;
    for (int i = 0; i < n; ++i)
      if ((got_k[i] != keys[order[i]] || got_v[i] != order[i]) && b++ < 5)
        std::printf("radix sort [%d]: %u/%u, want %u/%u\n", i, got_k[i], got_v[i], keys[order[i]],
                    order[i]);
    std::printf("radix sort: %d wrong\n", b);
    bad += b;
    for (int s = 0; s < 2; ++s) {
      CHECK(cudaFree(d_k[s]));
      CHECK(cudaFree(d_val[s]));
    }
    CHECK(cudaFree(d_counts));
  }

  // 5. The memcpy_async stencil: 24 tiles, 3 per block.
  {
    const int tiles = 24, per_block = 3, m = tiles * kTile;
    std::vector<float> in(m + 2 * kHalo);
    for (auto& x : in) x = (float)((int)(next_u32() % 512) - 256) / 16.0f;
    float *d_in, *d_o;
    CHECK(cudaMalloc(&d_in, in.size() * 4));
    CHECK(cudaMalloc(&d_o, m * 4));
    CHECK(cudaMemcpy(d_in, in.data(), in.size() * 4, cudaMemcpyHostToDevice));
    stencil_async<<<tiles / per_block, 128>>>(d_in, d_o, per_block, m);
    CHECK(cudaGetLastError());
    std::vector<float> o(m);
    CHECK(cudaMemcpy(o.data(), d_o, m * 4, cudaMemcpyDeviceToHost));
    int b = 0;
    for (int g = 0; g < m; ++g) {
      const float* p = &in[g];
      float want = 0.5f * p[2] + 0.25f * (p[1] + p[3]) - 0.125f * (p[0] + p[4]);
      if (o[g] != want && b++ < 5) std::printf("stencil [%d]: %g, want %g\n", g, o[g], want);
    }
    std::printf("memcpy_async stencil: %d wrong\n", b);
    bad += b;
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_o));
  }

  // 6. Multi-warp tiles.
  {
    big_tiles<<<grid, kBlock>>>(d_v, d_out, n);
    CHECK(cudaGetLastError());
    std::vector<int> out(n * 3);
    CHECK(cudaMemcpy(out.data(), d_out, n * 3 * 4, cudaMemcpyDeviceToHost));
    int b = 0;
    auto val = [&](int j) { return j < n ? v[j] : 0; };
    for (int i = 0; i < n; ++i) {
      int s64 = 0, m128 = INT32_MIN;
      for (int j = i / 64 * 64; j < i / 64 * 64 + 64; ++j) s64 += val(j);
      for (int j = i / 128 * 128; j < i / 128 * 128 + 128; ++j)
        m128 = std::max(m128, val(j) * 3 + 1);
      int want[3] = {s64, m128, val(i / 128 * 128 + 127) + (i % kBlock) / 64 * 1000};
      for (int k = 0; k < 3; ++k)
        if (out[i * 3 + k] != want[k] && b++ < 6)
          std::printf("multi-warp tile: thread %d field %d: %d, want %d\n", i, k, out[i * 3 + k],
                      want[k]);
    }
    std::printf("multi-warp tiles: %d wrong\n", b);
    bad += b;
  }

  // 7. Tile votes and shuffles.
  {
    tile_vote<<<grid, kBlock>>>(d_v, d_out, n);
    CHECK(cudaGetLastError());
    std::vector<int> out(padded * 6);
    CHECK(cudaMemcpy(out.data(), d_out, n * 6 * 4, cudaMemcpyDeviceToHost));
    int b = 0;
    for (int i = 0; i < n; ++i) {
      int t0 = i / 8 * 8, r = i % 8;
      auto val = [&](int j) { return j < n ? v[j] : 0; };
      unsigned ballot = 0, match = 0;
      int any = 0, all = 1;
      for (int j = 0; j < 8; ++j) {
        ballot |= (unsigned)(val(t0 + j) > 50) << j;
        any |= val(t0 + j) > 90;
        all &= val(t0 + j) > 5;
        match |= (unsigned)(val(t0 + j) % 4 == v[i] % 4) << j;
      }
      int meta = (i % kBlock) / 8;
      int want[6] = {(int)ballot,       any | all << 1 | meta << 8 | (kBlock / 8) << 16,
                     (int)match,        r >= 3 ? val(i - 3) : v[i],
                     val(t0 + (r ^ 5)), val(t0 + (r * 3) % 8)};
      for (int k = 0; k < 6; ++k)
        if (out[i * 6 + k] != want[k] && b++ < 8)
          std::printf("tile vote: thread %d field %d: %#x, want %#x\n", i, k, out[i * 6 + k],
                      want[k]);
    }
    std::printf("tile votes: %d wrong\n", b);
    bad += b;
  }
  return finish(bad);
}
