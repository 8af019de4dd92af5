// Register-read and writeback microbenchmarks: dependent chains whose instructions read two or
// three registers (bank conflicts, collector ports) or write four (writeback ports). As in
// chain.cu, K instructions always run and K more when `extra` is set; gpurf micro takes the
// difference. Inline PTX fixes the instructions and the order in which values are defined, so
// the register allocator's program-order colouring places them (gpurf micro reads the
// registers it chose and the platform's register-to-bank mapping; it does not assume them).
// Launch: grid 1, block 32.
#include "micro.cuh"

// x + y with y defined right after x: neighbouring registers, different banks.
extern "C" __global__ void pair_near(float* out, int extra) {
  unsigned long long p;
  OUT_ADDR(p, out, 4);
  float x, y;
  asm volatile("mov.f32 %0, 0f3F800000;" : "=f"(x));
  asm volatile("mov.f32 %0, 0f3F000000;" : "=f"(y));
  TWICE("add.f32 %0, %0, %1;" : "+f"(x) : "f"(y))
  asm volatile("st.global.f32 [%0], %1;" ::"l"(p), "f"(x) : "memory");
}

// x + y with seven live values defined between them: registers 8 apart, the same bank when
// the sub-core has 1, 2, 4 or 8 banks. The seven are read once y exists, then die.
extern "C" __global__ void pair_far(float* out, int extra) {
  unsigned long long p;
  OUT_ADDR(p, out, 4);
  float x, d1, d2, d3, d4, d5, d6, d7, y;
  asm volatile("mov.f32 %0, 0f3F800000;" : "=f"(x));
  asm volatile("mov.f32 %0, 0f40000000;" : "=f"(d1));
  asm volatile("mov.f32 %0, 0f40400000;" : "=f"(d2));
  asm volatile("mov.f32 %0, 0f40800000;" : "=f"(d3));
  asm volatile("mov.f32 %0, 0f40A00000;" : "=f"(d4));
  asm volatile("mov.f32 %0, 0f40C00000;" : "=f"(d5));
  asm volatile("mov.f32 %0, 0f40E00000;" : "=f"(d6));
  asm volatile("mov.f32 %0, 0f41000000;" : "=f"(d7));
  asm volatile("mov.f32 %0, 0f3F000000;" : "=f"(y));
  asm volatile("{ .reg .f32 s; add.f32 s, %0, %1; add.f32 s, %2, %3; add.f32 s, %4, %5; "
               "add.f32 s, %6, %6; }" ::"f"(d1), "f"(d2), "f"(d3), "f"(d4), "f"(d5), "f"(d6), "f"(d7));
  TWICE("add.f32 %0, %0, %1;" : "+f"(x) : "f"(y))
  asm volatile("st.global.f32 [%0], %1;" ::"l"(p), "f"(x) : "memory");
}

// fma x * y + z: three source registers, defined in a row.
extern "C" __global__ void three_srcs(float* out, int extra) {
  unsigned long long p;
  OUT_ADDR(p, out, 4);
  float x, y, z;
  asm volatile("mov.f32 %0, 0f3F800000;" : "=f"(x));
  asm volatile("mov.f32 %0, 0f3F800000;" : "=f"(y));
  asm volatile("mov.f32 %0, 0f3F000000;" : "=f"(z));
  TWICE("fma.rn.f32 %0, %0, %1, %2;" : "+f"(x) : "f"(y), "f"(z))
  asm volatile("st.global.f32 [%0], %1;" ::"l"(p), "f"(x) : "memory");
}

// Shared-memory pointer chase at one address (a broadcast: no bank conflict): each load reads
// the address of the next. sh_v1 writes one register, sh_v4 four.
extern "C" __global__ void sh_v1(unsigned* out, int extra) {
  unsigned long long p;
  OUT_ADDR(p, out, 4);
  __shared__ __align__(16) unsigned s[4];
  unsigned a = unsigned(__cvta_generic_to_shared(s));
  if (threadIdx.x < 4) s[threadIdx.x] = a;
  __syncthreads();
  TWICE("ld.shared.u32 %0, [%0];" : "+r"(a))
  asm volatile("st.global.u32 [%0], %1;" ::"l"(p), "r"(a) : "memory");
}

extern "C" __global__ void sh_v4(unsigned* out, int extra) {
  unsigned long long p;
  OUT_ADDR(p, out, 4);
  __shared__ __align__(16) unsigned s[4];
  unsigned a = unsigned(__cvta_generic_to_shared(s));
  [[maybe_unused]] unsigned b, c, d; // written, never read: three more results
  if (threadIdx.x < 4) s[threadIdx.x] = a;
  __syncthreads();
  TWICE("ld.shared.v4.u32 {%0, %1, %2, %3}, [%0];" : "+r"(a), "=r"(b), "=r"(c), "=r"(d))
  asm volatile("st.global.u32 [%0], %1;" ::"l"(p), "r"(a) : "memory");
}
