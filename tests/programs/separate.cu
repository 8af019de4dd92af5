// Separate compilation (nvcc -rdc=true, as CMake's CUDA_SEPARABLE_COMPILATION builds): device
// code of this unit calls functions and reads variables that separate_lib.cu defines; nvlink
// joins the units' SASS, gpurf links their PTX (docs/programs.md "Separate compilation").
// Both units have a static (internal) function `clamp_to` of their own, printf strings
// ($str in each PTX), a template instantiated in both (.weak), dynamic shared memory under
// one name, and a __constant__ table and __device__ counter defined in the other unit. Built
// also with -G (every .loc/.file and debug section per unit).
#include <cuda_runtime.h>

#include "check.h"
#include "separate.h"

// Internal to this unit; separate_lib.cu has its own with another meaning.
static __device__ int clamp_to(int v) { return v > 100 ? 100 : v; }

__global__ void combine(const int* in, int* out, int n) {
  extern __shared__ int stage[];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  stage[threadIdx.x] = i < n ? in[i] : 0;
  __syncthreads();
  if (i >= n) return;
  const int left = threadIdx.x ? stage[threadIdx.x - 1] : 0;
  // lib_scale and lib_table: the other unit's; twice<int>: instantiated in both.
  out[i] = clamp_to(lib_scale(stage[threadIdx.x]) + lib_table[i % kTable] + twice(left));
  atomicAdd(&lib_counter, 1);
  if (i == 0) printf("combine: unit main, out[0] = %d\n", out[0]);
}

static int host_clamp_to(int v) { return v > 100 ? 100 : v; }

int main() {
  constexpr int n = 1000, block = 128;
  int h_in[n], h_out[n], h_tail[n];
  for (int i = 0; i < n; ++i) h_in[i] = (i * 37) % 23 - 5;
  int *in, *out, *tail;
  CHECK(cudaMalloc(&in, sizeof h_in));
  CHECK(cudaMalloc(&out, sizeof h_out));
  CHECK(cudaMalloc(&tail, sizeof h_tail));
  CHECK(cudaMemcpy(in, h_in, sizeof h_in, cudaMemcpyHostToDevice));
  const int grid = (n + block - 1) / block;
  for (int round = 0; round < 2; ++round) {
    combine<<<grid, block, block * sizeof(int)>>>(in, out, n);
    CHECK(cudaGetLastError());
    launch_lib_kernel(out, tail, n); // a kernel of the other unit
  }
  CHECK(cudaMemcpy(h_out, out, sizeof h_out, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(h_tail, tail, sizeof h_tail, cudaMemcpyDeviceToHost));
  int counter = 0;
  CHECK(cudaMemcpyFromSymbol(&counter, lib_counter, sizeof counter));
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    const int left = i % block ? h_in[i - 1] : 0;
    const int want = host_clamp_to(host_lib_scale(h_in[i]) + host_lib_table(i % kTable) + 2 * left);
    const int want_tail = host_lib_tail(want);
    if (h_out[i] != want || h_tail[i] != want_tail) {
      if (bad++ < 5)
        std::printf("i %d: out %d (want %d), tail %d (want %d)\n", i, h_out[i], want, h_tail[i],
                    want_tail);
    }
  }
  if (counter != 4 * n) std::printf("counter %d, want %d\n", counter, 4 * n), ++bad;
  return finish(bad);
}
