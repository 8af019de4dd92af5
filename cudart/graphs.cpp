// CUDA Graphs (graphs.h; docs/programs.md "Graphs"): the graph objects, their instantiation and
// launch, and stream capture.
#include "graphs.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <queue>
#include <set>
#include <sstream>

#include "entry.h"
#include "gpurf/modules/frontend/ptx/engine.h"
#include "gpurf/platform/gpu.h"

using namespace gpurf::cudart;

namespace {

struct Exec {
  std::unique_ptr<Graph> graph;      // the instantiated copy (nodes keep their origin's id)
  std::map<uint64_t, Node*> by_node; // a graph node's id (the source's, or an update's) -> copy
  uint64_t number = 0, launches = 0;
  unsigned long long flags = 0;
};

struct Capture {
  uint64_t id = 0;
  Graph* graph = nullptr;
  bool own_graph = true; // false: cudaStreamBeginCaptureToGraph's
  int mode = cudaStreamCaptureModeGlobal;
  cudaStream_t origin = nullptr;
  std::thread::id thread;
  bool invalidated = false;
};
struct StreamCapture {
  Capture* capture = nullptr;
  std::vector<Node*> deps;              // what the stream's next captured node depends on
  std::vector<cudaGraphEdgeData> edges; // cudaStreamGetCaptureInfo's (all default)
};

struct State {
  std::set<const Graph*> graphs; // live graph handles (the program's and child nodes' graphs)
  std::set<const Node*> nodes;   // live node handles
  std::set<const Exec*> execs;
  std::vector<std::unique_ptr<Capture>> captures;
  std::map<cudaStream_t, StreamCapture> streams;                         // capturing streams
  std::map<cudaEvent_t, std::pair<Capture*, std::vector<Node*>>> events; // recorded in a capture
  uint64_t next_node = 1, next_capture = 1, next_exec = 1;
};
State& st() {
  static State* s = new State; // lives as long as the runtime
  return *s;
}
thread_local int thread_mode = cudaStreamCaptureModeGlobal;

std::string hex(const void* p) {
  std::ostringstream o;
  o << p;
  return o.str();
}
bool legacy(cudaStream_t s) { return s == nullptr || s == reinterpret_cast<cudaStream_t>(1); }
bool blocking(cudaStream_t s) {
  auto it = rt().streams.find(s);
  return it == rt().streams.end() || !(it->second & kStreamNonBlocking);
}
const char* mode_name(int m) {
  return m == cudaStreamCaptureModeGlobal        ? "cudaStreamCaptureModeGlobal"
         : m == cudaStreamCaptureModeThreadLocal ? "cudaStreamCaptureModeThreadLocal"
                                                 : "cudaStreamCaptureModeRelaxed";
}

// ---------------------------------------------------------------------------------- graphs

Graph* live_graph(const void* h) {
  auto* g = static_cast<Graph*>(const_cast<void*>(h));
  return st().graphs.count(g) ? g : nullptr;
}
Node* live_node(const void* h) {
  auto* n = static_cast<Node*>(const_cast<void*>(h));
  return st().nodes.count(n) ? n : nullptr;
}
Exec* live_exec(const void* h) {
  auto* x = static_cast<Exec*>(const_cast<void*>(h));
  return st().execs.count(x) ? x : nullptr;
}
cudaError_t find_graph(const char* call, const void* h, Graph*& g) {
  g = live_graph(h);
  return g ? cudaSuccess
           : graph_said(call, cudaErrorInvalidValue,
                        h ? "graph " + hex(h) + " is no live graph (destroyed, or never made)"
                          : "graph null");
}
const char* type_name(int t) {
  static const char* const names[] = {"a kernel",      "a memcpy",       "a memset",
                                      "a host",        "a child graph",  "an empty",
                                      "an event wait", "an event record"};
  return t >= 0 && t <= kNodeEventRecord ? names[t] : "an unknown";
}
cudaError_t find_node(const char* call, const void* h, Node*& n, int type = -1) {
  n = live_node(h);
  if (!n)
    return graph_said(call, cudaErrorInvalidValue,
                      h ? "node " + hex(h) + " is no live graph node" : "node null");
  if (type >= 0 && n->type != type)
    return graph_said(call, cudaErrorInvalidValue,
                      "node " + hex(h) + " is " + type_name(n->type) + " node, not " +
                          type_name(type) + " node");
  return cudaSuccess;
}
cudaError_t find_exec(const char* call, const void* h, Exec*& x) {
  x = live_exec(h);
  return x ? cudaSuccess
           : graph_said(call, cudaErrorInvalidValue,
                        h ? "executable graph " + hex(h) +
                                " is no live executable graph (destroyed, or never instantiated)"
                          : "executable graph null");
}

// Registers (or forgets) `g`'s nodes and child graphs as handles the program may use.
void reg(Graph& g, bool add) {
  if (add)
    st().graphs.insert(&g);
  else
    st().graphs.erase(&g);
  for (auto& n : g.nodes) {
    if (add)
      st().nodes.insert(n.get());
    else
      st().nodes.erase(n.get());
    if (n->child) reg(*n->child, add);
  }
}

void copy_params(Node& to, const Node& from);

// A copy of `g` (its child graphs too); `same_ids`: the nodes keep their ids (an executable
// graph's, found by the source's node handles).
std::unique_ptr<Graph> clone(const Graph& g, bool same_ids) {
  auto c = std::make_unique<Graph>();
  std::map<const Node*, Node*> map;
  for (const auto& n : g.nodes) {
    auto m = std::make_unique<Node>();
    m->graph = c.get();
    m->type = n->type;
    m->id = same_ids ? n->id : st().next_node++;
    copy_params(*m, *n);
    if (n->child) {
      m->child = clone(*n->child, same_ids);
      m->child->owner = m.get();
    }
    map[n.get()] = m.get();
    c->nodes.push_back(std::move(m));
  }
  for (const auto& n : g.nodes)
    for (Node* d : n->deps) {
      map[n.get()]->deps.push_back(map[d]);
      map[d]->children.push_back(map[n.get()]);
    }
  return c;
}

// Node parameters from `from` (the kernel's argument copy re-pointed); not the child graph.
void copy_params(Node& to, const Node& from) {
  to.kernel = from.kernel;
  to.cooperative = from.cooperative;
  to.arg_bytes = from.arg_bytes;
  to.args.clear();
  for (void* a : from.args)
    to.args.push_back(to.arg_bytes.data() +
                      (static_cast<const uint8_t*>(a) - from.arg_bytes.data()));
  to.kernel.kernelParams = to.args.data();
  to.copy = from.copy;
  to.memset = from.memset;
  to.host = from.host;
  to.event = from.event;
}

cudaError_t check_deps(const char* call, Graph& g, const void* const* deps, size_t n,
                       std::vector<Node*>& out) {
  if (n && !deps) return graph_said(call, cudaErrorInvalidValue, "dependencies null");
  for (size_t i = 0; i < n; ++i) {
    Node* d = nullptr;
    if (cudaError_t e = find_node(call, deps[i], d)) return e;
    if (d->graph != &g)
      return graph_said(call, cudaErrorInvalidValue,
                        "dependency " + std::to_string(i) + " is a node of another graph");
    if (std::find(out.begin(), out.end(), d) != out.end())
      return graph_said(call, cudaErrorInvalidValue,
                        "dependency " + std::to_string(i) + " is given twice");
    out.push_back(d);
  }
  return cudaSuccess;
}

Node* attach(Graph& g, std::unique_ptr<Node> n, const std::vector<Node*>& deps) {
  n->graph = &g;
  n->id = st().next_node++;
  n->deps = deps;
  for (Node* d : deps) d->children.push_back(n.get());
  if (n->child) n->child->owner = n.get();
  g.nodes.push_back(std::move(n));
  Node* p = g.nodes.back().get();
  if (st().graphs.count(&g)) {
    st().nodes.insert(p);
    if (p->child) reg(*p->child, true);
  }
  return p;
}

// cudaGraphAdd*Node: the node `fill` describes, depending on `deps`.
cudaError_t add_node(const char* call, void** out, const void* graph, const void* const* deps,
                     size_t ndeps, int type, const std::function<cudaError_t(Node&)>& fill) {
  GPURF_LOCKED;
  if (!out) return ret(graph_said(call, cudaErrorInvalidValue, "pGraphNode null"));
  Graph* g = nullptr;
  if (cudaError_t e = find_graph(call, graph, g)) return ret(e);
  std::vector<Node*> d;
  if (cudaError_t e = check_deps(call, *g, deps, ndeps, d)) return ret(e);
  auto n = std::make_unique<Node>();
  n->type = type;
  if (cudaError_t e = fill(*n)) return ret(e);
  *out = attach(*g, std::move(n), d);
  return cudaSuccess;
}

// `g`'s nodes in a topological order, ties in creation order; false: a cycle (`why`).
bool topological(const Graph& g, std::vector<Node*>& order, std::string& why) {
  std::map<const Node*, size_t> index, waiting;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    index[g.nodes[i].get()] = i;
    waiting[g.nodes[i].get()] = g.nodes[i]->deps.size();
  }
  std::priority_queue<size_t, std::vector<size_t>, std::greater<size_t>> ready;
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (g.nodes[i]->deps.empty()) ready.push(i);
  order.clear();
  while (!ready.empty()) {
    Node* n = g.nodes[ready.top()].get();
    ready.pop();
    order.push_back(n);
    for (Node* c : n->children)
      if (--waiting[c] == 0) ready.push(index[c]);
  }
  if (order.size() == g.nodes.size()) {
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      std::vector<Node*> sub;
      if (g.nodes[i]->child && !topological(*g.nodes[i]->child, sub, why)) {
        why = "child graph node " + std::to_string(i) + ": " + why;
        return false;
      }
    }
    return true;
  }
  std::string in;
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (waiting[g.nodes[i].get()]) in += (in.empty() ? "" : ", ") + std::to_string(i);
  why = "the dependencies form a cycle (nodes " + in + " in creation order wait on each other)";
  return false;
}

