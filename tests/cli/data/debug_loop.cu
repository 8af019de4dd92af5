// A debug build (nvcc -G: tests/cli/frontend_kernels.sh) with branches, a divergent loop and
// narrow locals; expected output: gen_expected.py. `last` is
// assigned in the loop's first iteration only, so the debug PTX copies its undefined value
// on the way into the loop (a read of a register no instruction wrote).
extern "C" __global__ void debug_loop(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = in[i];
  short acc = 0;
  char last;
  for (int k = 0; k < (v & 15) + 1; ++k) { // divergent trip count
    char step = (char)(v + k * 3);
    if (k == 0)
      last = step;
    else if (k & 1)
      acc += last;
    else
      acc -= (short)(step ^ last);
    last = (char)(last * 3 + 1);
  }
  int r = acc;
  if (v & 16) r = r * 2 + last;
  out[i] = r;
}
