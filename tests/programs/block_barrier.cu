// cuda::barrier in shared memory (sm_80's mbarrier; programs.sh adds compute_80 PTX, which gpurf
// takes): a block-wide memcpy_async completing on the barrier, then a phase whose last
// arrivals come late while the others spin in mbarrier.try_wait. On a two-level scheduler the
// spinners once filled the active set while the late warps waited in the pending set, until the
// progress bound stopped the kernel; every output against the host.
#include <cooperative_groups.h>
#include <cuda/barrier>

#include "check.h"

namespace cg = cooperative_groups;
using block_barrier = cuda::barrier<cuda::thread_scope_block>;

constexpr int kTile = 512;

__global__ void reverse_tiles(const float* in, float* out) {
  __shared__ float tile[kTile];
  __shared__ block_barrier bar;
  auto block = cg::this_thread_block();
  if (block.thread_rank() == 0) init(&bar, block.size());
  block.sync();
  const int base = blockIdx.x * kTile;
  cuda::memcpy_async(block, tile, in + base, sizeof(float) * kTile, bar);
  bar.arrive_and_wait();
  for (int i = threadIdx.x; i < kTile; i += blockDim.x) out[base + i] = tile[kTile - 1 - i] * 2.0f;
  block.sync(); // every reversed read done before the late phase writes the tile
  // One thread of every other warp works 200 steps before arriving: the rest spin meanwhile.
  if (threadIdx.x % 64 == 0)
    for (int k = 0; k < 200; ++k) tile[threadIdx.x] += 1.0f;
  bar.arrive_and_wait();
  if (threadIdx.x == 0) out[base] += tile[0] - 200.0f;
}

int main() {
  const int blocks = 8, n = blocks * kTile;
  float *in, *out;
  CHECK(cudaMallocManaged(&in, n * sizeof(float)));
  CHECK(cudaMallocManaged(&out, n * sizeof(float)));
  for (int i = 0; i < n; ++i) in[i] = float(i);
  reverse_tiles<<<blocks, 256>>>(in, out);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  int bad = 0;
  for (int b = 0; b < blocks; ++b)
    for (int i = 0; i < kTile; ++i) {
      float want = in[b * kTile + kTile - 1 - i] * 2.0f;
      if (i == 0) want += in[b * kTile]; // tile[0] = in[base] + 200 after the late phase
      if (out[b * kTile + i] != want) ++bad;
    }
  std::printf("%d of %d outputs wrong\n", bad, n);
  return finish(bad);
}
