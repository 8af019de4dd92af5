// libgpurf-cudart's state (docs/programs.md): the modules and kernels a program registered, its
// allocations, and the simulation it runs them on, built at the first runtime call that needs
// the device (after every static constructor registered its fat binary).
//
// Memory: device addresses are the platform's global memory as `gpurf run` lays it out (the
// allocations from PtxFrontend::kBufferBase, 256-byte aligned like a launch file's buffers;
// the modules' variables at frontend.data_base); the bytes live in the platform's memory unit.
// Managed and page-locked host allocations are also host memory at the same address (the range
// is reserved in the process with mmap): the host's bytes are written to the device before
// each launch and read back after it (whole allocations: a program's managed data is small).
// One in-order queue: a launch runs to its end before the call returns; streams and events
// keep only simulated time.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "cuda_types.h"
#include "gpurf/modules/frontend/ptx/allocations.h"
#include "gpurf/modules/frontend/ptx_frontend.h"
#include "textures.h"
#include "timed.h"

namespace gpurf {
class Simulation;
class Gpu;
class PtxFrontend;
struct ConfigNode;
} // namespace gpurf

namespace gpurf::cudart {

struct Module {
  const void* wrapper = nullptr; // what __cudaRegisterFatBinary got (its handle)
  std::string name;              // "module N (sm_XY PTX)"
  std::string ptx;               // empty: none (error says why)
  std::string error;
  unsigned arch = 0; // the PTX's target, sm_XY as XY (0: not known; a run-time module's .target)
  int id = -1;       // the GPU's module id once built
  // Its .global/.const variables' device addresses and sizes, once loaded (cuModuleGetGlobal).
  std::map<std::string, std::pair<uint64_t, uint64_t>> globals;
};

struct KernelRec {
  Module* module = nullptr;
  std::string name; // the .entry (mangled)
  uint32_t id = 0;  // the GPU's kernel id
  bool found = false;
  // cudaFuncAttributeMaxDynamicSharedMemorySize as cudaFuncSetAttribute set it; -1: CUDA's
  // default (Runtime::dynamic_shared_limit).
  int max_dynamic_shared = -1;
};

struct VarRec {
  Module* module = nullptr;
  std::string name;
  size_t bytes = 0;
  bool constant = false, managed = false;
  void** managed_host_ptr = nullptr; // __cudaRegisterManagedVar: where the host's pointer is
  uint64_t address = 0;              // in device memory, once the modules are loaded
};

// Registered: cudaHostRegister's window range mirroring `host` (the program's own memory),
// copied to the device before each launch and back after it, as Host and Managed allocations.
enum class AllocKind { Device, Managed, Host, Registered };
struct Allocation {
  uint64_t bytes = 0;
  AllocKind kind = AllocKind::Device;
  void* host = nullptr; // Registered: the program's memory, `bytes` long
  unsigned flags = 0;   // cudaHostAlloc's / cudaHostRegister's flags (cudaHostGetFlags)
};

struct Event {
  double time_ns = 0;
  bool recorded = false;
  bool timing = true; // false: made with cudaEventDisableTiming (no elapsed time)
};

// Every entry point of the API (api.cpp) holds this lock while it runs: calls from several host
// threads run one at a time, in the order they take it (one in-order device queue).
std::recursive_mutex& api_mutex();

// A CTA's shared memory as a launch of `block` threads and `dynamic` bytes counts it: the
// kernel's .shared variables (placed by the engine, as at a launch) and the dynamic bytes.
unsigned cta_shared(const KernelRec& k, unsigned block, size_t dynamic);

class Runtime {
public:
  static Runtime& get();

  // Registration (before main, from each translation unit's constructor).
  Module* add_module(const void* wrapper);
  void add_kernel(Module* m, const void* host_fun, const char* name);
  void add_var(Module* m, const void* host_var, const char* name, size_t bytes, bool constant,
               void** managed_host_ptr);

  // The driver API (driver.cpp): modules loaded at run time. A program that registered no PTX
  // but calls the driver API builds the GPU around an empty module, its register space sized
  // for any kernel (docs/programs.md "The driver API").
  bool driver_api = false;
  // cuModuleLoadData's image (PTX text, a fat binary or its wrapper) loaded into the GPU: the
  // module, or null and the reason in `why` (and `e`, the error to return).
  Module* load_module(const void* image, std::string& why, cudaError_t& e);
  // A handle launch() and the cudaFunc* calls take for .entry `name` of `m`; null: none.
  const void* module_function(Module* m, const std::string& name);

