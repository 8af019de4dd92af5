// SIMT functional engine for PTX (plain C++, no SystemC).
//
// Executes one warp instruction at a time, lane by lane, and reports every lane's source and
// destination values so the timing model can consume them.
//
// Usage:
//   Module m = parse_ptx_file("k.ptx");
//   LaunchConfig cfg;  cfg.grid = {4}; cfg.block = {128}; cfg.data_base = 0x10000000;
//   ParamPacker pk(Kernel::find_entry(m, "k"));  pk.set(0, ptr_a).set(1, n);
//   Kernel k(m, "k", cfg, pk.bytes(), mem);
//   unsigned cta = k.launch_cta(0);
//   for (unsigned w : k.cta_warps(cta)) { while (k.peek(w).state == Peek::State::Ready) ... }
//   // or simply: run_functional(m, "k", cfg, pk.bytes(), mem);
//
// Address spaces (all addresses are bytes):
//   * global: the caller's addresses, reached through GlobalMemory. Module-scope .global and
//     .const variables are placed by the engine in a data segment at LaunchConfig::data_base
//     (aligned, in declaration order) and initialised through GlobalMemory. A .const address
//     is the same as its global address (const space is identity-mapped onto global memory).
//   * shared: per CTA, offsets from 0: static .shared variables (module scope and every
//     function's, in declaration order) then the dynamic (`.extern .shared x[]`) area,
//     aligned to 16, of LaunchConfig::dyn_shared_bytes.
//   * local: per thread, offsets from 0; a call stack: each call frame's .local variables are
//     allocated at the current top (16-aligned), then the frame's save area
//     (LaunchConfig::save_bytes), up to LaunchConfig::local_bytes_per_thread (a call beyond it
//     stops the kernel: a stack overflow, naming the function and the call depth).
//   * param: per call frame: the function's parameters at their layout offsets, then its
//     return parameters at align16(param_bytes), then the call-sequence .param variables
//     declared in its body. For the kernel, the parameter part is the caller's (read-only)
//     kernel parameter buffer.
//   * generic: [kSharedWindow, +4 GiB) → shared, [kLocalWindow, +4 GiB) → local (of the
//     accessing thread), [kParamWindow, +4 GiB) → kernel parameters (read-only),
//     anything else → global. cvta adds/subtracts the window base (identity for global/const).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "gpurf/modules/frontend/ptx/allocations.h"
#include "gpurf/modules/frontend/ptx/cfg.h"
#include "gpurf/modules/frontend/ptx/device_heap.h"
#include "gpurf/modules/frontend/ptx/device_launch.h"
#include "gpurf/modules/frontend/ptx/ir.h"

