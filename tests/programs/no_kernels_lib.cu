// no_kernels.cu's second translation unit: a __constant__ table and no kernel (its module has
// no .entry); the host reaches the table through the symbol calls.
#include <cuda_runtime.h>

__constant__ float table[16];

cudaError_t put_table(const float* v) { return cudaMemcpyToSymbol(table, v, sizeof table); }
cudaError_t get_table(float* v, int first, int n) {
  return cudaMemcpyFromSymbol(v, table, n * sizeof(float), first * sizeof(float));
}
