// Image processing as applications write it, each stage against its host reference: a 5x5
// convolution with __constant__ taps over a shared-memory tile with a halo; a separable blur
// (row then column pass) over cudaMallocPitch images copied with cudaMemcpy2D; an 8-bit image
// as a texture of cudaArray read as normalised floats (point, linear with normalised
// coordinates and mirror/wrap addressing, tex2Dgather of each channel), a 16-bit and a signed
// 8-bit texture; a Sobel pass written through a surface and read back through it; the mean and
// maximum over a stack of frames in a layered array (tex2DLayered, surf2DLayeredwrite; refused
// before); a volume in cudaMalloc3D memory; per-byte SIMD video intrinsics on packed pixels
// (thresholds, frame differences, saturating arithmetic, sums of absolute differences), built as
// compute_90 PTX (add/sub.s16x2 for the halfword ones); tex2DLod and tex2DGrad (tex.level /
// tex.grad).
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "check.h"

constexpr int R = 2, K = 2 * R + 1, TILE = 16;
__constant__ float c_taps[K * K];
__constant__ float c_row[K];

__host__ __device__ inline int clampi(int v, int lo, int hi) {
  return v < lo ? lo : v > hi ? hi : v;
}

// 5x5 convolution, clamped borders, one output per thread from a (TILE+2R)^2 shared tile.
__global__ void conv2d(const float* in, float* out, int w, int h) {
  __shared__ float tile[TILE + 2 * R][TILE + 2 * R];
  const int x0 = blockIdx.x * TILE - R, y0 = blockIdx.y * TILE - R;
  for (int i = threadIdx.y * TILE + threadIdx.x; i < (TILE + 2 * R) * (TILE + 2 * R);
       i += TILE * TILE) {
    const int ty = i / (TILE + 2 * R), tx = i % (TILE + 2 * R);
    tile[ty][tx] = in[clampi(y0 + ty, 0, h - 1) * w + clampi(x0 + tx, 0, w - 1)];
  }
  __syncthreads();
  const int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  if (x >= w || y >= h) return;
  float acc = 0.f;
#pragma unroll
  for (int dy = 0; dy < K; ++dy)
#pragma unroll
    for (int dx = 0; dx < K; ++dx)
      acc = __fmaf_rn(c_taps[dy * K + dx], tile[threadIdx.y + dy][threadIdx.x + dx], acc);
  out[y * w + x] = acc;
}

// Separable pass over pitched rows: horizontal (dir 0) or vertical (dir 1).
__global__ void sep_pass(const float* in, size_t in_pitch, float* out, size_t out_pitch, int w,
                         int h, int dir) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float acc = 0.f;
  for (int k = -R; k <= R; ++k) {
    const int sx = dir ? x : clampi(x + k, 0, w - 1), sy = dir ? clampi(y + k, 0, h - 1) : y;
    const float* row =
        reinterpret_cast<const float*>(reinterpret_cast<const char*>(in) + sy * in_pitch);
    acc = __fmaf_rn(c_row[k + R], row[sx], acc);
  }
  reinterpret_cast<float*>(reinterpret_cast<char*>(out) + y * out_pitch)[x] = acc;
}

// Texture samples: point at texel centres, linear at normalised (u, v), the four gathers.
__global__ void tex_samples(cudaTextureObject_t point, cudaTextureObject_t lin,
                            cudaTextureObject_t u16, cudaTextureObject_t s8, const float2* uv,
                            float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float2 c = uv[i];
  float* o = out + i * 12;
  const float4 p = tex2D<float4>(point, c.x * 37.f, c.y * 23.f);
  o[0] = p.x, o[1] = p.y, o[2] = p.w;
  o[3] = tex2D<float4>(lin, c.x, c.y).x;
  o[4] = tex2D<float4>(lin, c.x, c.y).z;
  const float4 g0 = tex2Dgather<float4>(point, c.x * 37.f, c.y * 23.f, 0);
  const float4 g2 = tex2Dgather<float4>(point, c.x * 37.f, c.y * 23.f, 2);
  o[5] = g0.x + 2 * g0.y + 4 * g0.z + 8 * g0.w;
  o[6] = g2.x - g2.y + 3 * g2.z - 5 * g2.w;
  o[7] = tex2D<float>(u16, c.x * 37.f, c.y * 23.f);
  o[8] = tex2D<float>(s8, c.x * 37.f, c.y * 23.f);
  o[9] = tex2D<float>(u16, c.x, c.y); // linear over normalised coords, wrap
  // Level of detail and gradients: these textures have one level, which every LOD selects.
  o[10] = tex2DLod<float>(u16, c.x * 37.f, c.y * 23.f, 1.5f) -
          2.f * tex2DGrad<float4>(lin, c.x, c.y, make_float2(0.1f, 0.f), make_float2(0.f, 0.1f)).x;
  o[11] = tex2D<float>(s8, -c.x * 37.f, c.y * 23.f);
}

