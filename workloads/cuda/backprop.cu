// backprop: the forward pass of one fully connected layer with a sigmoid activation:
//   out[j] = sigmoid(bias[j] + sum_i w[j][i] * in[i])      (w row-major, n_out x n_in)
// The input vector is staged in shared memory; each warp computes one output at a time: lanes
// stride over the inputs, then a butterfly (shfl.sync.bfly) sums the 32 partial dot products and
// lane 0 calls the non-inlined sigmoid (a real PTX `call`, using ex2.approx via __expf).
// Exercises: shared memory, warp shuffles, a device-function call, SFU ex2/rcp.
// Launch: any grid, block a multiple of 32; n_in <= 1024.
#define MAX_IN 1024

__device__ __noinline__ float sigmoid(float x) { return 1.0f / (1.0f + __expf(-x)); }

extern "C" __global__ void backprop(const float* __restrict__ input, const float* __restrict__ w,
                                    const float* __restrict__ bias, float* __restrict__ out,
                                    int n_in, int n_out) {
  __shared__ float sh_in[MAX_IN];
  for (int i = threadIdx.x; i < n_in; i += blockDim.x) sh_in[i] = input[i];
  __syncthreads();
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int warps = blockDim.x >> 5;
  for (int j = blockIdx.x * warps + warp; j < n_out; j += gridDim.x * warps) {
    const float* row = w + (size_t)j * n_in;
    float s = 0.0f;
    for (int i = lane; i < n_in; i += 32) s += row[i] * sh_in[i];
    for (int off = 16; off > 0; off >>= 1) s += __shfl_xor_sync(0xffffffffu, s, off);
    if (lane == 0) out[j] = sigmoid(s + bias[j]);
  }
}
