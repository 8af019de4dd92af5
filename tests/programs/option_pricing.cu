// Monte-Carlo option pricing with cuRAND's device API, as quantitative-finance codes write it:
// per-thread generator states initialised with curand_init (XORWOW: a subsequence per thread,
// skipped with cuRAND's precomputed matrices in global memory and 6 KB of local scratch;
// Philox4_32_10 with an offset; MRG32k3a), kept in global memory across launches, geometric
// Brownian paths from curand_normal2_double, European and Asian payoffs summed per block with
// double shuffles, a templated pricing kernel launched per option and generator from a host
// loop on two streams with events and asynchronous copies into page-locked memory; the option
// table in __constant__ memory. The host reference runs the same generators (written here from
// their published definitions: XORWOW's recurrence with the subsequence jump as a GF(2) matrix
// power, Philox4x32-10's rounds) through the same paths: raw draws bit for bit, prices to 1e-9;
// the European prices against Black-Scholes within 4 standard errors; MRG32k3a's and
// XORWOW's skipahead against drawing.
#include "check.h"

#include <curand_kernel.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

struct Option {
  double S0, K, r, sigma, T;
};
constexpr int kOptions = 4;
__constant__ Option c_options[kOptions];

constexpr int kThreads = 128, kBlocks = 4, kN = kThreads * kBlocks;
constexpr int kPaths = 2, kSteps = 12, kRaw = 12;

__global__ void init_xorwow(curandState* states, unsigned long long seed) {
  int id = blockIdx.x * blockDim.x + threadIdx.x;
  curand_init(seed, id, 0, &states[id]); // subsequence id: 2^67 * id draws ahead
}

__global__ void init_philox(curandStatePhilox4_32_10_t* states, unsigned long long seed) {
  int id = blockIdx.x * blockDim.x + threadIdx.x;
  curand_init(seed, id, id % 7, &states[id]);
}

// Raw draws: 8 integers and 4 uniforms of each generator, compared bit for bit on the host.
__global__ void raw_draws(curandState* xs, curandStatePhilox4_32_10_t* ps, unsigned* out) {
  int id = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned* o = out + id * 2 * kRaw;
  curandState x = xs[id];
  curandStatePhilox4_32_10_t p = ps[id];
  for (int k = 0; k < 8; ++k) {
    o[k] = curand(&x);
    o[kRaw + k] = curand(&p);
  }
  for (int k = 8; k < kRaw; ++k) {
    o[k] = __float_as_uint(curand_uniform(&x));
    o[kRaw + k] = __float_as_uint(curand_uniform(&p));
  }
  xs[id] = x;
  ps[id] = p;
}

// Sums of three doubles over the block: shuffles within warps, shared memory across them.
__device__ void block_sum3(double a, double b, double c, double* out) {
  __shared__ double part[3][kThreads / 32];
  for (int off = 16; off > 0; off /= 2) {
    a += __shfl_down_sync(0xffffffffu, a, off);
    b += __shfl_down_sync(0xffffffffu, b, off);
    c += __shfl_down_sync(0xffffffffu, c, off);
  }
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) {
    part[0][warp] = a;
    part[1][warp] = b;
    part[2][warp] = c;
  }
  __syncthreads();
  if (threadIdx.x < 3) {
    double s = 0;
    for (int w = 0; w < kThreads / 32; ++w) s += part[threadIdx.x][w];
    out[blockIdx.x * 3 + threadIdx.x] = s;
  }
}

__device__ __noinline__ double2 payoffs(double S, double avg, double K) {
  return make_double2(fmax(S - K, 0.0), fmax(avg - K, 0.0));
}

template <typename State>
__global__ void __launch_bounds__(kThreads) price(State* states, int opt, double* partial) {
  int id = blockIdx.x * blockDim.x + threadIdx.x;
  State s = states[id];
  const Option o = c_options[opt];
  double dt = o.T / kSteps;
  double drift = (o.r - 0.5 * o.sigma * o.sigma) * dt, vol = o.sigma * sqrt(dt);
  double e = 0, e2 = 0, a = 0;
  for (int p = 0; p < kPaths; ++p) {
    double S = o.S0, sum = 0;
    for (int k = 0; k < kSteps; k += 2) {
      double2 z = curand_normal2_double(&s);
      S *= exp(drift + vol * z.x);
      sum += S;
      S *= exp(drift + vol * z.y);
      sum += S;
    }
    double2 pay = payoffs(S, sum / kSteps, o.K);
    e += pay.x;
    e2 += pay.x * pay.x;
    a += pay.y;
  }
  states[id] = s;
  block_sum3(e, e2, a, partial);
}

