// A cardiac-cell style ODE integrator: one thread per cell, a 24-variable state (a struct passed
// and returned by value through chains of __noinline__ device functions with many parameters),
// fixed-step RK4, a per-cell parameter set, several kernels launched many times, checked on the
// host against the same arithmetic.
#include "check.h"
#include <cmath>
#include <cstring>
#include <vector>

#define NV 24
struct State {
  float v[NV];
};
struct Params {
  float g[8];
  double scale;
  int kind;
};

#ifdef __CUDACC__
#define HD __host__ __device__
#define NOINLINE __noinline__
#else
#define HD
#define NOINLINE
#endif

HD NOINLINE float gate_rate(float vm, float a, float b, float c, float d, float e, float f) {
  float x = (vm + a) * b;
  return c / (1.0f + expf(-x)) + d * expf(-(vm + e) * f);
}

HD NOINLINE float gate_step(float y, float vm, float a, float b, float c, float d, float e, float f,
                            float tau) {
  float inf = gate_rate(vm, a, b, c, d, e, f);
  return (inf - y) / tau;
}

HD NOINLINE double current_mix(double v, double g1, double g2, double g3, double e1, double e2,
                               double e3, double m, double h, double n) {
  return g1 * m * m * m * h * (v - e1) + g2 * n * n * n * n * (v - e2) + g3 * (v - e3);
}

HD NOINLINE State derivative(State s, Params p, float stim) {
  State d;
  float vm = s.v[0];
  double i = current_mix(vm, p.g[0], p.g[1], p.g[2], 50.0, -77.0, -54.4, s.v[1], s.v[2], s.v[3]);
  d.v[0] = (float)((stim - i) * p.scale);
  for (int k = 1; k < NV; ++k) {
    float a = 0.1f * k, b = 0.05f + 0.01f * (k & 3), c = 1.0f, d0 = 0.02f * (k % 5);
    float e = 10.0f + k, f = 0.03f;
    d.v[k] = gate_step(s.v[k], vm, a, b, c, d0, e, f, 2.0f + p.g[k & 7]);
  }
  if (p.kind == 1) {
    d.v[NV - 1] += 0.001f * s.v[NV - 2] * s.v[NV - 3];
  }
  return d;
}

HD NOINLINE State axpy(State s, State k, float h) {
  State r;
  for (int i = 0; i < NV; ++i) r.v[i] = s.v[i] + h * k.v[i];
  return r;
}

HD NOINLINE State rk4(State s, Params p, float stim, float h) {
  State k1 = derivative(s, p, stim);
  State k2 = derivative(axpy(s, k1, 0.5f * h), p, stim);
  State k3 = derivative(axpy(s, k2, 0.5f * h), p, stim);
  State k4 = derivative(axpy(s, k3, h), p, stim);
  State r;
  for (int i = 0; i < NV; ++i)
    r.v[i] = s.v[i] + h / 6.0f * (k1.v[i] + 2.0f * k2.v[i] + 2.0f * k3.v[i] + k4.v[i]);
  return r;
}

HD Params params_of(int cell) {
  Params p;
  for (int i = 0; i < 8; ++i) p.g[i] = 0.5f + 0.125f * ((cell * 7 + i * 3) % 11);
  p.scale = 0.01 + 0.001 * (cell % 5);
  p.kind = cell & 1;
  return p;
}

__global__ void init(State* st, int n) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= n) return;
  State s;
  for (int i = 0; i < NV; ++i) s.v[i] = (i == 0) ? -65.0f + (c % 7) : 0.05f * ((c + i) % 9);
  st[c] = s;
}

__global__ void __launch_bounds__(128)
    step(State* st, const float* stim, int n, int nsteps, float h) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= n) return;
  State s = st[c];
  Params p = params_of(c);
  for (int t = 0; t < nsteps; ++t) s = rk4(s, p, stim[c], h);
  st[c] = s;
}

__global__ void reduce_v(const State* st, float* sum, int n) {
  __shared__ float part[128];
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  float x = 0.0f;
  if (c < n)
    for (int i = 0; i < NV; ++i) x += st[c].v[i];
  part[threadIdx.x] = x;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) part[threadIdx.x] += part[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) sum[blockIdx.x] = part[0];
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 256;
  const int launches = 3, nsteps = 2;
  const float h = 0.01f;
  int blocks = (n + 127) / 128;
  State* st;
  float *stim, *sum;
  CHECK(cudaMalloc(&st, n * sizeof(State)));
  CHECK(cudaMalloc(&stim, n * sizeof(float)));
  CHECK(cudaMalloc(&sum, blocks * sizeof(float)));
  std::vector<float> hstim(n);
  for (int c = 0; c < n; ++c) hstim[c] = (c % 3 == 0) ? 10.0f : 0.0f;
  CHECK(cudaMemcpy(stim, hstim.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  init<<<blocks, 128>>>(st, n);
  for (int l = 0; l < launches; ++l) step<<<blocks, 128>>>(st, stim, n, nsteps, h);
  reduce_v<<<blocks, 128>>>(st, sum, n);
  CHECK(cudaGetLastError());
  std::vector<State> got(n);
  std::vector<float> hsum(blocks);
  CHECK(cudaMemcpy(got.data(), st, n * sizeof(State), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(hsum.data(), sum, blocks * sizeof(float), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int c = 0; c < n; ++c) {
    State s;
    for (int i = 0; i < NV; ++i) s.v[i] = (i == 0) ? -65.0f + (c % 7) : 0.05f * ((c + i) % 9);
    Params p = params_of(c);
    for (int t = 0; t < launches * nsteps; ++t) s = rk4(s, p, hstim[c], h);
    for (int i = 0; i < NV; ++i) {
      float tol = 1e-3f * (1.0f + fabsf(s.v[i]));
      if (!(fabsf(got[c].v[i] - s.v[i]) <= tol)) {
        if (bad < 5) printf("cell %d var %d: got %g want %g\n", c, i, got[c].v[i], s.v[i]);
        ++bad;
      }
    }
  }
  for (int b = 0; b < blocks; ++b) {
    double want = 0;
    for (int c = b * 128; c < n && c < (b + 1) * 128; ++c)
      for (int i = 0; i < NV; ++i) want += got[c].v[i];
    if (fabs(hsum[b] - want) > 1e-3 * (1.0 + fabs(want))) {
      printf("block %d sum %g want %g\n", b, hsum[b], want);
      ++bad;
    }
  }
  printf("cells %d, v[0] of cell 0 %.4f\n", n, got[0].v[0]);
  return finish(bad);
}