namespace gpurf::ptx {

constexpr unsigned kWarpLanes = 32;
constexpr uint64_t kSharedWindow = 0xFD00000000000000ull;
constexpr uint64_t kLocalWindow = 0xFE00000000000000ull;
constexpr uint64_t kParamWindow = 0xFC00000000000000ull;
// `mov.u64 %rd, func` yields kFunctionWindow + 16 x the function's index (an indirect call's
// target; no memory is there, so a load from it faults as any unmapped address).
constexpr uint64_t kFunctionWindow = 0xFB00000000000000ull;
constexpr uint64_t kWindowSize = 1ull << 32;

// Global memory as the engine sees it (the adaptor forwards to the SM's TLM memory).
struct GlobalMemory {
  virtual ~GlobalMemory() = default;
  virtual void read(uint64_t addr, void* dst, unsigned len) = 0;
  virtual void write(uint64_t addr, const void* src, unsigned len) = 0;
};

// A sparse, zero-initialised byte-addressable memory (4 KiB pages). For tests and tools.
class SparseMemory : public GlobalMemory {
public:
  void read(uint64_t addr, void* dst, unsigned len) override;
  void write(uint64_t addr, const void* src, unsigned len) override;
  // Bump allocator over [base, ...): returns `align`-aligned fresh addresses.
  explicit SparseMemory(uint64_t alloc_base = 0x100000000ull) : next_(alloc_base) {}
  uint64_t alloc(uint64_t bytes, uint64_t align = 256);
  template <class T> void write_vec(uint64_t addr, const std::vector<T>& v) {
    write(addr, v.data(), unsigned(v.size() * sizeof(T)));
  }
  template <class T> std::vector<T> read_vec(uint64_t addr, size_t n) {
    std::vector<T> v(n);
    read(addr, v.data(), unsigned(n * sizeof(T)));
    return v;
  }

private:
  std::unordered_map<uint64_t, std::unique_ptr<uint8_t[]>> pages_;
  uint64_t next_;
};

// Errors in the executed program (bad address, misalignment, deadlock, budget exceeded,
// unsupported feature met at run time, bad launch). what() names warp/thread/pc/PTX line
// where applicable.
struct RuntimeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A CTA's shared memory (static, the .shared variables, + dynamic) beyond what the engine
// holds.
constexpr uint64_t kMaxSharedBytes = 1ull << 30;
// The reserved shared memory of a CTA whose kernel reads %reserved_smem_offset_* (sm_80+
// reserves 1 KB per CTA, cudaDevAttrReservedSharedMemoryPerBlock): after the dynamic area,
// _0 at its start and _1 half way (cooperative groups' multi-warp scratch needs 288 bytes).
constexpr unsigned kReservedSharedBytes = 1024;
struct SharedMemoryError : RuntimeError {
  SharedMemoryError(uint64_t static_bytes, uint64_t dynamic_bytes);
  uint64_t static_bytes, dynamic_bytes;
};

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
  Dim3() = default;
  Dim3(unsigned x_, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
  uint64_t count() const { return uint64_t(x) * y * z; }
};

class TextureTable; // texture.h

struct LaunchConfig {
  Dim3 grid, block;
  unsigned dyn_shared_bytes = 0;
  uint64_t data_base = 0x80000000ull; // module .global/.const data segment (global address)
  uint64_t data_limit = 0;            // bytes available there; 0: unchecked
  bool init_data = true;              // write the module variables' initial values
  uint64_t instr_budget = 200000000;  // warp instructions per launch; 0: unlimited
  unsigned local_bytes_per_thread = 64 * 1024;
  // What local_bytes_per_thread is, for the stack overflow's message.
  std::string local_limit_what = "the engine's local memory per thread";
  // Per Module::functions index: bytes each frame of the function reserves after its .local
  // variables (the compiler's save area around recursive calls, compiler/compile.h); shorter
  // or empty: 0.
  std::vector<uint32_t> save_bytes;
  unsigned max_call_depth = 256;
  unsigned smid = 0, nsmid = 1;
  // Value of %clock/%clock64 (the SM's cycle) and of %globaltimer (nanoseconds); default:
  // warp instructions executed so far (the engine alone has no clock).
  std::function<uint64_t()> clock, globaltimer;
  // Every lane's global and const access must lie in one of these (null: unchecked).
  const Allocations* allocations = nullptr;
  // %envreg0..31, set by the driver: a cooperative launch's grid workspace (the grid barrier's
  // word at +4) is at %envreg1 << 32 | %envreg2; 0 in other launches.
  std::array<uint32_t, 32> envreg{};
  // The texture and surface objects a tex/tld4/suld/sust handle names (null: none exist).
  const TextureTable* textures = nullptr;
  // In-kernel malloc/free (device_heap.h; null: a call of malloc stops the kernel, saying so).
  DeviceHeap* heap = nullptr;
  // Dynamic parallelism's device runtime (device_launch.h; null: a device launch stops the
  // kernel, saying so).
  DeviceLaunches* device_launches = nullptr;
};

// Packs a kernel parameter buffer according to the entry's parameter layout.
class ParamPacker {
public:
  explicit ParamPacker(const Function& entry);
  // Sets parameter i from a value of matching size (else RuntimeError).
  template <class T> ParamPacker& set(unsigned i, const T& v) {
    return set_bytes(i, &v, unsigned(sizeof(T)));
  }
  ParamPacker& set_bytes(unsigned i, const void* data, unsigned len);
  const std::vector<uint8_t>& bytes() const { return buf_; }

private:
  const Function& f_;
  std::vector<uint8_t> buf_;
};

// What a warp will do next.
struct Peek {
  enum class State { Ready, AtBarrier, Finished };
  State state = State::Finished;
  unsigned pc = 0;              // instruction index in `func` (Ready)
  const Instr* instr = nullptr; // Ready: the instruction step() will execute
  const Function* func = nullptr;
  uint32_t active_mask = 0; // SIMT mask it will execute with (before its guard)
};

struct LaneValues64 {
  unsigned vreg = 0;
  std::array<uint64_t, kWarpLanes> v{}; // register contents per lane (all 32 lanes)
};

// Everything one executed warp instruction did.
struct StepResult {
  const Function* func = nullptr;
  unsigned pc = 0;
  const Instr* instr = nullptr;
  unsigned warp = 0, cta = 0; // engine handles
  uint32_t active_mask = 0;   // SIMT active mask (lanes at this pc)
  uint32_t exec_mask = 0;     // active lanes whose guard predicate is true (lanes that acted)
  // Vregs read (distinct, in operand order; guard included) with their values before the
  // instruction, and vregs written with all 32 lanes' values after it. Only lanes in
  // exec_mask were changed. (bar.red's destination is written when the barrier releases.)
  std::vector<LaneValues64> reads, writes;
  // The vregs `reads` and `writes` list, set whether or not `values` is (the instruction's
  // own lists; writes: empty for bra, exit, ret and call): a caller that reads the values in
  // place (Kernel::rows: the sources before step(), the destinations after) needs no copy.
  const std::vector<unsigned>* read_vregs = nullptr;
  const std::vector<unsigned>* write_vregs = nullptr;
  // Memory access (ld/ldu/st/atom/red): space as resolved (Generic only if lanes differ),
  // per-lane addresses in that space (generic addresses when space is Generic), bytes per lane.
  bool is_mem = false;
  Space space = Space::None;
  unsigned access_bytes = 0;
  std::array<uint64_t, kWarpLanes> addr{};
  bool barrier_wait = false;  // the warp now waits at a barrier (released when CTA arrives)
  bool exited_lanes = false;  // some lanes exited
  bool warp_finished = false; // all lanes of the warp have exited
  uint64_t seq = 0;           // launch-wide dynamic warp instruction number
  // Set by the caller: false leaves `reads` and `writes` empty (a run that needs no values:
  // fast-forward, where not copying 256 bytes per register operand saves about 7%, and the
  // timed front-end, which reads the rows in place).
  bool values = true;
};

class Kernel {
public:
  // `params`: the packed kernel parameter buffer (size must equal the entry's param_bytes,
  // see ParamPacker). Throws RuntimeError for an unknown entry (listing the entries), a
  // parameter size mismatch, an empty grid/block, or a block of more than 1024 threads.
  Kernel(const Module& m, const std::string& entry, const LaunchConfig& cfg,
         std::vector<uint8_t> params, GlobalMemory& mem);
  ~Kernel();
  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;

