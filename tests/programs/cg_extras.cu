// Cooperative-groups calls beyond tile_groups' (built with sm_80 PTX): cg::invoke_one and
// invoke_one_broadcast, cg::reduce_update_async / reduce_store_async into cuda::atomic_ref and
// plain memory, cg::reduce with bit_and / bit_xor / greater over 64-bit values, tiles of 2 with
// meta_group_rank / meta_group_size, tile shuffles of a 16-byte struct, labeled partitions
// and scans of coalesced groups in divergent code, the block's and grid's index queries in a
// 3D launch (thread_index, dim_threads, group_index, block_rank, num_blocks), cg::sync.
// Every value against the host.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <cuda/atomic>

#include <cstdint>
#include <vector>

#include "check.h"

namespace cg = cooperative_groups;
typedef unsigned long long u64;

struct Quad {
  int a;
  unsigned b;
  u64 c;
};

// Per thread: 8 results.
constexpr int kOut = 8;

__device__ u64 mix(unsigned v) {
  u64 x = v * 0x9e3779b97f4a7c15ull;
  return x ^ (x >> 29);
}

__global__ void tiles(const unsigned* in, u64* out, u64* sums, unsigned* maxes, int* leaders) {
  auto block = cg::this_thread_block();
  auto grid = cg::this_grid();
  const unsigned gid = grid.thread_rank();
  const unsigned v = in[gid];
  u64* o = out + (size_t)gid * kOut;

  auto t32 = cg::tiled_partition<32>(block);
  auto t8 = cg::tiled_partition<8>(block);
  auto t2 = cg::tiled_partition<2>(t8);
  // 64-bit reductions over the warp.
  o[0] = cg::reduce(t32, mix(v), cg::bit_xor<u64>()) ^
         cg::reduce(t32, mix(v) | 0xff, cg::bit_and<u64>());
  o[1] = cg::reduce(t8, mix(v), cg::greater<u64>());
  // Pairs: meta group rank within the tile of 8, and the partner's value.
  o[2] = (u64)t2.meta_group_rank() << 48 | (u64)t2.meta_group_size() << 40 | t2.shfl_xor(v, 1);
  // A 16-byte struct through a shuffle.
  Quad q{(int)v - 5, v * 3, mix(v)};
  Quad r = t8.shfl(q, (t8.thread_rank() + 3) % 8);
  o[3] = (u64)(unsigned)r.a ^ ((u64)r.b << 32) ^ r.c;
  // invoke_one: one thread per tile of 8 counts; the broadcast hands its ticket to the tile.
  unsigned ticket = cg::invoke_one_broadcast(t8, [&] { return atomicAdd(&maxes[1], 1u); });
  cg::invoke_one(t32, [&] { atomicAdd(leaders, 1); });
  o[4] = ticket; // checked for consistency within the tile on the host
  // Asynchronous reductions into memory.
  cuda::atomic_ref<u64, cuda::thread_scope_device> total(sums[0]);
  cg::reduce_update_async(t32, total, (u64)v, cg::plus<u64>());
  cuda::atomic_ref<unsigned, cuda::thread_scope_device> mx(maxes[0]);
  cg::reduce_update_async(t8, mx, v, cg::greater<unsigned>());
  cg::reduce_store_async(t32, &sums[1 + gid / 32], (u64)v * v, cg::plus<u64>());
  // Indices of a 3D block in a 2D grid.
  dim3 ti = block.thread_index(), dt = block.dim_threads(), gi = block.group_index();
  o[5] = (u64)ti.x | (u64)ti.y << 8 | (u64)ti.z << 16 | (u64)dt.x << 24 | (u64)dt.y << 32 |
         (u64)dt.z << 40 | (u64)gi.x << 48 | (u64)gi.y << 56;
  o[6] = (u64)grid.block_rank() << 32 | grid.num_blocks() << 16 | block.num_threads();
  cg::sync(block);
  // Divergent: odd values form coalesced groups, partitioned by v % 3.
  o[7] = ~0ull;
  if (v & 1) {
    auto active = cg::coalesced_threads();
    auto part = cg::labeled_partition(active, v % 3);
    unsigned x = cg::exclusive_scan(part, v, cg::bit_xor<unsigned>());
    unsigned s = cg::reduce(part, v, cg::plus<unsigned>());
    o[7] = (u64)x << 32 |
           (s ^ (part.thread_rank() << 24) ^ (part.num_threads() << 16) ^ active.meta_group_rank());
  }
}

