// Gravitational n-body as the CUDA samples write it, built with --use_fast_math (programs.sh):
// positions and masses as float4, tiles of 128 bodies staged in shared memory, the pair
// interaction with rsqrtf (rsqrt.approx.ftz), the inner loop unrolled by 8, then a leapfrog
// kick-drift kernel reading float4 velocities, for 3 steps of 512 bodies (7 launches); a
// second force kernel with a block of 64 and dynamic shared memory gives the same
// accelerations. The host integrates the same system in double precision: positions and
// velocities within 2e-4 relative to the system's scale (fast-math's approximations are within
// a few ulp). Arguments: bodies (a multiple of 128), steps.
#include "check.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

constexpr int kTile = 128;
constexpr float kSoft2 = 0.01f;

__device__ float3 interact(float4 bi, float4 bj, float3 a) {
  const float3 r = make_float3(bj.x - bi.x, bj.y - bi.y, bj.z - bi.z);
  const float d2 = r.x * r.x + r.y * r.y + r.z * r.z + kSoft2;
  const float inv = rsqrtf(d2);
  const float s = bj.w * inv * inv * inv;
  a.x += r.x * s;
  a.y += r.y * s;
  a.z += r.z * s;
  return a;
}

__global__ void __launch_bounds__(kTile)
    forces(const float4* __restrict__ pos, float4* __restrict__ acc, int n) {
  __shared__ float4 tile[kTile];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float4 me = pos[i];
  float3 a = make_float3(0.0f, 0.0f, 0.0f);
  for (int t = 0; t < n; t += kTile) {
    tile[threadIdx.x] = pos[t + threadIdx.x];
    __syncthreads();
#pragma unroll 8
    for (int j = 0; j < kTile; ++j) a = interact(me, tile[j], a);
    __syncthreads();
  }
  acc[i] = make_float4(a.x, a.y, a.z, 0.0f);
}

// The same with the block size and the tile a launch parameter (dynamic shared memory).
__global__ void forces_dyn(const float4* __restrict__ pos, float4* __restrict__ acc, int n) {
  extern __shared__ float4 dyn[];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float4 me = pos[i];
  float3 a = make_float3(0.0f, 0.0f, 0.0f);
  for (int t = 0; t < n; t += blockDim.x) {
    dyn[threadIdx.x] = pos[t + threadIdx.x];
    __syncthreads();
    for (int j = 0; j < blockDim.x; ++j) a = interact(me, dyn[j], a);
    __syncthreads();
  }
  acc[i] = make_float4(a.x, a.y, a.z, 0.0f);
}

