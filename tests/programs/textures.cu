// Texture and surface objects made through the runtime API: 2D CUDA arrays of float and of
// uchar4 (read as normalised floats), a pitch-2D texture over cudaMallocPitch memory, a 1D
// linear texture over cudaMalloc memory, a 3D array (cudaMemcpy3D, trilinear filtering); point and linear filtering, clamp, wrap and border
// addressing, normalised coordinates; a kernel reading and writing surfaces; array copies
// both ways (2D and the deprecated 1D forms). Every sample is checked against a host
// reference written from the CUDA Programming Guide's texture fetching formulas; then the
// calls' argument errors (CUDA's error codes, not sticky) and gpurf's refusals.
#include <cuda_runtime.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "check.h"

// The pragma keeps nvcc quiet about the deprecated cudaMemcpyToArray / FromArray, which
// programs still call.
#pragma nv_diag_suppress 1444
#ifdef __GNUC__
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif

__global__ void sample_f(cudaTextureObject_t t, const float2* at, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2D<float>(t, at[i].x, at[i].y);
}

__global__ void sample_f4(cudaTextureObject_t t, const float2* at, float4* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2D<float4>(t, at[i].x, at[i].y);
}

__global__ void fetch_1d(cudaTextureObject_t t, const int* idx, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1Dfetch<float>(t, idx[i]);
}

__global__ void sample_3d(cudaTextureObject_t t, const float4* at, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex3D<float>(t, at[i].x, at[i].y, at[i].z);
}

// out(x, y) = 2 in(x, y) + y, through surfaces (x in bytes).
__global__ void surface_scale(cudaSurfaceObject_t in, cudaSurfaceObject_t out, int w, int h) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  const float v = surf2Dread<float>(in, x * 4, y);
  surf2Dwrite(2.0f * v + float(y), out, x * 4, y);
}

namespace {

// ---------------------------------------------------------------- the host reference
// The Programming Guide's "Texture Fetching": with normalised coordinates x = u * N (wrap
// first takes frac(u)); point sampling T[floor(x)]; linear filtering
// (1 - a) T[i] + a T[i + 1] with i = floor(xB), a = frac(xB), xB = x - 0.5, a held in 9-bit
// fixed point with 8 fraction bits, and in 2D the product of both weights. Every texel index
// is addressed: clamp to [0, N - 1], wrap modulo N (normalised coordinates only: CUDA
// clamps unnormalised ones), border reads the border colour.
struct Ref {
  int w = 0, h = 0, channels = 1;
  std::vector<float> texels; // row-major, `channels` floats per texel (normalised already)
  cudaTextureAddressMode address = cudaAddressModeClamp;
  bool linear = false, normalized = false, quantize = true;
  float border[4] = {0, 0, 0, 0};

