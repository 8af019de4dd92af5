// resize_bilinear: resizes a wi x hi RGBA8 image to wo x ho through a 2D texture object
// (normalised coordinates, linear filtering, clamped addressing, 8-bit channels read as
// normalised floats): each thread samples the source at its output pixel's centre with
// tex2D<float4> and writes the four channels as f32.
// Launch: grid (ceil(wo / 16), ceil(ho / 8)), block (16, 8).
extern "C" __global__ void resize_bilinear(cudaTextureObject_t src, float4* __restrict__ out,
                                           int wo, int ho) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= wo || y >= ho) return;
  const float u = (x + 0.5f) / wo, v = (y + 0.5f) / ho;
  out[y * wo + x] = tex2D<float4>(src, u, v);
}
