// Tensor-core and cache-hint code as FlashAttention/CUTLASS-style kernels write it in inline
// PTX (sm_90 PTX): ldmatrix.x4 and .x2.trans from shared memory fed by cp.async.cg (L2::128B),
// mma.sync m16n8k16 f16 -> f32 over three k-tiles and m16n8k32 s8 -> s32; cp.async with a
// source size below the copy (zero fill), red.global.add.f32, lop3, prmt; createpolicy and
// ld.global.L2::cache_hint, cuda::annotated_ptr (st/ld .L2::cache_hint); a producer and a
// consumer launched with programmatic stream serialisation (griddepcontrol.launch_dependents /
// .wait, cudaGridDependencySynchronize); cvt.rna/.rz.tf32.f32 and mma.sync m16n8k8 .tf32. Each
// against the host: products exactly (tf32's to 1e-5).
#include "check.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda/annotated_ptr>
#include <cuda_fp16.h>
#include <vector>
// One warp: C[16x8] = A[16x16] (row) * B[16x8] (col), A and B staged in shared via cp.async.
__global__ void mma_f16(const __half* A, const __half* B, float* C, int k_tiles) {
  __shared__ __align__(128) __half sA[16 * 16];
  __shared__ __align__(128) __half sB[16 * 8]; // stored k-major: sB[k*8 + n]
  int lane = threadIdx.x;
  float c[4] = {0, 0, 0, 0};
  for (int kt = 0; kt < k_tiles; ++kt) {
    // 16x16 halves = 512 bytes = 32 x 16B: one cp.async per lane
    {
      unsigned dst = (unsigned)__cvta_generic_to_shared(sA + lane * 8);
      const __half* src = A + (lane / 2) * (16 * k_tiles) + kt * 16 + (lane % 2) * 8;
      asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16;" ::"r"(dst), "l"(src));
    }
    if (lane < 16) {
      unsigned dst = (unsigned)__cvta_generic_to_shared(sB + lane * 8);
      const __half* src = B + (kt * 16 + lane) * 8;
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src));
    }
    asm volatile("cp.async.commit_group;");
    asm volatile("cp.async.wait_group 0;");
    __syncwarp();
    unsigned a0, a1, a2, a3, b0, b1;
    {
      // ldmatrix x4: lanes 0-15 rows 0-15 at col 0, lanes 16-31 rows 0-15 at col 8
      int r = lane % 16, cc = (lane / 16) * 8;
      unsigned addr = (unsigned)__cvta_generic_to_shared(sA + r * 16 + cc);
      asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                   : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3)
                   : "r"(addr));
    }
    {
      // B stored k-major (row k, 8 n's): .trans gives the col-major fragment; lanes 0-15 address
      // rows k=0..15
      int r = lane % 16;
      unsigned addr = (unsigned)__cvta_generic_to_shared(sB + r * 8);
      asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];"
                   : "=r"(b0), "=r"(b1)
                   : "r"(addr));
    }
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
                 "{%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
    __syncwarp();
  }
  int g = lane / 4, t = lane % 4;
  C[g * 8 + t * 2] = c[0];
  C[g * 8 + t * 2 + 1] = c[1];
  C[(g + 8) * 8 + t * 2] = c[2];
  C[(g + 8) * 8 + t * 2 + 1] = c[3];
}

// int8: C[16x8] s32 = A[16x32] s8 (row) * B[32x8] s8 (col), fragments loaded directly from global
__global__ void mma_s8(const int8_t* A, const int8_t* B, int* C) {
  int lane = threadIdx.x, g = lane / 4, t = lane % 4;
  auto ld4 = [](const int8_t* p) {
    unsigned v;
    memcpy(&v, p, 4);
    return v;
  };
  unsigned a0 = ld4(A + g * 32 + t * 4), a1 = ld4(A + (g + 8) * 32 + t * 4),
           a2 = ld4(A + g * 32 + 16 + t * 4), a3 = ld4(A + (g + 8) * 32 + 16 + t * 4);
  // B col-major: column n = g, k = t*4.. and 16 + t*4..
  unsigned b0 = ld4(B + g * 32 + t * 4), b1 = ld4(B + g * 32 + 16 + t * 4);
  int c[4] = {0, 0, 0, 0};
  asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
               "{%8,%9}, {%0,%1,%2,%3};"
               : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])
               : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  C[g * 8 + t * 2] = c[0];
  C[g * 8 + t * 2 + 1] = c[1];
  C[(g + 8) * 8 + t * 2] = c[2];
  C[(g + 8) * 8 + t * 2 + 1] = c[3];
}

