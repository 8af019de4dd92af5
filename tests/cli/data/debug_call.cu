// A debug build (nvcc -G: tests/cli/frontend_kernels.sh) of a kernel calling a __noinline__
// function three times per thread; expected output: gen_expected.py. `last` is assigned in
// the callee's first iteration only, so each call reads a register before any instruction of
// that call wrote it (the engine's fresh frame: 0; the timing model's: what the previous
// call left, unless the call zeroes it).
__device__ __noinline__ int mix(int v, int n) {
  char last;
  short acc = 0;
  for (int k = 0; k < n; ++k) {
    char step = (char)(v + k * 3);
    if (k == 0)
      last = step;
    else
      acc += last;
    last = (char)(last * 3 + 1);
  }
  return acc + last;
}

extern "C" __global__ void debug_call(const int* in, int* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i], r = 0;
  for (int j = 0; j < 3; ++j) r += mix(v + j, (v & 7) + 1);
  out[i] = r;
}