// ---------------------------------------------------------------------------------- running

cudaError_t run(Exec& x, const Graph& g, cudaStream_t s, const std::string& prefix);

cudaError_t run_memset(const cudaMemsetParams& m) {
  const uint64_t row = uint64_t(m.width) * m.elementSize;
  std::vector<uint8_t> pattern(row);
  for (size_t i = 0; i < m.width; ++i)
    std::memcpy(pattern.data() + i * m.elementSize, &m.value, m.elementSize);
  for (size_t r = 0; r < m.height; ++r) {
    void* at = static_cast<char*>(m.dst) + r * (m.height > 1 ? m.pitch : 0);
    const cudaError_t e = m.elementSize == 1
                              ? rt().memset(at, int(m.value & 0xff), row)
                              : rt().memcpy(at, pattern.data(), row, cudaMemcpyHostToDevice);
    if (e) return e;
  }
  return cudaSuccess;
}

cudaError_t run_node(Exec& x, Node& n, cudaStream_t s, const std::string& path) {
  switch (n.type) {
  case kNodeKernel: {
    rt().launch_mark = {{"graph", x.number}, {"graph_launch", x.launches}, {"node", path}};
    const cudaError_t e = rt().launch(n.kernel.func, n.kernel.gridDim, n.kernel.blockDim,
                                      n.args.data(), n.kernel.sharedMemBytes, s, n.cooperative);
    rt().launch_mark = nlohmann::ordered_json();
    return e;
  }
  case kNodeMemcpy: {
    const cudaMemcpy3DParms& c = n.copy;
    const bool flat = !c.srcArray && !c.dstArray && c.extent.height <= 1 && c.extent.depth <= 1 &&
                      !c.srcPos.x && !c.srcPos.y && !c.srcPos.z && !c.dstPos.x && !c.dstPos.y &&
                      !c.dstPos.z;
    if (flat) return rt().memcpy(c.dstPtr.ptr, c.srcPtr.ptr, c.extent.width, c.kind);
    return copy_3d("cudaGraphLaunch (memcpy node)", &c);
  }
  case kNodeMemset:
    return run_memset(n.memset);
  case kNodeHost:
    n.host.fn(n.host.userData);
    return rt().status();
  case kNodeGraph:
    return run(x, *n.child, s, path + ".");
  case kNodeEventRecord:
    if (auto it = rt().events.find(n.event); it != rt().events.end()) {
      it->second.time_ns = rt().now_ns();
      it->second.recorded = true;
    }
    return cudaSuccess;
  default: // empty, event wait: the queue is in order
    return cudaSuccess;
  }
}

cudaError_t run(Exec& x, const Graph& g, cudaStream_t s, const std::string& prefix) {
  std::vector<Node*> order;
  std::string why;
  topological(g, order, why); // instantiation checked it
  std::map<const Node*, size_t> index;
  for (size_t i = 0; i < g.nodes.size(); ++i) index[g.nodes[i].get()] = i;
  for (Node* n : order) {
    if (cudaError_t e = rt().status()) return e;
    if (cudaError_t e = run_node(x, *n, s, prefix + std::to_string(index[n]))) return e;
  }
  return cudaSuccess;
}

// ---------------------------------------------------------------------------------- capture

void invalidate(Capture& c) { c.invalidated = true; }

// The captures with a blocking stream the legacy stream would wait for.
std::vector<Capture*> blocking_captures(std::string& which) {
  std::vector<Capture*> out;
  for (auto& [s, sc] : st().streams)
    if (!sc.capture->invalidated && blocking(s) &&
        std::find(out.begin(), out.end(), sc.capture) == out.end()) {
      out.push_back(sc.capture);
      which = hex(s);
    }
  return out;
}

cudaError_t implicit(const char* call) {
  std::string which;
  std::vector<Capture*> caps = blocking_captures(which);
  if (caps.empty()) return cudaSuccess;
  for (Capture* c : caps) invalidate(*c);
  return graph_said(call, cudaErrorStreamCaptureImplicit,
                    "the legacy stream would wait for stream " + which +
                        ", which is capturing (a blocking stream): the capture is invalidated");
}

// Ends capture `c`: its streams stop capturing, its events forget it.
void end_capture(Capture* c) {
  for (auto it = st().streams.begin(); it != st().streams.end();)
    it = it->second.capture == c ? st().streams.erase(it) : std::next(it);
  for (auto it = st().events.begin(); it != st().events.end();)
    it = it->second.first == c ? st().events.erase(it) : std::next(it);
  auto& v = st().captures;
  v.erase(std::remove_if(v.begin(), v.end(), [c](const auto& p) { return p.get() == c; }), v.end());
}

void destroy_graph(Graph* g) {
  reg(*g, false);
  delete g;
}