// MRG32k3a and XORWOW: a state started `skip` draws ahead gives the draws after the first
// `skip` of a state started at 0 (the offset skip through cuRAND's tables).
template <typename State>
__global__ void skip_check(unsigned long long seed, int skip, unsigned* out) {
  int id = blockIdx.x * blockDim.x + threadIdx.x;
  State a, b;
  curand_init(seed, id, 0, &a);
  curand_init(seed, id, skip + id, &b);
  for (int k = 0; k < skip + id; ++k) curand(&a);
  unsigned diff = 0;
  float nsum = 0;
  for (int k = 0; k < 4; ++k) diff |= curand(&a) ^ curand(&b);
  for (int k = 0; k < 16; ++k) nsum += curand_normal(&b);
  out[id * 2] = diff;
  out[id * 2 + 1] = __float_as_uint(nsum);
}

// ---------------------------------------------------------------------------------------------
// The host's generators.

struct V160 {
  uint32_t w[5] = {0, 0, 0, 0, 0};
};
static V160 xorwow_linear_step(V160 v) { // the recurrence on v (d is added separately)
  uint32_t t = v.w[0] ^ (v.w[0] >> 2);
  V160 r;
  for (int i = 0; i < 4; ++i) r.w[i] = v.w[i + 1];
  r.w[4] = (v.w[4] ^ (v.w[4] << 4)) ^ (t ^ (t << 1));
  return r;
}
using M160 = std::array<V160, 160>; // column j: the image of bit j
static V160 apply(const M160& m, const V160& v) {
  V160 r;
  for (int j = 0; j < 160; ++j)
    if ((v.w[j / 32] >> (j % 32)) & 1)
      for (int i = 0; i < 5; ++i) r.w[i] ^= m[j].w[i];
  return r;
}
static M160 compose(const M160& a, const M160& b) {
  M160 c;
  for (int j = 0; j < 160; ++j) c[j] = apply(a, b[j]);
  return c;
}

struct HostXorwow {
  V160 v;
  uint32_t d;
  uint32_t next() {
    uint32_t t = v.w[0] ^ (v.w[0] >> 2);
    for (int i = 0; i < 4; ++i) v.w[i] = v.w[i + 1];
    v.w[4] = (v.w[4] ^ (v.w[4] << 4)) ^ (t ^ (t << 1));
    d += 362437;
    return v.w[4] + d;
  }
};
// jump[k]: 2^67 * 2^k steps of the recurrence.
static std::vector<M160> xorwow_jumps(int bits) {
  M160 m;
  for (int j = 0; j < 160; ++j) {
    V160 e;
    e.w[j / 32] = 1u << (j % 32);
    m[j] = xorwow_linear_step(e);
  }
  for (int k = 0; k < 67; ++k) m = compose(m, m);
  std::vector<M160> jumps{m};
  for (int k = 1; k < bits; ++k) jumps.push_back(compose(jumps.back(), jumps.back()));
  return jumps;
}
static HostXorwow xorwow_init(uint64_t seed, uint64_t subsequence, uint64_t offset,
                              const std::vector<M160>& jumps) {
  uint32_t s0 = (uint32_t)seed ^ 0xaad26b49u, s1 = (uint32_t)(seed >> 32) ^ 0xf7dcefddu;
  uint32_t t0 = 1099087573u * s0, t1 = 2591861531u * s1;
  HostXorwow g;
  g.d = 6615241u + t1 + t0;
  g.v.w[0] = 123456789u + t0;
  g.v.w[1] = 362436069u ^ t0;
  g.v.w[2] = 521288629u + t1;
  g.v.w[3] = 88675123u ^ t1;
  g.v.w[4] = 5783321u + t0;
  for (int k = 0; subsequence; ++k, subsequence >>= 1)
    if (subsequence & 1) g.v = apply(jumps.at(k), g.v);
  for (uint64_t k = 0; k < offset; ++k) g.next();
  return g;
}

