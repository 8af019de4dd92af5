// tests/e2e/wir_test.cpp: many thread blocks pass through one CTA slot; each stores its block
// index to shared memory and, after the barrier, loads a neighbour's element at the same
// address (and barrier count) as every block before it. The load may reuse only loads of its
// own block (WIR Sec. VI-A). Compiled with `nvcc -arch=sm_75 -ptx -O3 wir_blocks.cu`.
extern "C" __global__ void wir_blocks(unsigned* sum) {
  __shared__ unsigned s[32];
  s[threadIdx.x] = blockIdx.x;
  __syncthreads();
  atomicAdd(&sum[threadIdx.x], s[(threadIdx.x + 1) % 32]);
}