__global__ void kick_drift(float4* __restrict__ pos, float4* __restrict__ vel,
                           const float4* __restrict__ acc, float dt, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 p = pos[i], v = vel[i];
  const float4 a = acc[i];
  v.x += a.x * dt;
  v.y += a.y * dt;
  v.z += a.z * dt;
  p.x += v.x * dt;
  p.y += v.y * dt;
  p.z += v.z * dt;
  pos[i] = p;
  vel[i] = v;
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 512;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 3;
  if (n % kTile) return finish(1);
  const float dt = 0.001f;
  std::vector<float4> pos(n), vel(n);
  unsigned s = 7;
  auto uni = [&] {
    s = s * 1103515245u + 12345u;
    return float((s >> 8) & 0xffff) / 65536.0f - 0.5f;
  };
  for (int i = 0; i < n; ++i) {
    pos[i] = make_float4(uni() * 4, uni() * 4, uni() * 4, 0.5f + uni() * 0.5f);
    vel[i] = make_float4(uni() * 0.1f, uni() * 0.1f, uni() * 0.1f, 0.0f);
  }
  float4 *d_pos, *d_vel, *d_acc, *d_acc2;
  CHECK(cudaMalloc(&d_pos, n * sizeof(float4)));
  CHECK(cudaMalloc(&d_vel, n * sizeof(float4)));
  CHECK(cudaMalloc(&d_acc, n * sizeof(float4)));
  CHECK(cudaMalloc(&d_acc2, n * sizeof(float4)));
  CHECK(cudaMemcpy(d_pos, pos.data(), n * sizeof(float4), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_vel, vel.data(), n * sizeof(float4), cudaMemcpyHostToDevice));
  int bad = 0;
  // Step 0's accelerations both ways: the two kernels sum in the same order (tiles of 128 and
  // 64 visit j in the same sequence), so they agree exactly.
  forces<<<n / kTile, kTile>>>(d_pos, d_acc, n);
  forces_dyn<<<n / 64, 64, 64 * sizeof(float4)>>>(d_pos, d_acc2, n);
  CHECK(cudaGetLastError());
  {
    std::vector<float4> a1(n), a2(n);
    CHECK(cudaMemcpy(a1.data(), d_acc, n * sizeof(float4), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(a2.data(), d_acc2, n * sizeof(float4), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i)
      if (a1[i].x != a2[i].x || a1[i].y != a2[i].y || a1[i].z != a2[i].z) {
        if (bad < 5)
          std::printf("body %d: forces (%g %g %g), forces_dyn (%g %g %g)\n", i, a1[i].x, a1[i].y,
                      a1[i].z, a2[i].x, a2[i].y, a2[i].z);
        ++bad;
      }
  }
  for (int st = 0; st < steps; ++st) {
    if (st) forces<<<n / kTile, kTile>>>(d_pos, d_acc, n);
    kick_drift<<<(n + 255) / 256, 256>>>(d_pos, d_vel, d_acc, dt, n);
  }
  CHECK(cudaGetLastError());
  std::vector<float4> gp(n), gv(n);
  CHECK(cudaMemcpy(gp.data(), d_pos, n * sizeof(float4), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(gv.data(), d_vel, n * sizeof(float4), cudaMemcpyDeviceToHost));

  // Host: the same scheme in double.
  std::vector<double> p(3 * n), v(3 * n), m(n), a(3 * n);
  for (int i = 0; i < n; ++i) {
    p[3 * i] = pos[i].x, p[3 * i + 1] = pos[i].y, p[3 * i + 2] = pos[i].z, m[i] = pos[i].w;
    v[3 * i] = vel[i].x, v[3 * i + 1] = vel[i].y, v[3 * i + 2] = vel[i].z;
  }
  for (int st = 0; st < steps; ++st) {
    for (int i = 0; i < n; ++i) {
      double ax = 0, ay = 0, az = 0;
      for (int j = 0; j < n; ++j) {
        const double rx = p[3 * j] - p[3 * i], ry = p[3 * j + 1] - p[3 * i + 1],
                     rz = p[3 * j + 2] - p[3 * i + 2];
        const double d2 = rx * rx + ry * ry + rz * rz + double(kSoft2);
        const double inv = 1.0 / std::sqrt(d2), s3 = m[j] * inv * inv * inv;
        ax += rx * s3, ay += ry * s3, az += rz * s3;
      }
      a[3 * i] = ax, a[3 * i + 1] = ay, a[3 * i + 2] = az;
    }
    for (int k = 0; k < 3 * n; ++k) {
      v[k] += a[k] * dt;
      p[k] += v[k] * dt;
    }
  }
  double vscale = 0;
  for (int k = 0; k < 3 * n; ++k) vscale = std::fmax(vscale, std::fabs(v[k]));
  for (int i = 0; i < n; ++i) {
    const float got_p[3] = {gp[i].x, gp[i].y, gp[i].z}, got_v[3] = {gv[i].x, gv[i].y, gv[i].z};
    for (int c = 0; c < 3; ++c) {
      const double ep = std::fabs(got_p[c] - p[3 * i + c]), ev = std::fabs(got_v[c] - v[3 * i + c]);
      if (ep > 2e-4 * 2.0 || ev > 2e-4 * vscale || gp[i].w != pos[i].w) {
        if (bad < 5)
          std::printf("body %d axis %d: position %.7g (host %.7g), velocity %.7g (host %.7g)\n", i,
                      c, got_p[c], p[3 * i + c], got_v[c], v[3 * i + c]);
        ++bad;
      }
    }
  }
  std::printf("%d bodies, %d steps, velocity scale %.4g\n", n, steps, vscale);
  return finish(bad);
}
