// Indirect calls as programs write them: a __device__ table of function pointers indexed per
// warp, and virtual functions of objects built on the device (vtables in global memory). Each
// warp's lanes call one function here (virtual_calls.cu: lanes of a warp calling different ones).
#include <cuda_runtime.h>

#include "check.h"

typedef float (*op_t)(float, float);
__device__ float add_op(float a, float b) { return a + b; }
__device__ float mul_op(float a, float b) { return a * b; }
__device__ float max_op(float a, float b) { return a > b ? a : b; }
__device__ op_t table[3] = {add_op, mul_op, max_op};

struct Shape {
  __device__ virtual float area() const = 0;
  __device__ virtual ~Shape() {}
};
struct Square : Shape {
  float s;
  __device__ explicit Square(float x) : s(x) {}
  __device__ float area() const override { return s * s; }
};
struct Circle : Shape {
  float r;
  __device__ explicit Circle(float x) : r(x) {}
  __device__ float area() const override { return 3.0f * r * r; }
};

__global__ void apply(const float* a, const float* b, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  op_t f = table[(i / 32) % 3]; // one function per warp
  if (i < n) out[i] = f(a[i], b[i]);
}

__global__ void areas(const float* x, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Square sq(x[i]);
  Circle c(x[i]);
  const Shape* s = (i / 32) % 2 ? static_cast<const Shape*>(&c) : &sq;
  out[i] = s->area();
}

int main() {
  const int n = 256;
  float ha[n], hb[n], ho[n];
  for (int i = 0; i < n; ++i) ha[i] = float(i % 17), hb[i] = float(i % 5) + 1;
  float *a, *b, *o;
  CHECK(cudaMalloc(&a, sizeof ha));
  CHECK(cudaMalloc(&b, sizeof hb));
  CHECK(cudaMalloc(&o, sizeof ho));
  CHECK(cudaMemcpy(a, ha, sizeof ha, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(b, hb, sizeof hb, cudaMemcpyHostToDevice));
  apply<<<n / 64, 64>>>(a, b, o, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(ho, o, sizeof ho, cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    const int k = (i / 32) % 3;
    const float want = k == 0   ? ha[i] + hb[i]
                       : k == 1 ? ha[i] * hb[i]
                                : (ha[i] > hb[i] ? ha[i] : hb[i]);
    bad += ho[i] != want;
  }
  areas<<<n / 64, 64>>>(a, o, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(ho, o, sizeof ho, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) bad += ho[i] != ((i / 32) % 2 ? 3.0f * ha[i] * ha[i] : ha[i] * ha[i]);
  std::printf("%d wrong\n", bad);
  return finish(bad);
}
