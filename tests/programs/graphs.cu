// CUDA Graphs: a stream capture (memset, three kernels, a copy back) launched five times, a
// fork/join capture over two streams, an explicit graph with a diamond of kernels, an empty
// node and a host node (created out of order: a launch runs them in dependency order), kernel
// node parameters copied at creation and changed in the executable graph, cudaGraphExecUpdate,
// a child graph and a clone, and the errors CUDA gives for bad handles, a cycle, a kernel's
// missing parameters, calls a capture forbids and a fork never joined.
#include "check.h"
#include <cstring>
#include <cuda_runtime.h>

__global__ void iota(float* v, int n, float base) { // after a memset to 0: v[i] = i + base
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] += float(i) + base;
}
__global__ void scale(float* v, int n, float f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] *= f;
}
__global__ void add(float* v, int n, float c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] += c;
}
__global__ void combine(const float* a, const float* b, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}
__global__ void copy_map(const float* in, float* out, int n, float mul, float plus) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * mul + plus;
}
void not_a_kernel() {}

static int bad = 0;
#define EXPECT(cond, ...)                                                                          \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      std::printf("FAIL: %s:%d: %s: ", __FILE__, __LINE__, #cond);                                 \
      std::printf(__VA_ARGS__);                                                                    \
      std::printf("\n");                                                                           \
      ++bad;                                                                                       \
    }                                                                                              \
  } while (0)
#define EXPECT_ERR(call, want)                                                                     \
  do {                                                                                             \
    cudaError_t e_ = (call);                                                                       \
    EXPECT(e_ == (want), "%s returned %s, not %s", #call, cudaGetErrorName(e_), #want);            \
    cudaGetLastError();                                                                            \
  } while (0)

const int n = 1000, threads = 128, blocks = (n + threads - 1) / threads;

// Host node: sums what the copy before it brought back (it must run after the copy).
struct HostSum {
  const float* h;
  double sum = 0;
  int calls = 0;
};
void CUDART_CB host_sum(void* p) {
  HostSum* s = static_cast<HostSum*>(p);
  s->sum = 0;
  for (int i = 0; i < n; ++i) s->sum += s->h[i];
  ++s->calls;
}

// Captures memset + iota(base) + scale(2) + add(step) + copy back into `s`.
cudaGraph_t capture_sequence(cudaStream_t s, float* d, float* h, float base, float step) {
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CHECK(cudaMemsetAsync(d, 0, n * sizeof(float), s));
  iota<<<blocks, threads, 0, s>>>(d, n, base);
  scale<<<blocks, threads, 0, s>>>(d, n, 2.0f);
  add<<<blocks, threads, 0, s>>>(d, n, step);
  CHECK(cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s));
  cudaGraph_t g;
  CHECK(cudaStreamEndCapture(s, &g));
  return g;
}

int check_sequence(const float* h, float base, float step, const char* what) {
  for (int i = 0; i < n; ++i)
    if (h[i] != (float(i) + base) * 2.0f + step) {
      std::printf("FAIL: %s: h[%d] = %g, expected %g\n", what, i, h[i], (i + base) * 2.0f + step);
      return 1;
    }
  return 0;
}

