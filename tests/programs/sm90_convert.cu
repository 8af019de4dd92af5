// sm_90 instructions that CUDA's headers emit for ordinary code (programs.sh builds it with
// compute_90 PTX, the one gpurf runs): programmatic dependent launch (griddepcontrol.wait and
// .launch_dependents through cudaGridDependencySynchronize /
// cudaTriggerProgrammaticLaunchCompletion and cudaLaunchKernelEx's attribute), fp8 conversions of
// cuda_fp8.h (cvt to e4m3x2 / e5m2x2 from float pairs and half2, and back to half2), tf32 rounding
// (cvt.rna.tf32.f32) and the DPX intrinsics (__vimax3_s32_relu: max.s32.relu; __vimax_s16x2_relu,
// __vimin3_u16x2: packed halfword min/max). gpurf refused each of these kernels before. The host
// computes every result from the formats' definitions, bit for bit.
#include "check.h"

#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

__global__ void producer(int* data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = i * 3 + 1;
  cudaTriggerProgrammaticLaunchCompletion();
}
__global__ void consumer(const int* data, int* out, int n) {
  cudaGridDependencySynchronize();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = data[i] + data[(i + 1) % n];
}

// Per element: e4m3x2 and e5m2x2 of (f[i], f[i+1]) from floats and from a half2, both back to
// half2, tf32 of f[i].
__global__ void convert(const float* f, int n, unsigned* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i + 1 >= n) return;
  float2 p = make_float2(f[i], f[i + 1]); // .x into the low byte
  __nv_fp8x2_e4m3 a(p);
  __nv_fp8x2_e5m2 b(p);
  __nv_fp8x2_e4m3 c(__floats2half2_rn(f[i], f[i + 1]));
  __half2_raw ha = __nv_cvt_fp8x2_to_halfraw2(a.__x, __NV_E4M3);
  __half2_raw hb = __nv_cvt_fp8x2_to_halfraw2(b.__x, __NV_E5M2);
  unsigned t;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(t) : "f"(f[i]));
  unsigned* o = out + i * 6;
  o[0] = a.__x;
  o[1] = b.__x;
  o[2] = c.__x;
  o[3] = ha.x | unsigned(ha.y) << 16;
  o[4] = hb.x | unsigned(hb.y) << 16;
  o[5] = t;
}

__global__ void dpx(const int* a, const int* b, const int* c, int n, int* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int* o = out + i * 4;
  o[0] = __vimax3_s32_relu(a[i], b[i], c[i]);
  o[1] = (int)__vimax_s16x2_relu((unsigned)a[i], (unsigned)b[i]);
  o[2] = (int)__vimin3_u16x2((unsigned)a[i], (unsigned)b[i], (unsigned)c[i]);
  o[3] = __vimin3_s32_relu(a[i], b[i], c[i]);
}

// The nearest fp8 value to f (ties to the even code), beyond the largest finite one that one
// (.satfinite); NaN 0x7f.
static float e4m3(unsigned char x) {
  int e = (x >> 3) & 15, m = x & 7;
  if ((x & 0x7f) == 0x7f) return NAN;
  float v = e == 0 ? std::ldexp((float)m, -9) : std::ldexp(1.0f + m / 8.0f, e - 7);
  return x & 0x80 ? -v : v;
}
static float e5m2(unsigned char x) {
  int e = (x >> 2) & 31, m = x & 3;
  float v = e == 31  ? (m ? NAN : INFINITY)
            : e == 0 ? std::ldexp((float)m, -16)
                     : std::ldexp(1.0f + m / 4.0f, e - 15);
  return x & 0x80 ? -v : v;
}
static unsigned char nearest(float f, float (*val)(unsigned char)) {
  if (std::isnan(f)) return 0x7f;
  if (std::isinf(f)) f = std::copysign(65536.0f * 2, f); // .satfinite: past every finite value
  int best = -1;
  double bd = 0;
  for (int c = 0; c < 256; ++c) {
    float v = val((unsigned char)c);
    if (std::isnan(v) || std::isinf(v) || (bool)(c & 0x80) != (bool)std::signbit(f)) continue;
    double d = std::fabs((double)v - f);
    if (best < 0 || d < bd || (d == bd && (c & 1) == 0)) best = c, bd = d;
  }
  return (unsigned char)best;
}
static unsigned short half_bits(float v) { // exact for every fp8 value
  __half h = __float2half_rn(v);
  unsigned short u;
  std::memcpy(&u, &h, 2);
  return u;
}