struct HostPhilox {
  uint32_t ctr[4] = {0, 0, 0, 0}, out[4], key[2];
  unsigned state = 0;
  void block() {
    uint32_t c[4] = {ctr[0], ctr[1], ctr[2], ctr[3]}, k0 = key[0], k1 = key[1];
    for (int r = 0; r < 10; ++r) {
      uint64_t p0 = (uint64_t)0xD2511F53u * c[0], p1 = (uint64_t)0xCD9E8D57u * c[2];
      uint32_t n[4] = {(uint32_t)(p1 >> 32) ^ c[1] ^ k0, (uint32_t)p1,
                       (uint32_t)(p0 >> 32) ^ c[3] ^ k1, (uint32_t)p0};
      for (int i = 0; i < 4; ++i) c[i] = n[i];
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    for (int i = 0; i < 4; ++i) out[i] = c[i];
  }
  void incr(uint64_t n) { // the 128-bit counter plus n
    unsigned __int128 lo = ((unsigned __int128)ctr[1] << 32 | ctr[0]) + n;
    uint64_t hi = (uint64_t)ctr[3] << 32 | ctr[2];
    if (lo >> 64) ++hi;
    ctr[0] = (uint32_t)lo;
    ctr[1] = (uint32_t)(lo >> 32);
    ctr[2] = (uint32_t)hi;
    ctr[3] = (uint32_t)(hi >> 32);
  }
  HostPhilox(uint64_t seed, uint64_t subsequence, uint64_t offset) {
    key[0] = (uint32_t)seed;
    key[1] = (uint32_t)(seed >> 32);
    uint64_t hi = ((uint64_t)ctr[3] << 32 | ctr[2]) + subsequence;
    ctr[2] = (uint32_t)hi;
    ctr[3] = (uint32_t)(hi >> 32);
    state = offset % 4;
    incr(offset / 4);
    block();
  }
  uint32_t next() {
    uint32_t r = out[state++];
    if (state == 4) {
      incr(1);
      block();
      state = 0;
    }
    return r;
  }
};

static float uniform_of(uint32_t x) {
  return std::fmaf((float)x, 2.3283064e-10f, 2.3283064e-10f / 2);
}
static double box_muller_x(uint32_t x0, uint32_t x1, uint32_t y0, uint32_t y1, double* second) {
  const double inv53 = 1.1102230246251565e-16;
  uint64_t zx = (uint64_t)x0 ^ ((uint64_t)x1 << 21), zy = (uint64_t)y0 ^ ((uint64_t)y1 << 21);
  double u = std::fma((double)zx, inv53, inv53 / 2.0);
  double v = std::fma((double)zy, inv53 * 2.0, inv53);
  double s = std::sqrt(-2.0 * std::log(u));
  long double pv = 3.14159265358979323846264338327950288L * (long double)v;
  *second = (double)cosl(pv) * s;
  return (double)sinl(pv) * s;
}

struct Sums {
  double e = 0, e2 = 0, a = 0;
};
template <typename Gen> static Sums host_price(Gen& g, const Option& o) {
  double dt = o.T / kSteps;
  double drift = (o.r - 0.5 * o.sigma * o.sigma) * dt, vol = o.sigma * std::sqrt(dt);
  Sums s;
  for (int p = 0; p < kPaths; ++p) {
    double S = o.S0, sum = 0;
    for (int k = 0; k < kSteps; k += 2) {
      uint32_t x0 = g.next(), x1 = g.next(), y0 = g.next(), y1 = g.next();
      double zy, zx = box_muller_x(x0, x1, y0, y1, &zy);
      S *= std::exp(std::fma(vol, zx, drift));
      sum += S;
      S *= std::exp(std::fma(vol, zy, drift));
      sum += S;
    }
    double pe = std::fmax(S - o.K, 0.0), pa = std::fmax(sum / kSteps - o.K, 0.0);
    s.e += pe;
    s.e2 += pe * pe;
    s.a += pa;
  }
  return s;
}

static double black_scholes_call(const Option& o) {
  double d1 =
      (std::log(o.S0 / o.K) + (o.r + 0.5 * o.sigma * o.sigma) * o.T) / (o.sigma * std::sqrt(o.T));
  double d2 = d1 - o.sigma * std::sqrt(o.T);
  auto N = [](double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); };
  return o.S0 * N(d1) - o.K * std::exp(-o.r * o.T) * N(d2);
}

