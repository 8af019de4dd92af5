// An ordinary application of the kind users bring: Lennard-Jones particles in a periodic box,
// three kernels per step and a host loop of steps on a stream with events, memsets and async
// copies. The kernels carry what nvcc emits for ordinary code: a __noinline__ device function
// returning a struct through the ABI, a template kernel with a shared-memory tile and an
// unrolled loop, a functor, a switch over math functions (sinf, expf, sqrtf, logf, powf), a
// local array indexed at run time, fmodf, warp shuffles of doubles, double and unsigned
// atomics. Every position, cell count and energy against the host's float/double reference.
#include "check.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

struct Particle {
  float4 pos;
  float4 vel;
  int type;
  int cell;
};
struct Force {
  float3 f;
  float pot;
};

template <typename T> struct Sq {
  __device__ T operator()(T x) const { return x * x; }
};

__device__ __noinline__ Force pair_force(float4 a, float4 b, int ta, int tb, float cut2, float eps0,
                                         float eps1, float sigma) {
  Force r{{0, 0, 0}, 0};
  float dx = b.x - a.x, dy = b.y - a.y, dz = b.z - a.z;
  float r2 = dx * dx + dy * dy + dz * dz;
  if (r2 > cut2 || r2 < 1e-6f) return r;
  float eps = (ta == tb) ? eps0 : eps1;
  float s2 = sigma * sigma / r2;
  float s6 = s2 * s2 * s2;
  float mag = 24.0f * eps * (2.0f * s6 * s6 - s6) / r2;
  r.f = make_float3(-mag * dx, -mag * dy, -mag * dz);
  r.pot = 4.0f * eps * (s6 * s6 - s6);
  return r;
}

__device__ float table_energy(int kind, float x) {
  switch (kind) { // a jump table
  case 0:
    return x;
  case 1:
    return sinf(x);
  case 2:
    return expf(-x);
  case 3:
    return sqrtf(fabsf(x));
  case 4:
    return logf(1.0f + fabsf(x));
  case 5:
    return powf(fabsf(x), 1.5f);
  default:
    return 0.0f;
  }
}

template <int TILE>
__global__ void forces(const Particle* __restrict__ p, Force* out, int n, float cut2, float eps0,
                       float eps1, float sigma) {
  __shared__ float4 tile[TILE];
  __shared__ int ttype[TILE];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float4 me = i < n ? p[i].pos : make_float4(0, 0, 0, 0);
  int mt = i < n ? p[i].type : 0;
  Force acc{{0, 0, 0}, 0};
  for (int base = 0; base < n; base += TILE) {
    int j = base + threadIdx.x;
    if (threadIdx.x < TILE) {
      tile[threadIdx.x] = j < n ? p[j].pos : make_float4(1e9f, 1e9f, 1e9f, 0);
      ttype[threadIdx.x] = j < n ? p[j].type : 0;
    }
    __syncthreads();
#pragma unroll 4
    for (int k = 0; k < TILE; ++k) {
      if (base + k == i) continue;
      Force f = pair_force(me, tile[k], mt, ttype[k], cut2, eps0, eps1, sigma);
      acc.f.x += f.f.x;
      acc.f.y += f.f.y;
      acc.f.z += f.f.z;
      acc.pot += f.pot;
    }
    __syncthreads();
  }
  if (i < n) out[i] = acc;
}

// One particle's step (the kernel's and the host reference's).
__host__ __device__ void advance(Particle& q, const Force& f, float dt, float box, int ncell) {
  q.vel.x += f.f.x * dt;
  q.vel.y += f.f.y * dt;
  q.vel.z += f.f.z * dt;
  q.pos.x = fmodf(q.pos.x + q.vel.x * dt + box, box);
  q.pos.y = fmodf(q.pos.y + q.vel.y * dt + box, box);
  q.pos.z = fmodf(q.pos.z + q.vel.z * dt + box, box);
  const int cx = int(q.pos.x / box * ncell), cy = int(q.pos.y / box * ncell);
  q.cell = (cx < ncell ? cx : ncell - 1) + (cy < ncell ? cy : ncell - 1) * ncell;
}

__global__ void integrate(Particle* p, const Force* f, int n, float dt, float box, int ncell) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Particle q = p[i];
  advance(q, f[i], dt, box, ncell);
  p[i] = q;
}

__inline__ __device__ double warp_sum(double v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}

__global__ void energies(const Particle* p, const Force* f, int n, double* ke, double* pe,
                         unsigned* cells, int ncell, float* misc) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double k = 0, u = 0;
  float loc[8];
  if (i < n) {
    Sq<float> sq;
    k = 0.5 * (double(sq(p[i].vel.x)) + sq(p[i].vel.y) + sq(p[i].vel.z));
    u = 0.5 * double(f[i].pot);
    atomicAdd(&cells[p[i].cell % (ncell * ncell)], 1u);
    for (int j = 0; j < 8; ++j) loc[j] = table_energy((i + j) % 7, p[i].pos.x * 0.01f * j);
    int sel = p[i].type & 7; // dynamic index into a local array
    misc[i] = loc[sel] + loc[(sel + 3) & 7];
  }
  k = warp_sum(k);
  u = warp_sum(u);
  if ((threadIdx.x & 31) == 0) {
    atomicAdd(ke, k);
    atomicAdd(pe, u);
  }
}