  // The entry `name` of `m`, or RuntimeError("unknown kernel 'x'; entries: a, b").
  static const Function& find_entry(const Module& m, const std::string& name);

  const Module& module() const { return mod_; }
  const Function& entry() const { return *entry_; }
  const std::vector<Param>& param_layout() const { return entry_->params; }
  const LaunchConfig& config() const { return cfg_; }
  uint64_t symbol_address(const std::string& var) const;          // module .global/.const variable
  uint64_t data_bytes() const { return data_size_; }              // bytes used at data_base
  unsigned shared_bytes() const { return shared_size_; }          // per CTA, static + dynamic
  unsigned static_shared_bytes() const { return static_shared_; } // the .shared variables'
  unsigned warps_per_cta() const { return warps_per_cta_; }
  unsigned num_ctas() const { return unsigned(cfg_.grid.count()); }
  const Cfg& cfg_of(const Function& f) const;

  // ---- CTA level ----
  // Creates CTA `linear_ctaid` (x fastest): ceil(threads/32) warps, the last one partial,
  // zeroed shared memory. Returns a CTA handle.
  unsigned launch_cta(unsigned linear_ctaid);
  const std::vector<unsigned>& cta_warps(unsigned cta) const; // warp handles
  bool cta_done(unsigned cta) const;                          // all warps finished
  unsigned cta_linear_id(unsigned cta) const;
  void release_cta(unsigned cta); // frees the CTA; its handles may be reused

  // ---- warp level ----
  Peek peek(unsigned warp) const;
  // Executes exactly one warp instruction (the peeked one). RuntimeError if the warp is not
  // Ready, on bad accesses, a deadlock, or when the instruction budget is exceeded.
  void step(unsigned warp, StepResult& out);
  unsigned warp_cta(unsigned warp) const;
  unsigned warp_index_in_cta(unsigned warp) const;
  // Vreg `vreg` of the warp's current call frame, all 32 lanes (bar.red's destination once the
  // barrier released: the front-end's B2R reads it there).
  LaneValues64 reg_value(unsigned warp, unsigned vreg) const;
  // The registers of the warp's current call frame in place: vreg v's 32 lanes at
  // [32 v, 32 v + 32), valid while the frame lives (unchecked; reg_value checks).
  const uint64_t* rows(unsigned warp) const;
  std::string describe_warp(unsigned warp) const;
  // Frames on the warp's call stack (1: in the kernel), and the local offset of the current
  // frame's save area (after its .local variables; LaunchConfig::save_bytes).
  unsigned call_depth(unsigned warp) const;
  uint64_t save_area(unsigned warp) const;
  uint64_t instructions_executed() const { return executed_; }

  struct Impl;

private:
  const Module& mod_;
  const Function* entry_ = nullptr;
  LaunchConfig cfg_;
  std::vector<uint8_t> params_;
  GlobalMemory& mem_;
  uint64_t data_size_ = 0;
  unsigned shared_size_ = 0, static_shared_ = 0;
  unsigned reserved_shared_ = 0; // where the reserved region starts (kReservedSharedBytes)
  unsigned warps_per_cta_ = 0;
  uint64_t executed_ = 0;
  std::unique_ptr<Impl> impl_;
};

struct FunctionalStats {
  uint64_t warp_instructions = 0;
  uint64_t thread_instructions = 0; // sum of exec-mask popcounts
  unsigned ctas = 0;
};

// Runs a whole launch functionally: CTAs one after another, warps of a CTA round-robin one
// instruction at a time. Throws RuntimeError on program errors (incl. deadlocks).
FunctionalStats run_functional(const Module& m, const std::string& entry, const LaunchConfig& cfg,
                               const std::vector<uint8_t>& params, GlobalMemory& mem);

} // namespace gpurf::ptx
