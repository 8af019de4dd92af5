// tests/e2e/wir_test.cpp: calls in a loop under WIR's load reuse. Every iteration calls double
// pow() (nvcc emits the non-inlined `.func __internal_accurate_pow`) and a __noinline__
// function, each with arguments that change from call to call; the callee reads them with
// ld.param from the call's .param space, which the caller rewrites (st.param) before every call.
// Warp-uniform bases keep the calls convergent (reusable). Compiled with
// `nvcc -arch=sm_75 -ptx -O3 wir_calls.cu`.
__device__ __noinline__ int mix(int a, int b) { return a * 3 + b; }

extern "C" __global__ void wir_calls(const double* x, double* out, int* iout, int n) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const double b = x[blockIdx.x]; // one base per CTA
  double s = 0;
  int m = 0;
#pragma unroll 1
  for (int i = 0; i < n; ++i) {
    s += pow(b, double(i));
    m = mix(m, i);
  }
  out[t] = s;
  iout[t] = m + int(threadIdx.x);
}