int main() {
  float *d, *x, *y, *z, *w, *h, *hw;
  CHECK(cudaMalloc(&d, n * sizeof(float)));
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaMalloc(&y, n * sizeof(float)));
  CHECK(cudaMalloc(&z, n * sizeof(float)));
  CHECK(cudaMalloc(&w, n * sizeof(float)));
  CHECK(cudaMallocHost(&h, n * sizeof(float)));
  CHECK(cudaMallocHost(&hw, n * sizeof(float)));
  cudaStream_t s, s2;
  CHECK(cudaStreamCreate(&s));
  CHECK(cudaStreamCreate(&s2));

  // ---------------------------------------------------------------- 1. a captured sequence
  CHECK(cudaMemset(d, 0x40, n * sizeof(float))); // 3.0039 each: the capture must not run
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
  CHECK(cudaStreamIsCapturing(s, &st));
  EXPECT(st == cudaStreamCaptureStatusActive, "status %d", int(st));
  CHECK(cudaStreamIsCapturing(s2, &st));
  EXPECT(st == cudaStreamCaptureStatusNone, "s2 status %d", int(st));
  float base = 5;
  CHECK(cudaMemsetAsync(d, 0, n * sizeof(float), s));
  iota<<<blocks, threads, 0, s>>>(d, n, base);
  base = 1000; // the launch copied its arguments when it was captured
  unsigned long long id = 0;
  cudaGraph_t during = nullptr;
  size_t ndeps = 9;
  CHECK(cudaStreamGetCaptureInfo(s, &st, &id, &during, nullptr, nullptr, &ndeps));
  EXPECT(st == cudaStreamCaptureStatusActive && id != 0 && during && ndeps == 1,
         "capture info: status %d id %llu graph %p deps %zu", int(st), id, (void*)during, ndeps);
  size_t count = 0;
  CHECK(cudaGraphGetNodes(during, nullptr, &count));
  EXPECT(count == 2, "%zu nodes captured so far", count);
  scale<<<blocks, threads, 0, s>>>(d, n, 2.0f);
  add<<<blocks, threads, 0, s>>>(d, n, 10.0f);
  CHECK(cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s));
  cudaGraph_t g1;
  CHECK(cudaStreamEndCapture(s, &g1));
  CHECK(cudaStreamIsCapturing(s, &st));
  EXPECT(st == cudaStreamCaptureStatusNone, "status %d after the capture", int(st));
  CHECK(cudaMemcpy(hw, d, n * sizeof(float), cudaMemcpyDeviceToHost));
  unsigned bits;
  std::memcpy(&bits, &hw[7], 4);
  EXPECT(bits == 0x40404040u, "the capture ran something: d[7] = %g", hw[7]);
  cudaGraphNode_t nodes[8];
  count = 8;
  CHECK(cudaGraphGetNodes(g1, nodes, &count));
  EXPECT(count == 5, "%zu nodes", count);
  const cudaGraphNodeType want[5] = {cudaGraphNodeTypeMemset, cudaGraphNodeTypeKernel,
                                     cudaGraphNodeTypeKernel, cudaGraphNodeTypeKernel,
                                     cudaGraphNodeTypeMemcpy};
  for (size_t i = 0; i < count && i < 5; ++i) {
    cudaGraphNodeType t;
    CHECK(cudaGraphNodeGetType(nodes[i], &t));
    EXPECT(t == want[i], "node %zu: type %d, expected %d", i, int(t), int(want[i]));
  }
  cudaGraphExec_t e1;
  CHECK(cudaGraphInstantiate(&e1, g1, 0));
  for (int launch = 0; launch < 5; ++launch) {
    for (int i = 0; i < n; ++i) h[i] = -1;
    CHECK(cudaGraphLaunch(e1, s));
    CHECK(cudaStreamSynchronize(s));
    bad += check_sequence(h, 5, 10, "captured graph");
  }

  // A node's parameters changed in the executable graph only.
  cudaKernelNodeParams kp;
  CHECK(cudaGraphKernelNodeGetParams(nodes[3], &kp));
  EXPECT(kp.func == (void*)add && kp.gridDim.x == unsigned(blocks) &&
             *static_cast<float*>(kp.kernelParams[2]) == 10.0f,
         "the add node's parameters: func %p grid %u c %g", kp.func, kp.gridDim.x,
         *static_cast<float*>(kp.kernelParams[2]));
  float c100 = 100;
  int nn = n;
  void* args[3] = {&d, &nn, &c100};
  cudaKernelNodeParams np = kp;
  np.kernelParams = args;
  CHECK(cudaGraphExecKernelNodeSetParams(e1, nodes[3], &np));
  c100 = -1; // copied by the call
  CHECK(cudaGraphLaunch(e1, s));
  CHECK(cudaStreamSynchronize(s));
  bad += check_sequence(h, 5, 100, "after cudaGraphExecKernelNodeSetParams");
  CHECK(cudaGraphKernelNodeGetParams(nodes[3], &kp));
  EXPECT(*static_cast<float*>(kp.kernelParams[2]) == 10.0f, "the graph's node changed too");

  // cudaGraphExecUpdate from a capture of the same sequence with other arguments.
  cudaGraph_t g1b = capture_sequence(s, d, h, 7, 1);
  cudaGraphExecUpdateResultInfo info;
  CHECK(cudaGraphExecUpdate(e1, g1b, &info));
  EXPECT(info.result == cudaGraphExecUpdateSuccess, "update result %d", int(info.result));
  CHECK(cudaGraphLaunch(e1, s));
  CHECK(cudaStreamSynchronize(s));
  bad += check_sequence(h, 7, 1, "after cudaGraphExecUpdate");
  // A graph of another shape cannot update it; the executable graph stays as it was.
  cudaGraph_t other;
  CHECK(cudaGraphCreate(&other, 0));
  cudaGraphNode_t empty;
  CHECK(cudaGraphAddEmptyNode(&empty, other, nullptr, 0));
  EXPECT_ERR(cudaGraphExecUpdate(e1, other, &info), cudaErrorGraphExecUpdateFailure);
  EXPECT(info.result == cudaGraphExecUpdateErrorTopologyChanged, "update result %d",
         int(info.result));
  CHECK(cudaGraphLaunch(e1, s));
  CHECK(cudaStreamSynchronize(s));
  bad += check_sequence(h, 7, 1, "after a refused update");

  // A fork and a join: s2 joins the capture through an event, runs its own kernel, s joins it.
  cudaEvent_t fork, join;
  CHECK(cudaEventCreate(&fork));
  CHECK(cudaEventCreate(&join));
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  iota<<<blocks, threads, 0, s>>>(x, n, 0.0f); // x = i (x is zeroed before the launch)
  CHECK(cudaEventRecord(fork, s));
  CHECK(cudaStreamWaitEvent(s2, fork, 0));
  CHECK(cudaStreamIsCapturing(s2, &st));
  EXPECT(st == cudaStreamCaptureStatusActive, "s2 did not join the capture: %d", int(st));
  copy_map<<<blocks, threads, 0, s2>>>(x, y, n, 2.0f, 0.0f); // y = 2x
  copy_map<<<blocks, threads, 0, s>>>(x, z, n, 1.0f, 5.0f);  // z = x + 5
  CHECK(cudaEventRecord(join, s2));
  CHECK(cudaStreamWaitEvent(s, join, 0));
  combine<<<blocks, threads, 0, s>>>(y, z, w, n); // w = 3x + 5
  cudaGraph_t gf;
  CHECK(cudaStreamEndCapture(s, &gf));
  CHECK(cudaStreamIsCapturing(s2, &st));
  EXPECT(st == cudaStreamCaptureStatusNone, "s2 still capturing: %d", int(st));
  cudaGraphNode_t roots[4];
  size_t nroots = 4;
  CHECK(cudaGraphGetRootNodes(gf, roots, &nroots));
  EXPECT(nroots == 1, "%zu roots", nroots);
  size_t nedges = 0;
  CHECK(cudaGraphGetEdges(gf, nullptr, nullptr, nullptr, &nedges));
  EXPECT(nedges == 4, "%zu edges in the fork/join graph", nedges);
  cudaGraphExec_t ef;
  CHECK(cudaGraphInstantiate(&ef, gf, 0));
  CHECK(cudaMemset(x, 0, n * sizeof(float)));
  CHECK(cudaGraphLaunch(ef, s));
  CHECK(cudaMemcpy(hw, w, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i)
    if (hw[i] != 3.0f * i + 5.0f) {
      std::printf("FAIL: fork/join: w[%d] = %g\n", i, hw[i]);
      ++bad;
      break;
    }

  // ---------------------------------------------------------------- 2. an explicit diamond
  // x = i (A); y = 2x (B); z = x + 5 (C); an empty node joins B and C; w = y + z (D); w copied
  // to the host (M); a host node sums it (H). D is created first, without dependencies: the
  // launch must still run it after B and C.
  cudaGraph_t g2;
  CHECK(cudaGraphCreate(&g2, 0));
  cudaGraphNode_t A, B, C, E, D, M, H;
  cudaKernelNodeParams p{};
  p.gridDim = dim3(blocks);
  p.blockDim = dim3(threads);
  void* dargs[4] = {&y, &z, &w, &nn};
  p.func = (void*)combine;
  p.kernelParams = dargs;
  CHECK(cudaGraphAddKernelNode(&D, g2, nullptr, 0, &p));
  cudaMemsetParams ms{};
  ms.dst = x;
  ms.value = 0;
  ms.elementSize = 4;
  ms.width = n;
  ms.height = 1;
  cudaGraphNode_t Z;
  CHECK(cudaGraphAddMemsetNode(&Z, g2, nullptr, 0, &ms));
  float zero = 0;
  void* aargs[3] = {&x, &nn, &zero};
  p.func = (void*)iota;
  p.kernelParams = aargs;
  CHECK(cudaGraphAddKernelNode(&A, g2, &Z, 1, &p));
  float two = 2, one = 1, five = 5;
  void* bargs[5] = {&x, &y, &nn, &two, &zero};
  p.func = (void*)copy_map;
  p.kernelParams = bargs;
  CHECK(cudaGraphAddKernelNode(&B, g2, &A, 1, &p));
  void* cargs[5] = {&x, &z, &nn, &one, &five};
  p.kernelParams = cargs;
  CHECK(cudaGraphAddKernelNode(&C, g2, &A, 1, &p));
  two = 100; // B keeps its copy
  cudaGraphNode_t bc[2] = {B, C};
  CHECK(cudaGraphAddEmptyNode(&E, g2, bc, 2));
  CHECK(cudaGraphAddDependencies(g2, &E, &D, nullptr, 1));
  CHECK(cudaGraphAddMemcpyNode1D(&M, g2, &D, 1, hw, w, n * sizeof(float), cudaMemcpyDeviceToHost));
  HostSum sum{hw};
  cudaHostNodeParams hp{host_sum, &sum};
  CHECK(cudaGraphAddHostNode(&H, g2, &M, 1, &hp));
  EXPECT_ERR(cudaGraphAddDependencies(g2, &E, &D, nullptr, 1), cudaErrorInvalidValue);
  size_t nd = 0;
  CHECK(cudaGraphNodeGetDependencies(D, nullptr, nullptr, &nd));
  EXPECT(nd == 1, "D has %zu dependencies", nd);
  CHECK(cudaGraphNodeGetDependentNodes(A, nullptr, nullptr, &nd));
  EXPECT(nd == 2, "A has %zu dependents", nd);
  nroots = 4;
  CHECK(cudaGraphGetRootNodes(g2, roots, &nroots)); // D depends on E since AddDependencies
  EXPECT(nroots == 1 && roots[0] == Z, "%zu roots", nroots);
  cudaGraphExec_t e2;
  CHECK(cudaGraphInstantiateWithFlags(&e2, g2, 0));
  CHECK(cudaGraphUpload(e2, s));
  const double expect_sum = 3.0 * (n - 1) * n / 2 + 5.0 * n;
  for (int launch = 0; launch < 2; ++launch) {
    for (int i = 0; i < n; ++i) hw[i] = -1;
    sum.sum = -1;
    CHECK(cudaGraphLaunch(e2, s));
    CHECK(cudaStreamSynchronize(s));
    EXPECT(sum.calls == launch + 1 && sum.sum == expect_sum,
           "diamond launch %d: host node %d calls, sum %g (expected %g)", launch, sum.calls,
           sum.sum, expect_sum);
  }

  // ---------------------------------------------------------------- 3. a child graph, a clone
  // The diamond as a child of a graph that then scales w by 10 and copies it back.
  cudaGraph_t g3;
  CHECK(cudaGraphCreate(&g3, 0));
  cudaGraphNode_t child, S, M3;
  CHECK(cudaGraphAddChildGraphNode(&child, g3, nullptr, 0, g2));
  float ten = 10;
  void* sargs[3] = {&w, &nn, &ten};
  p.func = (void*)scale;
  p.kernelParams = sargs;
  p.gridDim = dim3(blocks);
  CHECK(cudaGraphAddKernelNode(&S, g3, &child, 1, &p));
  CHECK(cudaGraphAddMemcpyNode1D(&M3, g3, &S, 1, h, w, n * sizeof(float), cudaMemcpyDeviceToHost));
  cudaGraph_t inner;
  CHECK(cudaGraphChildGraphNodeGetGraph(child, &inner));
  CHECK(cudaGraphGetNodes(inner, nullptr, &count));
  EXPECT(count == 8, "the child graph has %zu nodes", count);
  cudaGraph_t g3c;
  CHECK(cudaGraphClone(&g3c, g3));
  cudaGraph_t parts[2] = {g3, g3c};
  for (cudaGraph_t g : parts) {
    cudaGraphExec_t e3;
    CHECK(cudaGraphInstantiate(&e3, g, 0));
    for (int i = 0; i < n; ++i) h[i] = -1;
    const int calls = sum.calls;
    CHECK(cudaGraphLaunch(e3, s));
    CHECK(cudaStreamSynchronize(s));
    EXPECT(sum.calls == calls + 1, "the child's host node ran %d times", sum.calls - calls);
    for (int i = 0; i < n; ++i)
      if (h[i] != 10.0f * (3.0f * i + 5.0f)) {
        std::printf("FAIL: child graph%s: h[%d] = %g\n", g == g3 ? "" : " (clone)", i, h[i]);
        ++bad;
        break;
      }
    CHECK(cudaGraphExecDestroy(e3));
  }
  // An executable graph launched into a capturing stream is captured as a child graph node.
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CHECK(cudaGraphLaunch(e2, s));
  cudaGraph_t g4;
  CHECK(cudaStreamEndCapture(s, &g4));
  CHECK(cudaGraphGetNodes(g4, nodes, &(count = 8)));
  cudaGraphNodeType t4 = cudaGraphNodeTypeEmpty;
  if (count == 1) CHECK(cudaGraphNodeGetType(nodes[0], &t4));
  EXPECT(count == 1 && t4 == cudaGraphNodeTypeGraph, "a captured graph launch: %zu nodes, type %d",
         count, int(t4));

  // ---------------------------------------------------------------- 4. errors (none sticky)
  cudaGraph_t bad_graph;
  EXPECT_ERR(cudaGraphCreate(&bad_graph, 1), cudaErrorInvalidValue);
  cudaGraphNode_t bn;
  p.func = (void*)not_a_kernel;
  p.kernelParams = nullptr;
  EXPECT_ERR(cudaGraphAddKernelNode(&bn, g3, nullptr, 0, &p), cudaErrorInvalidDeviceFunction);
  p.func = (void*)scale; // three parameters, none given
  EXPECT_ERR(cudaGraphAddKernelNode(&bn, g3, nullptr, 0, &p), cudaErrorInvalidValue);
  EXPECT_ERR(cudaGraphExecKernelNodeSetParams(e2, Z, &np), cudaErrorInvalidValue); // a memset
  EXPECT_ERR(cudaGraphExecKernelNodeSetParams(e2, S, &np), cudaErrorInvalidValue); // not e2's
  EXPECT_ERR(cudaGraphLaunch(nullptr, s), cudaErrorInvalidValue);
  EXPECT_ERR(cudaGraphAddEmptyNode(&bn, nullptr, nullptr, 0), cudaErrorInvalidValue);
  // A cycle: instantiation refuses it.
  cudaGraph_t gc;
  CHECK(cudaGraphCreate(&gc, 0));
  cudaGraphNode_t P, Q;
  CHECK(cudaGraphAddEmptyNode(&P, gc, nullptr, 0));
  CHECK(cudaGraphAddEmptyNode(&Q, gc, &P, 1));
  CHECK(cudaGraphAddDependencies(gc, &Q, &P, nullptr, 1));
  cudaGraphExec_t ec;
  EXPECT_ERR(cudaGraphInstantiate(&ec, gc, 0), cudaErrorInvalidValue);
  cudaGraphInstantiateParams ip{};
  EXPECT_ERR(cudaGraphInstantiateWithParams(&ec, gc, &ip), cudaErrorInvalidValue);
  EXPECT(ip.result_out == cudaGraphInstantiateInvalidStructure, "instantiate result %d",
         int(ip.result_out));
  CHECK(cudaGraphDestroy(gc));
  EXPECT_ERR(cudaGraphGetNodes(gc, nullptr, &count), cudaErrorInvalidValue); // destroyed
  // A destroyed executable graph.
  cudaGraphExec_t gone;
  CHECK(cudaGraphInstantiate(&gone, g1, 0));
  CHECK(cudaGraphExecDestroy(gone));
  EXPECT_ERR(cudaGraphLaunch(gone, s), cudaErrorInvalidValue);
  // Capture: not on the legacy stream; a synchronous copy is not permitted (the capture is
  // invalidated, later work refused, no graph); ending a capture that is not there.
  EXPECT_ERR(cudaStreamBeginCapture(0, cudaStreamCaptureModeGlobal),
             cudaErrorStreamCaptureUnsupported);
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  EXPECT_ERR(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaErrorIllegalState);
  scale<<<blocks, threads, 0, s>>>(d, n, 3.0f);
  EXPECT_ERR(cudaMemcpy(hw, d, 4, cudaMemcpyDeviceToHost), cudaErrorStreamCaptureUnsupported);
  CHECK(cudaStreamIsCapturing(s, &st));
  EXPECT(st == cudaStreamCaptureStatusInvalidated, "status %d", int(st));
  EXPECT_ERR(cudaMemsetAsync(d, 0, 4, s), cudaErrorStreamCaptureInvalidated);
  cudaGraph_t none = g1;
  EXPECT_ERR(cudaStreamEndCapture(s, &none), cudaErrorStreamCaptureInvalidated);
  EXPECT(none == nullptr, "an invalidated capture gave a graph");
  EXPECT_ERR(cudaStreamEndCapture(s, &none), cudaErrorIllegalState);
  // A relaxed capture permits an allocation; a fork never joined back fails the capture.
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
  float* extra = nullptr;
  CHECK(cudaMalloc(&extra, 64));
  CHECK(cudaEventRecord(fork, s));
  CHECK(cudaStreamWaitEvent(s2, fork, 0));
  scale<<<blocks, threads, 0, s2>>>(d, n, 3.0f);
  EXPECT_ERR(cudaStreamEndCapture(s, &none), cudaErrorStreamCaptureUnjoined);
  CHECK(cudaStreamIsCapturing(s2, &st));
  EXPECT(st == cudaStreamCaptureStatusNone, "s2 status %d after the failed capture", int(st));
  CHECK(cudaFree(extra));
  // Nothing sticky: the captured graph still launches and gives its result.
  CHECK(cudaGraphLaunch(e1, s));
  CHECK(cudaStreamSynchronize(s));
  bad += check_sequence(h, 7, 1, "after the errors");
  CHECK(cudaGetLastError());

  CHECK(cudaGraphExecDestroy(e1));
  CHECK(cudaGraphExecDestroy(e2));
  CHECK(cudaGraphExecDestroy(ef));
  for (cudaGraph_t g : {g1, g1b, other, gf, g2, g3, g3c, g4}) CHECK(cudaGraphDestroy(g));
  CHECK(cudaEventDestroy(fork));
  CHECK(cudaEventDestroy(join));
  CHECK(cudaStreamDestroy(s));
  CHECK(cudaStreamDestroy(s2));
  return finish(bad);
}
