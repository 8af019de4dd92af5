// Recursive device functions as programs write them: Fibonacci (two calls per level, depths
// that differ between the lanes of a warp), mutual recursion (is_even / is_odd), a recursive
// sum over a binary tree held in an array, and a recursive quicksort of each thread's slice of
// an array. Every result is checked on the host; the stack is raised with cudaDeviceSetLimit
// for the quicksort and read back.
#include <cuda_runtime.h>

#include "check.h"

__device__ __noinline__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

__device__ __noinline__ int is_odd(int n);
__device__ __noinline__ int is_even(int n) { return n == 0 ? 1 : is_odd(n - 1); }
__device__ __noinline__ int is_odd(int n) { return n == 0 ? 0 : is_even(n - 1); }

struct Node {
  int value, left, right; // children: indices, -1 for none
};

__device__ __noinline__ int tree_sum(const Node* t, int i, int depth) {
  if (i < 0) return 0;
  // The depth weighs each value: the callers' depths must survive their calls.
  return t[i].value * depth + tree_sum(t, t[i].left, depth + 1) +
         tree_sum(t, t[i].right, depth + 1);
}

__device__ __noinline__ void quicksort(int* a, int lo, int hi) {
  if (lo >= hi) return;
  const int pivot = a[(lo + hi) / 2];
  int i = lo, j = hi;
  while (i <= j) {
    while (a[i] < pivot) ++i;
    while (a[j] > pivot) --j;
    if (i <= j) {
      const int t = a[i];
      a[i] = a[j];
      a[j] = t;
      ++i, --j;
    }
  }
  quicksort(a, lo, j);
  quicksort(a, i, hi);
}

__global__ void fib_kernel(int* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = fib(i % 16);
}

__global__ void parity_kernel(int* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = is_even(i % 40) * 2 + is_odd(i % 7);
}

__global__ void tree_kernel(const Node* t, int* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tree_sum(t, i, 1);
}

__global__ void sort_kernel(int* a, int per_thread, int threads) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < threads) quicksort(a + i * per_thread, 0, per_thread - 1);
}

static int host_fib(int n) { return n < 2 ? n : host_fib(n - 1) + host_fib(n - 2); }
static int host_tree(const Node* t, int i, int depth) {
  return i < 0 ? 0
               : t[i].value * depth + host_tree(t, t[i].left, depth + 1) +
                     host_tree(t, t[i].right, depth + 1);
}

int main() {
  int bad = 0;
  const int n = 256;
  int *out, h[n];
  CHECK(cudaMalloc(&out, n * sizeof(int)));

  fib_kernel<<<n / 64, 64>>>(out, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i)
    if (h[i] != host_fib(i % 16) && bad++ < 5) std::printf("fib %d: %d\n", i, h[i]);

  parity_kernel<<<n / 128, 128>>>(out, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) {
    const int want = ((i % 40) % 2 == 0) * 2 + (i % 7) % 2;
    if (h[i] != want && bad++ < 5) std::printf("parity %d: %d, want %d\n", i, h[i], want);
  }

  // A binary search tree of n nodes inserted in a scrambled order (depth about 2 log n).
  Node nodes[n];
  for (int k = 0; k < n; ++k) {
    nodes[k] = {(k * 37 + 11) % 101, -1, -1};
    if (!k) continue;
    for (int p = 0;;) {
      int& next = nodes[k].value < nodes[p].value ? nodes[p].left : nodes[p].right;
      if (next < 0) {
        next = k;
        break;
      }
      p = next;
    }
  }
  Node* t;
  CHECK(cudaMalloc(&t, sizeof nodes));
  CHECK(cudaMemcpy(t, nodes, sizeof nodes, cudaMemcpyHostToDevice));
  tree_kernel<<<n / 64, 64>>>(t, out, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i)
    if (h[i] != host_tree(nodes, i, 1) && bad++ < 5)
      std::printf("tree %d: %d, want %d\n", i, h[i], host_tree(nodes, i, 1));

  // Quicksort recurses deeper than CUDA's default 1 KiB stack allows on some slices.
  const size_t stack = 8192;
  CHECK(cudaDeviceSetLimit(cudaLimitStackSize, stack));
  size_t got = 0;
  CHECK(cudaDeviceGetLimit(&got, cudaLimitStackSize));
  if (got != stack && bad++ < 5) std::printf("stack limit %zu, want %zu\n", got, stack);
  const int threads = 64, per = 48;
  static int data[threads * per];
  for (int k = 0; k < threads * per; ++k) data[k] = int((k * 2654435761u) % 1000) - 500;
  for (int k = 0; k < per; ++k) data[5 * per + k] = per - k; // descending: the deep case
  int* a;
  CHECK(cudaMalloc(&a, sizeof data));
  CHECK(cudaMemcpy(a, data, sizeof data, cudaMemcpyHostToDevice));
  sort_kernel<<<threads / 32, 32>>>(a, per, threads);
  CHECK(cudaGetLastError());
  static int sorted[threads * per];
  CHECK(cudaMemcpy(sorted, a, sizeof sorted, cudaMemcpyDeviceToHost));
  for (int s = 0; s < threads; ++s) {
    long in = 0, res = 0;
    for (int k = 0; k < per; ++k) in += data[s * per + k], res += sorted[s * per + k];
    bool ok = in == res;
    for (int k = 1; k < per; ++k) ok = ok && sorted[s * per + k - 1] <= sorted[s * per + k];
    if (!ok && bad++ < 5) std::printf("slice %d not sorted\n", s);
  }
  CHECK(cudaFree(a));
  CHECK(cudaFree(t));
  CHECK(cudaFree(out));
  return finish(bad);
}