cudaError_t begin_capture(const char* call, cudaStream_t s, Graph* into,
                          const std::vector<Node*>& deps, int mode) {
  if (legacy(s))
    return graph_said(call, cudaErrorStreamCaptureUnsupported,
                      "the legacy stream (0) cannot capture: capture a stream of "
                      "cudaStreamCreate");
  if (mode < cudaStreamCaptureModeGlobal || mode > cudaStreamCaptureModeRelaxed)
    return graph_said(call, cudaErrorInvalidValue, "mode " + std::to_string(mode));
  if (s != reinterpret_cast<cudaStream_t>(2) && !rt().streams.count(s))
    return graph_said(call, cudaErrorInvalidResourceHandle, "stream " + hex(s) + " is no stream");
  if (st().streams.count(s))
    return graph_said(call, cudaErrorIllegalState, "stream " + hex(s) + " is already capturing");
  auto c = std::make_unique<Capture>();
  c->id = st().next_capture++;
  c->own_graph = !into;
  c->graph = into ? into : new Graph;
  if (!into) reg(*c->graph, true);
  c->mode = mode;
  c->origin = s;
  c->thread = std::this_thread::get_id();
  StreamCapture& sc = st().streams[s];
  sc.capture = c.get();
  sc.deps = deps;
  st().captures.push_back(std::move(c));
  return cudaSuccess;
}

void add_ancestors(Node* n, std::set<Node*>& seen) {
  if (!seen.insert(n).second) return;
  for (Node* d : n->deps) add_ancestors(d, seen);
}

} // namespace

namespace gpurf::cudart {

bool captured(cudaStream_t s, const char* call, cudaError_t& e,
              const std::function<cudaError_t(Node&)>& fill) {
  if (legacy(s)) {
    e = implicit(call);
    return e != cudaSuccess;
  }
  auto it = st().streams.find(s);
  if (it == st().streams.end()) return false;
  Capture& c = *it->second.capture;
  if (c.invalidated) {
    e = graph_said(call, cudaErrorStreamCaptureInvalidated,
                   "the capture on stream " + hex(c.origin) +
                       " was invalidated by an earlier error (end it with cudaStreamEndCapture)");
    return true;
  }
  auto n = std::make_unique<Node>();
  e = fill(*n);
  if (e) { // a capture with an error is invalidated, as CUDA's
    invalidate(c);
    return true;
  }
  Node* p = attach(*c.graph, std::move(n), it->second.deps);
  it->second.deps = {p};
  return true;
}

cudaError_t capture_forbids(const char* call, bool legacy_stream) {
  const std::thread::id me = std::this_thread::get_id();
  std::vector<Capture*> bad;
  if (thread_mode != cudaStreamCaptureModeRelaxed)
    for (auto& c : st().captures) {
      if (c->invalidated) continue;
      const bool own = c->thread == me;
      if ((own && c->mode != cudaStreamCaptureModeRelaxed) ||
          (!own && c->mode == cudaStreamCaptureModeGlobal &&
           thread_mode == cudaStreamCaptureModeGlobal))
        bad.push_back(c.get());
    }
  if (!bad.empty()) {
    for (Capture* c : bad) invalidate(*c);
    return graph_said(call, cudaErrorStreamCaptureUnsupported,
                      std::string("not permitted while stream ") + hex(bad[0]->origin) +
                          " is capturing (" + mode_name(bad[0]->mode) +
                          "): the capture is invalidated");
  }
  return legacy_stream ? implicit(call) : cudaSuccess;
}

cudaError_t capture_sync(const char* call, cudaStream_t s) {
  if (legacy(s) && s) return implicit(call);
  std::vector<Capture*> caps;
  for (auto& [cs, sc] : st().streams)
    if ((!s || cs == s) && !sc.capture->invalidated) caps.push_back(sc.capture);
  if (caps.empty()) return cudaSuccess;
  for (Capture* c : caps) invalidate(*c);
  return graph_said(call, cudaErrorStreamCaptureUnsupported,
                    "not permitted while stream " + hex(caps[0]->origin) +
                        " is capturing (its work has not run): the capture is invalidated");
}

bool capture_event_record(cudaEvent_t ev, cudaStream_t s, cudaError_t& e) {
  if (legacy(s)) {
    e = implicit("cudaEventRecord");
    if (e) return true;
  }
  auto it = st().streams.find(s);
  if (it == st().streams.end()) {
    st().events.erase(ev);
    return false;
  }
  e = it->second.capture->invalidated
          ? graph_said("cudaEventRecord", cudaErrorStreamCaptureInvalidated,
                       "the capture was invalidated by an earlier error")
          : cudaSuccess;
  if (!e) st().events[ev] = {it->second.capture, it->second.deps};
  return true;
}

bool capture_event_wait(cudaStream_t s, cudaEvent_t ev, cudaError_t& e) {
  const char* call = "cudaStreamWaitEvent";
  auto ce = st().events.find(ev);
  auto sc = st().streams.find(s);
  if (ce == st().events.end()) {
    if (sc == st().streams.end() || !sc->second.capture->invalidated) return false;
    e = graph_said(call, cudaErrorStreamCaptureInvalidated,
                   "the capture was invalidated by an earlier error");
    return true;
  }
  Capture* c = ce->second.first;
  e = cudaSuccess;
  if (c->invalidated) {
    e = graph_said(call, cudaErrorStreamCaptureInvalidated,
                   "the capture was invalidated by an earlier error");
  } else if (legacy(s)) {
    invalidate(*c);
    e = graph_said(call, cudaErrorStreamCaptureImplicit,
                   "the legacy stream cannot join a capture: the capture is invalidated");
  } else if (sc != st().streams.end() && sc->second.capture != c) {
    invalidate(*c);
    invalidate(*sc->second.capture);
    e = graph_said(call, cudaErrorStreamCaptureMerge,
                   "the event was recorded in another stream's capture: the two captures "
                   "cannot merge (both invalidated)");
  } else if (sc != st().streams.end()) { // more dependencies for the stream's next node
    for (Node* d : ce->second.second)
      if (std::find(sc->second.deps.begin(), sc->second.deps.end(), d) == sc->second.deps.end())
        sc->second.deps.push_back(d);
  } else { // the stream joins the capture (a fork)
    StreamCapture& j = st().streams[s];
    j.capture = c;
    j.deps = ce->second.second;
  }
  return true;
}

bool event_captured(cudaEvent_t ev) { return st().events.count(ev) != 0; }

cudaError_t set_kernel(Node& n, const char* call, const cudaKernelNodeParams* p, bool cooperative) {
  if (!p) return graph_said(call, cudaErrorInvalidValue, "kernel node parameters null");
  if (cudaError_t e = rt().status()) return e;
  KernelRec* k = rt().kernel(p->func);
  if (!k || !k->found) return rt().not_runnable(p->func, call);
  if (p->kernelParams && p->extra)
    return graph_said(call, cudaErrorInvalidValue, "both kernelParams and extra given");
  const ptx::Function& entry = rt().gpu().kernel(k->id)->launch().entry();
  std::vector<uint8_t> bytes(std::max(entry.param_bytes, 1u), 0);
  if (p->extra) { // CU_LAUNCH_PARAM_BUFFER_POINTER (1), _SIZE (2), END (0)
    const void* buffer = nullptr;
    const size_t* size = nullptr;
    for (void* const* x = p->extra; *x; x += 2) {
      if (*x == reinterpret_cast<void*>(1))
        buffer = x[1];
      else if (*x == reinterpret_cast<void*>(2))
        size = static_cast<const size_t*>(x[1]);
      else
        return graph_said(call, cudaErrorInvalidValue, "extra: unknown key " + hex(*x));
    }
    if (!buffer || (size && *size < entry.param_bytes))
      return graph_said(call, cudaErrorInvalidValue,
                        "extra: no buffer, or one smaller than the kernel's " +
                            std::to_string(entry.param_bytes) + " bytes of parameters");
    std::memcpy(bytes.data(), buffer, entry.param_bytes);
  } else {
    if (!entry.params.empty() && !p->kernelParams)
      return graph_said(call, cudaErrorInvalidValue,
                        "kernelParams null; '" + k->name + "' takes " +
                            std::to_string(entry.params.size()) + " parameters");
    for (size_t i = 0; i < entry.params.size(); ++i) {
      if (!p->kernelParams[i])
        return graph_said(call, cudaErrorInvalidValue,
                          "kernelParams[" + std::to_string(i) + "] null");
      std::memcpy(bytes.data() + entry.params[i].offset, p->kernelParams[i], entry.params[i].size);
    }
  }
  n.arg_bytes = std::move(bytes);
  n.args.clear();
  for (const ptx::Param& q : entry.params) n.args.push_back(n.arg_bytes.data() + q.offset);
  n.kernel = *p;
  n.kernel.kernelParams = n.args.data();
  n.kernel.extra = nullptr;
  n.cooperative = cooperative;
  return cudaSuccess;
}

cudaError_t set_copy(Node& n, const char* call, const cudaMemcpy3DParms* p) {
  if (!p) return graph_said(call, cudaErrorInvalidValue, "copy parameters null");
  if (p->kind < cudaMemcpyHostToHost || p->kind > cudaMemcpyDefault)
    return graph_said(call, cudaErrorInvalidMemcpyDirection, "kind " + std::to_string(p->kind));
  if (!p->srcArray == !p->srcPtr.ptr || !p->dstArray == !p->dstPtr.ptr)
    return graph_said(call, cudaErrorInvalidValue,
                      "give exactly one of srcArray, srcPtr and one of dstArray, dstPtr");
  n.copy = *p;
  return cudaSuccess;
}

cudaError_t set_copy1d(Node& n, const char* call, void* dst, const void* src, size_t count,
                       int kind) {
  cudaMemcpy3DParms p{};
  p.srcPtr = {const_cast<void*>(src), count, count, 1};
  p.dstPtr = {dst, count, count, 1};
  p.extent = {count, 1, 1};
  p.kind = kind;
  if (!count && (!src || !dst)) { // nothing to copy: no pointer needed
    n.copy = p;
    return cudaSuccess;
  }
  return set_copy(n, call, &p);
}

cudaError_t set_memset(Node& n, const char* call, const cudaMemsetParams* p) {
  if (!p || !p->dst)
    return graph_said(call, cudaErrorInvalidValue, p ? "dst null" : "memset parameters null");
  if (p->elementSize != 1 && p->elementSize != 2 && p->elementSize != 4)
    return graph_said(call, cudaErrorInvalidValue,
                      "elementSize " + std::to_string(p->elementSize) + " (valid: 1, 2, 4)");
  if (p->height > 1 && p->pitch < p->width * p->elementSize)
    return graph_said(call, cudaErrorInvalidValue,
                      "pitch " + std::to_string(p->pitch) + " below a row's " +
                          std::to_string(p->width * p->elementSize) + " bytes");
  n.memset = *p;
  return cudaSuccess;
}

} // namespace gpurf::cudart