// Sobel magnitude of a uchar surface into a float surface, then the float surface read back.
__global__ void sobel_surf(cudaSurfaceObject_t src, cudaSurfaceObject_t dst, int w, int h) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int v[3][3];
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx)
      v[dy + 1][dx + 1] = surf2Dread<unsigned char>(src, x + dx, y + dy, cudaBoundaryModeClamp);
  const int gx = v[0][2] + 2 * v[1][2] + v[2][2] - v[0][0] - 2 * v[1][0] - v[2][0];
  const int gy = v[2][0] + 2 * v[2][1] + v[2][2] - v[0][0] - 2 * v[0][1] - v[0][2];
  surf2Dwrite(float(abs(gx) + abs(gy)), dst, x * 4, y);
}

__global__ void surf_readback(cudaSurfaceObject_t s, float* out, int w, int h) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    out[y * w + x] =
        surf2Dread<float>(s, x * 4, y) + surf2Dread<float>(s, -4, y, cudaBoundaryModeZero);
}

// A stack of frames in a layered array: per pixel the mean and the maximum over the layers
// (tex2DLayered), written to the two layers of a layered surface (surf2DLayeredwrite).
__global__ void frame_stats(cudaTextureObject_t frames, cudaSurfaceObject_t out, int w, int h,
                            int n) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float sum = 0.f, mx = -1e30f;
  for (int l = 0; l < n; ++l) {
    const float v = tex2DLayered<float>(frames, x + 0.5f, y + 0.5f, l);
    sum += v, mx = fmaxf(mx, v);
  }
  surf2DLayeredwrite(sum / n, out, x * 4, y, 0);
  surf2DLayeredwrite(mx, out, x * 4, y, 1);
}

// Tone curves: one 256-entry table per channel, the layers of a 1D layered array
// (tex1DLayered), applied to uchar4 pixels; the result written to a 1D layered surface of one
// layer per channel (surf1DLayeredwrite).
__global__ void tone_curves(cudaTextureObject_t luts, cudaSurfaceObject_t out, const uchar4* px,
                            int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const uchar4 p = px[i];
  const unsigned char c[3] = {p.x, p.y, p.z};
  for (int ch = 0; ch < 3; ++ch)
    surf1DLayeredwrite(tex1DLayered<float>(luts, c[ch] + 0.5f, ch), out, i * 4, ch);
}

// A volume in cudaMalloc3D memory: each voxel += its z-neighbours' mean.
__global__ void volume(cudaPitchedPtr p, int w, int h, int d, int* out) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y, z = blockIdx.z;
  if (x >= w) return;
  auto at = [&](int zz) {
    return reinterpret_cast<const int*>(static_cast<const char*>(p.ptr) +
                                        (size_t(zz) * h + y) * p.pitch)[x];
  };
  out[(z * h + y) * w + x] = at(z) * 4 + at(max(z - 1, 0)) + at(min(z + 1, d - 1));
}

// Packed 8-bit pixels (four a word) and 16-bit pairs through the SIMD video intrinsics.
constexpr int NSIMD = 24;
__global__ void simd(const unsigned* a, const unsigned* b, unsigned* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const unsigned x = a[i], y = b[i];
  unsigned* o = out + i * NSIMD;
  o[0] = __vadd4(x, y), o[1] = __vsub4(x, y), o[2] = __vaddus4(x, y), o[3] = __vsubus4(x, y);
  o[4] = __vcmpgtu4(x, y), o[5] = __vcmpges4(x, y), o[6] = __vcmpeq4(x, y), o[7] = __vsetltu4(x, y);
  o[8] = __vmaxu4(x, y), o[9] = __vmins4(x, y), o[10] = __vavgu4(x, y), o[11] = __vhaddu4(x, y);
  o[12] = __vabsdiffu4(x, y), o[13] = __vsadu4(x, y), o[14] = __vsads2(x, y), o[15] = __vneg4(x);
  o[16] = __vadd2(x, y), o[17] = __vsubss2(x, y), o[18] = __vcmpltu2(x, y), o[19] = __vmaxs2(x, y);
  o[20] = __vseteq2(x, y), o[21] = __vabsdiffs2(x, y), o[22] = __vnegss4(x),
  o[23] = __vsetne4(x, y);
}

