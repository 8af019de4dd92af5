// Dynamic parallelism (CUDA's CDP2): the device runtime's launch calls a kernel makes
// (cudaGetParameterBuffer[V2], cudaLaunchDevice[V2], device-side streams and last error), which
// the engine runs as builtins (docs/programs.md "Dynamic parallelism"). A launch is queued here
// while its parent grid runs; libgpurf-cudart takes the queue when the grid ends and runs each
// child as a launch of its own. Parameter buffers come from a region of device memory the
// runtime reserves. Plain C++.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "gpurf/modules/frontend/ptx/device_heap.h"

namespace gpurf::ptx {

// CUDA's error codes the device runtime returns (driver_types.h).
enum DeviceRuntimeError : int {
  kCudaSuccess = 0,
  kCudaErrorInvalidValue = 1,
  kCudaErrorInvalidConfiguration = 9,
  kCudaErrorLaunchMaxDepthExceeded = 65,
  kCudaErrorLaunchPendingCountExceeded = 69,
  kCudaErrorInvalidResourceHandle = 400,
};

// The stream handles of device code (cuda_device_runtime_api.h).
constexpr uint64_t kStreamTailLaunch = 3, kStreamFireAndForget = 4;
constexpr unsigned kMaxLaunchDepth = 24; // CUDA's nesting limit of grids

struct DeviceLaunch {
  int function = -1; // the child kernel: its index in the module (-1: buffer without one yet)
  std::array<unsigned, 3> grid{1, 1, 1}, block{1, 1, 1};
  unsigned shared_bytes = 0;
  uint64_t buffer = 0, buffer_bytes = 0; // its parameters, in device memory
  uint64_t stream = 0; // 0: the block's NULL stream; kStreamTailLaunch, ...; or a created one
};

class DeviceLaunches {
public:
  DeviceLaunches() = default;
  DeviceLaunches(uint64_t base, uint64_t bytes) : buffers_(base, bytes) {}
  bool empty() const { return buffers_.empty(); }

  size_t pending_limit = 2048; // cudaLimitDevRuntimePendingLaunchCount
  unsigned depth = 0;          // the running grid's nesting depth (0: launched by the host)

  // A parameter buffer of `bytes` for `l` (its function and shape, or none yet); 0 when the
  // region is full (the call returns NULL).
  uint64_t parameter_buffer(DeviceLaunch l, uint64_t bytes) {
    l.buffer = buffers_.allocate(bytes ? bytes : 16);
    l.buffer_bytes = bytes;
    if (l.buffer) handed_[l.buffer] = l;
    return l.buffer;
  }
  const DeviceLaunch* buffer(uint64_t b) const {
    auto it = handed_.find(b);
    return it == handed_.end() ? nullptr : &it->second;
  }
  // Launches the buffer's kernel (cudaLaunchDevice's `func` and shape when given, else the
  // ones cudaGetParameterBufferV2 recorded): CUDA's error, the buffer released on failure.
  int launch(uint64_t b, uint64_t stream, const DeviceLaunch* shape = nullptr) {
    auto it = handed_.find(b);
    if (it == handed_.end()) return kCudaErrorInvalidValue;
    DeviceLaunch l = it->second;
    if (shape) {
      l.function = shape->function;
      l.grid = shape->grid;
      l.block = shape->block;
      l.shared_bytes = shape->shared_bytes;
    }
    int e = kCudaSuccess;
    const uint64_t threads = uint64_t(l.block[0]) * l.block[1] * l.block[2];
    if (l.function < 0)
      e = kCudaErrorInvalidValue;
    else if (!threads || threads > 1024 || !l.grid[0] || !l.grid[1] || !l.grid[2])
      e = kCudaErrorInvalidConfiguration;
    else if (stream > kStreamFireAndForget && !streams_.count(stream))
      e = kCudaErrorInvalidResourceHandle;
    else if (depth + 1 > kMaxLaunchDepth)
      e = kCudaErrorLaunchMaxDepthExceeded;
    else if (pending_ >= pending_limit)
      e = kCudaErrorLaunchPendingCountExceeded;
    if (e) {
      release(b);
      return e;
    }
    l.stream = stream;
    handed_.erase(it);
    queued_.push_back(l);
    ++pending_;
    return kCudaSuccess;
  }
  // The running grid's launches in the order it made them; the caller runs them and calls
  // started() for each (they count as pending until then) and release() for its buffer.
  std::vector<DeviceLaunch> take() { return std::exchange(queued_, {}); }
  void started() {
    if (pending_) --pending_;
  }
  void release(uint64_t b) {
    buffers_.release(b);
    handed_.erase(b);
  }
  // When the host's grid and all its descendants have run: buffers handed out but never
  // launched are freed, device-created streams forgotten.
  void reset() {
    for (const auto& [b, l] : handed_) buffers_.release(b);
    handed_.clear();
    queued_.clear();
    streams_.clear();
    pending_ = 0;
    last_error.clear();
  }

  // cudaStreamCreateWithFlags / cudaStreamDestroy in device code: handles above the reserved
  // ones; the launches into them run in order like every other (a legal schedule).
  uint64_t create_stream() {
    streams_.insert(next_stream_);
    return next_stream_++;
  }
  bool destroy_stream(uint64_t s) { return streams_.erase(s) == 1; }

  // cudaGetLastError / cudaPeekAtLastError of device code: each thread's own, by its index in
  // the running grid (cleared when a grid starts).
  std::map<uint64_t, int> last_error;

private:
  DeviceHeap buffers_;
  std::map<uint64_t, DeviceLaunch> handed_; // buffer -> its launch, not launched yet
  std::vector<DeviceLaunch> queued_;
  std::set<uint64_t> streams_;
  uint64_t next_stream_ = 0x100;
  size_t pending_ = 0;
};

} // namespace gpurf::ptx
