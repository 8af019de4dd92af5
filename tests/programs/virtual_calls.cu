// Device-side polymorphism as programs write it: objects built with placement new in a kernel
// (vtables in global memory) and called through base pointers, with the lanes of one warp
// holding different dynamic types (the call serialised over the warp's targets, as hardware
// does); an overriding method calling its base's; templates over functors and compositions of
// them, and a recursive template instantiated many times. Checked against the host.
#include <cstdio>
#include <cuda_runtime.h>
#include <new>

#include "check.h"

struct Op {
  int k;
  __host__ __device__ Op(int k) : k(k) {}
  __device__ virtual int apply(int x) const = 0;
  __device__ virtual int weight() const { return 1; }
  __device__ virtual ~Op() {}
};
struct AddOp : Op {
  __device__ AddOp(int k) : Op(k) {}
  __device__ int apply(int x) const override { return x + k; }
};
struct MulOp : Op {
  __device__ MulOp(int k) : Op(k) {}
  __device__ int apply(int x) const override { return x * k; }
  __device__ int weight() const override { return 2; }
};
struct XorOp : Op {
  __device__ XorOp(int k) : Op(k) {}
  __device__ int apply(int x) const override { return x ^ (k * 7); }
  __device__ int weight() const override { return 3; }
};
struct ChainOp : MulOp {
  __device__ ChainOp(int k) : MulOp(k) {}
  __device__ int apply(int x) const override { return MulOp::apply(x) - k; }
};

// Host versions of the same.
static int host_apply(int type, int k, int x) {
  switch (type) {
  case 0:
    return x + k;
  case 1:
    return x * k;
  case 2:
    return x ^ (k * 7);
  default:
    return x * k - k;
  }
}
static int host_weight(int type) { return type == 0 ? 1 : type == 1 ? 2 : type == 2 ? 3 : 2; }

struct alignas(16) Slot {
  unsigned char bytes[32];
};

__global__ void build(Slot* slots, const int* types, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  void* p = &slots[i];
  int k = (i % 13) + 1;
  switch (types[i]) {
  case 0:
    new (p) AddOp(k);
    break;
  case 1:
    new (p) MulOp(k);
    break;
  case 2:
    new (p) XorOp(k);
    break;
  default:
    new (p) ChainOp(k);
    break;
  }
}

__global__ void run(const Slot* slots, const int* in, int* out, int n, int rounds) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int x = in[i];
  for (int r = 0; r < rounds; ++r) {
    const Op* op = reinterpret_cast<const Op*>(&slots[(i + r) % n]);
    x = op->apply(x) + op->weight();
  }
  out[i] = x;
}

__global__ void destroy(Slot* slots, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  reinterpret_cast<Op*>(&slots[i])->~Op();
}

// Function templates with many instantiations and functors.
template <int N> struct Poly {
  __device__ __host__ int operator()(int x) const { return x * N + (N ^ x); }
};
struct Square {
  __device__ __host__ int operator()(int x) const { return x * x; }
};
template <typename F, typename G> struct Compose {
  F f;
  G g;
  __device__ __host__ int operator()(int x) const { return f(g(x)); }
};
template <typename F> __global__ void map(const int* in, int* out, int n, F f) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    out[i] = f(in[i]);
}
template <int N, typename T> __device__ __host__ T power_sum(T x) {
  if constexpr (N == 0)
    return T(1);
  else
    return x * power_sum<N - 1>(x) + T(N);
}
template <int N> __global__ void powk(const int* in, long long* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = power_sum<N, long long>(in[i] % 17);
}

template <typename F>
static int check_map(const char* name, const int* d_in, int* d_out, const int* h_in, int n, F f) {
  map<<<40, 96>>>(d_in, d_out, n, f);
  if (cudaDeviceSynchronize() != cudaSuccess) {
    printf("FAIL %s launch\n", name);
    return 1;
  }
  int* h = new int[n];
  cudaMemcpy(h, d_out, n * sizeof(int), cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int i = 0; i < n; ++i)
    if (h[i] != f(h_in[i])) {
      if (bad++ < 3) printf("%s[%d] = %d, want %d\n", name, i, h[i], f(h_in[i]));
    }
  delete[] h;
  return bad;
}
// Expression trees evaluated through virtual calls that recurse (a node's eval calls its
// children's): the lanes of a warp hold different node types at each level, so each recursive
// call site is serialised over its targets and its caller's live registers are saved and
// restored around every one of them.
struct Expr {
  __device__ virtual long long eval(int x) const = 0;
};
struct Leaf : Expr {
  int c;
  __device__ explicit Leaf(int c) : c(c) {}
  __device__ long long eval(int x) const override { return c + (x & 7); }
};
struct Sum : Expr {
  const Expr *l, *r;
  __device__ Sum(const Expr* l, const Expr* r) : l(l), r(r) {}
  __device__ long long eval(int x) const override { return l->eval(x + 1) + r->eval(x * 3); }
};
struct Prod : Expr {
  const Expr *l, *r;
  __device__ Prod(const Expr* l, const Expr* r) : l(l), r(r) {}
  __device__ long long eval(int x) const override { return l->eval(x ^ 5) * (r->eval(x) | 1); }
};
struct alignas(16) ExprSlot {
  unsigned char bytes[32];
};
constexpr int kTreeNodes = 15; // a full binary tree of depth 3
// Node k's children are 2k+1 and 2k+2; inner node types and leaf constants from the seed.
__host__ __device__ inline int node_kind(int seed, int k) { return k >= 7 ? 2 : (seed >> k) & 1; }
__device__ const Expr* build_tree(ExprSlot* mem, int seed, int k) {
  if (node_kind(seed, k) == 2) return new (&mem[k]) Leaf(seed % 11 + k);
  const Expr* l = build_tree(mem, seed, 2 * k + 1);
  const Expr* r = build_tree(mem, seed, 2 * k + 2);
  if (node_kind(seed, k)) return new (&mem[k]) Prod(l, r);
  return new (&mem[k]) Sum(l, r);
}
__global__ void eval_trees(ExprSlot* mem, const int* seeds, long long* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const Expr* root = build_tree(mem + size_t(i) * kTreeNodes, seeds[i], 0);
  out[i] = root->eval(i);
}
static long long host_eval(int seed, int k, int x) {
  const int kind = node_kind(seed, k);
  if (kind == 2) return seed % 11 + k + (x & 7);
  if (kind == 1) return host_eval(seed, 2 * k + 1, x ^ 5) * (host_eval(seed, 2 * k + 2, x) | 1);
  return host_eval(seed, 2 * k + 1, x + 1) + host_eval(seed, 2 * k + 2, x * 3);
}

