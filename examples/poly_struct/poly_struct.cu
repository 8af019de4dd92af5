// A user kernel as gpurf runs it with no C++ written (examples/poly_struct/README.md): a struct
// passed by value (scale, bias, n and two pointers) and polynomial coefficients in __constant__
// memory, which the host would fill with cudaMemcpyToSymbol.
//   y[i] = scale * (c0 + c1 x + ... + c7 x^7) + bias,  x = x[i]  (Horner's rule)
struct PolyArgs {
  float scale;
  int n;
  const float* x;
  float* y;
  float bias;
};

__constant__ float coeffs[8];

extern "C" __global__ void poly(PolyArgs a) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.n) return;
  const float v = a.x[i];
  float acc = coeffs[7];
  for (int k = 6; k >= 0; --k) acc = acc * v + coeffs[k];
  a.y[i] = a.scale * acc + a.bias;
}
