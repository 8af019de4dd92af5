// calls: per element, a data-dependent number of iterations (1..16) whose body calls non-inlined
// device functions chosen by a divergent branch, plus the math library's double pow() (nvcc keeps
// it as a call of the .func __internal_accurate_pow). For element i with x = x[i], k = key[i]:
//   a = x, b = 1 - x, n = 0, acc = 0
//   for j in 0 .. (k & 15):
//     if ((k >> j) & 1)  {a, b, n} = blend(a, b, j, 0.75 - 0.03125 * j, k)    (a struct return)
//     else               acc += weigh(a, b, j, 1.0 + 0.5 * x)                 (a double return)
//     acc += pow(1.0 + 0.125 * a * a, 0.25 * (j + 1))
//   out[i] = acc + a + b, count[i] = n
// blend: a' = w*a + (1-w)*b, b' = b*a + 0.5, n' = n + (k >> (j+4) & 3); weigh: (a*s + b) / (j+1).
// Exercises: `call` with several .param arguments (f32, s32, f64) and struct / f64 returns under
// divergence, a library .func call in a loop, f64 arithmetic and division, f32 <-> f64 conversion.
// Launch: any grid and block (1D), n elements.
struct Blend {
  float a, b;
  int n;
};

__device__ __noinline__ Blend blend(float a, float b, int j, float w, int k) {
  Blend r;
  r.a = w * a + (1.0f - w) * b;
  r.b = b * a + 0.5f;
  r.n = (k >> (j + 4)) & 3;
  return r;
}

__device__ __noinline__ double weigh(float a, float b, int j, double s) {
  return ((double)a * s + (double)b) / (double)(j + 1);
}

extern "C" __global__ void calls(const float* __restrict__ x, const int* __restrict__ key,
                                 double* __restrict__ out, int* __restrict__ count, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float xi = x[i];
  const int k = key[i];
  float a = xi, b = 1.0f - xi;
  int cnt = 0;
  double acc = 0.0;
  const int iters = (k & 15) + 1;
  for (int j = 0; j < iters; ++j) {
    if ((k >> j) & 1) {
      const Blend r = blend(a, b, j, 0.75f - 0.03125f * j, k);
      a = r.a;
      b = r.b;
      cnt += r.n;
    } else {
      acc += weigh(a, b, j, 1.0 + 0.5 * xi);
    }
    acc += pow(1.0 + 0.125 * (double)a * (double)a, 0.25 * (j + 1));
  }
  out[i] = acc + a + b;
  count[i] = cnt;
}
