// A tiny CNN's inference: conv2d 3x3 + bias + ReLU, 2x2 max-pool, a dense layer and a softmax
// with warp-shuffle reductions, in float (__expf, __fdividef, fmaf, __saturatef), in __half2
// (h2exp, __hfma2) and in __nv_bfloat162 (bf16 fma/max), and a GELU of the features through
// h2tanh_approx on __half2 and __nv_bfloat162 (tanh.approx.f16x2 / .bf16x2 with compute_90
// PTX); each result against a double-precision host reference within its format's tolerance.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <vector>

#include "check.h"

constexpr int IMG = 16, CIN = 2, COUT = 8, K = 3, OUTW = IMG - K + 1, POOLW = OUTW / 2, NCLS = 10;
constexpr int FEAT = COUT * POOLW * POOLW; // 8 * 7 * 7 = 392

struct ConvW {
  float w[COUT][CIN][K][K];
  float b[COUT];
};
__constant__ ConvW cw;

// One CTA per image, one thread per (out channel, pooled pixel): conv at 4 points, ReLU, max.
__global__ void conv_pool(const float* in, float* feat, int nimg) {
  int img = blockIdx.x;
  __shared__ float tile[CIN][IMG][IMG];
  for (int i = threadIdx.x; i < CIN * IMG * IMG; i += blockDim.x)
    (&tile[0][0][0])[i] = in[(size_t)img * CIN * IMG * IMG + i];
  __syncthreads();
  for (int o = threadIdx.x; o < FEAT; o += blockDim.x) {
    int oc = o / (POOLW * POOLW), py = o / POOLW % POOLW, px = o % POOLW;
    float m = -INFINITY;
    for (int dy = 0; dy < 2; dy++)
      for (int dx = 0; dx < 2; dx++) {
        int y = 2 * py + dy, x = 2 * px + dx;
        float s = cw.b[oc];
#pragma unroll
        for (int c = 0; c < CIN; c++)
#pragma unroll
          for (int ky = 0; ky < K; ky++)
#pragma unroll
            for (int kx = 0; kx < K; kx++)
              s = fmaf(cw.w[oc][c][ky][kx], tile[c][y + ky][x + kx], s);
        m = fmaxf(m, fmaxf(s, 0.f));
      }
    feat[(size_t)img * FEAT + o] = m;
  }
}

