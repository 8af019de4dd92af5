// igemm_dp4a: C = A * B for n x n int8 matrices with int32 accumulation, four products per
// instruction with __dp4a (dp4a.s32.s32), as int8 inference GEMMs run on GPUs without integer
// tensor cores.
// A is row-major; Bt is B transposed (row j holds column j of B), so that each 32-bit word of
// either holds four consecutive k. Tiles of 16 x 64 k in shared memory (16 words, padded to
// 17 against bank conflicts), bar.sync, an unrolled dp4a loop.
// Launch: grid (n/16, n/16), block (16, 16); n a multiple of 64.
#define TILE 16

extern "C" __global__ void igemm_dp4a(const int* __restrict__ A, const int* __restrict__ Bt,
                                      int* __restrict__ C, int n) {
  __shared__ int As[TILE][TILE + 1];
  __shared__ int Bs[TILE][TILE + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE + ty;
  const int col = blockIdx.x * TILE + tx;
  const int words = n / 4; // 32-bit words per row
  int acc = 0;
  for (int t = 0; t < words; t += TILE) {
    As[ty][tx] = A[row * words + t + tx];
    Bs[ty][tx] = Bt[(blockIdx.x * TILE + ty) * words + t + tx];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; ++k) acc = __dp4a(As[ty][k], Bs[tx][k], acc);
    __syncthreads();
  }
  C[row * n + col] = acc;
}
