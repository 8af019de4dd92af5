// Warp reductions, integer dot products, byte permutes, fns, bfind/brev, activemask, elect
// and cp.async for tests/unit/ptx_warp_ops_test.cpp.
// Regenerate: nvcc -arch=sm_90 -ptx ptx_warp_ops.cu -o ptx_warp_ops.ptx (elect.sync: sm_90)
#include <cuda_pipeline.h>

// Every lane: the six redux.sync forms over the whole warp, then over the lanes i % 3 != 0.
extern "C" __global__ void redux_ops(const unsigned* a, unsigned* out) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned v = a[i];
  unsigned* o = out + i * 12;
  o[0] = __reduce_add_sync(~0u, v);
  o[1] = __reduce_min_sync(~0u, v);
  o[2] = __reduce_max_sync(~0u, v);
  o[3] = __reduce_min_sync(~0u, int(v));
  o[4] = __reduce_max_sync(~0u, int(v));
  o[5] = __reduce_and_sync(~0u, v);
  o[6] = __reduce_or_sync(~0u, v);
  o[7] = __reduce_xor_sync(~0u, v);
  const unsigned m = __ballot_sync(~0u, threadIdx.x % 3 != 0);
  if (threadIdx.x % 3 != 0) {
    o[8] = __reduce_add_sync(m, v);
    o[9] = __reduce_min_sync(m, int(v));
    o[10] = __reduce_xor_sync(m, v);
  }
  o[11] = m;
}

// dp4a and dp2a in every signedness, through inline PTX (the intrinsics cover two each).
extern "C" __global__ void dp_ops(const unsigned* a, const unsigned* b, const unsigned* c,
                                  unsigned* out) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned x = a[i], y = b[i], z = c[i], r[12];
  asm("dp4a.u32.u32 %0, %1, %2, %3;" : "=r"(r[0]) : "r"(x), "r"(y), "r"(z));
  asm("dp4a.u32.s32 %0, %1, %2, %3;" : "=r"(r[1]) : "r"(x), "r"(y), "r"(z));
  asm("dp4a.s32.u32 %0, %1, %2, %3;" : "=r"(r[2]) : "r"(x), "r"(y), "r"(z));
  asm("dp4a.s32.s32 %0, %1, %2, %3;" : "=r"(r[3]) : "r"(x), "r"(y), "r"(z));
  asm("dp2a.lo.u32.u32 %0, %1, %2, %3;" : "=r"(r[4]) : "r"(x), "r"(y), "r"(z));
  asm("dp2a.lo.u32.s32 %0, %1, %2, %3;" : "=r"(r[5]) : "r"(x), "r"(y), "r"(z));
  asm("dp2a.lo.s32.u32 %0, %1, %2, %3;" : "=r"(r[6]) : "r"(x), "r"(y), "r"(z));
  asm("dp2a.lo.s32.s32 %0, %1, %2, %3;" : "=r"(r[7]) : "r"(x), "r"(y), "r"(z));
  asm("dp2a.hi.u32.u32 %0, %1, %2, %3;" : "=r"(r[8]) : "r"(x), "r"(y), "r"(z));
  asm("dp2a.hi.u32.s32 %0, %1, %2, %3;" : "=r"(r[9]) : "r"(x), "r"(y), "r"(z));
  asm("dp2a.hi.s32.u32 %0, %1, %2, %3;" : "=r"(r[10]) : "r"(x), "r"(y), "r"(z));
  asm("dp2a.hi.s32.s32 %0, %1, %2, %3;" : "=r"(r[11]) : "r"(x), "r"(y), "r"(z));
  for (int k = 0; k < 12; ++k) out[i * 12 + k] = r[k];
  // the intrinsics: nvcc's own dp4a.s32.s32 / dp2a.hi.u32.u32
  out[i * 12 + 3] ^= __dp4a(int(x), int(y), int(z)) ^ r[3];
  out[i * 12 + 8] ^= __dp2a_hi(x, y, z) ^ r[8];
}