// Host reference for one step.
static void host_step(std::vector<Particle>& p, std::vector<Force>& f, float cut2, float e0,
                      float e1, float sg, float dt, float box, int ncell) {
  int n = p.size();
  for (int i = 0; i < n; ++i) {
    Force acc{{0, 0, 0}, 0};
    for (int j = 0; j < n; ++j) {
      if (j == i) continue;
      float4 a = p[i].pos, b = p[j].pos;
      float dx = b.x - a.x, dy = b.y - a.y, dz = b.z - a.z;
      float r2 = dx * dx + dy * dy + dz * dz;
      if (r2 > cut2 || r2 < 1e-6f) continue;
      float eps = p[i].type == p[j].type ? e0 : e1;
      float s2 = sg * sg / r2, s6 = s2 * s2 * s2;
      float mag = 24.0f * eps * (2.0f * s6 * s6 - s6) / r2;
      acc.f.x += -mag * dx;
      acc.f.y += -mag * dy;
      acc.f.z += -mag * dz;
      acc.pot += 4.0f * eps * (s6 * s6 - s6);
    }
    f[i] = acc;
  }
  for (int i = 0; i < n; ++i) advance(p[i], f[i], dt, box, ncell);
}

int main() {
  const int n = 256, steps = 2, ncell = 4;
  const float box = 12.0f, cut2 = 9.0f, e0 = 1.0f, e1 = 0.5f, sg = 1.0f, dt = 0.0005f;
  std::vector<Particle> h(n);
  srand(7);
  for (int i = 0; i < n; ++i) {
    int gx = i % 8, gy = (i / 8) % 8, gz = i / 64;
    h[i].pos = make_float4(gx * 1.5f + 0.1f * (rand() % 5), gy * 1.5f, gz * 1.5f, 1.0f);
    h[i].vel = make_float4(0.01f * (rand() % 7 - 3), 0.0f, 0.01f * (rand() % 5 - 2), 0.0f);
    h[i].type = rand() % 3;
    h[i].cell = 0;
  }
  Particle* dp;
  Force* df;
  double* de;
  unsigned* dc;
  float* dm;
  CHECK(cudaMalloc(&dp, n * sizeof(Particle)));
  CHECK(cudaMalloc(&df, n * sizeof(Force)));
  CHECK(cudaMalloc(&de, 2 * sizeof(double)));
  CHECK(cudaMalloc(&dc, ncell * ncell * sizeof(unsigned)));
  CHECK(cudaMalloc(&dm, n * sizeof(float)));
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  cudaEvent_t t0, t1;
  cudaEventCreate(&t0);
  cudaEventCreate(&t1);
  cudaMemcpyAsync(dp, h.data(), n * sizeof(Particle), cudaMemcpyHostToDevice, s);
  std::vector<Force> hf(n);
  cudaEventRecord(t0, s);
  double ke = 0, pe = 0;
  for (int st = 0; st < steps; ++st) {
    forces<64><<<(n + 127) / 128, 128, 0, s>>>(dp, df, n, cut2, e0, e1, sg);
    integrate<<<(n + 63) / 64, 64, 0, s>>>(dp, df, n, dt, box, ncell);
    cudaMemsetAsync(de, 0, 2 * sizeof(double), s);
    cudaMemsetAsync(dc, 0, ncell * ncell * sizeof(unsigned), s);
    energies<<<(n + 95) / 96, 96, 0, s>>>(dp, df, n, de, de + 1, dc, ncell, dm);
    double e[2];
    cudaMemcpyAsync(e, de, sizeof e, cudaMemcpyDeviceToHost, s);
    CHECK(cudaStreamSynchronize(s));
    ke = e[0];
    pe = e[1];
    host_step(h, hf, cut2, e0, e1, sg, dt, box, ncell);
  }
  cudaEventRecord(t1, s);
  CHECK(cudaEventSynchronize(t1));
  float ms;
  cudaEventElapsedTime(&ms, t0, t1);
  std::vector<Particle> g(n);
  cudaMemcpy(g.data(), dp, n * sizeof(Particle), cudaMemcpyDeviceToHost);
  unsigned cells[ncell * ncell];
  cudaMemcpy(cells, dc, sizeof cells, cudaMemcpyDeviceToHost);
  int bad = 0;
  double hk = 0, hp = 0;
  unsigned hc[ncell * ncell] = {};
  for (int i = 0; i < n; ++i) {
    float d = fabsf(g[i].pos.x - h[i].pos.x) + fabsf(g[i].pos.y - h[i].pos.y) +
              fabsf(g[i].pos.z - h[i].pos.z);
    if (!(d < 1e-3f) || g[i].cell != h[i].cell) ++bad;
    hk += 0.5 * (double(h[i].vel.x) * h[i].vel.x + double(h[i].vel.y) * h[i].vel.y +
                 double(h[i].vel.z) * h[i].vel.z);
    hp += 0.5 * double(hf[i].pot);
    hc[h[i].cell % (ncell * ncell)]++;
  }
  for (int c = 0; c < ncell * ncell; ++c)
    if (cells[c] != hc[c]) ++bad;
  bool eok = fabs(ke - hk) <= 1e-3 * fabs(hk) + 1e-6 && fabs(pe - hp) <= 1e-3 * fabs(hp) + 1e-3;
  printf("%d particles or cells wrong; kinetic %g (host %g), potential %g (host %g)\n", bad, ke, hk,
         pe, hp);
  CHECK(cudaGetLastError());
  return finish(bad + !eok);
}
