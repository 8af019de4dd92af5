// nbody: all-pairs gravitational accelerations with Plummer softening:
//   a_i = sum_j m_j * (p_j - p_i) * rsqrt(|p_j - p_i|^2 + eps2)^3
// Bodies are float4 (x, y, z, mass), tiled through shared memory 128 at a time.
// Exercises: ld.global.v4 / ld.shared.v4, rsqrt.approx.f32 (SFU), a long fma-dense inner loop.
// Launch: grid (ceil(n/128)), block (128).
#define BS 128

extern "C" __global__ void nbody(const float4* __restrict__ pos, float* __restrict__ ax,
                                 float* __restrict__ ay, float* __restrict__ az, int n,
                                 float eps2) {
  __shared__ float4 sp[BS];
  const int i = blockIdx.x * BS + threadIdx.x;
  const float4 pi = i < n ? pos[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  float accx = 0.0f, accy = 0.0f, accz = 0.0f;
  for (int tile = 0; tile < n; tile += BS) {
    const int j = tile + threadIdx.x;
    sp[threadIdx.x] = j < n ? pos[j] : make_float4(0.0f, 0.0f, 0.0f, 0.0f); // mass 0: no force
    __syncthreads();
#pragma unroll 4
    for (int t = 0; t < BS; ++t) {
      const float4 pj = sp[t];
      const float dx = pj.x - pi.x, dy = pj.y - pi.y, dz = pj.z - pi.z;
      const float r2 = dx * dx + dy * dy + dz * dz + eps2;
      const float inv = rsqrtf(r2);
      const float s = pj.w * inv * inv * inv;
      accx += dx * s;
      accy += dy * s;
      accz += dz * s;
    }
    __syncthreads();
  }
  if (i < n) {
    ax[i] = accx;
    ay[i] = accy;
    az[i] = accz;
  }
}