int main(int argc, char** argv) {
  const dim3 blockd(16, 4, 2), gridd(5, 3);
  const int per_block = 128, blocks = 15, n = per_block * blocks;
  int bad = 0;
  std::vector<unsigned> in(n);
  unsigned s = 7;
  u64 *d_out, *d_sums;
  unsigned *d_in, *d_max;
  int* d_leaders;
  const int nsums = 1 + n / 32;
  CHECK(cudaMalloc(&d_in, n * 4));
  CHECK(cudaMalloc(&d_out, (size_t)n * kOut * 8));
  CHECK(cudaMalloc(&d_sums, nsums * 8));
  CHECK(cudaMalloc(&d_max, 8));
  CHECK(cudaMalloc(&d_leaders, 4));
  auto mixh = [](unsigned v) {
    u64 x = v * 0x9e3779b97f4a7c15ull;
    return x ^ (x >> 29);
  };
  for (int rep = 0; rep < 3; ++rep) {
    for (int i = 0; i < n; ++i) {
      s = s * 1103515245u + 12345u;
      in[i] = rep == 2 && i % 5 ? 42 + (i % 7) : s >> 3;
    }
    CHECK(cudaMemcpy(d_in, in.data(), n * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_sums, 0, nsums * 8));
    CHECK(cudaMemset(d_max, 0, 8));
    CHECK(cudaMemset(d_leaders, 0, 4));
    tiles<<<gridd, blockd>>>(d_in, d_out, d_sums, d_max, d_leaders);
    CHECK(cudaGetLastError());
    std::vector<u64> out((size_t)n * kOut), sums(nsums);
    unsigned mx[2];
    int leaders;
    CHECK(cudaMemcpy(out.data(), d_out, out.size() * 8, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(sums.data(), d_sums, nsums * 8, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(mx, d_max, 8, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&leaders, d_leaders, 4, cudaMemcpyDeviceToHost));
    u64 total = 0;
    unsigned vmax = 0;
    int wrong = 0;
    for (int g = 0; g < n; ++g) {
      const int w = g / 32 * 32, t8 = g / 8 * 8, lane8 = g % 8, b = g / per_block,
                t = g % per_block;
      u64 want[kOut];
      u64 x = 0, a = ~0ull, m = 0;
      for (int k = 0; k < 32; ++k) x ^= mixh(in[w + k]), a &= mixh(in[w + k]) | 0xff;
      for (int k = 0; k < 8; ++k) m = std::max(m, mixh(in[t8 + k]));
      want[0] = x ^ a;
      want[1] = m;
      want[2] = (u64)(lane8 / 2) << 48 | 4ull << 40 | in[g ^ 1];
      unsigned src = t8 + (lane8 + 3) % 8;
      want[3] = (u64)(unsigned)((int)in[src] - 5) ^ ((u64)(in[src] * 3) << 32) ^ mixh(in[src]);
      want[4] = out[(size_t)t8 * kOut + 4]; // same ticket in the tile, checked below
      want[5] = (u64)(t % 16) | (u64)(t / 16 % 4) << 8 | (u64)(t / 64) << 16 | 16ull << 24 |
                4ull << 32 | 2ull << 40 | (u64)(b % 5) << 48 | (u64)(b / 5) << 56;
      want[6] = (u64)b << 32 | (u64)blocks << 16 | per_block;
      want[7] = ~0ull;
      if (in[g] & 1) {
        // The warp's odd lanes with the same v % 3, in lane order.
        unsigned xs = 0, sum = 0, rank = 0, cnt = 0, arank = 0;
        for (int k = 0; k < 32; ++k) {
          unsigned u = in[w + k];
          if (!(u & 1)) continue;
          if (w + k < g) ++arank;
          if (u % 3 != in[g] % 3) continue;
          if (w + k < g) xs ^= u, ++rank;
          sum += u, ++cnt;
        }
        (void)arank;
        want[7] = (u64)xs << 32 | (sum ^ (rank << 24) ^ (cnt << 16) ^ 0u);
      }
      total += in[g];
      vmax = std::max(vmax, in[g]);
      for (int k = 0; k < kOut; ++k)
        if (out[(size_t)g * kOut + k] != want[k] && wrong++ < 8)
          std::printf("rep %d thread %d result %d: %016llx, want %016llx\n", rep, g, k,
                      out[(size_t)g * kOut + k], want[k]);
    }
    // Tickets: one per tile of 8, all distinct, 0 .. n/8-1.
    std::vector<int> seen(n / 8, 0);
    for (int t8 = 0; t8 < n; t8 += 8) {
      u64 tk = out[(size_t)t8 * kOut + 4];
      if (tk >= (u64)n / 8 || seen[tk]++) ++wrong;
    }
    if (mx[1] != (unsigned)n / 8 || leaders != n / 32)
      std::printf("invoke_one: %u tiles, %d warps\n", mx[1], leaders), ++wrong;
    if (sums[0] != total || mx[0] != vmax)
      std::printf("reduce_update_async: %llu/%llu max %u/%u\n", sums[0], total, mx[0], vmax),
          ++wrong;
    for (int w = 0; w < n / 32; ++w) {
      u64 sq = 0;
      for (int k = 0; k < 32; ++k) sq += (u64)in[w * 32 + k] * in[w * 32 + k];
      if (sums[1 + w] != sq && wrong++ < 8)
        std::printf("reduce_store_async warp %d: %llu, want %llu\n", w, sums[1 + w], sq);
    }
    bad += wrong;
  }
  return finish(bad);
}