  // Builds the simulation at the first call that needs it; the error sticks.
  cudaError_t ensure();
  // The sticky error, or the pending one (returned once), else cudaSuccess: what a call
  // returns before doing its work.
  cudaError_t status();
  cudaError_t record(cudaError_t e); // sets the last error, returns `e`
  // The last error is the calling host thread's (as CUDA's); the sticky one the device's.
  static thread_local cudaError_t last_error;
  cudaError_t sticky = cudaSuccess;

  // Memory.
  // `what` names the allocation in memory-check messages (default: the kind's call).
  cudaError_t malloc(void** p, uint64_t bytes, AllocKind kind, const char* what = nullptr);
  cudaError_t free(void* p, bool host);
  // Copies between host and device memory (either may be managed); `kind` as CUDA's.
  cudaError_t memcpy(void* dst, const void* src, uint64_t bytes, int kind);
  cudaError_t memset(void* dst, int value, uint64_t bytes);
  // cudaHostRegister: a window range for [p, p + bytes), its address in `*dev`.
  cudaError_t host_register(void* p, uint64_t bytes, unsigned flags);
  cudaError_t host_unregister(void* p);
  // The live allocation holding `a` (its base in `*base`), or null.
  const Allocation* allocation_of(uint64_t a, uint64_t* base = nullptr) const;
  // The allocation window's bytes no live allocation holds (cudaMemGetInfo's free memory).
  uint64_t unallocated() const {
    uint64_t n = 0;
    for (const auto& [base, bytes] : gaps_) n += bytes;
    return n;
  }
  // Where the host reads window address `a`: inside a registered range, the program's memory.
  void* host_view(uint64_t a) const;
  // The window address of host pointer `p`: itself, or inside a registered range its mirror;
  // 0: neither (not memory the device can reach).
  uint64_t device_view(const void* p) const;
  bool device_range(uint64_t a, uint64_t bytes) const; // device memory (not host-visible)
  // Inside one live allocation of any kind, or the modules' variables.
  bool allocated(uint64_t a, uint64_t bytes) const;
  // Inside the allocation window but not inside one live allocation: says so (`what`).
  bool stray(uint64_t a, uint64_t bytes, const char* what) const;
  const VarRec* var(const void* host_var) const;

  // Launch.
  // `cooperative`: cudaLaunchCooperativeKernel (every CTA resident; grid-wide sync works).
  cudaError_t launch(const void* fun, dim3 grid, dim3 block, void** args, size_t shared,
                     cudaStream_t stream, bool cooperative = false);
  KernelRec* kernel(const void* fun);
  // The most dynamic shared memory a launch of `k` may ask for (cudaFuncAttributeMaxDynamic-
  // SharedMemorySize): set by cudaFuncSetAttribute, else sharedMemPerBlock less its static bytes.
  size_t dynamic_shared_limit(const KernelRec& k);
  // cudaErrorInvalidDeviceFunction for `call` on `fun`, a function gpurf cannot run, saying
  // why on stderr (no registered kernel, no PTX, or the instruction that refused it).
  cudaError_t not_runnable(const void* fun, const char* call);
  struct CallConfig {
    dim3 grid, block;
    size_t shared = 0;
    cudaStream_t stream = nullptr;
  };
  // __cudaPushCallConfiguration's stack: the calling thread's (its <<<>>> pushes, then pops;
  // deeper only for a launch inside another's arguments). Fixed, so that it has no destructor:
  // the thread's destructors run at exit before the global destructors, which may launch.
  struct CallStack {
    CallConfig at[16];
    unsigned size = 0;
  };
  static thread_local CallStack configs;
  // Set while a graph's kernel node launches (graphs.cpp): {graph, graph_launch, node}, added to
  // the launch's record and named on its stderr line.
  nlohmann::ordered_json launch_mark;

  // Device facts from the platform.
  cudaError_t properties(cudaDeviceProp& p);
  double now_ns() const; // simulated time

  // Outputs (GPURF_OUT) at the end of the program.
  void finish();