static bool close(double got, double want, double rel) {
  return std::fabs(got - want) <= rel * std::fmax(1.0, std::fabs(want));
}

int main() {
  const Option options[kOptions] = {{100, 100, 0.05, 0.2, 1.0},
                                    {100, 90, 0.03, 0.35, 0.5},
                                    {50, 60, 0.01, 0.5, 2.0},
                                    {200, 180, 0.04, 0.15, 0.25}};
  CHECK(cudaMemcpyToSymbol(c_options, options, sizeof options));
  const unsigned long long seed_x = 20261127ull, seed_p = 0x5eed0f00d5ull;
  curandState* d_x;
  curandStatePhilox4_32_10_t* d_p;
  unsigned* d_raw;
  CHECK(cudaMalloc(&d_x, sizeof(curandState) * kN));
  CHECK(cudaMalloc(&d_p, sizeof(curandStatePhilox4_32_10_t) * kN));
  CHECK(cudaMalloc(&d_raw, sizeof(unsigned) * kN * 2 * kRaw));
  init_xorwow<<<kBlocks, kThreads>>>(d_x, seed_x);
  init_philox<<<kBlocks, kThreads>>>(d_p, seed_p);
  raw_draws<<<kBlocks, kThreads>>>(d_x, d_p, d_raw);
  CHECK(cudaGetLastError());

  // The host's generators, where the device's are.
  std::vector<M160> jumps = xorwow_jumps(11);
  std::vector<HostXorwow> hx;
  std::vector<HostPhilox> hp;
  for (int id = 0; id < kN; ++id) {
    hx.push_back(xorwow_init(seed_x, id, 0, jumps));
    hp.emplace_back(seed_p, id, id % 7);
  }
  int bad = 0;
  {
    std::vector<unsigned> raw(kN * 2 * kRaw);
    CHECK(cudaMemcpy(raw.data(), d_raw, raw.size() * 4, cudaMemcpyDeviceToHost));
    int b = 0;
    for (int id = 0; id < kN; ++id) {
      uint32_t want[2 * kRaw];
      for (int k = 0; k < 8; ++k) {
        want[k] = hx[id].next();
        want[kRaw + k] = hp[id].next();
      }
      for (int k = 8; k < kRaw; ++k) {
        float ux = uniform_of(hx[id].next()), up = uniform_of(hp[id].next());
        std::memcpy(&want[k], &ux, 4);
        std::memcpy(&want[kRaw + k], &up, 4);
      }
      for (int k = 0; k < 2 * kRaw; ++k)
        if (raw[id * 2 * kRaw + k] != want[k] && b++ < 6)
          std::printf("raw draw %d of thread %d (%s): %#x, want %#x\n", k % kRaw, id,
                      k < kRaw ? "XORWOW" : "Philox", raw[id * 2 * kRaw + k], want[k]);
    }
    std::printf("raw draws: %d wrong\n", b);
    bad += b;
  }

  // Pricing: each option with each generator, the generators' states carried over.
  cudaStream_t streams[2];
  cudaEvent_t start, stop;
  for (auto& s : streams) CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  double *d_partial, *h_partial;
  CHECK(cudaMalloc(&d_partial, sizeof(double) * 2 * kOptions * kBlocks * 3));
  CHECK(cudaMallocHost(&h_partial, sizeof(double) * 2 * kOptions * kBlocks * 3));
  CHECK(cudaEventRecord(start, streams[0]));
  for (int opt = 0; opt < kOptions; ++opt) {
    double* px = d_partial + (opt * 2 + 0) * kBlocks * 3;
    double* pp = d_partial + (opt * 2 + 1) * kBlocks * 3;
    price<curandState><<<kBlocks, kThreads, 0, streams[0]>>>(d_x, opt, px);
    price<curandStatePhilox4_32_10_t><<<kBlocks, kThreads, 0, streams[1]>>>(d_p, opt, pp);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpyAsync(h_partial + (opt * 2) * kBlocks * 3, px, sizeof(double) * kBlocks * 3,
                          cudaMemcpyDeviceToHost, streams[0]));
    CHECK(cudaMemcpyAsync(h_partial + (opt * 2 + 1) * kBlocks * 3, pp, sizeof(double) * kBlocks * 3,
                          cudaMemcpyDeviceToHost, streams[1]));
  }
  CHECK(cudaEventRecord(stop, streams[1]));
  CHECK(cudaStreamSynchronize(streams[0]));
  CHECK(cudaEventSynchronize(stop));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  {
    int b = 0;
    for (int opt = 0; opt < kOptions; ++opt) {
      const Option& o = options[opt];
      double disc = std::exp(-o.r * o.T), bs = black_scholes_call(o);
      for (int gen = 0; gen < 2; ++gen) {
        Sums dev, host;
        for (int blk = 0; blk < kBlocks; ++blk) {
          const double* p = h_partial + ((opt * 2 + gen) * kBlocks + blk) * 3;
          dev.e += p[0];
          dev.e2 += p[1];
          dev.a += p[2];
        }
        for (int id = 0; id < kN; ++id) {
          Sums s = gen == 0 ? host_price(hx[id], o) : host_price(hp[id], o);
          host.e += s.e;
          host.e2 += s.e2;
          host.a += s.a;
        }
        const double n = (double)kN * kPaths;
        double eur = disc * dev.e / n, asian = disc * dev.a / n;
        double se = disc * std::sqrt((dev.e2 / n - (dev.e / n) * (dev.e / n)) / n);
        bool ok = close(dev.e, host.e, 1e-9) && close(dev.e2, host.e2, 1e-9) &&
                  close(dev.a, host.a, 1e-9);
        bool stat = std::fabs(eur - bs) < 4 * se && asian < eur;
        std::printf("option %d %s: European %.4f (Black-Scholes %.4f, s.e. %.4f), Asian %.4f%s%s\n",
                    opt, gen ? "Philox" : "XORWOW", eur, bs, se, asian,
                    ok ? "" : " DIFFERS FROM THE HOST", stat ? "" : " OUTSIDE 4 S.E.");
        if (!ok)
          std::printf("  device sums %.17g %.17g %.17g, host %.17g %.17g %.17g\n", dev.e, dev.e2,
                      dev.a, host.e, host.e2, host.a);
        b += !ok + !stat;
      }
    }
    bad += b;
  }
  if (!(ms > 0)) {
    std::printf("elapsed time %g ms\n", ms);
    ++bad;
  }

  // Skipahead by offset (cuRAND's offset tables) against drawing.
  {
    unsigned* d_skip;
    CHECK(cudaMalloc(&d_skip, sizeof(unsigned) * 64 * 2 * 2));
    skip_check<curandStateMRG32k3a><<<1, 64>>>(99, 37, d_skip);
    skip_check<curandState><<<1, 64>>>(99, 37, d_skip + 128);
    CHECK(cudaGetLastError());
    std::vector<unsigned> out(256);
    CHECK(cudaMemcpy(out.data(), d_skip, out.size() * 4, cudaMemcpyDeviceToHost));
    int b = 0;
    for (int g = 0; g < 2; ++g)
      for (int id = 0; id < 64; ++id) {
        float nsum;
        std::memcpy(&nsum, &out[g * 128 + id * 2 + 1], 4);
        // 16 standard normals: a sum beyond 6 standard deviations (24) is no normal
        if ((out[g * 128 + id * 2] != 0 || !(std::fabs(nsum) < 24)) && b++ < 4)
          std::printf("%s skip, thread %d: differing bits %#x, normal sum %g\n",
                      g ? "XORWOW" : "MRG32k3a", id, out[g * 128 + id * 2], nsum);
      }
    std::printf("skipahead: %d wrong\n", b);
    bad += b;
  }
  return finish(bad);
}