int main() {
  int bad = 0;
  { // programmatic dependent launch
    const int n = 1000;
    int *d1, *d2;
    CHECK(cudaMalloc(&d1, n * 4));
    CHECK(cudaMalloc(&d2, n * 4));
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    producer<<<(n + 127) / 128, 128, 0, s>>>(d1, n);
    CHECK(cudaGetLastError());
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3((n + 127) / 128);
    cfg.blockDim = dim3(128);
    cfg.stream = s;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    CHECK(cudaLaunchKernelEx(&cfg, consumer, (const int*)d1, d2, n));
    CHECK(cudaStreamSynchronize(s));
    std::vector<int> h(n);
    CHECK(cudaMemcpy(h.data(), d2, n * 4, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i)
      if (h[i] != i * 3 + 1 + ((i + 1) % n) * 3 + 1 && bad++ < 5)
        std::printf("consumer %d: %d\n", i, h[i]);
  }
  { // conversions: ties, subnormals, saturation, signed zeros, NaN and infinities
    std::vector<float> f = {0.0f,
                            -0.0f,
                            1.0f,
                            -1.0f,
                            0.1f,
                            3.3f,
                            448.0f,
                            464.0f,
                            500.0f,
                            -1e6f,
                            1e-3f,
                            2e-3f,
                            1e-7f,
                            57344.0f,
                            61440.0f,
                            1e5f,
                            17.5f,
                            18.5f,
                            240.0f,
                            232.0f,
                            NAN,
                            INFINITY,
                            -INFINITY,
                            1.0000001f,
                            0.0146484375f,
                            3.0517578e-5f,
                            1.0f + 1.0f / 16,
                            1.0f + 3.0f / 16,
                            1.0f + 1.0f / 8192,
                            1.0f + 3.0f / 8192};
    for (int i = 0; i < 40; ++i)
      f.push_back(std::ldexp(1.0f + i / 40.0f, i - 20) * (i & 1 ? -1 : 1));
    const int n = (int)f.size();
    float* df;
    unsigned* dout;
    CHECK(cudaMalloc(&df, n * 4));
    CHECK(cudaMalloc(&dout, n * 6 * 4));
    CHECK(cudaMemcpy(df, f.data(), n * 4, cudaMemcpyHostToDevice));
    convert<<<1, 128>>>(df, n, dout);
    CHECK(cudaGetLastError());
    std::vector<unsigned> o(n * 6);
    CHECK(cudaMemcpy(o.data(), dout, o.size() * 4, cudaMemcpyDeviceToHost));
    for (int i = 0; i + 1 < n; ++i) {
      unsigned char a0 = nearest(f[i], e4m3), a1 = nearest(f[i + 1], e4m3);
      unsigned char b0 = nearest(f[i], e5m2), b1 = nearest(f[i + 1], e5m2);
      // the half2 path rounds to half first, then to fp8
      unsigned char c0 = nearest(__half2float(__float2half_rn(f[i])), e4m3),
                    c1 = nearest(__half2float(__float2half_rn(f[i + 1])), e4m3);
      auto back = [](unsigned char x, float (*val)(unsigned char)) -> unsigned {
        float v = val(x);
        return std::isnan(v) ? 0x7fffu : half_bits(v);
      };
      unsigned u;
      std::memcpy(&u, &f[i], 4);
      unsigned mag = u & 0x7fffffffu;
      unsigned tf = mag > 0x7f800000u ? u & ~0x1fffu // a NaN: no rounding, low bits cleared
                                      : (u & 0x80000000u) |
                                            ((mag + (mag < 0x7f800000u ? 0x1000u : 0)) & ~0x1fffu);
      unsigned want[6] = {a0 | unsigned(a1) << 8,
                          b0 | unsigned(b1) << 8,
                          c0 | unsigned(c1) << 8,
                          back(a0, e4m3) | back(a1, e4m3) << 16,
                          back(b0, e5m2) | back(b1, e5m2) << 16,
                          tf};
      for (int q = 0; q < 6; ++q) {
        unsigned g = o[i * 6 + q];
        bool ok = g == want[q];
        // A NaN's half may have any payload
        if (!ok && (q == 3 || q == 4)) {
          ok = true;
          for (int h = 0; h < 2; ++h) {
            unsigned gh = g >> (16 * h) & 0xffff, wh = want[q] >> (16 * h) & 0xffff;
            ok = ok && (gh == wh || (wh == 0x7fff && (gh & 0x7c00) == 0x7c00 && (gh & 0x3ff)));
          }
        }
        if (!ok && bad++ < 10)
          std::printf("convert %.9g, %.9g: op %d %#x want %#x\n", f[i], f[i + 1], q, g, want[q]);
      }
    }
  }
  { // DPX
    const int n = 256;
    std::vector<int> a(n), b(n), c(n);
    unsigned r = 99;
    auto nx = [&] { return r = r * 747796405u + 2891336453u, (int)(r ^ (r >> 13)); };
    for (int i = 0; i < n; ++i)
      a[i] = nx(), b[i] = nx(), c[i] = i % 4 == 0 ? a[i] : nx() >> (i % 20);
    int *da, *db, *dc, *dout;
    CHECK(cudaMalloc(&da, n * 4));
    CHECK(cudaMalloc(&db, n * 4));
    CHECK(cudaMalloc(&dc, n * 4));
    CHECK(cudaMalloc(&dout, n * 16));
    CHECK(cudaMemcpy(da, a.data(), n * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b.data(), n * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dc, c.data(), n * 4, cudaMemcpyHostToDevice));
    dpx<<<2, 128>>>(da, db, dc, n, dout);
    CHECK(cudaGetLastError());
    std::vector<int> o(n * 4);
    CHECK(cudaMemcpy(o.data(), dout, n * 16, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
      short al = (short)a[i], ah = (short)(a[i] >> 16), bl = (short)b[i], bh = (short)(b[i] >> 16);
      unsigned short ul = (unsigned short)a[i], uh = (unsigned short)(a[i] >> 16),
                     vl = (unsigned short)b[i], vh = (unsigned short)(b[i] >> 16),
                     wl = (unsigned short)c[i], wh = (unsigned short)(c[i] >> 16);
      int w[4] = {std::max(0, std::max(std::max(a[i], b[i]), c[i])),
                  (int)((unsigned short)std::max<int>(0, std::max(al, bl)) |
                        (unsigned)(unsigned short)std::max<int>(0, std::max(ah, bh)) << 16),
                  (int)(std::min({ul, vl, wl}) | (unsigned)std::min({uh, vh, wh}) << 16),
                  std::max(0, std::min(std::min(a[i], b[i]), c[i]))};
      for (int q = 0; q < 4; ++q)
        if (o[i * 4 + q] != w[q] && bad++ < 10)
          std::printf("dpx %d op %d: %#x want %#x (a %#x b %#x c %#x)\n", i, q, o[i * 4 + q], w[q],
                      a[i], b[i], c[i]);
    }
  }
  return finish(bad);
}
