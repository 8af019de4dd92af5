// CUDA Graphs in libgpurf-cudart (docs/programs.md "Graphs"): graphs built node by node or
// captured from streams, instantiated and launched. gpurf's device is one in-order queue, so a
// launch runs the graph's nodes one after another in a topological order (ties in creation
// order), each through the path of the stream operation it stands for: a kernel node is a
// <<<>>> launch (timed, verified, one record in launches.jsonl marked with graph and node).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cuda_types.h"

namespace gpurf::cudart {

struct Graph;

// cudaGraphNodeType (the kinds gpurf builds).
enum : int {
  kNodeKernel = 0,
  kNodeMemcpy = 1,
  kNodeMemset = 2,
  kNodeHost = 3,
  kNodeGraph = 4,
  kNodeEmpty = 5,
  kNodeWaitEvent = 6,
  kNodeEventRecord = 7,
};

struct Node {
  Graph* graph = nullptr;
  int type = kNodeEmpty;
  uint64_t id = 0;             // unique in the process (an executable graph's nodes keep theirs)
  std::vector<Node*> deps;     // in the order they were added
  std::vector<Node*> children; // the nodes depending on this one
  // Kernel: the arguments copied at creation in the .entry's layout, `args` pointing into them.
  cudaKernelNodeParams kernel{};
  bool cooperative = false;
  std::vector<uint8_t> arg_bytes;
  std::vector<void*> args;
  cudaMemcpy3DParms copy{};
  cudaMemsetParams memset{};
  cudaHostNodeParams host{};
  std::unique_ptr<Graph> child; // kNodeGraph: its own clone of the graph
  cudaEvent_t event = nullptr;
};

struct Graph {
  std::vector<std::unique_ptr<Node>> nodes; // in creation order
  Node* owner = nullptr;                    // a child graph node's graph
};

// api.cpp's stream operations, before they run: when `stream` is capturing, the operation is
// recorded as a node `fill` describes instead of running (true; `e` is the call's result:
// cudaSuccess, `fill`'s error, or the capture's); also true with the error when the operation
// cannot go on because of a capture (an invalidated one; the legacy stream while a blocking
// stream captures). False: run it.
bool captured(cudaStream_t stream, const char* call, cudaError_t& e,
              const std::function<cudaError_t(Node&)>& fill);
// A call CUDA does not permit while a capture is in progress (a synchronous copy or memset, an
// allocation or free, a synchronisation): cudaErrorStreamCaptureUnsupported, and the captures
// that forbid it are invalidated (as CUDA's); `legacy`: the call is on the legacy stream (also
// cudaErrorStreamCaptureImplicit with a blocking stream capturing). cudaSuccess: go on.
cudaError_t capture_forbids(const char* call, bool legacy);
// cudaStreamSynchronize / cudaStreamQuery of `stream` (null: every stream): not permitted on a
// capturing stream.
cudaError_t capture_sync(const char* call, cudaStream_t stream);
// cudaEventRecord into a capturing stream: the event takes the stream's capture position (true;
// nothing runs); cudaStreamWaitEvent on such an event joins the stream to the capture.
bool capture_event_record(cudaEvent_t event, cudaStream_t stream, cudaError_t& e);
bool capture_event_wait(cudaStream_t stream, cudaEvent_t event, cudaError_t& e);
// An event last recorded in a capture: cudaEventSynchronize/Query return cudaErrorCapturedEvent.
bool event_captured(cudaEvent_t event);

// Node parameters, shared by the explicit API and capture (the error said, not recorded).
cudaError_t set_kernel(Node& n, const char* call, const cudaKernelNodeParams* p,
                       bool cooperative = false);
cudaError_t set_copy(Node& n, const char* call, const cudaMemcpy3DParms* p);
cudaError_t set_copy1d(Node& n, const char* call, void* dst, const void* src, size_t count,
                       int kind);
cudaError_t set_memset(Node& n, const char* call, const cudaMemsetParams* p);

// What api.cpp runs for a copy node (cudaMemcpy3D's path).
cudaError_t copy_3d(const char* call, const cudaMemcpy3DParms* p);
// The message and error of a graph call (api.cpp's `said`).
cudaError_t graph_said(const char* call, cudaError_t e, const std::string& why);

} // namespace gpurf::cudart