namespace {

// Pairs `x`'s graph with `g` node by node (creation order), as cudaGraphExecUpdate: same count,
// types and dependencies; then takes `g`'s parameters.
bool update(Graph& xg, Graph& g, cudaGraphExecUpdateResultInfo& info, std::string& why, Exec& x) {
  if (xg.nodes.size() != g.nodes.size()) {
    info = {cudaGraphExecUpdateErrorTopologyChanged, nullptr, nullptr};
    why = std::to_string(g.nodes.size()) + " nodes, the executable graph has " +
          std::to_string(xg.nodes.size());
    return false;
  }
  std::map<const Node*, size_t> gi, xi;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    gi[g.nodes[i].get()] = i;
    xi[xg.nodes[i].get()] = i;
  }
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    Node &a = *xg.nodes[i], &b = *g.nodes[i];
    const std::string node = "node " + std::to_string(i);
    if (a.type != b.type) {
      info = {cudaGraphExecUpdateErrorNodeTypeChanged, &b, nullptr};
      why = node + ": type " + std::to_string(b.type) + ", was " + std::to_string(a.type);
      return false;
    }
    bool same = a.deps.size() == b.deps.size();
    for (size_t k = 0; same && k < b.deps.size(); ++k) same = xi[a.deps[k]] == gi[b.deps[k]];
    if (!same) {
      info = {cudaGraphExecUpdateErrorTopologyChanged, &b, b.deps.empty() ? nullptr : b.deps[0]};
      why = node + ": its dependencies differ";
      return false;
    }
    if (b.type == kNodeMemset && (a.memset.height > 1 || b.memset.height > 1) &&
        (a.memset.width != b.memset.width || a.memset.height != b.memset.height ||
         a.memset.elementSize != b.memset.elementSize || a.memset.pitch != b.memset.pitch)) {
      info = {cudaGraphExecUpdateErrorParametersChanged, &b, nullptr};
      why = node + ": a 2D memset's shape changed (only its address and value may)";
      return false;
    }
    if (b.child && !update(*a.child, *b.child, info, why, x)) return false;
  }
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    copy_params(*xg.nodes[i], *g.nodes[i]);
    x.by_node[g.nodes[i]->id] = xg.nodes[i].get();
  }
  return true;
}

void index_exec(Exec& x, Graph& g) {
  for (auto& n : g.nodes) {
    x.by_node[n->id] = n.get();
    if (n->child) index_exec(x, *n->child);
  }
}

cudaError_t instantiate(const char* call, void** out, const void* graph, unsigned long long flags,
                        cudaGraphInstantiateParams* params) {
  GPURF_LOCKED;
  if (params) params->result_out = cudaGraphInstantiateError;
  if (!out) return ret(graph_said(call, cudaErrorInvalidValue, "pGraphExec null"));
  Graph* g = nullptr;
  if (cudaError_t e = find_graph(call, graph, g)) return ret(e);
  if (flags & ~3ull) // auto-free on launch (no allocation nodes here), upload
    return ret(graph_said(call, cudaErrorInvalidValue,
                          "flags " + std::to_string(flags) +
                              " (supported: cudaGraphInstantiateFlagAutoFreeOnLaunch, "
                              "cudaGraphInstantiateFlagUpload)"));
  std::vector<Node*> order;
  std::string why;
  if (!topological(*g, order, why)) {
    if (params) params->result_out = cudaGraphInstantiateInvalidStructure;
    return ret(graph_said(call, cudaErrorInvalidValue, why));
  }
  auto x = new Exec;
  x->graph = clone(*g, true);
  index_exec(*x, *x->graph);
  x->number = st().next_exec++;
  x->flags = flags;
  st().execs.insert(x);
  *out = x;
  if (params) params->result_out = cudaGraphInstantiateSuccess;
  return cudaSuccess;
}

cudaError_t exec_node(const char* call, const void* exec, const void* node, int type, Node*& out) {
  Exec* x = nullptr;
  if (cudaError_t e = find_exec(call, exec, x)) return e;
  Node* n = nullptr;
  if (cudaError_t e = find_node(call, node, n, type)) return e;
  auto it = x->by_node.find(n->id);
  if (it == x->by_node.end())
    return graph_said(call, cudaErrorInvalidValue,
                      "node " + hex(node) +
                          " is not a node of the graph the executable graph was "
                          "instantiated from");
  out = it->second;
  return cudaSuccess;
}