  float texel(int i, int j, int c) const {
    const int n[2] = {w, h};
    int ij[2] = {i, j};
    for (int k = 0; k < 2; ++k) {
      if (address == cudaAddressModeBorder && (ij[k] < 0 || ij[k] >= n[k])) return border[c];
      if (address == cudaAddressModeWrap && normalized)
        ij[k] = ((ij[k] % n[k]) + n[k]) % n[k];
      else
        ij[k] = std::min(std::max(ij[k], 0), n[k] - 1);
    }
    return texels[(size_t(ij[1]) * w + ij[0]) * channels + c];
  }
  float coord(float u, int n) const {
    if (!normalized) return u;
    if (address == cudaAddressModeWrap) u -= std::floor(u);
    return u * float(n);
  }
  double weight(float frac) const {
    return quantize ? std::nearbyint(double(frac) * 256.0) / 256.0 : double(frac);
  }
  double sample(float u, float v, int c) const {
    const float x = coord(u, w), y = coord(v, h);
    if (!linear) return texel(int(std::floor(x)), int(std::floor(y)), c);
    const float xb = x - 0.5f, yb = y - 0.5f;
    const int i = int(std::floor(xb)), j = int(std::floor(yb));
    const double a = weight(xb - std::floor(xb)), b = weight(yb - std::floor(yb));
    return (1 - a) * (1 - b) * texel(i, j, c) + a * (1 - b) * texel(i + 1, j, c) +
           (1 - a) * b * texel(i, j + 1, c) + a * b * texel(i + 1, j + 1, c);
  }
};

int failures = 0;

void expect_near(const char* what, int k, double got, double want) {
  if (std::fabs(got - want) <= 2e-5 * (1.0 + std::fabs(want))) return;
  if (++failures <= 12) std::printf("%s: sample %d: %.7f, want %.7f\n", what, k, got, want);
}

void expect_error(const char* what, cudaError_t got, cudaError_t want) {
  if (got == want) return;
  ++failures;
  std::printf("%s: %s, want %s\n", what, cudaGetErrorName(got), cudaGetErrorName(want));
}

// Pseudo-random values that no linear function fits (so the weights matter).
float value(int x, int y) { return float((x * 37 + y * 91 + x * y * 13) % 53) - 20.0f; }

template <class T>
std::vector<T> run_samples(void (*kernel)(cudaTextureObject_t, const float2*, T*, int),
                           cudaTextureObject_t t, const std::vector<float2>& at) {
  const int n = int(at.size());
  float2* d_at;
  T* d_out;
  CHECK(cudaMalloc(&d_at, n * sizeof(float2)));
  CHECK(cudaMalloc(&d_out, n * sizeof(T)));
  CHECK(cudaMemcpy(d_at, at.data(), n * sizeof(float2), cudaMemcpyHostToDevice));
  kernel<<<(n + 63) / 64, 64>>>(t, d_at, d_out, n);
  CHECK(cudaGetLastError());
  std::vector<T> out(n);
  CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(T), cudaMemcpyDeviceToHost));
  CHECK(cudaFree(d_at));
  CHECK(cudaFree(d_out));
  return out;
}

cudaTextureDesc texture_desc(cudaTextureAddressMode m, cudaTextureFilterMode f, bool normalized,
                             cudaTextureReadMode read = cudaReadModeElementType) {
  cudaTextureDesc td;
  std::memset(&td, 0, sizeof td);
  td.addressMode[0] = td.addressMode[1] = m;
  td.filterMode = f;
  td.readMode = read;
  td.normalizedCoords = normalized;
  return td;
}

cudaResourceDesc array_resource(cudaArray_t a) {
  cudaResourceDesc rd;
  std::memset(&rd, 0, sizeof rd);
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = a;
  return rd;
}

} // namespace