// Host references of the SIMD intrinsics (CUDA Math API's definitions).
static unsigned lanes(unsigned x, unsigned y, int bits, int (*f)(int, int, bool), bool sgn) {
  unsigned r = 0, m = (1u << bits) - 1;
  for (int s = 0; s < 32; s += bits) {
    int a = (x >> s) & m, b = (y >> s) & m;
    if (sgn)
      a = a >= (1 << (bits - 1)) ? a - (1 << bits) : a,
      b = b >= (1 << (bits - 1)) ? b - (1 << bits) : b;
    r |= (unsigned(f(a, b, bits == 8)) & m) << s;
  }
  return r;
}
static int sat(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }
static unsigned sad(unsigned x, unsigned y, int bits, bool sgn) {
  unsigned m = (1u << bits) - 1, s = 0;
  for (int k = 0; k < 32; k += bits) {
    int a = (x >> k) & m, b = (y >> k) & m;
    if (sgn)
      a = a >= (1 << (bits - 1)) ? a - (1 << bits) : a,
      b = b >= (1 << (bits - 1)) ? b - (1 << bits) : b;
    s += std::abs(a - b);
  }
  return s;
}
static void simd_ref(unsigned x, unsigned y, unsigned* o) {
  o[0] = lanes(
      x, y, 8, [](int a, int b, bool) { return a + b; }, false);
  o[1] = lanes(
      x, y, 8, [](int a, int b, bool) { return a - b; }, false);
  o[2] = lanes(
      x, y, 8, [](int a, int b, bool) { return sat(a + b, 0, 255); }, false);
  o[3] = lanes(
      x, y, 8, [](int a, int b, bool) { return sat(a - b, 0, 255); }, false);
  o[4] = lanes(
      x, y, 8, [](int a, int b, bool) { return a > b ? 0xff : 0; }, false);
  o[5] = lanes(
      x, y, 8, [](int a, int b, bool) { return a >= b ? 0xff : 0; }, true);
  o[6] = lanes(
      x, y, 8, [](int a, int b, bool) { return a == b ? 0xff : 0; }, false);
  o[7] = lanes(
      x, y, 8, [](int a, int b, bool) { return a < b ? 1 : 0; }, false);
  o[8] = lanes(
      x, y, 8, [](int a, int b, bool) { return a > b ? a : b; }, false);
  o[9] = lanes(
      x, y, 8, [](int a, int b, bool) { return a < b ? a : b; }, true);
  o[10] = lanes(
      x, y, 8, [](int a, int b, bool) { return (a + b + 1) >> 1; }, false);
  o[11] = lanes(
      x, y, 8, [](int a, int b, bool) { return (a + b) >> 1; }, false);
  o[12] = lanes(
      x, y, 8, [](int a, int b, bool) { return std::abs(a - b); }, false);
  o[13] = sad(x, y, 8, false);
  o[14] = sad(x, y, 16, true);
  o[15] = lanes(
      x, 0, 8, [](int a, int, bool) { return -a; }, false);
  o[16] = lanes(
      x, y, 16, [](int a, int b, bool) { return a + b; }, false);
  o[17] = lanes(
      x, y, 16, [](int a, int b, bool) { return sat(a - b, -32768, 32767); }, true);
  o[18] = lanes(
      x, y, 16, [](int a, int b, bool) { return a < b ? 0xffff : 0; }, false);
  o[19] = lanes(
      x, y, 16, [](int a, int b, bool) { return a > b ? a : b; }, true);
  o[20] = lanes(
      x, y, 16, [](int a, int b, bool) { return a == b ? 1 : 0; }, false);
  o[21] = lanes(
      x, y, 16, [](int a, int b, bool) { return std::abs(a - b); }, true);
  o[22] = lanes(
      x, 0, 8, [](int a, int, bool) { return sat(-a, -128, 127); }, true);
  o[23] = lanes(
      x, y, 8, [](int a, int b, bool) { return a != b ? 1 : 0; }, false);
}

static int bad = 0;
static void expect(bool ok, const char* what, int i, double got, double want) {
  if (!ok && bad++ < 10) std::printf("mismatch %s[%d]: got %.9g want %.9g\n", what, i, got, want);
}