// The arrays of cudaGraphGetNodes and its kind: `want` null: the count; else up to *n, the
// rest null.
cudaError_t give_nodes(const std::vector<Node*>& nodes, void** want, size_t* n,
                       cudaGraphEdgeData* edges = nullptr) {
  if (!n) return ret(cudaErrorInvalidValue);
  if (!want) {
    *n = nodes.size();
    return cudaSuccess;
  }
  for (size_t i = 0; i < *n; ++i) {
    want[i] = i < nodes.size() ? nodes[i] : nullptr;
    if (edges) edges[i] = cudaGraphEdgeData{};
  }
  *n = std::min(*n, nodes.size());
  return cudaSuccess;
}

std::vector<Node*> all(const Graph& g) {
  std::vector<Node*> v;
  for (auto& n : g.nodes) v.push_back(n.get());
  return v;
}

cudaError_t launch(const char* call, void* exec, cudaStream_t s, bool upload) {
  GPURF_LOCKED;
  Exec* x = nullptr;
  if (cudaError_t e = find_exec(call, exec, x)) return ret(e);
  cudaError_t e = cudaSuccess;
  if (!upload && captured(s, call, e, [&](Node& n) -> cudaError_t {
        n.type = kNodeGraph;
        n.child = clone(*x->graph, false);
        return cudaSuccess;
      }))
    return ret(e);
  if (upload) { // nothing to upload: the nodes live in the runtime
    if (legacy(s) && (e = implicit(call))) return ret(e);
    return ret(rt().status());
  }
  ++x->launches;
  return ret(run(*x, *x->graph, s, ""));
}

} // namespace