// prmt in the default mode and the six named modes; fns; bfind; brev.
extern "C" __global__ void bit_ops(const unsigned* a, const unsigned* b, const unsigned* c,
                                   const unsigned long long* w, unsigned* out) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned x = a[i], y = b[i], z = c[i], r[16];
  r[0] = __byte_perm(x, y, z);
  asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r[1]) : "r"(x), "r"(y), "r"(z)); // sign replication
  asm("prmt.b32.f4e %0, %1, %2, %3;" : "=r"(r[2]) : "r"(x), "r"(y), "r"(z));
  asm("prmt.b32.b4e %0, %1, %2, %3;" : "=r"(r[3]) : "r"(x), "r"(y), "r"(z));
  asm("prmt.b32.rc8 %0, %1, %2, %3;" : "=r"(r[4]) : "r"(x), "r"(y), "r"(z));
  asm("prmt.b32.ecl %0, %1, %2, %3;" : "=r"(r[5]) : "r"(x), "r"(y), "r"(z));
  asm("prmt.b32.ecr %0, %1, %2, %3;" : "=r"(r[6]) : "r"(x), "r"(y), "r"(z));
  asm("prmt.b32.rc16 %0, %1, %2, %3;" : "=r"(r[7]) : "r"(x), "r"(y), "r"(z));
  r[8] = __fns(x, y & 31, int(z % 41) - 20);
  asm("bfind.u32 %0, %1;" : "=r"(r[9]) : "r"(x));
  asm("bfind.s32 %0, %1;" : "=r"(r[10]) : "r"(x));
  asm("bfind.shiftamt.u32 %0, %1;" : "=r"(r[11]) : "r"(x));
  asm("bfind.shiftamt.s64 %0, %1;" : "=r"(r[12]) : "l"(w[i]));
  r[13] = __brev(x);
  const unsigned long long rb = __brevll(w[i]);
  r[14] = unsigned(rb);
  r[15] = unsigned(rb >> 32);
  for (int k = 0; k < 16; ++k) out[i * 16 + k] = r[k];
}

// activemask and elect.sync in a divergent warp: lanes whose a[i] is odd take the branch.
extern "C" __global__ void lane_ops(const unsigned* a, unsigned* out) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned r[4] = {0, 0, 0, 0};
  if (a[i] & 1) {
    r[0] = __activemask();
    unsigned leader, is;
    asm volatile("{ .reg .pred p; elect.sync %0|p, %2; selp.u32 %1, 1, 0, p; }"
                 : "=r"(leader), "=r"(is)
                 : "r"(r[0]));
    r[1] = leader;
    r[2] = is;
  } else {
    r[3] = __activemask();
  }
  for (int k = 0; k < 4; ++k) out[i * 4 + k] = r[k];
}

// cp.async: a read before the wait that covers a copy sees the old bytes, after it the new.
// s[] starts at -1; lane i copies g[i] (16 B, .cg) into s[i] (group 0), 8 B of g[32 + i] into
// s[32 + i] and 4 B into s[64 + i] (.ca, group 1), and 16 B with the last 12 zero-filled into
// s[96 + i] (group 2). out[i * 8 + k]:
//   0 s[i].x before any wait         1 s[i].x after wait_group 2 (group 0 landed)
//   2 s[32 + i].y after wait_group 2 3 s[32 + i].y after wait_group 1
//   4 s[64 + i].x after wait_group 1 5 s[96 + i].x after wait_all
//   6 s[96 + i].w after wait_all     7 s[96 + i].x before wait_all
extern "C" __global__ void cp_async_ops(const int4* g, int* out) {
  __shared__ int4 s[128];
  const unsigned i = threadIdx.x;
  for (int k = 0; k < 4; ++k) s[i + 32 * k] = make_int4(-1, -1, -1, -1);
  __syncwarp();
  __pipeline_memcpy_async(&s[i], &g[i], 16);
  __pipeline_commit();
  int r0 = s[i].x;
  __pipeline_memcpy_async(&s[32 + i], &g[32 + i], 8);
  __pipeline_memcpy_async(&s[64 + i], &g[64 + i], 4);
  __pipeline_commit();
  __pipeline_memcpy_async(&s[96 + i], &g[96 + i], 16, 12);
  __pipeline_commit();
  __pipeline_wait_prior(2);
  int r1 = s[i].x, r2 = s[32 + i].y;
  __pipeline_wait_prior(1);
  int r3 = s[32 + i].y, r4 = s[64 + i].x, r7 = s[96 + i].x;
  asm volatile("cp.async.wait_all;" ::: "memory");
  int r5 = s[96 + i].x, r6 = s[96 + i].w;
  int* o = out + i * 8;
  o[0] = r0, o[1] = r1, o[2] = r2, o[3] = r3, o[4] = r4, o[5] = r5, o[6] = r6, o[7] = r7;
}

// bmsk in both modes (CUB's radix sort emits bmsk.clamp), on operands past 32 too, and the
// cache-level prefetch hint CUB's transform kernels emit (no effect on values).
extern "C" __global__ void bmsk_ops(const unsigned* a, const unsigned* b, unsigned* out) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  asm volatile("prefetch.global.L2 [%0];" ::"l"(a + i));
  unsigned c, w;
  asm("bmsk.clamp.b32 %0, %1, %2;" : "=r"(c) : "r"(a[i]), "r"(b[i]));
  asm("bmsk.wrap.b32 %0, %1, %2;" : "=r"(w) : "r"(a[i]), "r"(b[i]));
  out[2 * i] = c;
  out[2 * i + 1] = w;
}