  Gpu& gpu();
  bool quiet = false;
  std::map<void*, Event> events;
  std::map<void*, int> streams;
  TextureObjects textures; // texture and surface objects, CUDA arrays (textures.h)
  // cudaDeviceSetLimit's values by cudaLimit, CUDA's defaults (stack 1 KiB, printf FIFO 1 MiB,
  // malloc heap 8 MiB, sync depth 2, 2048 pending launches, L2 fetch 64 B, persisting L2 0).
  size_t limits[7] = {1024, 1 << 20, 8 << 20, 2, 2048, 64, 0};
  // In-kernel malloc's heap: cudaLimitMallocHeapSize bytes reserved at the first launch of a
  // module that calls malloc (a program that never does keeps its allocations' addresses).
  ptx::DeviceHeap heap;
  // Dynamic parallelism's device runtime: parameter buffers (cudaLimitDevRuntimePendingLaunchCount
  // of them, reserved at the first launch of a module that launches kernels from the device)
  // and the running grid's launches (docs/programs.md "Dynamic parallelism").
  ptx::DeviceLaunches device_launches;

private:
  Runtime();
  void build();
  void size_registers(const std::vector<Module*>& usable, const std::filesystem::path& tmp);
  static LaunchSpec module_spec(const Module& m, const std::filesystem::path& tmp);
  void load_variables();
  void load_variables(Module& m); // its initial values, addresses and checked ranges
  void map_managed_variable(VarRec& v);
  void to_device(); // managed and host allocations: host bytes to the device
  void to_host();
  void write_launch(const std::string& json_line);
  // GPURF_TIMED: read and checked (its kernel names against the program's) when the
  // simulation is built; a bad one exits 2.
  void read_timed();
  // A launch outside GPURF_TIMED, on the functional engine alone (docs/programs.md
  // "Fast-forward").
  cudaError_t fast_forward(const KernelRec& k, const PtxFrontend::HostLaunch& h, dim3 grid,
                           dim3 block, size_t shared, uint64_t parent);
  // A launch of `k` with its parameter bytes; `parent`: the launch whose grid made it (0: the
  // host), at nesting `depth`. Its device launches run after it (run_children).
  cudaError_t run(KernelRec* k, dim3 grid, dim3 block, std::vector<uint8_t> params, size_t shared,
                  bool cooperative, uint64_t parent, unsigned depth);
  cudaError_t run_children(const KernelRec& parent_k, uint64_t parent, unsigned depth);
  static std::string from_parent(uint64_t parent); // " (device launch from launch N)"
  bool launches_kernels(const ptx::Module& m);     // cached per module
  std::map<const ptx::Module*, bool> launches_kernels_;
  void end_launch(); // the program's printf lines and managed memory, after any launch

  std::vector<std::unique_ptr<Module>> modules_;
  std::unordered_map<const void*, KernelRec> kernels_;
  std::unordered_map<const void*, VarRec> vars_;
  bool built_ = false;
  cudaError_t init_error_ = cudaSuccess;
  std::string platform_path_, platform_name_, out_dir_;
  std::shared_ptr<ConfigNode> platform_;
  std::unique_ptr<PtxFrontend> frontend_; // module 0's first kernel (the GPU's own)
  std::unique_ptr<Simulation> sim_;
  // Allocations: live ones by base address, free gaps by base address.
  std::map<uint64_t, Allocation> live_;
  // What a kernel's global accesses must hit (frontend.memory_check): the live allocations at
  // their requested sizes, freed ones kept to report a use after free.
  ptx::Allocations checked_;
  std::map<uint64_t, uint64_t> gaps_;
  bool data_window_ = false; // the module variables' window is mapped (__managed__)
  bool host_window_ = false; // the window is reserved in the process (managed memory works)
  uint64_t param_address_ = 0;
  uint64_t launches_ = 0, failed_launches_ = 0;
  TimedSet timed_;
  struct FastForwarded {
    uint64_t launches = 0, warp_instructions = 0;
    double cpu_seconds = 0, host_seconds = 0;
  } ff_;
  bool finished_ = false;
  std::string device_text_; // the running kernel's printf output
  uint64_t unverified_ = 0;
  nlohmann::ordered_json counters_ = {{"cycles", 0u}, {"warp_instructions", 0u}};
  struct PerKernel {
    nlohmann::ordered_json sum;
    uint64_t launches = 0, fast_forwarded = 0;
    bool verified = true;
    std::string error;
  };
  std::map<std::string, PerKernel> per_kernel_;
  std::chrono::steady_clock::time_point started_;
  static std::string program_name();
};

} // namespace gpurf::cudart
