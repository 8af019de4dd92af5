// Thrust built for a newer architecture (programs.sh embeds compute_80 PTX only): CUB picks its
// tuning policy by the PTX version cudaFuncGetAttributes reports and refuses to launch a kernel
// compiled for another one. gpurf reported 75 for every kernel, so each DeviceTransform
// (thrust::transform, a saxpy with a zip of three inputs) of a program built for sm_80 or later
// failed with cudaErrorInvalidDeviceFunction before any launch. Also the kernel's static
// shared bytes (sharedSizeBytes, 0 before). Checked against the host.
#include "check.h"

#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/reduce.h>
#include <thrust/transform.h>

__global__ void probe(float* out) {
  __shared__ float tile[300];
  tile[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = tile[299 - threadIdx.x];
}

struct Fma3 {
  __host__ __device__ float operator()(const thrust::tuple<float, float, float>& t) const {
    return thrust::get<0>(t) * thrust::get<1>(t) + thrust::get<2>(t);
  }
};

int main() {
  int bad = 0;
  cudaFuncAttributes a;
  CHECK(cudaFuncGetAttributes(&a, probe));
  if (a.ptxVersion != 80 || a.sharedSizeBytes != 1200) {
    std::printf("ptxVersion %d, want 80; sharedSizeBytes %zu, want 1200\n", a.ptxVersion,
                a.sharedSizeBytes);
    ++bad;
  }
  const int n = 20000;
  thrust::host_vector<float> hx(n), hy(n), hz(n);
  for (int i = 0; i < n; ++i)
    hx[i] = float(i % 97), hy[i] = float(i % 13) * 0.5f, hz[i] = float(i % 7);
  thrust::device_vector<float> x = hx, y = hy, z = hz, out(n);
  thrust::transform(x.begin(), x.end(), y.begin(), out.begin(), thrust::plus<float>());
  thrust::host_vector<float> o = out;
  for (int i = 0; i < n; ++i)
    if (o[i] != hx[i] + hy[i] && bad++ < 5) std::printf("plus %d: %g\n", i, o[i]);
  auto zb = thrust::make_zip_iterator(thrust::make_tuple(x.begin(), y.begin(), z.begin()));
  thrust::transform(zb, zb + n, out.begin(), Fma3{});
  o = out;
  for (int i = 0; i < n; ++i)
    if (o[i] != hx[i] * hy[i] + hz[i] && bad++ < 5) std::printf("fma3 %d: %g\n", i, o[i]);
  double s = thrust::reduce(out.begin(), out.end(), 0.0);
  double w = 0;
  for (int i = 0; i < n; ++i) w += hx[i] * hy[i] + hz[i];
  if (s != w) std::printf("sum %g want %g\n", s, w), ++bad;
  return finish(bad);
}
