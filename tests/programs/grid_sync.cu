// A persistent-kernel reduction in the style of CUDA's cooperative-groups samples: one
// cooperative launch, every CTA resident, rounds of three phases separated by grid.sync()
// (cooperative_groups::this_grid().sync(), the driver's grid workspace and a global barrier):
// each CTA reduces its chunk of the data (kept in shared memory) into partial[], CTA 0 adds
// the partial sums, every CTA updates its chunk with the round's total (a value another CTA
// stored before the sync).
// The grid is sized with the occupancy API as CUDA's samples do; then one CTA too many is
// refused (cudaErrorCooperativeLaunchTooLarge, not sticky), the launch is repeated through
// cudaLaunchKernelEx's cooperative attribute, and last the kernel is launched with <<<>>>,
// where CUDA's grid.sync() traps (no workspace): cudaErrorLaunchFailure, sticky.
#include <cooperative_groups.h>
#include <cstring>
#include <cuda_runtime.h>
#include <vector>

#include "check.h"

namespace cg = cooperative_groups;

constexpr int kBlock = 128;
// Each CTA keeps its chunk of the data in shared memory over a round: 12 KiB of .shared, so
// that shared memory limits the CTAs per SM (the occupancy the program is told must count it).
constexpr int kTile = 3072;

__global__ void rounds(unsigned* data, unsigned* partial, unsigned* totals, int n, int count) {
  cg::grid_group grid = cg::this_grid();
  __shared__ unsigned s[kBlock];
  __shared__ unsigned tile[kTile];
  const int chunk = (n + gridDim.x - 1) / gridDim.x; // at most kTile (the host checks)
  const int begin = blockIdx.x * chunk, end = min(n, begin + chunk);
  for (int r = 0; r < count; ++r) {
    // Phase 1: this CTA's chunk into shared memory, and its partial sum.
    unsigned v = 0;
    for (int i = begin + threadIdx.x; i < end; i += kBlock) v += tile[i - begin] = data[i];
    s[threadIdx.x] = v;
    __syncthreads();
    for (int st = kBlock / 2; st > 0; st >>= 1) {
      if (threadIdx.x < st) s[threadIdx.x] += s[threadIdx.x + st];
      __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
    grid.sync();
    // Phase 2: CTA 0 adds every CTA's partial sum.
    if (blockIdx.x == 0 && threadIdx.x == 0) {
      unsigned t = 0;
      for (unsigned b = 0; b < gridDim.x; ++b) t += partial[b];
      totals[r] = t;
    }
    grid.sync();
    // Phase 3: the chunk, with the total CTA 0 stored.
    const unsigned t = totals[r];
    for (int i = begin + threadIdx.x; i < end; i += kBlock)
      data[i] = tile[i - begin] * 3u + (t >> 4) + unsigned(i);
  }
}

// What the kernel computes, on the host.
static void reference(std::vector<unsigned>& data, std::vector<unsigned>& totals) {
  for (size_t r = 0; r < totals.size(); ++r) {
    unsigned t = 0;
    for (unsigned v : data) t += v;
    totals[r] = t;
    for (size_t i = 0; i < data.size(); ++i) data[i] = data[i] * 3u + (t >> 4) + unsigned(i);
  }
}

int main() {
  int coop = 0, sms = 0, per_sm = 0;
  CHECK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, 0));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, rounds, kBlock, 0));
  if (!coop || per_sm < 1) {
    std::printf("FAIL: cooperative launch %d, %d CTAs per SM\n", coop, per_sm);
    return 1;
  }
  int blocks = per_sm * sms;
  const int n = 3000, count = 3;
  if ((n + blocks - 1) / blocks > kTile) {
    std::printf("FAIL: %d CTAs: a chunk of %d elements does not fit the tile\n", blocks,
                (n + blocks - 1) / blocks);
    return 1;
  }
  std::vector<unsigned> init(n), want(n), totals_want(count);
  for (int i = 0; i < n; ++i) init[i] = unsigned(i * 7919 % 1013);
  want = init;
  reference(want, totals_want);

  unsigned *data, *partial, *totals;
  CHECK(cudaMalloc(&data, n * sizeof(unsigned)));
  CHECK(cudaMalloc(&partial, (blocks + 1) * sizeof(unsigned)));
  CHECK(cudaMalloc(&totals, count * sizeof(unsigned)));
  int nn = n, cc = count;
  void* args[] = {&data, &partial, &totals, &nn, &cc};
  int bad = 0;
  auto check = [&](const char* how) {
    std::vector<unsigned> got(n), tot(count);
    CHECK(cudaMemcpy(got.data(), data, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(tot.data(), totals, count * sizeof(unsigned), cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (int i = 0; i < n; ++i) wrong += got[i] != want[i];
    for (int r = 0; r < count; ++r)
      if (tot[r] != totals_want[r])
        std::printf("%s: round %d total %u, expected %u\n", how, r, tot[r], totals_want[r]), ++wrong;
    if (wrong) std::printf("%s: %d wrong values\n", how, wrong);
    bad += wrong;
  };

  // The cooperative launch, the grid as large as can be resident.
  CHECK(cudaMemcpy(data, init.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
  CHECK(cudaLaunchCooperativeKernel((void*)rounds, dim3(blocks), dim3(kBlock), args, 0, 0));
  CHECK(cudaDeviceSynchronize());
  check("cudaLaunchCooperativeKernel");
  std::printf("%d CTAs of %d threads (%d per SM x %d SMs), %d rounds\n", blocks, kBlock, per_sm,
              sms, count);

  // One CTA more than can be resident: refused, not sticky.
  cudaError_t e = cudaLaunchCooperativeKernel((void*)rounds, dim3(blocks + 1), dim3(kBlock), args, 0, 0);
  const cudaError_t last = cudaGetLastError();
  std::printf("%d CTAs: %s, last error %s, then %s\n", blocks + 1, cudaGetErrorName(e),
              cudaGetErrorName(last), cudaGetErrorName(cudaGetLastError()));
  bad += e != cudaErrorCooperativeLaunchTooLarge || last != e;

  // The same launch through cudaLaunchKernelEx's cooperative attribute.
  CHECK(cudaMemcpy(data, init.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(totals, 0, count * sizeof(unsigned)));
  cudaLaunchConfig_t config = {};
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeCooperative;
  attr[0].val.cooperative = 1;
  config.gridDim = dim3(blocks);
  config.blockDim = dim3(kBlock);
  config.attrs = attr;
  config.numAttrs = 1;
  CHECK(cudaLaunchKernelEx(&config, rounds, data, partial, totals, n, count));
  CHECK(cudaDeviceSynchronize());
  check("cudaLaunchKernelEx");

  // Not cooperative: grid.sync() has no workspace and traps, as on CUDA (sticky).
  rounds<<<blocks, kBlock>>>(data, partial, totals, n, count);
  e = cudaDeviceSynchronize();
  std::printf("<<<>>>: %s, then %s\n", cudaGetErrorName(e),
              cudaGetErrorName(cudaMemcpy(init.data(), data, 4, cudaMemcpyDeviceToHost)));
  bad += e != cudaErrorLaunchFailure;
  return finish(bad);
}
