// kmeans: the assignment step of k-means. Each thread takes one point (DIM = 8 features, stored
// feature-major: feat[f * n + p], so loads are coalesced), finds the nearest of k centroids
// (squared Euclidean distance; first index wins ties) held in shared memory, writes the index to
// member[p] and counts it in a shared histogram (shared atomicAdd) that is flushed to counts[] with
// one global atomicAdd per non-empty cluster.
// Exercises: shared memory, shared + global atomics, fma-heavy loops, compare/select.
// Launch: grid (ceil(n/blockDim)), block (256); k <= 16.
#define DIM 8
#define MAXK 16

extern "C" __global__ void kmeans(const float* __restrict__ feat, const float* __restrict__ cent,
                                  int* __restrict__ member, unsigned* __restrict__ counts, int n,
                                  int k) {
  __shared__ float sc[MAXK * DIM];
  __shared__ unsigned scount[MAXK];
  const int tid = threadIdx.x;
  for (int i = tid; i < k * DIM; i += blockDim.x) sc[i] = cent[i];
  if (tid < k) scount[tid] = 0u;
  __syncthreads();
  const int p = blockIdx.x * blockDim.x + tid;
  if (p < n) {
    float x[DIM];
#pragma unroll
    for (int f = 0; f < DIM; ++f) x[f] = feat[f * n + p];
    float best = 3.402823466e38f;
    int best_c = 0;
    for (int c = 0; c < k; ++c) {
      float dist = 0.0f;
#pragma unroll
      for (int f = 0; f < DIM; ++f) {
        const float diff = x[f] - sc[c * DIM + f];
        dist += diff * diff;
      }
      if (dist < best) {
        best = dist;
        best_c = c;
      }
    }
    member[p] = best_c;
    atomicAdd(&scount[best_c], 1u);
  }
  __syncthreads();
  if (tid < k && scount[tid] != 0u) atomicAdd(&counts[tid], scount[tid]);
}
