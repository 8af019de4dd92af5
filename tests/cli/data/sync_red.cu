// __syncthreads_count/_and/_or (PTX bar.red.popc.u32, bar.red.and.pred, bar.red.or.pred) in a
// loop, with a partial last warp (100 threads per CTA) and more CTAs than warp slots
// (tests/cli/frontend_kernels.sh; expected output: gen_expected.py).
extern "C" __global__ void sync_red(const int* in, int* out, int rounds) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const int v = in[t];
  int acc = 0;
  for (int r = 0; r < rounds; ++r) {
    const int c = __syncthreads_count((v >> r) & 1);
    const int a = __syncthreads_and((v & 127) != r + 3);
    const int o = __syncthreads_or((v & 255) == r * 7);
    acc = acc * 3 + c + (a << 12) + (o << 13);
  }
  out[t] = acc;
}