__device__ inline float warp_sum(float v) {
  for (int o = 16; o; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
__device__ inline float warp_max(float v) {
  for (int o = 16; o; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

// Dense + softmax: one warp per image, each lane a class (lanes >= NCLS idle in the softmax).
__global__ void dense_softmax(const float* feat, const float* w, const float* b, float* prob,
                              float* logits, int nimg) {
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  if (warp >= nimg) return;
  const float* f = feat + (size_t)warp * FEAT;
  float logit[NCLS];
  for (int c = 0; c < NCLS; c++) {
    float s = 0.f;
    for (int i = lane; i < FEAT; i += 32) s = fmaf(w[c * FEAT + i], f[i], s);
    logit[c] = warp_sum(s) + b[c];
  }
  float mine = -INFINITY;
  for (int c = 0; c < NCLS; c++)
    if (c == lane) mine = logit[c];
  float mx = warp_max(mine);
  float e = lane < NCLS ? __expf(mine - mx) : 0.f;
  float sum = warp_sum(e);
  if (lane < NCLS) prob[warp * NCLS + lane] = __saturatef(__fdividef(e, sum));
  if (lane < NCLS) logits[warp * NCLS + lane] = mine;
}

// Log-probabilities of a sharpened softmax (a temperature per image that stretches its widest
// logit gap to 95): the unlikeliest class's probability, about e^-95, is a subnormal float, so
// __expf, __fdividef and __logf (ex2/div/lg2.approx without .ftz) meet subnormal values, as a
// cross-entropy over confident predictions does.
__global__ void sharp_log_softmax(const float* logits, const float* inv_t, float* logp, int nimg) {
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  if (warp >= nimg) return;
  float s = lane < NCLS ? logits[warp * NCLS + lane] * inv_t[warp] : -INFINITY;
  float mx = warp_max(s);
  float e = lane < NCLS ? __expf(s - mx) : 0.f;
  float sum = warp_sum(e);
  if (lane < NCLS) logp[warp * NCLS + lane] = __logf(__fdividef(e, sum));
}

// The same dense + softmax in __half2: two features a lane-step, fp32 accumulation at the end.
__global__ void dense_softmax_h2(const __half2* feat, const __half2* w, const float* b, float* prob,
                                 int nimg) {
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  if (warp >= nimg) return;
  const __half2* f = feat + (size_t)warp * (FEAT / 2);
  float mine = -INFINITY;
  for (int c = 0; c < NCLS; c++) {
    __half2 s = __float2half2_rn(0.f);
    for (int i = lane; i < FEAT / 2; i += 32) s = __hfma2(w[c * (FEAT / 2) + i], f[i], s);
    float t = warp_sum(__low2float(s) + __high2float(s)) + b[c];
    if (c == lane) mine = t;
  }
  float mx = warp_max(mine);
  __half2 e2 = h2exp(__float2half2_rn(lane < NCLS ? mine - mx : -20.f));
  float e = lane < NCLS ? __low2float(e2) : 0.f;
  float sum = warp_sum(e);
  if (lane < NCLS) prob[warp * NCLS + lane] = e / sum;
}

// ReLU and a scale in bf16 pairs (sm_80: fma.rn.bf16x2, max.bf16x2), then the dense layer.
__global__ void dense_softmax_bf16(const __nv_bfloat162* feat, const __nv_bfloat162* w,
                                   const float* b, float* prob, int nimg) {
#if __CUDA_ARCH__ >= 800 // (programs.sh also builds compute_75 PTX; gpurf runs the newest)
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  if (warp >= nimg) return;
  const __nv_bfloat162* f = feat + (size_t)warp * (FEAT / 2);
  const __nv_bfloat162 zero = __float2bfloat162_rn(0.f);
  float mine = -INFINITY;
  for (int c = 0; c < NCLS; c++) {
    float s = 0.f;
    for (int i = lane; i < FEAT / 2; i += 32) {
      __nv_bfloat162 x = __hmax2(f[i], zero);
      __nv_bfloat162 p = __hmul2(w[c * (FEAT / 2) + i], x);
      float2 pf = __bfloat1622float2(p);
      s += pf.x + pf.y;
    }
    float t = warp_sum(s) + b[c];
    if (c == lane) mine = t;
  }
  float mx = warp_max(mine);
  float e = lane < NCLS ? expf(mine - mx) : 0.f;
  float sum = warp_sum(e);
  __nv_bfloat16 pb = __float2bfloat16_rn(e / sum);
  if (lane < NCLS) prob[warp * NCLS + lane] = __bfloat162float(pb);
#else
  __trap();
#endif
}

// GELU (the tanh form) on packed halves: h2tanh_approx is sm_75's tanh.approx.f16x2, the bf16
// one sm_90's tanh.approx.bf16x2 (a tanhf before).
__global__ void gelu_pairs(const __half2* h, const __nv_bfloat162* bf, float2* out_h, float2* out_b,
                           int n2) {
#if __CUDA_ARCH__ >= 800 // (programs.sh also builds compute_75 PTX; gpurf runs the newest)
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n2) return;
  const __half2 k0 = __float2half2_rn(0.7978845608f), k1 = __float2half2_rn(0.044715f),
                one = __float2half2_rn(1.f), hf = __float2half2_rn(0.5f);
  __half2 x = h[i];
  __half2 in = __hmul2(k0, __hfma2(__hmul2(k1, x), __hmul2(x, x), x));
  out_h[i] = __half22float2(__hmul2(__hmul2(hf, x), __hadd2(one, h2tanh_approx(in))));
  const __nv_bfloat162 b0 = __float2bfloat162_rn(0.7978845608f),
                       b1 = __float2bfloat162_rn(0.044715f), bone = __float2bfloat162_rn(1.f),
                       bhf = __float2bfloat162_rn(0.5f);
  __nv_bfloat162 y = bf[i];
  __nv_bfloat162 bin = __hmul2(b0, __hfma2(__hmul2(b1, y), __hmul2(y, y), y));
  out_b[i] = __bfloat1622float2(__hmul2(__hmul2(bhf, y), __hadd2(bone, h2tanh_approx(bin))));
#else
  __trap();
#endif
}

__global__ void to_half(const float* a, __half2* h, __nv_bfloat162* bf, int n2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n2) return;
  float2 v = make_float2(a[2 * i], a[2 * i + 1]);
  h[i] = __float22half2_rn(v);
  bf[i] = __float22bfloat162_rn(v);
}

int main() {
  const int NIMG = 16, REPS = 2;
  std::vector<float> in((size_t)NIMG * CIN * IMG * IMG), dw(NCLS * FEAT), db(NCLS);
  ConvW hw;
  uint32_t s = 12345;
  auto r = [&] {
    s = s * 1664525u + 1013904223u;
    return (s >> 8) * (1.f / 16777216.f) - 0.5f;
  };
  for (auto& v : in) v = r() * 2.f;
  for (int o = 0; o < COUT; o++) {
    for (int c = 0; c < CIN; c++)
      for (int y = 0; y < K; y++)
        for (int x = 0; x < K; x++) hw.w[o][c][y][x] = r();
    hw.b[o] = r() * 0.1f;
  }
  for (auto& v : dw) v = r() * 0.5f;
  for (auto& v : db) v = r() * 0.2f;
  CHECK(cudaMemcpyToSymbol(cw, &hw, sizeof hw));
  float *d_in, *d_feat, *d_w, *d_b, *d_p[3];
  __half2 *d_fh, *d_wh;
  __nv_bfloat162 *d_fb, *d_wb;
  CHECK(cudaMalloc(&d_in, in.size() * 4));
  CHECK(cudaMalloc(&d_feat, (size_t)NIMG * FEAT * 4));
  CHECK(cudaMalloc(&d_w, dw.size() * 4));
  CHECK(cudaMalloc(&d_b, db.size() * 4));
  for (auto& p : d_p) CHECK(cudaMalloc(&p, NIMG * NCLS * 4));
  float *d_logits, *d_logp;
  CHECK(cudaMalloc(&d_logits, NIMG * NCLS * 4));
  CHECK(cudaMalloc(&d_logp, NIMG * NCLS * 4));
  CHECK(cudaMalloc(&d_fh, (size_t)NIMG * FEAT * 2));
  CHECK(cudaMalloc(&d_wh, dw.size() * 2));
  CHECK(cudaMalloc(&d_fb, (size_t)NIMG * FEAT * 2));
  CHECK(cudaMalloc(&d_wb, dw.size() * 2));
  CHECK(cudaMemcpy(d_in, in.data(), in.size() * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_w, dw.data(), dw.size() * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_b, db.data(), db.size() * 4, cudaMemcpyHostToDevice));
  to_half<<<(NCLS * FEAT / 2 + 127) / 128, 128>>>(d_w, d_wh, d_wb, NCLS * FEAT / 2);
  for (int rep = 0; rep < REPS; rep++) {
    conv_pool<<<NIMG, 128>>>(d_in, d_feat, NIMG);
    to_half<<<(NIMG * FEAT / 2 + 127) / 128, 128>>>(d_feat, d_fh, d_fb, NIMG * FEAT / 2);
    dense_softmax<<<(NIMG * 32 + 127) / 128, 128>>>(d_feat, d_w, d_b, d_p[0], d_logits, NIMG);
    dense_softmax_h2<<<(NIMG * 32 + 63) / 64, 64>>>(d_fh, d_wh, d_b, d_p[1], NIMG);
    dense_softmax_bf16<<<(NIMG * 32 + 95) / 96, 96>>>(d_fb, d_wb, d_b, d_p[2], NIMG);
  }
  float2 *d_gh, *d_gb;
  CHECK(cudaMalloc(&d_gh, (size_t)NIMG * FEAT * 4));
  CHECK(cudaMalloc(&d_gb, (size_t)NIMG * FEAT * 4));
  gelu_pairs<<<(NIMG * FEAT / 2 + 127) / 128, 128>>>(d_fh, d_fb, d_gh, d_gb, NIMG * FEAT / 2);
  CHECK(cudaGetLastError());
  std::vector<float> feat((size_t)NIMG * FEAT), p[3], gh((size_t)NIMG * FEAT),
      gb((size_t)NIMG * FEAT);
  CHECK(cudaMemcpy(gh.data(), d_gh, gh.size() * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(gb.data(), d_gb, gb.size() * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(feat.data(), d_feat, feat.size() * 4, cudaMemcpyDeviceToHost));
  for (int k = 0; k < 3; k++) {
    p[k].resize(NIMG * NCLS);
    CHECK(cudaMemcpy(p[k].data(), d_p[k], NIMG * NCLS * 4, cudaMemcpyDeviceToHost));
  }
  int bad = 0;
  double maxe[4] = {0, 0, 0, 0};
  for (int n = 0; n < NIMG; n++) {
    std::vector<float> hf(FEAT);
    for (int o = 0; o < FEAT; o++) {
      int oc = o / (POOLW * POOLW), py = o / POOLW % POOLW, px = o % POOLW;
      float m = -INFINITY;
      for (int dy = 0; dy < 2; dy++)
        for (int dx = 0; dx < 2; dx++) {
          double sum = hw.b[oc];
          for (int c = 0; c < CIN; c++)
            for (int ky = 0; ky < K; ky++)
              for (int kx = 0; kx < K; kx++)
                sum +=
                    (double)hw.w[oc][c][ky][kx] *
                    in[(((size_t)n * CIN + c) * IMG + 2 * py + dy + ky) * IMG + 2 * px + dx + kx];
          m = std::fmax(m, std::fmax((float)sum, 0.f));
        }
      hf[o] = m;
      maxe[3] = std::fmax(maxe[3], std::fabs(m - feat[(size_t)n * FEAT + o]));
    }
    double lg[NCLS], mx = -1e30, sum = 0;
    for (int c = 0; c < NCLS; c++) {
      lg[c] = db[c];
      for (int i = 0; i < FEAT; i++) lg[c] += (double)dw[c * FEAT + i] * hf[i];
      mx = std::fmax(mx, lg[c]);
    }
    for (int c = 0; c < NCLS; c++) sum += std::exp(lg[c] - mx);
    for (int c = 0; c < NCLS; c++) {
      double want = std::exp(lg[c] - mx) / sum;
      for (int k = 0; k < 3; k++)
        maxe[k] = std::fmax(maxe[k], std::fabs(p[k][n * NCLS + c] - want));
    }
  }
  double ge[2] = {0, 0};
  for (size_t i = 0; i < gh.size(); i++) {
    double x = feat[i], g = 0.5 * x * (1 + std::tanh(0.7978845608 * (x + 0.044715 * x * x * x)));
    ge[0] = std::fmax(ge[0], std::fabs(gh[i] - g) / (1 + std::fabs(g)));
    ge[1] = std::fmax(ge[1], std::fabs(gb[i] - g) / (1 + std::fabs(g)));
  }
  std::printf("gelu max error: half2 %.2e, bf16x2 %.2e\n", ge[0], ge[1]);
  if (!(ge[0] < 1e-2) || !(ge[1] < 4e-2)) bad++;
  std::printf("max error: float %.2e, half2 %.2e, bf16 %.2e; features %.2e\n", maxe[0], maxe[1],
              maxe[2], maxe[3]);
  if (!(maxe[3] < 1e-4) || !(maxe[0] < 1e-4) || !(maxe[1] < 2e-2) || !(maxe[2] < 5e-2)) bad++;
  // The sharpened log-softmax of the device's logits (__expf's error bound, 2 + 1.2|x| ulps, is
  // a few percent of a subnormal result: 0.05 in the log).
  std::vector<float> lgt(NIMG * NCLS), inv_t(NIMG), logp(NIMG * NCLS);
  CHECK(cudaMemcpy(lgt.data(), d_logits, lgt.size() * 4, cudaMemcpyDeviceToHost));
  for (int n = 0; n < NIMG; n++) {
    float lo = lgt[n * NCLS], hi = lo;
    for (int c = 1; c < NCLS; c++)
      lo = std::fmin(lo, lgt[n * NCLS + c]), hi = std::fmax(hi, lgt[n * NCLS + c]);
    inv_t[n] = 95.f / (hi - lo);
  }
  float* d_inv_t;
  CHECK(cudaMalloc(&d_inv_t, NIMG * 4));
  CHECK(cudaMemcpy(d_inv_t, inv_t.data(), NIMG * 4, cudaMemcpyHostToDevice));
  sharp_log_softmax<<<(NIMG * 32 + 63) / 64, 64>>>(d_logits, d_inv_t, d_logp, NIMG);
  CHECK(cudaMemcpy(logp.data(), d_logp, logp.size() * 4, cudaMemcpyDeviceToHost));
  double lerr = 0, lmin = 0;
  for (int n = 0; n < NIMG; n++) {
    double sc[NCLS], mx = -1e30, sum = 0;
    for (int c = 0; c < NCLS; c++) sc[c] = lgt[n * NCLS + c] * inv_t[n], mx = std::fmax(mx, sc[c]);
    for (int c = 0; c < NCLS; c++) sum += std::exp(sc[c] - mx);
    for (int c = 0; c < NCLS; c++) {
      double want = sc[c] - mx - std::log(sum);
      lerr = std::fmax(lerr, std::fabs(logp[n * NCLS + c] - want));
      lmin = std::fmin(lmin, want);
    }
  }
  std::printf("sharpened log-softmax: max error %.2e, down to %.1f\n", lerr, lmin);
  if (!(lerr < 0.05) || !(lmin < -90)) bad++;
  CHECK(cudaFree(d_in));
  return finish(bad);
}