int main() {
  // ---------------------------------------------------- a 2D array of float, three samplers
  const int W = 8, H = 6;
  Ref f;
  f.w = W;
  f.h = H;
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) f.texels.push_back(value(x, y));
  cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
  cudaArray_t fa;
  CHECK(cudaMallocArray(&fa, &fd, W, H));
  CHECK(cudaMemcpy2DToArray(fa, 0, 0, f.texels.data(), W * sizeof(float), W * sizeof(float), H,
                            cudaMemcpyHostToDevice));
  cudaChannelFormatDesc got_fd;
  cudaExtent got_ext;
  unsigned got_flags = 99;
  CHECK(cudaArrayGetInfo(&got_fd, &got_ext, &got_flags, fa));
  if (got_fd.x != 32 || got_fd.y || got_fd.f != cudaChannelFormatKindFloat || got_ext.width != W ||
      got_ext.height != H || got_ext.depth != 0 || got_flags != 0) {
    ++failures;
    std::printf("cudaArrayGetInfo: %d bits kind %d, %zu x %zu x %zu, flags %u\n", got_fd.x,
                got_fd.f, got_ext.width, got_ext.height, got_ext.depth, got_flags);
  }
  const cudaResourceDesc frd = array_resource(fa);
  // Unnormalised coordinates, in and around the array; one fraction (0.3 after - 0.5) that
  // is no multiple of 1/256, where the 9-bit weight differs from the exact one.
  const std::vector<float2> at = {{0.5f, 0.5f}, {3.25f, 2.75f}, {7.9f, 5.1f},   {-2.0f, 1.3f},
                                  {9.5f, -0.7f}, {4.8f, 3.8f},  {0.1f, 5.99f},  {6.5f, 0.25f},
                                  {1.0f, 1.0f},  {5.75f, 4.5f}, {-0.25f, 2.5f}, {8.25f, 6.2f}};
  struct Case {
    const char* name;
    cudaTextureAddressMode m;
    cudaTextureFilterMode filt;
    bool normalized;
  };
  const Case cases[] = {{"float array, point, clamp", cudaAddressModeClamp, cudaFilterModePoint, false},
                        {"float array, linear, clamp", cudaAddressModeClamp, cudaFilterModeLinear, false},
                        {"float array, linear, border", cudaAddressModeBorder, cudaFilterModeLinear, false},
                        {"float array, point, border", cudaAddressModeBorder, cudaFilterModePoint, false},
                        {"float array, linear, wrap, normalized", cudaAddressModeWrap, cudaFilterModeLinear, true},
                        {"float array, point, wrap, normalized", cudaAddressModeWrap, cudaFilterModePoint, true}};
  for (const Case& c : cases) {
    cudaTextureDesc td = texture_desc(c.m, c.filt, c.normalized);
    td.borderColor[0] = -5.5f;
    cudaTextureObject_t t = 0;
    CHECK(cudaCreateTextureObject(&t, &frd, &td, nullptr));
    std::vector<float2> pts = at;
    if (c.normalized) // the same points as fractions of the size, some outside [0, 1)
      for (float2& p : pts) p = make_float2(p.x / W * 1.7f - 0.4f, p.y / H * 1.3f + 0.2f);
    const std::vector<float> out = run_samples(sample_f, t, pts);
    Ref r = f;
    r.address = c.m;
    r.linear = c.filt == cudaFilterModeLinear;
    r.normalized = c.normalized;
    r.border[0] = -5.5f;
    for (size_t k = 0; k < pts.size(); ++k)
      expect_near(c.name, int(k), out[k], r.sample(pts[k].x, pts[k].y, 0));
    if (c.filt == cudaFilterModeLinear && c.m == cudaAddressModeClamp) {
      // At (7.9, 5.1), y - 0.5 has the fraction 0.6 (153.6/256) between two texels 30 apart:
      // the 9-bit weight (154/256) and the exact one give results 0.047 apart.
      Ref exact = r;
      exact.quantize = false;
      const double q = r.sample(at[2].x, at[2].y, 0), e = exact.sample(at[2].x, at[2].y, 0);
      if (std::fabs(q - e) < 1e-3) {
        ++failures;
        std::printf("the weight quantisation point does not separate (%.7f, %.7f)\n", q, e);
      }
    }
    cudaResourceDesc back;
    CHECK(cudaGetTextureObjectResourceDesc(&back, t));
    if (back.resType != cudaResourceTypeArray || back.res.array.array != fa) {
      ++failures;
      std::printf("cudaGetTextureObjectResourceDesc: not the array\n");
    }
    CHECK(cudaDestroyTextureObject(t));
  }

  // ------------------------- a 2D array of uchar4 read as normalised floats (deprecated copy)
  const int CW = 5, CH = 4;
  std::vector<uchar4> bytes(CW * CH);
  Ref c4;
  c4.w = CW;
  c4.h = CH;
  c4.channels = 4;
  for (int k = 0; k < CW * CH; ++k) {
    bytes[k] = make_uchar4((k * 53 + 7) & 255, (k * 101 + 3) & 255, (k * 29) & 255, 255 - k * 9);
    for (int ch = 0; ch < 4; ++ch)
      c4.texels.push_back(float((&bytes[k].x)[ch]) / 255.0f);
  }
  cudaChannelFormatDesc cd = cudaCreateChannelDesc<uchar4>();
  cudaArray_t ca;
  CHECK(cudaMallocArray(&ca, &cd, CW, CH));
  CHECK(cudaMemcpyToArray(ca, 0, 0, bytes.data(), bytes.size() * sizeof(uchar4),
                          cudaMemcpyHostToDevice));
  {
    const cudaResourceDesc rd = array_resource(ca);
    for (int linear = 0; linear < 2; ++linear) {
      cudaTextureDesc td = texture_desc(linear ? cudaAddressModeClamp : cudaAddressModeBorder,
                                        linear ? cudaFilterModeLinear : cudaFilterModePoint, true,
                                        cudaReadModeNormalizedFloat);
      const float border[4] = {0.25f, 0.5f, 0.75f, 1.0f};
      std::memcpy(td.borderColor, border, sizeof border);
      cudaTextureObject_t t;
      CHECK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
      std::vector<float2> pts;
      for (int k = 0; k < 16; ++k) pts.push_back(make_float2(-0.3f + 0.11f * k, 1.2f - 0.09f * k));
      const std::vector<float4> out = run_samples(sample_f4, t, pts);
      Ref r = c4;
      r.linear = linear;
      r.normalized = true;
      r.address = linear ? cudaAddressModeClamp : cudaAddressModeBorder;
      std::memcpy(r.border, border, sizeof border);
      const char* name = linear ? "uchar4 array, linear, clamp, normalized"
                                : "uchar4 array, point, border, normalized";
      for (size_t k = 0; k < pts.size(); ++k)
        for (int ch = 0; ch < 4; ++ch)
          expect_near(name, int(k * 4 + ch), (&out[k].x)[ch], r.sample(pts[k].x, pts[k].y, ch));
      CHECK(cudaDestroyTextureObject(t));
    }
    std::vector<uchar4> back(CW * CH);
    CHECK(cudaMemcpyFromArray(back.data(), ca, 0, 0, back.size() * sizeof(uchar4),
                              cudaMemcpyDeviceToHost));
    if (std::memcmp(back.data(), bytes.data(), back.size() * sizeof(uchar4)) != 0) {
      ++failures;
      std::printf("cudaMemcpyFromArray: not the bytes cudaMemcpyToArray wrote\n");
    }
  }

  // ------------------------------------------- a pitch-2D texture over cudaMallocPitch memory
  {
    const int PW = 13, PH = 7;
    Ref p;
    p.w = PW;
    p.h = PH;
    for (int y = 0; y < PH; ++y)
      for (int x = 0; x < PW; ++x) p.texels.push_back(value(x + 3, y * 2));
    float* dp;
    size_t pitch = 0;
    CHECK(cudaMallocPitch(reinterpret_cast<void**>(&dp), &pitch, PW * sizeof(float), PH));
    CHECK(cudaMemcpy2D(dp, pitch, p.texels.data(), PW * sizeof(float), PW * sizeof(float), PH,
                       cudaMemcpyHostToDevice));
    cudaResourceDesc rd;
    std::memset(&rd, 0, sizeof rd);
    rd.resType = cudaResourceTypePitch2D;
    rd.res.pitch2D.devPtr = dp;
    rd.res.pitch2D.desc = cudaCreateChannelDesc<float>();
    rd.res.pitch2D.width = PW;
    rd.res.pitch2D.height = PH;
    rd.res.pitch2D.pitchInBytes = pitch;
    const cudaTextureDesc td = texture_desc(cudaAddressModeClamp, cudaFilterModeLinear, false);
    cudaTextureObject_t t;
    CHECK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
    std::vector<float2> pts;
    for (int k = 0; k < 20; ++k) pts.push_back(make_float2(-1.0f + 0.77f * k, 7.5f - 0.43f * k));
    const std::vector<float> out = run_samples(sample_f, t, pts);
    p.linear = true;
    for (size_t k = 0; k < pts.size(); ++k)
      expect_near("pitch-2D float, linear, clamp", int(k), out[k], p.sample(pts[k].x, pts[k].y, 0));
    CHECK(cudaDestroyTextureObject(t));
    CHECK(cudaFree(dp));
  }

  // -------------------------------------------------- a 1D linear texture, tex1Dfetch
  {
    const int N = 50;
    std::vector<float> v(N);
    for (int k = 0; k < N; ++k) v[k] = value(k, 1);
    float* dv;
    CHECK(cudaMalloc(&dv, N * sizeof(float)));
    CHECK(cudaMemcpy(dv, v.data(), N * sizeof(float), cudaMemcpyHostToDevice));
    cudaResourceDesc rd;
    std::memset(&rd, 0, sizeof rd);
    rd.resType = cudaResourceTypeLinear;
    rd.res.linear.devPtr = dv;
    rd.res.linear.desc = cudaCreateChannelDesc<float>();
    rd.res.linear.sizeInBytes = N * sizeof(float);
    // Filter and address modes are ignored for linear memory (CUDA): linear here is fine.
    const cudaTextureDesc td = texture_desc(cudaAddressModeWrap, cudaFilterModeLinear, false);
    cudaTextureObject_t t;
    CHECK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
    const std::vector<int> idx = {0, 1, 17, 49, 50, -1, 1000, 25};
    int* di;
    float* dout;
    CHECK(cudaMalloc(&di, idx.size() * sizeof(int)));
    CHECK(cudaMalloc(&dout, idx.size() * sizeof(float)));
    CHECK(cudaMemcpy(di, idx.data(), idx.size() * sizeof(int), cudaMemcpyHostToDevice));
    fetch_1d<<<1, 32>>>(t, di, dout, int(idx.size()));
    CHECK(cudaGetLastError());
    std::vector<float> out(idx.size());
    CHECK(cudaMemcpy(out.data(), dout, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
    for (size_t k = 0; k < idx.size(); ++k) // outside the resource: zero
      expect_near("1D linear, tex1Dfetch", int(k), out[k],
                  idx[k] >= 0 && idx[k] < N ? v[idx[k]] : 0.0f);
    CHECK(cudaDestroyTextureObject(t));
    CHECK(cudaFree(dv));
    CHECK(cudaFree(di));
    CHECK(cudaFree(dout));
  }

  // ------------------------ a 3D array filled and read back by cudaMemcpy3D, trilinear
  {
    const int X = 5, Y = 4, Z = 3;
    std::vector<float> v(X * Y * Z);
    for (int z = 0; z < Z; ++z)
      for (int y = 0; y < Y; ++y)
        for (int x = 0; x < X; ++x) v[(z * Y + y) * X + x] = value(x + 2 * z, y + 3 * z);
    cudaArray_t a3;
    CHECK(cudaMalloc3DArray(&a3, &fd, make_cudaExtent(X, Y, Z)));
    cudaMemcpy3DParms in;
    std::memset(&in, 0, sizeof in);
    in.srcPtr = make_cudaPitchedPtr(v.data(), X * sizeof(float), X, Y);
    in.dstArray = a3;
    in.extent = make_cudaExtent(X, Y, Z);
    in.kind = cudaMemcpyHostToDevice;
    CHECK(cudaMemcpy3D(&in));
    const cudaResourceDesc rd = array_resource(a3);
    const cudaTextureDesc td = texture_desc(cudaAddressModeClamp, cudaFilterModeLinear, false);
    cudaTextureObject_t t;
    CHECK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
    std::vector<float4> pts;
    for (int k = 0; k < 12; ++k)
      pts.push_back(make_float4(-0.6f + 0.53f * k, 4.3f - 0.41f * k, -0.2f + 0.31f * k, 0));
    float4* d_at;
    float* d_out;
    CHECK(cudaMalloc(&d_at, pts.size() * sizeof(float4)));
    CHECK(cudaMalloc(&d_out, pts.size() * sizeof(float)));
    CHECK(cudaMemcpy(d_at, pts.data(), pts.size() * sizeof(float4), cudaMemcpyHostToDevice));
    sample_3d<<<1, 32>>>(t, d_at, d_out, int(pts.size()));
    CHECK(cudaGetLastError());
    std::vector<float> out(pts.size());
    CHECK(cudaMemcpy(out.data(), d_out, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
    Ref w; // for its weights
    auto texel = [&](int x, int y, int z) {
      x = std::min(std::max(x, 0), X - 1);
      y = std::min(std::max(y, 0), Y - 1);
      z = std::min(std::max(z, 0), Z - 1);
      return double(v[(z * Y + y) * X + x]);
    };
    for (size_t k = 0; k < pts.size(); ++k) { // trilinear: the product of three weights
      const float b[3] = {pts[k].x - 0.5f, pts[k].y - 0.5f, pts[k].z - 0.5f};
      int i[3];
      double a[3];
      for (int d = 0; d < 3; ++d) {
        i[d] = int(std::floor(b[d]));
        a[d] = w.weight(b[d] - std::floor(b[d]));
      }
      double want = 0;
      for (int c = 0; c < 8; ++c)
        want += (c & 1 ? a[0] : 1 - a[0]) * (c & 2 ? a[1] : 1 - a[1]) * (c & 4 ? a[2] : 1 - a[2]) *
                texel(i[0] + (c & 1), i[1] + (c >> 1 & 1), i[2] + (c >> 2 & 1));
      expect_near("3D float array, linear, clamp", int(k), out[k], want);
    }
    // A box out of the array: (1, 1, 1) to (3, 2, 2), into rows of 4 floats.
    std::vector<float> box(4 * 2 * 2, -1.0f);
    cudaMemcpy3DParms back;
    std::memset(&back, 0, sizeof back);
    back.srcArray = a3;
    back.srcPos = make_cudaPos(1, 1, 1);
    back.dstPtr = make_cudaPitchedPtr(box.data(), 4 * sizeof(float), 4, 2);
    back.extent = make_cudaExtent(3, 2, 2);
    back.kind = cudaMemcpyDeviceToHost;
    CHECK(cudaMemcpy3D(&back));
    for (int k = 0; k < 16; ++k) {
      const int x = k % 4, y = k / 4 % 2, z = k / 8;
      expect_near("cudaMemcpy3D box", k, box[k],
                  x < 3 ? v[((z + 1) * Y + y + 1) * X + x + 1] : -1.0f);
    }
    CHECK(cudaDestroyTextureObject(t));
    CHECK(cudaFree(d_at));
    CHECK(cudaFree(d_out));
    CHECK(cudaFreeArray(a3));
  }

  // ---------------------------------------- surfaces: read one array, write another
  {
    const int SW = 16, SH = 8;
    std::vector<float> in(SW * SH);
    for (int k = 0; k < SW * SH; ++k) in[k] = value(k % SW, k / SW);
    cudaArray_t sa, sb;
    CHECK(cudaMallocArray(&sa, &fd, SW, SH, cudaArraySurfaceLoadStore));
    CHECK(cudaMallocArray(&sb, &fd, SW, SH, cudaArraySurfaceLoadStore));
    CHECK(cudaMemcpy2DToArray(sa, 0, 0, in.data(), SW * sizeof(float), SW * sizeof(float), SH,
                              cudaMemcpyHostToDevice));
    cudaResourceDesc ra = array_resource(sa), rb = array_resource(sb);
    cudaSurfaceObject_t s_in, s_out;
    CHECK(cudaCreateSurfaceObject(&s_in, &ra));
    CHECK(cudaCreateSurfaceObject(&s_out, &rb));
    surface_scale<<<dim3(2, 2), dim3(8, 4)>>>(s_in, s_out, SW, SH);
    CHECK(cudaGetLastError());
    // Back through a 2D copy with a wider pitch, and a rectangle inside the array.
    std::vector<float> out(SW * SH * 2, -1.0f), part(3 * 2);
    CHECK(cudaMemcpy2DFromArray(out.data(), 2 * SW * sizeof(float), sb, 0, 0, SW * sizeof(float),
                                SH, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy2DFromArray(part.data(), 3 * sizeof(float), sb, 5 * sizeof(float), 4,
                                3 * sizeof(float), 2, cudaMemcpyDeviceToHost));
    for (int y = 0; y < SH; ++y)
      for (int x = 0; x < SW; ++x) {
        expect_near("surf2Dread/surf2Dwrite", y * SW + x, out[y * 2 * SW + x],
                    2.0 * in[y * SW + x] + y);
        expect_near("cudaMemcpy2DFromArray pitch gap", y, out[y * 2 * SW + SW + x], -1.0);
      }
    for (int k = 0; k < 6; ++k)
      expect_near("cudaMemcpy2DFromArray rectangle", k, part[k],
                  2.0 * in[(4 + k / 3) * SW + 5 + k % 3] + 4 + k / 3);
    // The surface's writes, sampled through a texture over the same array.
    const cudaTextureDesc td = texture_desc(cudaAddressModeClamp, cudaFilterModePoint, false);
    cudaTextureObject_t t;
    CHECK(cudaCreateTextureObject(&t, &rb, &td, nullptr));
    const std::vector<float> s = run_samples(sample_f, t, {{3.5f, 2.5f}, {15.2f, 7.9f}});
    expect_near("texture over a surface's writes", 0, s[0], 2.0 * in[2 * SW + 3] + 2);
    expect_near("texture over a surface's writes", 1, s[1], 2.0 * in[7 * SW + 15] + 7);
    CHECK(cudaDestroyTextureObject(t));
    CHECK(cudaDestroySurfaceObject(s_in));
    CHECK(cudaDestroySurfaceObject(s_out));
    CHECK(cudaFreeArray(sa));
    CHECK(cudaFreeArray(sb));
  }

  // ------------------------------------------------ argument errors and refusals
  {
    cudaTextureObject_t t = 0;
    const cudaTextureDesc td = texture_desc(cudaAddressModeClamp, cudaFilterModeLinear, false);
    expect_error("no resource", cudaCreateTextureObject(&t, nullptr, &td, nullptr),
                 cudaErrorInvalidValue);
    const cudaResourceDesc frd2 = array_resource(fa);
    expect_error("no texture descriptor", cudaCreateTextureObject(&t, &frd2, nullptr, nullptr),
                 cudaErrorInvalidValue);
    cudaTextureDesc bad = td;
    bad.addressMode[1] = cudaTextureAddressMode(7);
    expect_error("address mode 7", cudaCreateTextureObject(&t, &frd2, &bad, nullptr),
                 cudaErrorInvalidValue);
    // Linear filtering of an int array read as ints.
    cudaChannelFormatDesc id = cudaCreateChannelDesc<int>();
    cudaArray_t ia;
    CHECK(cudaMallocArray(&ia, &id, 4, 4));
    const cudaResourceDesc ird = array_resource(ia);
    expect_error("linear filtering of ints", cudaCreateTextureObject(&t, &ird, &td, nullptr),
                 cudaErrorInvalidValue);
    // A surface over an array made without cudaArraySurfaceLoadStore.
    cudaSurfaceObject_t s;
    expect_error("surface without the flag", cudaCreateSurfaceObject(&s, &ird),
                 cudaErrorInvalidValue);
    // A pitch that is no multiple of texturePitchAlignment.
    void* mem;
    CHECK(cudaMalloc(&mem, 4096));
    cudaResourceDesc prd;
    std::memset(&prd, 0, sizeof prd);
    prd.resType = cudaResourceTypePitch2D;
    prd.res.pitch2D.devPtr = mem;
    prd.res.pitch2D.desc = cudaCreateChannelDesc<uchar4>();
    prd.res.pitch2D.width = 5;
    prd.res.pitch2D.height = 4;
    prd.res.pitch2D.pitchInBytes = 20;
    const cudaTextureDesc pt = texture_desc(cudaAddressModeClamp, cudaFilterModePoint, false);
    expect_error("pitch 20", cudaCreateTextureObject(&t, &prd, &pt, nullptr),
                 cudaErrorInvalidValue);
    // A linear texture past the end of its allocation.
    cudaResourceDesc lrd;
    std::memset(&lrd, 0, sizeof lrd);
    lrd.resType = cudaResourceTypeLinear;
    lrd.res.linear.devPtr = mem;
    lrd.res.linear.desc = cudaCreateChannelDesc<float>();
    lrd.res.linear.sizeInBytes = 8192;
    expect_error("linear past the allocation", cudaCreateTextureObject(&t, &lrd, &pt, nullptr),
                 cudaErrorInvalidValue);
    // Formats: three channels are no CUDA array format.
    cudaChannelFormatDesc f3 = cudaCreateChannelDesc(32, 32, 32, 0, cudaChannelFormatKindFloat);
    cudaArray_t bad_a;
    expect_error("float3 array", cudaMallocArray(&bad_a, &f3, 4, 4),
                 cudaErrorInvalidChannelDescriptor);
    expect_error("width 0", cudaMallocArray(&bad_a, &fd, 0, 4), cudaErrorInvalidValue);
    // Refused by gpurf: cubemap arrays, mipmapped arrays.
    expect_error("cubemap array",
                 cudaMalloc3DArray(&bad_a, &fd, make_cudaExtent(4, 4, 6), cudaArrayCubemap),
                 cudaErrorNotSupported);
    cudaResourceDesc mrd;
    std::memset(&mrd, 0, sizeof mrd);
    mrd.resType = cudaResourceTypeMipmappedArray;
    mrd.res.mipmap.mipmap = reinterpret_cast<cudaMipmappedArray_t>(fa);
    expect_error("mipmapped array", cudaCreateTextureObject(&t, &mrd, &pt, nullptr),
                 cudaErrorNotSupported);
    // Handles: a destroyed object, a freed array, a copy outside the array, a bad direction.
    CHECK(cudaCreateTextureObject(&t, &frd2, &pt, nullptr));
    CHECK(cudaDestroyTextureObject(t));
    expect_error("destroyed twice", cudaDestroyTextureObject(t), cudaErrorInvalidValue);
    CHECK(cudaFreeArray(ia));
    expect_error("freed array", cudaFreeArray(ia), cudaErrorInvalidResourceHandle);
    float row[9] = {0};
    expect_error("copy outside the array",
                 cudaMemcpy2DToArray(fa, 0, 3, row, sizeof row, sizeof row, 1,
                                     cudaMemcpyHostToDevice),
                 cudaErrorInvalidValue);
    expect_error("copy into an array from the device side",
                 cudaMemcpy2DToArray(fa, 0, 0, row, 8 * sizeof(float), 8 * sizeof(float), 1,
                                     cudaMemcpyDeviceToHost),
                 cudaErrorInvalidMemcpyDirection);
    // None of these is sticky: the last error is the last one, then cleared.
    expect_error("last error", cudaGetLastError(), cudaErrorInvalidMemcpyDirection);
    expect_error("after", cudaGetLastError(), cudaSuccess);
    CHECK(cudaFree(mem));
  }
  CHECK(cudaFreeArray(fa));
  CHECK(cudaFreeArray(ca));
  CHECK(cudaDeviceSynchronize());
  return finish(failures != 0);
}