// zero-fill cp.async (src-size < cp-size), red.global.add.f32, lop3, prmt, cache-hinted load
__global__ void misc_ptx(const float* in, int n, float* sum, unsigned* bits, float* tail) {
  __shared__ __align__(16) float s[4 * 64];
  int t = threadIdx.x;
  int valid = max(0, min(4, n - t * 4)); // elements of this lane's 16 bytes inside the array
  unsigned dst = (unsigned)__cvta_generic_to_shared(s + t * 4);
  const float* src = in + min(t * 4, n - 1);
  asm volatile("cp.async.ca.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src),
               "r"(valid * 4));
  asm volatile("cp.async.wait_all;");
  __syncthreads();
  float v = s[t * 4] + s[t * 4 + 1] + s[t * 4 + 2] + s[t * 4 + 3];
  tail[t] = v;
  asm volatile("red.global.add.f32 [%0], %1;" ::"l"(sum), "f"(v));
  unsigned a = t * 0x01010101u, b = 0xF0F0F0F0u, c = 0x3C3C3C3Cu, r, p;
  asm("lop3.b32 %0, %1, %2, %3, 0x96;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); // a ^ b ^ c
  asm("prmt.b32 %0, %1, %2, 0x5140;" : "=r"(p) : "r"(a), "r"(b));
  unsigned long long pol;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(pol));
  float h;
  asm volatile("ld.global.L2::cache_hint.f32 %0, [%1], %2;"
               : "=f"(h)
               : "l"(in + (t % n)), "l"(pol));
  bits[t * 3] = r;
  bits[t * 3 + 1] = p;
  bits[t * 3 + 2] = __float_as_uint(h);
}

__global__ void producer(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = i * 2.0f;
  cudaTriggerProgrammaticLaunchCompletion();
}
__global__ void consumer(const float* x, float* y, int n) {
  cudaGridDependencySynchronize();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] + 1.0f;
}

// TF32: cvt.rna.tf32.f32 (wmma::__float_to_tf32) and cvt.rz, then mma.sync m16n8k8 .tf32 on the
// rounded values (A 16x8 row, B 8x8 col).
__global__ void tf32_mma(const float* a, const float* b, float* c, unsigned* bits) {
  int lane = threadIdx.x, g = lane / 4, t = lane % 4;
  auto rna = [](float f) {
    unsigned r;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(f));
    return r;
  };
  unsigned a0 = rna(a[g * 8 + t]), a1 = rna(a[(g + 8) * 8 + t]), a2 = rna(a[g * 8 + t + 4]),
           a3 = rna(a[(g + 8) * 8 + t + 4]), b0 = rna(b[g * 8 + t]), b1 = rna(b[g * 8 + t + 4]);
  float d[4] = {0, 0, 0, 0};
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
               "{%8,%9}, {%0,%1,%2,%3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  c[g * 8 + t * 2] = d[0];
  c[g * 8 + t * 2 + 1] = d[1];
  c[(g + 8) * 8 + t * 2] = d[2];
  c[(g + 8) * 8 + t * 2 + 1] = d[3];
  unsigned z;
  asm("cvt.rz.tf32.f32 %0, %1;" : "=r"(z) : "f"(a[lane]));
  bits[lane * 2] = rna(a[lane]);
  bits[lane * 2 + 1] = z;
}

// Persisting and streaming accesses through cuda::annotated_ptr: .L2::cache_hint loads and stores.
__global__ void annotated(float* x, int n) {
  cuda::annotated_ptr<float, cuda::access_property::persisting> p(x);
  cuda::annotated_ptr<float, cuda::access_property> q(
      x, cuda::access_property(cuda::access_property::streaming{}));
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    p[i] = p[i] * 2.f;
    q[i] = q[i] + 1.f;
  }
}

