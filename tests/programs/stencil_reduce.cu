// 2D heat diffusion as stencil benchmarks write it: ITERS explicit steps of a 5-point stencil
// between two buffers (ping-pong: the host swaps the pointers after each launch, the border
// held fixed), then the field's sum in two launches: per-block partial sums by a shared-memory
// tree, and one block over the partials. Checked against the same steps on the host.
// tests/programs/stencil_reduce.yaml replays this launch sequence as an application file.
#include <cmath>
#include <cstdint>
#include <cuda_runtime.h>
#include "check.h"

__global__ void stencil(float* out, const float* in, int w, int h, float alpha) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  const int i = y * w + x;
  const float c = in[i];
  if (x == 0 || y == 0 || x == w - 1 || y == h - 1) {
    out[i] = c;
    return;
  }
  out[i] = c + alpha * (in[i - 1] + in[i + 1] + in[i - w] + in[i + w] - 4.0f * c);
}

// Each block sums 2 * blockDim.x elements (blockDim.x a power of two) into part[blockIdx.x].
__global__ void reduce_partial(float* part, const float* in, int n) {
  extern __shared__ float s[];
  const unsigned t = threadIdx.x, i = blockIdx.x * 2 * blockDim.x + t;
  float v = i < n ? in[i] : 0.0f;
  if (i + blockDim.x < n) v += in[i + blockDim.x];
  s[t] = v;
  __syncthreads();
  for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
    if (t < half) s[t] += s[t + half];
    __syncthreads();
  }
  if (t == 0) part[blockIdx.x] = s[0];
}

// One block of 32 threads: strided sums of the partials, then a warp-shuffle tree.
__global__ void reduce_final(float* total, const float* part, int m) {
  float v = 0.0f;
  for (int i = threadIdx.x; i < m; i += blockDim.x) v += part[i];
  for (int d = 16; d > 0; d /= 2) v += __shfl_down_sync(0xffffffffu, v, d);
  if (threadIdx.x == 0) *total = v;
}

// The initial field: the launch file's {uniform: {min: 0, max: 1, seed: 7}} (splitmix64).
static float uniform01(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return float(double(z >> 11) * 0x1.0p-53);
}

int main() {
  const int w = 80, h = 48, n = w * h, iters = 6, threads = 128;
  const int blocks = (n + 2 * threads - 1) / (2 * threads);
  const float alpha = 0.2f;
  static float field[n], ref[n], tmp[n];
  uint64_t state = 7;
  for (int i = 0; i < n; ++i) ref[i] = field[i] = uniform01(state);
  float *a, *b, *part, *total;
  CHECK(cudaMalloc(&a, n * sizeof(float)));
  CHECK(cudaMalloc(&b, n * sizeof(float)));
  CHECK(cudaMalloc(&part, blocks * sizeof(float)));
  CHECK(cudaMalloc(&total, sizeof(float)));
  CHECK(cudaMemcpy(a, field, sizeof field, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(b, 0, sizeof field));
  const dim3 block(16, 8), grid((w + 15) / 16, (h + 7) / 8);
  for (int it = 0; it < iters; ++it) {
    stencil<<<grid, block>>>(b, a, w, h, alpha);
    CHECK(cudaGetLastError());
    float* t = a;
    a = b;
    b = t;
  }
  reduce_partial<<<blocks, threads, threads * sizeof(float)>>>(part, a, n);
  reduce_final<<<1, 32>>>(total, part, blocks);
  CHECK(cudaGetLastError());
  float sum = 0;
  CHECK(cudaMemcpy(field, a, sizeof field, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&sum, total, sizeof sum, cudaMemcpyDeviceToHost));

  for (int it = 0; it < iters; ++it) {
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const int i = y * w + x;
        const float c = ref[i];
        tmp[i] = x == 0 || y == 0 || x == w - 1 || y == h - 1
                     ? c
                     : c + alpha * (ref[i - 1] + ref[i + 1] + ref[i - w] + ref[i + w] - 4.0f * c);
      }
    for (int i = 0; i < n; ++i) ref[i] = tmp[i];
  }
  int bad = 0;
  double want = 0;
  for (int i = 0; i < n; ++i) {
    want += ref[i];
    if (std::fabs(field[i] - ref[i]) > 1e-5f && bad++ < 5)
      std::printf("field[%d] = %f, expected %f\n", i, field[i], ref[i]);
  }
  if (std::fabs(sum - want) > 1e-4 * std::fabs(want)) {
    std::printf("sum = %f, expected %f\n", sum, want);
    ++bad;
  }
  return finish(bad);
}