template <int N> static int check_pow(const int* d_in, long long* d_out, const int* h_in, int n) {
  powk<N><<<(n + 127) / 128, 128>>>(d_in, d_out, n);
  long long* h = new long long[n];
  if (cudaMemcpy(h, d_out, n * sizeof(long long), cudaMemcpyDeviceToHost) != cudaSuccess) return 1;
  int bad = 0;
  for (int i = 0; i < n; ++i)
    if (h[i] != power_sum<N, long long>(h_in[i] % 17)) {
      if (bad++ < 3) printf("pow<%d>[%d] wrong\n", N, i);
    }
  delete[] h;
  return bad;
}

int main() {
  const int n = 64 * 70; // 70 CTAs of 64
  int *types = new int[n], *in = new int[n], *out = new int[n];
  unsigned s = 12345;
  for (int i = 0; i < n; ++i) {
    s = s * 1103515245u + 12345u;
    types[i] = (s >> 16) % 4;
    in[i] = int((s >> 8) % 1000) - 500;
  }
  Slot* d_slots;
  int *d_types, *d_in, *d_out;
  long long* d_out64;
  CHECK(cudaMalloc(&d_slots, n * sizeof(Slot)));
  CHECK(cudaMalloc(&d_types, n * sizeof(int)));
  CHECK(cudaMalloc(&d_in, n * sizeof(int)));
  CHECK(cudaMalloc(&d_out, n * sizeof(int)));
  CHECK(cudaMalloc(&d_out64, n * sizeof(long long)));
  CHECK(cudaMemcpy(d_types, types, n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_in, in, n * sizeof(int), cudaMemcpyHostToDevice));
  build<<<n / 64, 64>>>(d_slots, d_types, n);
  CHECK(cudaGetLastError());
  const int rounds = 5;
  run<<<n / 64, 64>>>(d_slots, d_in, d_out, n, rounds);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(out, d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    int x = in[i];
    for (int r = 0; r < rounds; ++r) {
      int j = (i + r) % n;
      x = host_apply(types[j], (j % 13) + 1, x) + host_weight(types[j]);
    }
    if (out[i] != x && bad++ < 5) printf("virtual[%d] = %d, want %d\n", i, out[i], x);
  }
  destroy<<<n / 64, 64>>>(d_slots, n);
  CHECK(cudaDeviceSynchronize());
  bad += check_map("poly3", d_in, d_out, in, n, Poly<3>());
  bad += check_map("poly11", d_in, d_out, in, n, Poly<11>());
  bad += check_map("square", d_in, d_out, in, n, Square());
  bad += check_map("compose", d_in, d_out, in, n, Compose<Poly<5>, Square>{});
  bad += check_map("compose2", d_in, d_out, in, n, Compose<Compose<Poly<2>, Poly<7>>, Square>{});
  bad += check_pow<1>(d_in, d_out64, in, n);
  bad += check_pow<4>(d_in, d_out64, in, n);
  bad += check_pow<9>(d_in, d_out64, in, n);
  bad += check_pow<15>(d_in, d_out64, in, n);
  // Trees: lanes of a warp get different seeds, so different node types at each level.
  ExprSlot* d_tree;
  CHECK(cudaMalloc(&d_tree, size_t(n) * kTreeNodes * sizeof(ExprSlot)));
  int* seeds = new int[n];
  for (int i = 0; i < n; ++i) seeds[i] = int((unsigned(i) * 2654435761u) >> 12);
  CHECK(cudaMemcpy(d_in, seeds, n * sizeof(int), cudaMemcpyHostToDevice));
  eval_trees<<<n / 64, 64>>>(d_tree, d_in, d_out64, n);
  long long* trees = new long long[n];
  CHECK(cudaMemcpy(trees, d_out64, n * sizeof(long long), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i)
    if (trees[i] != host_eval(seeds[i], 0, i) && bad++ < 8)
      printf("tree[%d] = %lld, want %lld\n", i, trees[i], host_eval(seeds[i], 0, i));
  CHECK(cudaFree(d_tree));
  return finish(bad);
}