// Host texture reference: normalised-float reads and the Programming Guide's filtering.
static int addr(int i, int n, cudaTextureAddressMode m) {
  if (m == cudaAddressModeClamp) return clampi(i, 0, n - 1);
  if (m == cudaAddressModeWrap) return ((i % n) + n) % n;
  const int p = ((i % (2 * n)) + 2 * n) % (2 * n); // mirror
  return p < n ? p : 2 * n - 1 - p;
}
static float weight(float f) { return float(std::nearbyint(double(f) * 256.0) / 256.0); }

int main() {
  const int W = 37, H = 23; // not multiples of the tile: partial CTAs
  std::vector<float> img(W * H), taps(K * K), row(K);
  for (int i = 0; i < W * H; ++i) img[i] = float((i * 7919) % 256) / 16.f - 3.f;
  for (int i = 0; i < K * K; ++i) taps[i] = float((i * 13) % 9 - 4) / 8.f;
  for (int i = 0; i < K; ++i) row[i] = float(1 + i * (K - 1 - i)) / 16.f;
  CHECK(cudaMemcpyToSymbol(c_taps, taps.data(), sizeof(float) * K * K));
  CHECK(cudaMemcpyToSymbol(c_row, row.data(), sizeof(row[0]) * K));

  // Convolution.
  float *d_in, *d_out;
  CHECK(cudaMalloc(&d_in, W * H * 4));
  CHECK(cudaMalloc(&d_out, W * H * 4));
  CHECK(cudaMemcpy(d_in, img.data(), W * H * 4, cudaMemcpyHostToDevice));
  conv2d<<<dim3((W + TILE - 1) / TILE, (H + TILE - 1) / TILE), dim3(TILE, TILE)>>>(d_in, d_out, W,
                                                                                   H);
  CHECK(cudaGetLastError());
  std::vector<float> got(W * H);
  CHECK(cudaMemcpy(got.data(), d_out, W * H * 4, cudaMemcpyDeviceToHost));
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      float acc = 0.f;
      for (int dy = 0; dy < K; ++dy)
        for (int dx = 0; dx < K; ++dx)
          acc =
              std::fmaf(taps[dy * K + dx],
                        img[clampi(y + dy - R, 0, H - 1) * W + clampi(x + dx - R, 0, W - 1)], acc);
      expect(got[y * W + x] == acc, "conv2d", y * W + x, got[y * W + x], acc);
    }

  // Separable blur through pitched memory.
  float *p_a, *p_b;
  size_t pa, pb;
  CHECK(cudaMallocPitch(&p_a, &pa, W * 4, H));
  CHECK(cudaMallocPitch(&p_b, &pb, W * 4, H));
  CHECK(cudaMemcpy2D(p_a, pa, img.data(), W * 4, W * 4, H, cudaMemcpyHostToDevice));
  const dim3 blk(16, 8), grd((W + 15) / 16, (H + 7) / 8);
  sep_pass<<<grd, blk>>>(p_a, pa, p_b, pb, W, H, 0);
  CHECK(cudaGetLastError());
  sep_pass<<<grd, blk>>>(p_b, pb, p_a, pa, W, H, 1);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy2D(got.data(), W * 4, p_a, pa, W * 4, H, cudaMemcpyDeviceToHost));
  std::vector<float> tmp(W * H);
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      float acc = 0.f;
      for (int k = -R; k <= R; ++k)
        acc = std::fmaf(row[k + R], img[y * W + clampi(x + k, 0, W - 1)], acc);
      tmp[y * W + x] = acc;
    }
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      float acc = 0.f;
      for (int k = -R; k <= R; ++k)
        acc = std::fmaf(row[k + R], tmp[clampi(y + k, 0, H - 1) * W + x], acc);
      expect(got[y * W + x] == acc, "separable", y * W + x, got[y * W + x], acc);
    }

  // Textures: uchar4, ushort and signed char arrays.
  std::vector<uchar4> rgba(W * H);
  std::vector<unsigned short> u16(W * H);
  std::vector<signed char> s8(W * H);
  for (int i = 0; i < W * H; ++i) {
    rgba[i] = make_uchar4(i * 31 % 256, i * 17 % 256, i * 5 % 256, i * 3 % 256);
    u16[i] = uint16_t(i * 2654435761u >> 16);
    s8[i] = (signed char)(i * 37 % 256 - 128);
  }
  cudaArray_t a_rgba, a_u16, a_s8;
  auto fmt4 = cudaCreateChannelDesc<uchar4>();
  auto fmt16 = cudaCreateChannelDesc<unsigned short>();
  auto fmts8 = cudaCreateChannelDesc<signed char>();
  CHECK(cudaMallocArray(&a_rgba, &fmt4, W, H));
  CHECK(cudaMallocArray(&a_u16, &fmt16, W, H));
  CHECK(cudaMallocArray(&a_s8, &fmts8, W, H));
  CHECK(cudaMemcpy2DToArray(a_rgba, 0, 0, rgba.data(), W * 4, W * 4, H, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy2DToArray(a_u16, 0, 0, u16.data(), W * 2, W * 2, H, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy2DToArray(a_s8, 0, 0, s8.data(), W, W, H, cudaMemcpyHostToDevice));
  auto make_tex = [](cudaArray_t a, cudaTextureFilterMode f, cudaTextureAddressMode m, bool norm) {
    cudaResourceDesc rd{};
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = a;
    cudaTextureDesc td{};
    td.addressMode[0] = td.addressMode[1] = m;
    td.filterMode = f;
    td.readMode = cudaReadModeNormalizedFloat;
    td.normalizedCoords = norm;
    cudaTextureObject_t t;
    CHECK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
    return t;
  };
  cudaTextureObject_t t_point = make_tex(a_rgba, cudaFilterModePoint, cudaAddressModeClamp, false);
  cudaTextureObject_t t_lin = make_tex(a_rgba, cudaFilterModeLinear, cudaAddressModeMirror, true);
  cudaTextureObject_t t_u16 = make_tex(a_u16, cudaFilterModePoint, cudaAddressModeClamp, false);
  cudaTextureObject_t t_s8 = make_tex(a_s8, cudaFilterModePoint, cudaAddressModeClamp, false);
  cudaTextureObject_t t_u16n = make_tex(a_u16, cudaFilterModeLinear, cudaAddressModeWrap, true);
  const int N = 200;
  std::vector<float2> uv(N);
  for (int i = 0; i < N; ++i)
    uv[i] = make_float2(float((i * 97) % 320) / 128.f - 0.8f, float((i * 61) % 300) / 128.f - 0.6f);
  float2* d_uv;
  float* d_t;
  CHECK(cudaMalloc(&d_uv, N * sizeof(float2)));
  CHECK(cudaMalloc(&d_t, N * 12 * 4));
  CHECK(cudaMemcpy(d_uv, uv.data(), N * sizeof(float2), cudaMemcpyHostToDevice));
  tex_samples<<<(N + 63) / 64, 64>>>(t_point, t_lin, t_u16, t_s8, d_uv, d_t, N);
  CHECK(cudaGetLastError());
  std::vector<float> tg(N * 12);
  CHECK(cudaMemcpy(tg.data(), d_t, N * 12 * 4, cudaMemcpyDeviceToHost));
  auto ch = [&](int x, int y, int c) {
    const uchar4 v = rgba[y * W + x];
    return float(c == 0 ? v.x : c == 1 ? v.y : c == 2 ? v.z : v.w) / 255.f;
  };
  auto lin = [&](float u, float v, int c, cudaTextureAddressMode m, auto texel) {
    const float xb = u * W - 0.5f, yb = v * H - 0.5f;
    const float fx = std::floor(xb), fy = std::floor(yb);
    const float a = weight(xb - fx), b = weight(yb - fy);
    const int i = int(fx), j = int(fy);
    auto T = [&](int x, int y) { return texel(addr(x, W, m), addr(y, H, m), c); };
    return (1 - a) * (1 - b) * T(i, j) + a * (1 - b) * T(i + 1, j) + (1 - a) * b * T(i, j + 1) +
           a * b * T(i + 1, j + 1);
  };
  auto u16ch = [&](int x, int y, int) { return float(u16[y * W + x]) / 65535.f; };
  for (int i = 0; i < N; ++i) {
    const float* o = &tg[i * 12];
    const float fx = uv[i].x * 37.f, fy = uv[i].y * 23.f;
    const int px = clampi(int(std::floor(fx)), 0, W - 1),
              py = clampi(int(std::floor(fy)), 0, H - 1);
    expect(o[0] == ch(px, py, 0), "point.x", i, o[0], ch(px, py, 0));
    expect(o[1] == ch(px, py, 1), "point.y", i, o[1], ch(px, py, 1));
    expect(o[2] == ch(px, py, 3), "point.w", i, o[2], ch(px, py, 3));
    const float l0 = lin(uv[i].x, uv[i].y, 0, cudaAddressModeMirror, ch);
    const float l2 = lin(uv[i].x, uv[i].y, 2, cudaAddressModeMirror, ch);
    expect(std::fabs(o[3] - l0) < 2e-6f, "linear.x", i, o[3], l0);
    expect(std::fabs(o[4] - l2) < 2e-6f, "linear.z", i, o[4], l2);
    // Gather: (i, j+1), (i+1, j+1), (i+1, j), (i, j) around x - 0.5, y - 0.5, clamped.
    const int gi = int(std::floor(fx - 0.5f)), gj = int(std::floor(fy - 0.5f));
    auto G = [&](int x, int y, int c) { return ch(clampi(x, 0, W - 1), clampi(y, 0, H - 1), c); };
    const float g0 =
        G(gi, gj + 1, 0) + 2 * G(gi + 1, gj + 1, 0) + 4 * G(gi + 1, gj, 0) + 8 * G(gi, gj, 0);
    const float g2 =
        G(gi, gj + 1, 2) - G(gi + 1, gj + 1, 2) + 3 * G(gi + 1, gj, 2) - 5 * G(gi, gj, 2);
    expect(std::fabs(o[5] - g0) < 1e-5f, "gather.r", i, o[5], g0);
    expect(std::fabs(o[6] - g2) < 1e-5f, "gather.b", i, o[6], g2);
    const float w16 = float(u16[py * W + px]) / 65535.f;
    expect(o[7] == w16, "u16", i, o[7], w16);
    const float ws8 = std::fmax(float(s8[py * W + px]) / 127.f, -1.f);
    expect(o[8] == ws8, "s8", i, o[8], ws8);
    expect(std::fabs(o[10] - (w16 - 2.f * l0)) < 5e-6f, "tex2DLod - 2 tex2DGrad", i, o[10],
           w16 - 2.f * l0);
    const int qx = clampi(int(std::floor(uv[i].x)), 0, W - 1),
              qy = clampi(int(std::floor(uv[i].y)), 0, H - 1);
    expect(o[9] == float(u16[qy * W + qx]) / 65535.f, "u16 unnormalised small", i, o[9],
           float(u16[qy * W + qx]) / 65535.f);
    const int nx = clampi(int(std::floor(-fx)), 0, W - 1);
    const float ws8b = std::fmax(float(s8[py * W + nx]) / 127.f, -1.f);
    expect(o[11] == ws8b, "s8 negative x", i, o[11], ws8b);
  }
  // The normalised, wrapped, linear 16-bit texture.
  tex_samples<<<(N + 63) / 64, 64>>>(t_point, t_lin, t_u16n, t_s8, d_uv, d_t, N);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(tg.data(), d_t, N * 12 * 4, cudaMemcpyDeviceToHost));
  for (int i = 0; i < N; ++i) {
    const float want = lin(uv[i].x, uv[i].y, 0, cudaAddressModeWrap, u16ch);
    expect(std::fabs(tg[i * 12 + 9] - want) < 2e-6f, "u16 linear wrap", i, tg[i * 12 + 9], want);
  }

  // Sobel through surfaces.
  std::vector<unsigned char> gray(W * H);
  for (int i = 0; i < W * H; ++i) gray[i] = (unsigned char)((i * i * 13) % 251);
  cudaArray_t s_in, s_out;
  auto fu8 = cudaCreateChannelDesc<unsigned char>();
  auto ff = cudaCreateChannelDesc<float>();
  CHECK(cudaMallocArray(&s_in, &fu8, W, H, cudaArraySurfaceLoadStore));
  CHECK(cudaMallocArray(&s_out, &ff, W, H, cudaArraySurfaceLoadStore));
  CHECK(cudaMemcpy2DToArray(s_in, 0, 0, gray.data(), W, W, H, cudaMemcpyHostToDevice));
  auto make_surf = [](cudaArray_t a) {
    cudaResourceDesc rd{};
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = a;
    cudaSurfaceObject_t s;
    CHECK(cudaCreateSurfaceObject(&s, &rd));
    return s;
  };
  cudaSurfaceObject_t so_in = make_surf(s_in), so_out = make_surf(s_out);
  sobel_surf<<<grd, blk>>>(so_in, so_out, W, H);
  CHECK(cudaGetLastError());
  surf_readback<<<grd, blk>>>(so_out, d_out, W, H);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(got.data(), d_out, W * H * 4, cudaMemcpyDeviceToHost));
  std::vector<float> sob(W * H);
  CHECK(cudaMemcpy2DFromArray(sob.data(), W * 4, s_out, 0, 0, W * 4, H, cudaMemcpyDeviceToHost));
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      auto g = [&](int dx, int dy) {
        return int(gray[clampi(y + dy, 0, H - 1) * W + clampi(x + dx, 0, W - 1)]);
      };
      const int gx = g(1, -1) + 2 * g(1, 0) + g(1, 1) - g(-1, -1) - 2 * g(-1, 0) - g(-1, 1);
      const int gy = g(-1, 1) + 2 * g(0, 1) + g(1, 1) - g(-1, -1) - 2 * g(0, -1) - g(1, -1);
      const float want = float(std::abs(gx) + std::abs(gy));
      expect(got[y * W + x] == want, "sobel surface", y * W + x, got[y * W + x], want);
      expect(sob[y * W + x] == want, "sobel array", y * W + x, sob[y * W + x], want);
    }

  // Frame statistics over a layered array.
  {
    const int NL = 5;
    std::vector<float> fr(W * H * NL), st(W * H * 2);
    for (int i = 0; i < W * H * NL; ++i) fr[i] = float((i * 37) % 101) * 0.5f;
    auto fdesc = cudaCreateChannelDesc<float>();
    cudaArray_t a_frames, a_stats;
    CHECK(cudaMalloc3DArray(&a_frames, &fdesc, make_cudaExtent(W, H, NL), cudaArrayLayered));
    CHECK(cudaMalloc3DArray(&a_stats, &fdesc, make_cudaExtent(W, H, 2),
                            cudaArrayLayered | cudaArraySurfaceLoadStore));
    cudaMemcpy3DParms up{};
    up.srcPtr = make_cudaPitchedPtr(fr.data(), W * 4, W, H);
    up.dstArray = a_frames;
    up.extent = make_cudaExtent(W, H, NL);
    up.kind = cudaMemcpyHostToDevice;
    CHECK(cudaMemcpy3D(&up));
    cudaTextureObject_t t_frames =
        make_tex(a_frames, cudaFilterModePoint, cudaAddressModeClamp, false);
    cudaSurfaceObject_t s_stats = make_surf(a_stats);
    frame_stats<<<grd, blk>>>(t_frames, s_stats, W, H, NL);
    CHECK(cudaGetLastError());
    cudaMemcpy3DParms down{};
    down.srcArray = a_stats;
    down.dstPtr = make_cudaPitchedPtr(st.data(), W * 4, W, H);
    down.extent = make_cudaExtent(W, H, 2);
    down.kind = cudaMemcpyDeviceToHost;
    CHECK(cudaMemcpy3D(&down));
    for (int i = 0; i < W * H; ++i) {
      float sum = 0.f, mx = -1e30f;
      for (int l = 0; l < NL; ++l) sum += fr[l * W * H + i], mx = std::fmax(mx, fr[l * W * H + i]);
      expect(st[i] == sum / NL, "layered mean", i, st[i], sum / NL);
      expect(st[W * H + i] == mx, "layered max", i, st[W * H + i], mx);
    }
  }

  // Tone curves through 1D layered arrays.
  {
    std::vector<float> lut(256 * 3), res(W * H * 3);
    for (int i = 0; i < 256 * 3; ++i)
      lut[i] = std::sqrt(float(i % 256) / 255.f) * float(1 + i / 256);
    auto fdesc = cudaCreateChannelDesc<float>();
    cudaArray_t a_lut, a_res;
    CHECK(cudaMalloc3DArray(&a_lut, &fdesc, make_cudaExtent(256, 0, 3), cudaArrayLayered));
    CHECK(cudaMalloc3DArray(&a_res, &fdesc, make_cudaExtent(W * H, 0, 3),
                            cudaArrayLayered | cudaArraySurfaceLoadStore));
    cudaMemcpy3DParms up{};
    up.srcPtr = make_cudaPitchedPtr(lut.data(), 256 * 4, 256, 1);
    up.dstArray = a_lut;
    up.extent = make_cudaExtent(256, 1, 3);
    up.kind = cudaMemcpyHostToDevice;
    CHECK(cudaMemcpy3D(&up));
    uchar4* d_px;
    CHECK(cudaMalloc(&d_px, W * H * sizeof(uchar4)));
    CHECK(cudaMemcpy(d_px, rgba.data(), W * H * sizeof(uchar4), cudaMemcpyHostToDevice));
    cudaTextureObject_t t_lut = make_tex(a_lut, cudaFilterModePoint, cudaAddressModeClamp, false);
    tone_curves<<<(W * H + 127) / 128, 128>>>(t_lut, make_surf(a_res), d_px, W * H);
    CHECK(cudaGetLastError());
    cudaMemcpy3DParms down{};
    down.srcArray = a_res;
    down.dstPtr = make_cudaPitchedPtr(res.data(), W * H * 4, W * H, 1);
    down.extent = make_cudaExtent(W * H, 1, 3);
    down.kind = cudaMemcpyDeviceToHost;
    CHECK(cudaMemcpy3D(&down));
    for (int i = 0; i < W * H; ++i) {
      const unsigned char c[3] = {rgba[i].x, rgba[i].y, rgba[i].z};
      for (int ch = 0; ch < 3; ++ch)
        expect(res[ch * W * H + i] == lut[ch * 256 + c[ch]], "tone curve", i, res[ch * W * H + i],
               lut[ch * 256 + c[ch]]);
    }
  }

  // A volume in cudaMalloc3D memory.
  const int VW = 19, VH = 7, VD = 5;
  cudaPitchedPtr vol;
  CHECK(cudaMalloc3D(&vol, make_cudaExtent(VW * 4, VH, VD)));
  std::vector<int> vh(VW * VH * VD), vo(VW * VH * VD);
  for (int i = 0; i < VW * VH * VD; ++i) vh[i] = i * 3 - 100;
  cudaMemcpy3DParms cp{};
  cp.srcPtr = make_cudaPitchedPtr(vh.data(), VW * 4, VW, VH);
  cp.dstPtr = vol;
  cp.extent = make_cudaExtent(VW * 4, VH, VD);
  cp.kind = cudaMemcpyHostToDevice;
  CHECK(cudaMemcpy3D(&cp));
  int* d_vo;
  CHECK(cudaMalloc(&d_vo, vo.size() * 4));
  volume<<<dim3(1, VH, VD), 32>>>(vol, VW, VH, VD, d_vo);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(vo.data(), d_vo, vo.size() * 4, cudaMemcpyDeviceToHost));
  for (int z = 0; z < VD; ++z)
    for (int y = 0; y < VH; ++y)
      for (int x = 0; x < VW; ++x) {
        auto at = [&](int zz) { return vh[(zz * VH + y) * VW + x]; };
        const int i = (z * VH + y) * VW + x,
                  want = at(z) * 4 + at(std::max(z - 1, 0)) + at(std::min(z + 1, VD - 1));
        expect(vo[i] == want, "volume", i, vo[i], want);
      }

  // SIMD video intrinsics.
  const int NS = 256;
  std::vector<unsigned> sa(NS), sb(NS), so(NS * NSIMD);
  for (int i = 0; i < NS; ++i) {
    sa[i] = i * 2654435761u ^ (i << 7);
    sb[i] = i % 5 == 0 ? sa[i] ^ (0xffu << (8 * (i % 4))) : i * 40503u * 40503u + 0x80017f01u;
  }
  unsigned *d_sa, *d_sb, *d_so;
  CHECK(cudaMalloc(&d_sa, NS * 4));
  CHECK(cudaMalloc(&d_sb, NS * 4));
  CHECK(cudaMalloc(&d_so, NS * NSIMD * 4));
  CHECK(cudaMemcpy(d_sa, sa.data(), NS * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_sb, sb.data(), NS * 4, cudaMemcpyHostToDevice));
  simd<<<NS / 64, 64>>>(d_sa, d_sb, d_so, NS);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(so.data(), d_so, NS * NSIMD * 4, cudaMemcpyDeviceToHost));
  for (int i = 0; i < NS; ++i) {
    unsigned want[NSIMD];
    simd_ref(sa[i], sb[i], want);
    for (int k = 0; k < NSIMD; ++k)
      if (so[i * NSIMD + k] != want[k] && bad++ < 10)
        std::printf("mismatch simd op %d on %08x %08x: got %08x want %08x\n", k, sa[i], sb[i],
                    so[i * NSIMD + k], want[k]);
  }
  CHECK(cudaDestroyTextureObject(t_point));
  CHECK(cudaDestroySurfaceObject(so_in));
  return finish(bad);
}
