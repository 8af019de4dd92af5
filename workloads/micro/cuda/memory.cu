// Memory microbenchmarks: dependent pointer chases. As in chain.cu, K loads always run and K
// more when `extra` is set; gpurf micro takes the difference.
// Launch: grid 1, block 32.
#include "micro.cuh"

// Shared memory, lane l at word l * stride: every word holds its own address, so each lane
// keeps loading the same word and every load has the conflict degree of the stride.
// stride <= 32.
extern "C" __global__ void sh_stride(unsigned* out, int stride, int extra) {
  unsigned long long p;
  OUT_ADDR(p, out, 4);
  __shared__ unsigned s[32 * 32];
  const unsigned base = unsigned(__cvta_generic_to_shared(s));
  for (unsigned i = threadIdx.x; i < 32 * 32; i += blockDim.x) s[i] = base + 4 * i;
  __syncthreads();
  unsigned a = base + 4 * ((threadIdx.x * stride) % (32 * 32));
  TWICE("ld.shared.u32 %0, [%0];" : "+r"(a))
  asm volatile("st.global.u32 [%0], %1;" ::"l"(p), "r"(a) : "memory");
}

// Global memory, every lane at the same address: node i at byte i * step holds the address of
// node i + 1. step 0: one node pointing at itself (after the first miss every load hits the
// L1); step >= the L1 line: a new line per load (every load misses). The buffer holds at least
// (2K + 2) * step + 8 bytes.
extern "C" __global__ void gl_chase(unsigned long long* buf, int step, int extra) {
  char* b = reinterpret_cast<char*>(buf);
  for (int i = threadIdx.x; i <= 2 * K; i += blockDim.x)
    *reinterpret_cast<unsigned long long*>(b + i * step) =
        reinterpret_cast<unsigned long long>(b + (i + 1) * step);
  unsigned long long q;
  OUT_ADDR(q, buf, 0); // every lane stores the result to buf[0]
  __syncthreads();
  unsigned long long p = reinterpret_cast<unsigned long long>(b);
  TWICE("ld.global.u64 %0, [%0];" : "+l"(p))
  asm volatile("st.global.u64 [%0], %1;" ::"l"(q), "l"(p) : "memory");
}