extern "C" {

// ------------------------------------------------------------------------------ graphs

cudaError_t cudaGraphCreate(void** graph, unsigned flags) {
  GPURF_LOCKED;
  if (!graph || flags)
    return ret(graph_said("cudaGraphCreate", cudaErrorInvalidValue,
                          graph ? "flags must be 0" : "pGraph null"));
  auto* g = new Graph;
  reg(*g, true);
  *graph = g;
  return cudaSuccess;
}
cudaError_t cudaGraphDestroy(void* graph) {
  GPURF_LOCKED;
  const char* call = "cudaGraphDestroy";
  Graph* g = nullptr;
  if (cudaError_t e = find_graph(call, graph, g)) return ret(e);
  if (g->owner)
    return ret(graph_said(call, cudaErrorInvalidValue,
                          "the graph belongs to a child graph node (destroy its graph)"));
  for (auto& c : st().captures)
    if (c->graph == g)
      return ret(graph_said(call, cudaErrorInvalidValue, "a stream is capturing into the graph"));
  destroy_graph(g);
  return cudaSuccess;
}
cudaError_t cudaGraphClone(void** out, void* graph) {
  GPURF_LOCKED;
  Graph* g = nullptr;
  if (!out) return ret(graph_said("cudaGraphClone", cudaErrorInvalidValue, "pGraphClone null"));
  if (cudaError_t e = find_graph("cudaGraphClone", graph, g)) return ret(e);
  Graph* c = clone(*g, false).release();
  reg(*c, true);
  *out = c;
  return cudaSuccess;
}
cudaError_t cudaGraphAddKernelNode(void** node, void* graph, void* const* deps, size_t n,
                                   const cudaKernelNodeParams* p) {
  const char* call = "cudaGraphAddKernelNode";
  return add_node(call, node, graph, deps, n, kNodeKernel,
                  [&](Node& x) { return set_kernel(x, call, p); });
}
cudaError_t cudaGraphAddMemcpyNode(void** node, void* graph, void* const* deps, size_t n,
                                   const cudaMemcpy3DParms* p) {
  const char* call = "cudaGraphAddMemcpyNode";
  return add_node(call, node, graph, deps, n, kNodeMemcpy,
                  [&](Node& x) { return set_copy(x, call, p); });
}
cudaError_t cudaGraphAddMemcpyNode1D(void** node, void* graph, void* const* deps, size_t n,
                                     void* dst, const void* src, size_t count, int kind) {
  const char* call = "cudaGraphAddMemcpyNode1D";
  return add_node(call, node, graph, deps, n, kNodeMemcpy,
                  [&](Node& x) { return set_copy1d(x, call, dst, src, count, kind); });
}
cudaError_t cudaGraphAddMemsetNode(void** node, void* graph, void* const* deps, size_t n,
                                   const cudaMemsetParams* p) {
  const char* call = "cudaGraphAddMemsetNode";
  return add_node(call, node, graph, deps, n, kNodeMemset,
                  [&](Node& x) { return set_memset(x, call, p); });
}
cudaError_t cudaGraphAddHostNode(void** node, void* graph, void* const* deps, size_t n,
                                 const cudaHostNodeParams* p) {
  const char* call = "cudaGraphAddHostNode";
  return add_node(call, node, graph, deps, n, kNodeHost, [&](Node& x) -> cudaError_t {
    if (!p || !p->fn) return graph_said(call, cudaErrorInvalidValue, "no host function");
    x.host = *p;
    return cudaSuccess;
  });
}
cudaError_t cudaGraphAddEmptyNode(void** node, void* graph, void* const* deps, size_t n) {
  return add_node("cudaGraphAddEmptyNode", node, graph, deps, n, kNodeEmpty,
                  [](Node&) { return cudaSuccess; });
}
cudaError_t cudaGraphAddChildGraphNode(void** node, void* graph, void* const* deps, size_t n,
                                       void* child) {
  const char* call = "cudaGraphAddChildGraphNode";
  return add_node(call, node, graph, deps, n, kNodeGraph, [&](Node& x) -> cudaError_t {
    Graph* c = nullptr;
    if (cudaError_t e = find_graph(call, child, c)) return e;
    if (c == live_graph(graph))
      return graph_said(call, cudaErrorInvalidValue, "a graph cannot be its own child");
    x.child = clone(*c, false); // CUDA clones the child graph into the node
    return cudaSuccess;
  });
}
cudaError_t cudaGraphAddEventRecordNode(void** node, void* graph, void* const* deps, size_t n,
                                        cudaEvent_t ev) {
  const char* call = "cudaGraphAddEventRecordNode";
  return add_node(call, node, graph, deps, n, kNodeEventRecord, [&](Node& x) -> cudaError_t {
    if (!rt().events.count(ev))
      return graph_said(call, cudaErrorInvalidResourceHandle, "not a live event");
    x.event = ev;
    return cudaSuccess;
  });
}
cudaError_t cudaGraphAddEventWaitNode(void** node, void* graph, void* const* deps, size_t n,
                                      cudaEvent_t ev) {
  const char* call = "cudaGraphAddEventWaitNode";
  return add_node(call, node, graph, deps, n, kNodeWaitEvent, [&](Node& x) -> cudaError_t {
    if (!rt().events.count(ev))
      return graph_said(call, cudaErrorInvalidResourceHandle, "not a live event");
    x.event = ev;
    return cudaSuccess;
  });
}
cudaError_t cudaGraphChildGraphNodeGetGraph(void* node, void** graph) {
  GPURF_LOCKED;
  Node* n = nullptr;
  if (cudaError_t e = find_node("cudaGraphChildGraphNodeGetGraph", node, n, kNodeGraph))
    return ret(e);
  if (!graph) return ret(cudaErrorInvalidValue);
  *graph = n->child.get();
  return cudaSuccess;
}

cudaError_t cudaGraphAddDependencies(void* graph, void* const* from, void* const* to,
                                     const cudaGraphEdgeData* edges, size_t n) {
  GPURF_LOCKED;
  const char* call = "cudaGraphAddDependencies";
  Graph* g = nullptr;
  if (cudaError_t e = find_graph(call, graph, g)) return ret(e);
  if (n && (!from || !to)) return ret(graph_said(call, cudaErrorInvalidValue, "from/to null"));
  for (size_t i = 0; i < n; ++i) {
    Node *a = nullptr, *b = nullptr;
    if (cudaError_t e = find_node(call, from[i], a)) return ret(e);
    if (cudaError_t e = find_node(call, to[i], b)) return ret(e);
    if (a->graph != g || b->graph != g)
      return ret(graph_said(call, cudaErrorInvalidValue,
                            "edge " + std::to_string(i) + " joins a node of another graph"));
    if (a == b)
      return ret(graph_said(call, cudaErrorInvalidValue,
                            "edge " + std::to_string(i) + ": a node cannot depend on itself"));
    if (std::find(b->deps.begin(), b->deps.end(), a) != b->deps.end())
      return ret(
          graph_said(call, cudaErrorInvalidValue, "edge " + std::to_string(i) + " exists already"));
    if (edges && (edges[i].from_port || edges[i].to_port || edges[i].type))
      return ret(graph_said(call, cudaErrorNotSupported,
                            "edge data other than the default (programmatic dependencies)"));
    b->deps.push_back(a);
    a->children.push_back(b);
  }
  return cudaSuccess;
}
cudaError_t cudaGraphRemoveDependencies(void* graph, void* const* from, void* const* to,
                                        const cudaGraphEdgeData*, size_t n) {
  GPURF_LOCKED;
  const char* call = "cudaGraphRemoveDependencies";
  Graph* g = nullptr;
  if (cudaError_t e = find_graph(call, graph, g)) return ret(e);
  for (size_t i = 0; i < n; ++i) {
    Node *a = nullptr, *b = nullptr;
    if (cudaError_t e = find_node(call, from[i], a)) return ret(e);
    if (cudaError_t e = find_node(call, to[i], b)) return ret(e);
    auto it = std::find(b->deps.begin(), b->deps.end(), a);
    if (it == b->deps.end())
      return ret(
          graph_said(call, cudaErrorInvalidValue, "edge " + std::to_string(i) + " does not exist"));
    b->deps.erase(it);
    a->children.erase(std::find(a->children.begin(), a->children.end(), b));
  }
  return cudaSuccess;
}
cudaError_t cudaGraphGetNodes(void* graph, void** nodes, size_t* n) {
  GPURF_LOCKED;
  Graph* g = nullptr;
  if (cudaError_t e = find_graph("cudaGraphGetNodes", graph, g)) return ret(e);
  return give_nodes(all(*g), nodes, n);
}
cudaError_t cudaGraphGetRootNodes(void* graph, void** nodes, size_t* n) {
  GPURF_LOCKED;
  Graph* g = nullptr;
  if (cudaError_t e = find_graph("cudaGraphGetRootNodes", graph, g)) return ret(e);
  std::vector<Node*> roots;
  for (auto& x : g->nodes)
    if (x->deps.empty()) roots.push_back(x.get());
  return give_nodes(roots, nodes, n);
}
cudaError_t cudaGraphGetEdges(void* graph, void** from, void** to, cudaGraphEdgeData* edges,
                              size_t* n) {
  GPURF_LOCKED;
  Graph* g = nullptr;
  if (cudaError_t e = find_graph("cudaGraphGetEdges", graph, g)) return ret(e);
  if (!n || (!from != !to)) return ret(cudaErrorInvalidValue);
  std::vector<Node*> a, b;
  for (auto& x : g->nodes)
    for (Node* d : x->deps) {
      a.push_back(d);
      b.push_back(x.get());
    }
  if (!from) {
    *n = a.size();
    return cudaSuccess;
  }
  const size_t want = *n;
  give_nodes(a, from, n, edges);
  *n = want;
  return give_nodes(b, to, n);
}
cudaError_t cudaGraphNodeGetType(void* node, int* type) {
  GPURF_LOCKED;
  Node* n = nullptr;
  if (cudaError_t e = find_node("cudaGraphNodeGetType", node, n)) return ret(e);
  if (!type) return ret(cudaErrorInvalidValue);
  *type = n->type;
  return cudaSuccess;
}
cudaError_t cudaGraphNodeGetDependencies(void* node, void** deps, cudaGraphEdgeData* edges,
                                         size_t* count) {
  GPURF_LOCKED;
  Node* n = nullptr;
  if (cudaError_t e = find_node("cudaGraphNodeGetDependencies", node, n)) return ret(e);
  return give_nodes(n->deps, deps, count, edges);
}
cudaError_t cudaGraphNodeGetDependentNodes(void* node, void** deps, cudaGraphEdgeData* edges,
                                           size_t* count) {
  GPURF_LOCKED;
  Node* n = nullptr;
  if (cudaError_t e = find_node("cudaGraphNodeGetDependentNodes", node, n)) return ret(e);
  return give_nodes(n->children, deps, count, edges);
}
cudaError_t cudaGraphDestroyNode(void* node) {
  GPURF_LOCKED;
  Node* n = nullptr;
  if (cudaError_t e = find_node("cudaGraphDestroyNode", node, n)) return ret(e);
  for (Node* d : n->deps) d->children.erase(std::find(d->children.begin(), d->children.end(), n));
  for (Node* c : n->children) c->deps.erase(std::find(c->deps.begin(), c->deps.end(), n));
  st().nodes.erase(n);
  if (n->child) reg(*n->child, false);
  auto& v = n->graph->nodes;
  v.erase(std::find_if(v.begin(), v.end(), [n](const auto& p) { return p.get() == n; }));
  return cudaSuccess;
}

cudaError_t cudaGraphKernelNodeGetParams(void* node, cudaKernelNodeParams* p) {
  GPURF_LOCKED;
  Node* n = nullptr;
  if (cudaError_t e = find_node("cudaGraphKernelNodeGetParams", node, n, kNodeKernel))
    return ret(e);
  if (!p) return ret(cudaErrorInvalidValue);
  *p = n->kernel; // kernelParams: the node's copies of the arguments
  return cudaSuccess;
}
cudaError_t cudaGraphKernelNodeSetParams(void* node, const cudaKernelNodeParams* p) {
  GPURF_LOCKED;
  const char* call = "cudaGraphKernelNodeSetParams";
  Node* n = nullptr;
  if (cudaError_t e = find_node(call, node, n, kNodeKernel)) return ret(e);
  Node tmp;
  if (cudaError_t e = set_kernel(tmp, call, p, n->cooperative)) return ret(e);
  copy_params(*n, tmp);
  return cudaSuccess;
}
cudaError_t cudaGraphMemcpyNodeGetParams(void* node, cudaMemcpy3DParms* p) {
  GPURF_LOCKED;
  Node* n = nullptr;
  if (cudaError_t e = find_node("cudaGraphMemcpyNodeGetParams", node, n, kNodeMemcpy))
    return ret(e);
  if (!p) return ret(cudaErrorInvalidValue);
  *p = n->copy;
  return cudaSuccess;
}
cudaError_t cudaGraphMemcpyNodeSetParams(void* node, const cudaMemcpy3DParms* p) {
  GPURF_LOCKED;
  const char* call = "cudaGraphMemcpyNodeSetParams";
  Node* n = nullptr;
  if (cudaError_t e = find_node(call, node, n, kNodeMemcpy)) return ret(e);
  return ret(set_copy(*n, call, p));
}
cudaError_t cudaGraphMemcpyNodeSetParams1D(void* node, void* dst, const void* src, size_t count,
                                           int kind) {
  GPURF_LOCKED;
  const char* call = "cudaGraphMemcpyNodeSetParams1D";
  Node* n = nullptr;
  if (cudaError_t e = find_node(call, node, n, kNodeMemcpy)) return ret(e);
  return ret(set_copy1d(*n, call, dst, src, count, kind));
}
cudaError_t cudaGraphMemsetNodeGetParams(void* node, cudaMemsetParams* p) {
  GPURF_LOCKED;
  Node* n = nullptr;
  if (cudaError_t e = find_node("cudaGraphMemsetNodeGetParams", node, n, kNodeMemset))
    return ret(e);
  if (!p) return ret(cudaErrorInvalidValue);
  *p = n->memset;
  return cudaSuccess;
}
cudaError_t cudaGraphMemsetNodeSetParams(void* node, const cudaMemsetParams* p) {
  GPURF_LOCKED;
  const char* call = "cudaGraphMemsetNodeSetParams";
  Node* n = nullptr;
  if (cudaError_t e = find_node(call, node, n, kNodeMemset)) return ret(e);
  return ret(set_memset(*n, call, p));
}
cudaError_t cudaGraphHostNodeGetParams(void* node, cudaHostNodeParams* p) {
  GPURF_LOCKED;
  Node* n = nullptr;
  if (cudaError_t e = find_node("cudaGraphHostNodeGetParams", node, n, kNodeHost)) return ret(e);
  if (!p) return ret(cudaErrorInvalidValue);
  *p = n->host;
  return cudaSuccess;
}
cudaError_t cudaGraphHostNodeSetParams(void* node, const cudaHostNodeParams* p) {
  GPURF_LOCKED;
  const char* call = "cudaGraphHostNodeSetParams";
  Node* n = nullptr;
  if (cudaError_t e = find_node(call, node, n, kNodeHost)) return ret(e);
  if (!p || !p->fn) return ret(graph_said(call, cudaErrorInvalidValue, "no host function"));
  n->host = *p;
  return cudaSuccess;
}

// ------------------------------------------------------------------------------ executable graphs

cudaError_t cudaGraphInstantiate(void** exec, void* graph, unsigned long long flags) {
  return instantiate("cudaGraphInstantiate", exec, graph, flags, nullptr);
}
cudaError_t cudaGraphInstantiateWithFlags(void** exec, void* graph, unsigned long long flags) {
  return instantiate("cudaGraphInstantiateWithFlags", exec, graph, flags, nullptr);
}
cudaError_t cudaGraphInstantiateWithParams(void** exec, void* graph,
                                           cudaGraphInstantiateParams* p) {
  if (!p)
    return ret(graph_said("cudaGraphInstantiateWithParams", cudaErrorInvalidValue,
                          "instantiateParams null"));
  p->errNode_out = nullptr;
  return instantiate("cudaGraphInstantiateWithParams", exec, graph, p->flags, p);
}
cudaError_t cudaGraphInstantiateWithParams_ptsz(void** exec, void* graph,
                                                cudaGraphInstantiateParams* p) {
  return cudaGraphInstantiateWithParams(exec, graph, p);
}
cudaError_t cudaGraphExecGetFlags(void* exec, unsigned long long* flags) {
  GPURF_LOCKED;
  Exec* x = nullptr;
  if (cudaError_t e = find_exec("cudaGraphExecGetFlags", exec, x)) return ret(e);
  if (!flags) return ret(cudaErrorInvalidValue);
  *flags = x->flags;
  return cudaSuccess;
}
cudaError_t cudaGraphExecDestroy(void* exec) {
  GPURF_LOCKED;
  Exec* x = nullptr;
  if (cudaError_t e = find_exec("cudaGraphExecDestroy", exec, x)) return ret(e);
  st().execs.erase(x);
  delete x;
  return cudaSuccess;
}
cudaError_t cudaGraphLaunch(void* exec, cudaStream_t s) {
  return launch("cudaGraphLaunch", exec, s, false);
}
cudaError_t cudaGraphLaunch_ptsz(void* exec, cudaStream_t s) {
  return cudaGraphLaunch(exec, per_thread(s));
}
cudaError_t cudaGraphUpload(void* exec, cudaStream_t s) {
  return launch("cudaGraphUpload", exec, s, true);
}
cudaError_t cudaGraphUpload_ptsz(void* exec, cudaStream_t s) {
  return cudaGraphUpload(exec, per_thread(s));
}

cudaError_t cudaGraphExecKernelNodeSetParams(void* exec, void* node,
                                             const cudaKernelNodeParams* p) {
  GPURF_LOCKED;
  const char* call = "cudaGraphExecKernelNodeSetParams";
  Node* n = nullptr;
  if (cudaError_t e = exec_node(call, exec, node, kNodeKernel, n)) return ret(e);
  Node tmp;
  if (cudaError_t e = set_kernel(tmp, call, p, n->cooperative)) return ret(e);
  copy_params(*n, tmp);
  return cudaSuccess;
}
cudaError_t cudaGraphExecMemcpyNodeSetParams(void* exec, void* node, const cudaMemcpy3DParms* p) {
  GPURF_LOCKED;
  const char* call = "cudaGraphExecMemcpyNodeSetParams";
  Node* n = nullptr;
  if (cudaError_t e = exec_node(call, exec, node, kNodeMemcpy, n)) return ret(e);
  return ret(set_copy(*n, call, p));
}
cudaError_t cudaGraphExecMemcpyNodeSetParams1D(void* exec, void* node, void* dst, const void* src,
                                               size_t count, int kind) {
  GPURF_LOCKED;
  const char* call = "cudaGraphExecMemcpyNodeSetParams1D";
  Node* n = nullptr;
  if (cudaError_t e = exec_node(call, exec, node, kNodeMemcpy, n)) return ret(e);
  return ret(set_copy1d(*n, call, dst, src, count, kind));
}
cudaError_t cudaGraphExecMemsetNodeSetParams(void* exec, void* node, const cudaMemsetParams* p) {
  GPURF_LOCKED;
  const char* call = "cudaGraphExecMemsetNodeSetParams";
  Node* n = nullptr;
  if (cudaError_t e = exec_node(call, exec, node, kNodeMemset, n)) return ret(e);
  return ret(set_memset(*n, call, p));
}
cudaError_t cudaGraphExecHostNodeSetParams(void* exec, void* node, const cudaHostNodeParams* p) {
  GPURF_LOCKED;
  const char* call = "cudaGraphExecHostNodeSetParams";
  Node* n = nullptr;
  if (cudaError_t e = exec_node(call, exec, node, kNodeHost, n)) return ret(e);
  if (!p || !p->fn) return ret(graph_said(call, cudaErrorInvalidValue, "no host function"));
  n->host = *p;
  return cudaSuccess;
}
cudaError_t cudaGraphExecUpdate(void* exec, void* graph, cudaGraphExecUpdateResultInfo* info) {
  GPURF_LOCKED;
  const char* call = "cudaGraphExecUpdate";
  cudaGraphExecUpdateResultInfo local{};
  cudaGraphExecUpdateResultInfo& r = info ? *info : local;
  r = {cudaGraphExecUpdateError, nullptr, nullptr};
  Exec* x = nullptr;
  Graph* g = nullptr;
  if (cudaError_t e = find_exec(call, exec, x)) return ret(e);
  if (cudaError_t e = find_graph(call, graph, g)) return ret(e);
  std::string why;
  // Checked on a copy first: a failed update changes nothing.
  std::unique_ptr<Graph> trial = clone(*x->graph, true);
  Exec scratch;
  if (!update(*trial, *g, r, why, scratch))
    return ret(graph_said(call, cudaErrorGraphExecUpdateFailure,
                          why + " (cudaGraphExecUpdateResult " + std::to_string(r.result) + ")"));
  update(*x->graph, *g, r, why, *x);
  r = {cudaGraphExecUpdateSuccess, nullptr, nullptr};
  return cudaSuccess;
}

// ------------------------------------------------------------------------------ stream capture

cudaError_t cudaStreamBeginCapture(cudaStream_t s, int mode) {
  GPURF_LOCKED;
  return ret(begin_capture("cudaStreamBeginCapture", s, nullptr, {}, mode));
}
cudaError_t cudaStreamBeginCapture_ptsz(cudaStream_t s, int mode) {
  return cudaStreamBeginCapture(per_thread(s), mode);
}
cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t s, void* graph, void* const* deps,
                                          const cudaGraphEdgeData*, size_t n, int mode) {
  GPURF_LOCKED;
  const char* call = "cudaStreamBeginCaptureToGraph";
  Graph* g = nullptr;
  if (cudaError_t e = find_graph(call, graph, g)) return ret(e);
  std::vector<Node*> d;
  if (cudaError_t e = check_deps(call, *g, deps, n, d)) return ret(e);
  return ret(begin_capture(call, s, g, d, mode));
}
cudaError_t cudaStreamBeginCaptureToGraph_ptsz(cudaStream_t s, void* graph, void* const* deps,
                                               const cudaGraphEdgeData* edges, size_t n, int mode) {
  return cudaStreamBeginCaptureToGraph(per_thread(s), graph, deps, edges, n, mode);
}
cudaError_t cudaStreamEndCapture(cudaStream_t s, void** graph) {
  GPURF_LOCKED;
  const char* call = "cudaStreamEndCapture";
  if (!graph) return ret(graph_said(call, cudaErrorInvalidValue, "pGraph null"));
  auto it = st().streams.find(s);
  if (it == st().streams.end())
    return ret(graph_said(call, cudaErrorIllegalState, "stream " + hex(s) + " is not capturing"));
  Capture* c = it->second.capture;
  if (c->origin != s) {
    invalidate(*c);
    return ret(graph_said(call, cudaErrorStreamCaptureUnmatched,
                          "the capture began on stream " + hex(c->origin) +
                              ", not this one: the capture is invalidated"));
  }
  if (c->mode != cudaStreamCaptureModeRelaxed && c->thread != std::this_thread::get_id())
    return ret(graph_said(call, cudaErrorStreamCaptureWrongThread,
                          std::string("a capture begun in ") + mode_name(c->mode) +
                              " ends in the thread that began it"));
  *graph = nullptr;
  cudaError_t e = cudaSuccess;
  std::string why;
  if (c->invalidated) {
    e = cudaErrorStreamCaptureInvalidated;
    why = "the capture was invalidated by an earlier error: no graph";
  } else { // every forked stream must have joined the origin stream again
    std::set<Node*> joined;
    for (Node* d : it->second.deps) add_ancestors(d, joined);
    for (auto& [fs, sc] : st().streams)
      if (sc.capture == c && fs != s)
        for (Node* d : sc.deps)
          if (!joined.count(d)) {
            e = cudaErrorStreamCaptureUnjoined;
            why = "stream " + hex(fs) +
                  " joined the capture (cudaStreamWaitEvent) and was not joined back into the "
                  "origin stream: no graph";
          }
  }
  Graph* g = c->graph;
  const bool own = c->own_graph;
  end_capture(c);
  if (e) {
    if (own) destroy_graph(g);
    return ret(graph_said(call, e, why));
  }
  *graph = g;
  return cudaSuccess;
}
cudaError_t cudaStreamEndCapture_ptsz(cudaStream_t s, void** graph) {
  return cudaStreamEndCapture(per_thread(s), graph);
}
cudaError_t cudaStreamIsCapturing(cudaStream_t s, int* status) {
  GPURF_LOCKED;
  if (!status) return ret(cudaErrorInvalidValue);
  std::string which;
  if (legacy(s) && !blocking_captures(which).empty())
    return ret(graph_said("cudaStreamIsCapturing", cudaErrorStreamCaptureImplicit,
                          "the legacy stream, while stream " + which + " captures"));
  auto it = st().streams.find(s);
  *status = it == st().streams.end()          ? cudaStreamCaptureStatusNone
            : it->second.capture->invalidated ? cudaStreamCaptureStatusInvalidated
                                              : cudaStreamCaptureStatusActive;
  return cudaSuccess;
}
cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t s, int* status) {
  return cudaStreamIsCapturing(per_thread(s), status);
}
cudaError_t cudaStreamGetCaptureInfo(cudaStream_t s, int* status, unsigned long long* id,
                                     void** graph, const void* const** deps,
                                     const cudaGraphEdgeData** edges, size_t* ndeps) {
  GPURF_LOCKED;
  const char* call = "cudaStreamGetCaptureInfo";
  if (!status) return ret(graph_said(call, cudaErrorInvalidValue, "captureStatus_out null"));
  if (edges && !deps)
    return ret(graph_said(call, cudaErrorInvalidValue, "edgeData_out without dependencies_out"));
  if (cudaError_t e = cudaStreamIsCapturing(s, status)) return e;
  if (*status != cudaStreamCaptureStatusActive) return cudaSuccess;
  StreamCapture& sc = st().streams[s];
  sc.edges.assign(sc.deps.size(), cudaGraphEdgeData{});
  if (id) *id = sc.capture->id;
  if (graph) *graph = sc.capture->graph;
  if (deps) *deps = reinterpret_cast<const void* const*>(sc.deps.data());
  if (edges) *edges = sc.edges.data();
  if (ndeps) *ndeps = sc.deps.size();
  return cudaSuccess;
}
cudaError_t cudaStreamGetCaptureInfo_ptsz(cudaStream_t s, int* status, unsigned long long* id,
                                          void** graph, const void* const** deps,
                                          const cudaGraphEdgeData** edges, size_t* ndeps) {
  return cudaStreamGetCaptureInfo(per_thread(s), status, id, graph, deps, edges, ndeps);
}
cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t s, void** deps,
                                                const cudaGraphEdgeData*, size_t n,
                                                unsigned flags) {
  GPURF_LOCKED;
  const char* call = "cudaStreamUpdateCaptureDependencies";
  auto it = st().streams.find(s);
  if (it == st().streams.end())
    return ret(graph_said(call, cudaErrorIllegalState, "stream " + hex(s) + " is not capturing"));
  if (flags > 1)
    return ret(graph_said(call, cudaErrorInvalidValue, "flags " + std::to_string(flags)));
  std::vector<Node*> d;
  if (cudaError_t e = check_deps(call, *it->second.capture->graph, deps, n, d)) return ret(e);
  if (flags == 1) it->second.deps.clear(); // cudaStreamSetCaptureDependencies
  for (Node* x : d)
    if (std::find(it->second.deps.begin(), it->second.deps.end(), x) == it->second.deps.end())
      it->second.deps.push_back(x);
  return cudaSuccess;
}
cudaError_t cudaStreamUpdateCaptureDependencies_ptsz(cudaStream_t s, void** deps,
                                                     const cudaGraphEdgeData* edges, size_t n,
                                                     unsigned flags) {
  return cudaStreamUpdateCaptureDependencies(per_thread(s), deps, edges, n, flags);
}
cudaError_t cudaThreadExchangeStreamCaptureMode(int* mode) {
  GPURF_LOCKED;
  if (!mode || *mode < cudaStreamCaptureModeGlobal || *mode > cudaStreamCaptureModeRelaxed)
    return ret(cudaErrorInvalidValue);
  std::swap(*mode, thread_mode);
  return cudaSuccess;
}

} // extern "C"