int main() {
  int bad = 0;
  srand(1);
  int KT = 3, K = 16 * KT;
  std::vector<__half> A(16 * K), B(K * 8);
  std::vector<float> C(128);
  std::vector<float> Af(16 * K), Bf(K * 8);
  for (int i = 0; i < 16 * K; ++i) {
    Af[i] = (rand() % 9 - 4) / 4.f;
    A[i] = __float2half(Af[i]);
  }
  for (int i = 0; i < K * 8; ++i) {
    Bf[i] = (rand() % 9 - 4) / 4.f;
    B[i] = __float2half(Bf[i]);
  }
  __half *dA, *dB;
  float* dC;
  CHECK(cudaMalloc(&dA, A.size() * 2));
  CHECK(cudaMalloc(&dB, B.size() * 2));
  CHECK(cudaMalloc(&dC, 128 * 4));
  CHECK(cudaMemcpy(dA, A.data(), A.size() * 2, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dB, B.data(), B.size() * 2, cudaMemcpyHostToDevice));
  mma_f16<<<1, 32>>>(dA, dB, dC, KT);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(C.data(), dC, 128 * 4, cudaMemcpyDeviceToHost));
  for (int m = 0; m < 16; ++m)
    for (int n = 0; n < 8; ++n) {
      float s = 0;
      for (int k = 0; k < K; ++k) s += Af[m * K + k] * Bf[k * 8 + n];
      if (C[m * 8 + n] != s && bad++ < 5) printf("mma f16 %d %d %g %g\n", m, n, C[m * 8 + n], s);
    }
  // int8
  std::vector<int8_t> A8(16 * 32), B8(8 * 32);
  std::vector<int> C8(128);
  for (auto& v : A8) v = rand() % 256 - 128;
  for (auto& v : B8) v = rand() % 256 - 128;
  int8_t *dA8, *dB8;
  int* dC8;
  CHECK(cudaMalloc(&dA8, 512));
  CHECK(cudaMalloc(&dB8, 256));
  CHECK(cudaMalloc(&dC8, 512));
  CHECK(cudaMemcpy(dA8, A8.data(), 512, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dB8, B8.data(), 256, cudaMemcpyHostToDevice));
  mma_s8<<<1, 32>>>(dA8, dB8, dC8);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(C8.data(), dC8, 512, cudaMemcpyDeviceToHost));
  for (int m = 0; m < 16; ++m)
    for (int n = 0; n < 8; ++n) {
      int s = 0;
      for (int k = 0; k < 32; ++k) s += A8[m * 32 + k] * B8[n * 32 + k];
      if (C8[m * 8 + n] != s && bad++ < 5) printf("mma s8 %d %d %d %d\n", m, n, C8[m * 8 + n], s);
    }
  // misc
  int n = 150;
  std::vector<float> in(n);
  for (int i = 0; i < n; ++i) in[i] = i * 0.5f;
  float *din, *dsum, *dtail;
  unsigned* dbits;
  CHECK(cudaMalloc(&din, n * 4));
  CHECK(cudaMalloc(&dsum, 4));
  CHECK(cudaMalloc(&dtail, 64 * 4));
  CHECK(cudaMalloc(&dbits, 64 * 12));
  CHECK(cudaMemcpy(din, in.data(), n * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dsum, 0, 4));
  misc_ptx<<<1, 64>>>(din, n, dsum, dbits, dtail);
  CHECK(cudaGetLastError());
  float sum;
  std::vector<float> tail(64);
  std::vector<unsigned> bits(64 * 3);
  CHECK(cudaMemcpy(&sum, dsum, 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(tail.data(), dtail, 256, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(bits.data(), dbits, 768, cudaMemcpyDeviceToHost));
  double hs = 0;
  for (int t = 0; t < 64; ++t) {
    int valid = std::max(0, std::min(4, n - t * 4));
    int base = std::min(t * 4, n - 1);
    float v = 0;
    float e[4] = {0, 0, 0, 0};
    for (int j = 0; j < valid; ++j) e[j] = in[base + j];
    v = e[0] + e[1] + e[2] + e[3];
    hs += v;
    if (tail[t] != v && bad++ < 5) printf("zfill %d %g %g\n", t, tail[t], v);
    unsigned a = t * 0x01010101u, b = 0xF0F0F0F0u, c = 0x3C3C3C3Cu;
    unsigned r = a ^ b ^ c;
    unsigned long long ab = ((unsigned long long)b << 32) | a;
    unsigned p = 0;
    unsigned sel = 0x5140;
    for (int k = 0; k < 4; ++k) p |= ((ab >> (8 * ((sel >> (4 * k)) & 7))) & 0xff) << (8 * k);
    if ((bits[t * 3] != r || bits[t * 3 + 1] != p ||
         bits[t * 3 + 2] !=
             [&] {
               unsigned u;
               memcpy(&u, &in[t % n], 4);
               return u;
             }()) &&
        bad++ < 5)
      printf("bits %d %x %x %x %x\n", t, bits[t * 3], r, bits[t * 3 + 1], p);
  }
  if (fabs(sum - hs) > 1e-3 * hs) {
    bad++;
    printf("red %g %g\n", sum, hs);
  }
  // programmatic dependent launch
  float *dx, *dy;
  CHECK(cudaMalloc(&dx, 1000 * 4));
  CHECK(cudaMalloc(&dy, 1000 * 4));
  producer<<<8, 128>>>(dx, 1000);
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(8);
  cfg.blockDim = dim3(128);
  cudaLaunchAttribute at[1];
  at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  at[0].val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = at;
  cfg.numAttrs = 1;
  CHECK(cudaLaunchKernelEx(&cfg, consumer, (const float*)dx, dy, 1000));
  std::vector<float> y(1000);
  CHECK(cudaMemcpy(y.data(), dy, 4000, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 1000; ++i)
    if (y[i] != i * 2.0f + 1 && bad++ < 5) printf("pdl %d %g\n", i, y[i]);
  { // tf32: values with bits below tf32's mantissa, ties (1 + 2^-11) among them
    std::vector<float> ta(128), tb(64), tc(128);
    std::vector<unsigned> tbits(64);
    for (int i = 0; i < 128; ++i) ta[i] = (i % 13 - 6) * 0.37f + (i == 5 ? 0.f : 1e-4f * i);
    ta[0] = 1.0f + 0x1p-11f; // a tie: away from zero
    ta[1] = -(1.0f + 0x1p-11f);
    ta[2] = 1.0f + 0x1p-12f;                             // below half: down
    // CUDA's NaN and its negation: not rounded, their low 13 bits cleared (sm_86's SASS for
    // cvt.rna: FSETP.GEU |a|, +INF skips the add; the AND 0xffffe000 applies to all)
    const unsigned nans[2] = {0x7fffffffu, 0xffffffffu};
    memcpy(&ta[3], &nans[0], 4);
    memcpy(&ta[4], &nans[1], 4);
    const unsigned flt_max = 0x7f7fffffu; // rounds up past the largest float: infinity
    memcpy(&ta[6], &flt_max, 4);
    for (int i = 0; i < 64; ++i) tb[i] = (i % 5) * 0.61f - 1.1f;
    float *dta, *dtb, *dtc;
    unsigned* dbits;
    CHECK(cudaMalloc(&dta, 512));
    CHECK(cudaMalloc(&dtb, 256));
    CHECK(cudaMalloc(&dtc, 512));
    CHECK(cudaMalloc(&dbits, 256));
    CHECK(cudaMemcpy(dta, ta.data(), 512, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dtb, tb.data(), 256, cudaMemcpyHostToDevice));
    tf32_mma<<<1, 32>>>(dta, dtb, dtc, dbits);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(tc.data(), dtc, 512, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(tbits.data(), dbits, 256, cudaMemcpyDeviceToHost));
    auto bits_of = [](float f) {
      unsigned u;
      memcpy(&u, &f, 4);
      return u;
    };
    auto rna = [&](float f) {
      unsigned u = bits_of(f);
      return (f != f ? u : u + 0x1000u) & 0xffffe000u;
    };
    auto val = [](unsigned u) {
      float f;
      memcpy(&f, &u, 4);
      return f;
    };
    auto rz = [&](float f) { return bits_of(f) & 0xffffe000u; };
    for (int l = 0; l < 32; ++l)
      if ((tbits[l * 2] != rna(ta[l]) || tbits[l * 2 + 1] != rz(ta[l])) && bad++ < 5)
        printf("tf32 cvt %d %08x %08x (want %08x %08x)\n", l, tbits[l * 2], tbits[l * 2 + 1],
               rna(ta[l]), rz(ta[l]));
    if (rna(ta[0]) != 0x3f802000u || rna(ta[1]) != 0xbf802000u || rna(ta[2]) != 0x3f800000u ||
        rna(ta[6]) != 0x7f800000u)
      bad++, printf("tf32 reference\n");
    for (int m = 0; m < 16; ++m)
      for (int n = 0; n < 8; ++n) {
        double e = 0;
        for (int k = 0; k < 8; ++k) e += (double)val(rna(ta[m * 8 + k])) * val(rna(tb[n * 8 + k]));
        if (fabs(tc[m * 8 + n] - e) > 1e-5 * (1 + fabs(e)) && bad++ < 5)
          printf("tf32 mma %d %d %g %g\n", m, n, tc[m * 8 + n], e);
      }
  }
  annotated<<<4, 256>>>(dx, 1000);
  CHECK(cudaMemcpy(y.data(), dx, 4000, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 1000; ++i)
    if (y[i] != i * 4.0f + 1 && bad++ < 5) printf("annotated %d %g\n", i, y[i]);
  CHECK(cudaDeviceSynchronize());
  return finish(bad);
}
