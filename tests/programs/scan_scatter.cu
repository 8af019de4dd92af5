// Stream compaction as prefix-sum benchmarks build it: keep the elements not divisible by 3,
// in order. `scan_blocks` computes each block's exclusive prefix sum of the keep flags in
// shared memory (up-sweep and down-sweep) and the block's total; `scan_totals` scans the block
// totals in one block; `add_offsets` adds each block's offset; `scatter` writes every kept
// element to its position. Checked against the host's compaction.
#include <cstdint>
#include <cuda_runtime.h>
#include <vector>
#include "check.h"

#define BLOCK 256 // threads per block; each scans 2 elements

__device__ int keep(int v) { return v % 3 != 0; }

__global__ void scan_blocks(int* pos, int* totals, const int* in, int n) {
  __shared__ int s[2 * BLOCK];
  const int t = threadIdx.x, base = blockIdx.x * 2 * BLOCK;
  s[t] = base + t < n ? keep(in[base + t]) : 0;
  s[t + BLOCK] = base + t + BLOCK < n ? keep(in[base + t + BLOCK]) : 0;
  int stride = 1;
  for (int d = BLOCK; d > 0; d >>= 1, stride <<= 1) { // up-sweep
    __syncthreads();
    if (t < d) s[stride * (2 * t + 2) - 1] += s[stride * (2 * t + 1) - 1];
  }
  if (t == 0) {
    totals[blockIdx.x] = s[2 * BLOCK - 1];
    s[2 * BLOCK - 1] = 0;
  }
  for (int d = 1; d <= BLOCK; d <<= 1) { // down-sweep
    stride >>= 1;
    __syncthreads();
    if (t < d) {
      const int l = stride * (2 * t + 1) - 1, r = stride * (2 * t + 2) - 1, v = s[l];
      s[l] = s[r];
      s[r] += v;
    }
  }
  __syncthreads();
  if (base + t < n) pos[base + t] = s[t];
  if (base + t + BLOCK < n) pos[base + t + BLOCK] = s[t + BLOCK];
}

// One block: an exclusive scan of m <= blockDim.x totals (Hillis-Steele in shared memory);
// totals[m] gets the sum (the number of kept elements).
__global__ void scan_totals(int* totals, int m) {
  extern __shared__ int s[];
  const int t = threadIdx.x;
  const int v = t < m ? totals[t] : 0;
  s[t] = v;
  for (int d = 1; d < blockDim.x; d <<= 1) {
    __syncthreads();
    const int add = t >= d ? s[t - d] : 0;
    __syncthreads();
    s[t] += add;
  }
  if (t < m) totals[t] = s[t] - v;
  if (t == m - 1) totals[m] = s[t];
}

__global__ void add_offsets(int* pos, const int* totals, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) pos[i] += totals[i / (2 * BLOCK)];
}

__global__ void scatter(int* out, const int* in, const int* pos, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && keep(in[i])) out[pos[i]] = in[i];
}

int main() {
  const int n = 7000, blocks = (n + 2 * BLOCK - 1) / (2 * BLOCK);
  std::vector<int> in(n), want;
  uint32_t s = 2024;
  for (int i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    in[i] = int(s >> 12) - (1 << 19);
    if (in[i] % 3 != 0) want.push_back(in[i]);
  }
  int *d_in, *d_pos, *d_totals, *d_out;
  CHECK(cudaMalloc(&d_in, n * sizeof(int)));
  CHECK(cudaMalloc(&d_pos, n * sizeof(int)));
  CHECK(cudaMalloc(&d_totals, (blocks + 1) * sizeof(int)));
  CHECK(cudaMalloc(&d_out, n * sizeof(int)));
  CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  scan_blocks<<<blocks, BLOCK>>>(d_pos, d_totals, d_in, n);
  scan_totals<<<1, 32, 32 * sizeof(int)>>>(d_totals, blocks);
  add_offsets<<<(n + 255) / 256, 256>>>(d_pos, d_totals, n);
  scatter<<<(n + 255) / 256, 256>>>(d_out, d_in, d_pos, n);
  CHECK(cudaGetLastError());
  int count = 0;
  CHECK(cudaMemcpy(&count, d_totals + blocks, sizeof(int), cudaMemcpyDeviceToHost));
  std::vector<int> out(n);
  CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
  int bad = 0;
  if (count != int(want.size())) {
    std::printf("count %d, expected %zu\n", count, want.size());
    ++bad;
  }
  for (size_t i = 0; i < want.size() && i < size_t(count); ++i)
    if (out[i] != want[i] && bad++ < 5)
      std::printf("out[%zu] = %d, expected %d\n", i, out[i], want[i]);
  return finish(bad);
}
