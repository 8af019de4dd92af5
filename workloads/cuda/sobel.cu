// sobel: gradient magnitude sqrt(gx^2 + gy^2) of a w x h single-precision image with the 3x3 Sobel
// operators; image borders are clamped. Each thread computes 4 pixels of one column (rows
// threadIdx.y, +8, +16, +24 of the CTA's 32-row band). Reads straight from global memory
// (overlapping, cache-friendly 9-point neighbourhoods); sqrt.rn.f32.
// Launch: grid (ceil(w/32), ceil(h/32)), block (32, 8).
#define ROWS_PER_THREAD 4

__device__ __forceinline__ float pixel(const float* __restrict__ img, int x, int y, int w, int h) {
  x = min(max(x, 0), w - 1);
  y = min(max(y, 0), h - 1);
  return img[y * w + x];
}

extern "C" __global__ void sobel(const float* __restrict__ img, float* __restrict__ out, int w,
                                 int h) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y0 = blockIdx.y * blockDim.y * ROWS_PER_THREAD + threadIdx.y;
  for (int r = 0; r < ROWS_PER_THREAD; ++r) {
    const int y = y0 + r * blockDim.y;
    if (x >= w || y >= h) continue;
    const float p00 = pixel(img, x - 1, y - 1, w, h), p01 = pixel(img, x, y - 1, w, h),
                p02 = pixel(img, x + 1, y - 1, w, h);
    const float p10 = pixel(img, x - 1, y, w, h), p12 = pixel(img, x + 1, y, w, h);
    const float p20 = pixel(img, x - 1, y + 1, w, h), p21 = pixel(img, x, y + 1, w, h),
                p22 = pixel(img, x + 1, y + 1, w, h);
    const float gx = (p02 + 2.0f * p12 + p22) - (p00 + 2.0f * p10 + p20);
    const float gy = (p20 + 2.0f * p21 + p22) - (p00 + 2.0f * p01 + p02);
    out[y * w + x] = sqrtf(gx * gx + gy * gy);
  }
}
