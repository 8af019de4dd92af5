// Dependent chains, one kernel per instruction kind: every thread runs K (32) instructions of
// one kind, each reading only the previous one's result (one register source, immediates for
// the rest), then K more when `extra` is set (micro.cuh). gpurf micro runs each kernel with
// extra = 0 and 1: cycles per instruction = delta cycles / delta warp instructions. With
// `warps` warps (one CTA) the same difference gives the IPC of that many independent chains
// (latency hiding). Inline PTX keeps nvcc from folding the chain; values do not matter.
// Launch: grid 1, block 32 x warps (warps <= 32).
#include "micro.cuh"

#define CHAIN(name, T, REG, BYTES, ST, OP)                                                       \
  extern "C" __global__ void name(T* out, T seed, int extra) {                                   \
    unsigned long long p;                                                                        \
    OUT_ADDR(p, out, BYTES);                                                                     \
    T x = seed;                                                                                  \
    TWICE(OP : "+" REG(x))                                                                       \
    asm volatile("st.global." ST " [%0], %1;" ::"l"(p), REG(x) : "memory");                      \
  }

// int add/logic, int mul/mad, int div
CHAIN(dep_iadd, int, "r", 4, "s32", "add.s32 %0, %0, 1;")
CHAIN(dep_ixor, int, "r", 4, "s32", "xor.b32 %0, %0, 0x55;")
CHAIN(dep_ishl, int, "r", 4, "s32", "shl.b32 %0, %0, 1;")
CHAIN(dep_imul, int, "r", 4, "s32", "mul.lo.s32 %0, %0, 3;")
CHAIN(dep_imad, int, "r", 4, "s32", "mad.lo.s32 %0, %0, 3, 1;")
CHAIN(dep_idiv, int, "r", 4, "s32", "div.s32 %0, %0, 3;")
CHAIN(dep_imin, int, "r", 4, "s32", "min.s32 %0, %0, 1000;")
CHAIN(dep_mov, int, "r", 4, "s32", "mov.b32 %0, %0;")
// fp32 add/mul/fma, div, conversions
CHAIN(dep_fadd, float, "f", 4, "f32", "add.f32 %0, %0, 0f3F800000;")
CHAIN(dep_fmul, float, "f", 4, "f32", "mul.f32 %0, %0, 0f3F800000;")
CHAIN(dep_ffma, float, "f", 4, "f32", "fma.rn.f32 %0, %0, 0f3F800000, 0f3F000000;")
CHAIN(dep_fdiv, float, "f", 4, "f32", "div.rn.f32 %0, %0, 0f40000000;")
CHAIN(dep_cvt, float, "f", 4, "f32", "cvt.rni.f32.f32 %0, %0;")
CHAIN(dep_fmin, float, "f", 4, "f32", "min.f32 %0, %0, 0f447A0000;")
// transcendental, rcp/sqrt
CHAIN(dep_sin, float, "f", 4, "f32", "sin.approx.f32 %0, %0;")
CHAIN(dep_ex2, float, "f", 4, "f32", "ex2.approx.f32 %0, %0;")
CHAIN(dep_rcp, float, "f", 4, "f32", "rcp.approx.f32 %0, %0;")
CHAIN(dep_sqrt, float, "f", 4, "f32", "sqrt.approx.f32 %0, %0;")
// fp64 add/mul/fma, div (a 64-bit value is a register pair)
CHAIN(dep_dadd, double, "d", 8, "f64", "add.f64 %0, %0, 0d3FF0000000000000;")
CHAIN(dep_dfma, double, "d", 8, "f64", "fma.rn.f64 %0, %0, 0d3FF0000000000000, 0d3FE0000000000000;")
CHAIN(dep_ddiv, double, "d", 8, "f64", "div.rn.f64 %0, %0, 0d4000000000000000;")
CHAIN(dep_dmul, double, "d", 8, "f64", "mul.f64 %0, %0, 0d3FF0000000000000;")
CHAIN(dep_dmin, double, "d", 8, "f64", "min.f64 %0, %0, 0d408F400000000000;")
CHAIN(dep_drcp, double, "d", 8, "f64", "rcp.rn.f64 %0, %0;")
CHAIN(dep_dcvt, double, "d", 8, "f64", "cvt.rni.f64.f64 %0, %0;")
// shuffles
CHAIN(dep_shfl, int, "r", 4, "s32", "shfl.sync.bfly.b32 %0, %0, 1, 0x1f, 0xffffffff;")
// tensor core: mma.m16n8k8 f16 x f16 + f32 (Turing's native HMMA.1688), D = C carried
// through the chain; A (2 registers) and B (1) are read again by every link, 7 sources.
extern "C" __global__ void dep_hmma(float* out, float seed, int extra) {
  unsigned long long p;
  OUT_ADDR(p, out, 4);
  float c0 = seed, c1 = seed, c2 = seed, c3 = seed;
  const unsigned s = __float_as_uint(seed) >> 16; // small f16 values, a different register each
  const unsigned a0 = s, a1 = s + 1, b0 = s + 2;
  TWICE("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, "
        "{%0, %1, %2, %3};"
        : "+f"(c0), "+f"(c1), "+f"(c2), "+f"(c3)
        : "r"(a0), "r"(a1), "r"(b0))
  asm volatile("st.global.f32 [%0], %1;" ::"l"(p), "f"(c0) : "memory");
}
