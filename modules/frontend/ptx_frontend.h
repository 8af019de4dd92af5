// The PTX front-end: runs a real CUDA kernel (PTX + launch description) on the timing model.
//
// Built from a loaded launch (launch.h): compiles the kernel (liveness, register allocation,
// long-latency marks: modules/frontend/compiler) and builds one static InstInfo per PTX
// instruction. start() places the buffers in global memory through the SM's functional memory
// (from kBufferBase, 256-B aligned, in declaration order; module .global/.const data at
// frontend.data_base, initialised once, and buffers with `symbol:` at their variable), runs an
// application's host steps up to its first launch (application.h), packs the parameters and
// launches the first CTAs; next_launch() does the same for the application's later launches.
//
// CTA scheduling: a CTA of T threads occupies ceil(T/32) consecutive warp slots; as many CTAs
// are resident as the SM's warp slots, registers, CTA slots and shared memory allow
// (policies/occupancy.h); CTA slot k of an SM owns its warp slots
// [k * warps_per_cta, (k + 1) * warps_per_cta). With several SMs the first CTAs are handed
// round-robin over the SMs (CTA 0 to SM 0, CTA 1 to SM 1, ...); then the next CTA (in linear id
// order) is launched into a CTA slot once every warp of its previous CTA exited and all its
// instructions retired, so an SM that finishes CTAs sooner runs more of the grid.
//
// Instruction records (InstInfo):
//   * pc: index in the kernel's instruction layout (the .entry's instructions, then those of
//     each called .func), so pcs are unique within the kernel; ptx_line: line in the PTX file.
//   * src_reg/dst_reg: 32-bit architectural registers after allocation, distinct, in operand
//     order (guard and other predicates excluded; a 64-bit vreg gives its even/odd pair, low
//     half first; a .v4 vector gives 4); src_last_read: the value is dead after this read.
//   * produces_long_latency: global/local/generic load or non-shared atomic with a result;
//     consumes_long_latency: reads a value such a producer wrote that nothing has read since.
// Values (WarpInst): src values are the 32 lanes' register contents as read, dst values the
// contents after the write, for all 32 lanes (lanes the instruction did not write keep their
// value; lanes beyond the CTA's thread count are 0). The front-end keeps a shadow architectural
// register file per warp slot, updated from the dst values (i.e. what the timing model writes
// into its banks), and checks every source value against it: a difference is an allocation
// error and stops the run with a WorkloadError.
// Memory addresses (per active lane): global/const: the global address; shared: the offset in
// the CTA's shared memory; local: mapped to a per-thread, lane-interleaved window at
// window_base + kLocalWindow (global memory, timing only); param: the offset in the parameter
// buffer. Generic
// accesses (reported as global space) that resolve to shared/local/param memory are mapped to
// timing-only windows of global memory (window_base + kSharedWindow + cta_slot * 1 MiB +
// offset, the local window, window_base + offset).
#pragma once

#include <array>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "gpurf/modules/frontend/application.h"
#include "gpurf/modules/frontend/compiler/compile.h"
#include "gpurf/modules/frontend/compiler/control_bits.h"
#include "gpurf/modules/frontend/compiler/ptxas_run.h"
#include "gpurf/modules/frontend/compiler/schedule.h"
#include "gpurf/modules/frontend/i_frontend.h"
#include "gpurf/modules/frontend/launch.h"
#include "gpurf/modules/frontend/loop_watch.h"
#include "gpurf/modules/frontend/ptx/allocations.h"
#include "gpurf/modules/frontend/ptx/async_copy.h"
#include "gpurf/modules/frontend/ptx/device_heap.h"
#include "gpurf/modules/frontend/ptx/device_launch.h"
#include "gpurf/modules/frontend/reuse_profile.h"

namespace gpurf {

namespace workload {
struct LaunchData;
}

// A reference checker's input (workloads/reference/reference.h) for launch `spec`: each buffer's
// name, type, count and initial bytes, `final_bytes(i)` as buffer i's bytes after the launch,
// `vars`, grid and block. PtxFrontend::verify_outputs and a virtual platform's host checking
// its own launch (docs/vp.md "Checking results") both use it.
workload::LaunchData checker_input(const LaunchSpec& spec,
                                   const std::map<std::string, int64_t>& vars,
                                   const std::function<std::vector<uint8_t>(size_t)>& final_bytes);

struct ConfigNode;
class Params;

// How the PTX front-end compiles a kernel: the platform's `frontend:` section
// (docs/frontend.md).
struct FrontendOptions {
  compiler::RegAllocMode regalloc = compiler::RegAllocMode::LinearScan;
  compiler::Schedule schedule = compiler::Schedule::None;
  bool constant_operands = false; // `constants: operands` (compiler/constants.h)
  unsigned alloc_banks = 2;       // ptxas_like: bank = register % alloc_banks
  // Malekeh's reuse hints (reuse_profile.h): profile this many warps first (0: none), near
  // below `reuse_rthld` instructions.
  unsigned reuse_profile_warps = 0, reuse_rthld = 12;
  // Oracle hints: every warp profiled, each dynamic instance gets its own exact bits.
  bool reuse_oracle = false;
  // Warp instructions per SM without a global store, atomic, barrier or exit before the
  // kernel is stopped as one that cannot end (loop_watch.h; 0: no bound).
  uint64_t progress_bound = uint64_t(1) << 24;
  // Where gpurf puts what is not the host's in the global address space: the module's
  // .global/.const variables (kDataBytes from data_base) and the timing-only windows of generic
  // accesses to param, shared and local memory (kWindowBytes from window_base: param, shared at
  // +256 MiB, local at +512 MiB). A virtual platform moves them where its memory has room.
  uint64_t data_base = 0x01000000ull, window_base = 0xA0000000ull;
  // Every lane's global access checked against the live allocations (ptx/allocations.h).
  bool memory_check = true;
  // Control bits (compiler/control_bits.h; docs/modern-core.md): set reuse bits, stall counts
  // (fixed-latency instructions: `fixed_latency` cycles) and dependence counters.
  bool control_bits = false;
  unsigned fixed_latency = 4;
  // The k of one tensor-pipe instruction (compiler/tensor_split.h): 8, Turing's HMMA.1688;
  // 16, Ampere's HMMA.16816.
  unsigned hmma_k = 8;
  // frontend.reg64: a 64-bit PTX register is two 32-bit registers with an access each
  // (two_registers) or, as GPGPU-Sim's PTX mode counts it, one register-file operand: one
  // bank access and one collector write carry both halves (one_operand; InstInfo::src_hi).
  bool reg64_one_operand = false;
  bool operator==(const FrontendOptions& o) const {
    return regalloc == o.regalloc && schedule == o.schedule &&
           constant_operands == o.constant_operands && alloc_banks == o.alloc_banks &&
           reuse_profile_warps == o.reuse_profile_warps && reuse_rthld == o.reuse_rthld &&
           reuse_oracle == o.reuse_oracle && progress_bound == o.progress_bound &&
           data_base == o.data_base && window_base == o.window_base &&
           memory_check == o.memory_check && control_bits == o.control_bits &&
           fixed_latency == o.fixed_latency && hmma_k == o.hmma_k &&
           reg64_one_operand == o.reg64_one_operand;
  }
  std::string describe() const; // "regalloc=ptxas_like schedule=list constants=operands ..."
};

// The `frontend:` section, declared here once. The Params overload declares it on the
// platform's parameter set (Simulation does, so the keys are validated and shown by
// --dump-config); the ConfigNode overload reads the same declaration from a platform tree, for
// whoever builds a PtxFrontend before the Simulation. A bad value throws ConfigError.
FrontendOptions frontend_options(Params& top);
FrontendOptions frontend_options(ConfigNode& platform);

namespace ptx {
class Kernel;
struct StepResult;
struct LaunchConfig;
struct Peek;
struct GlobalMemory;
} // namespace ptx

class PtxFrontend : public IFrontend {
public:
  static constexpr uint64_t kBufferBase = 0x10000000ull;  // launch-file buffers
  static constexpr uint64_t kDataBytes = 0x0F000000ull;   // module variables (240 MiB)
  static constexpr uint64_t kWindowBytes = 0x40000000ull; // the timing-only windows (1 GiB)
  static constexpr uint64_t kSharedWindow = 0x10000000ull, kLocalWindow = 0x20000000ull;
  // Each thread's slice of the local window: 16 KiB, or the kernel's deepest .local stack
  // where that is more (local_stride_), up to CUDA's 512 KiB per thread.
  static constexpr unsigned kLocalBytesPerThread = 16 * 1024;
  static constexpr unsigned kMaxLocalBytesPerThread = 512 * 1024;
  // CUDA's default cudaLimitStackSize: a recursive kernel's stack per thread (launch files; a
  // program's cudaDeviceSetLimit sets HostLaunch::stack_bytes).
  static constexpr uint64_t kDefaultStackBytes = 1024;
  // A cooperative launch's grid workspace (CUDA's driver ABI, cooperative_groups'
  // details/driver_abi.h: {u32 size, u32 barrier}), which the driver hands the kernel in
  // %envreg1:%envreg2: at this offset in the timing-only windows, below the shared window,
  // reset at each cooperative launch.
  static constexpr uint64_t kGridWorkspace = 0x08000000ull, kGridWorkspaceBytes = 8;

  // Compiles the kernel of `launch`. Throws WorkloadError for a kernel the model cannot run
  // (recursion, an instruction with more than 8 source or destination registers). `ptxas`:
  // whether ptxas runs for a kernel no ptxas-registers.txt lists, and where its answer is
  // cached (compiler/ptxas_run.h).
  explicit PtxFrontend(const LaunchSpec& launch, const FrontendOptions& options = {},
                       const compiler::PtxasLookup& ptxas = {});
  ~PtxFrontend() override;
  PtxFrontend(const PtxFrontend&) = delete;
  PtxFrontend& operator=(const PtxFrontend&) = delete;

  // IFrontend
  Occupancy start(const SmLimits& limits, unsigned sms, IFunctionalMemory& mem) override;
  // A launch a virtual platform's host programmed (platform/host_interface.h): grid, block and
  // dynamic shared memory from its registers, the kernel's parameter buffer read from memory
  // at `param_address`; the buffers are wherever the host put them (none placed here, no
  // reference check). May be called again once the previous launch is done.
  struct HostLaunch {
    std::array<unsigned, 3> grid{1, 1, 1}, block{1, 1, 1};
    unsigned shared_bytes = 0;
    uint64_t param_address = 0;
    // The host's live allocations (cudaMalloc...), which the kernel's global accesses are
    // checked against with the module's variables; null: the host's memory is not checked.
    const ptx::Allocations* allocations = nullptr;
    // cudaLaunchCooperativeKernel: every CTA resident at once (else the launch is refused
    // with a message naming "cooperative launch"), the grid workspace in %envreg1:%envreg2.
    bool cooperative = false;
    // The host's texture and surface objects (cudaCreateTextureObject...); null: none.
    const ptx::TextureTable* textures = nullptr;
    // The program's device heap (in-kernel malloc/free); null: none.
    ptx::DeviceHeap* heap = nullptr;
    // cudaLimitStackSize: each thread's stack, which bounds a recursive kernel's depth.
    uint64_t stack_bytes = kDefaultStackBytes;
    // Dynamic parallelism: where the kernel's device launches queue; null: none.
    ptx::DeviceLaunches* device_launches = nullptr;
  };
  Occupancy start_hosted(const SmLimits& limits, unsigned sms, IFunctionalMemory& mem,
                         const HostLaunch& h);
  // The launch start_hosted() would start, run on the functional engine alone (libgpurf-cudart's
  // fast-forward, GPURF_TIMED): the same parameters, memory checks, printf and assert, on
  // `mem` (the bytes the timed model uses), CTAs one after another (a cooperative grid's
  // together, each given the grid workspace, every CTA resident or refused); the timing state (the
  // running launch, statistics) is left alone. `refused`: what start_hosted() would have
  // refused (nothing ran); `error`: why the kernel failed.
  struct FastForward {
    std::string refused, error;
    uint64_t warp_instructions = 0;
  };
  FastForward fast_forward(const SmLimits& limits, unsigned sms, IFunctionalMemory& mem,
                           const HostLaunch& h);
  // Another kernel of the same module (hosted: one front-end per kernel): the module's
  // variables get their initial values once, at the first launch of any of its kernels.
  void share_module(const PtxFrontend& other) { module_loaded_ = other.module_loaded_; }
  // The module's variables hold their initial values already (libgpurf-cudart writes them when
  // the program starts, so that a cudaMemcpyToSymbol before the first launch stays).
  void module_initialized() { *module_loaded_ = true; }
  // Application files: the host steps up to the next launch, then that launch.
  bool next_launch(const SmLimits& limits, unsigned sms, IFunctionalMemory& mem,
                   Occupancy& occ) override;
  // An application's launch as its step says: the kernel, its shape (grid, block, dynamic
  // shared memory; param_address unused), its packed parameters and the step's file:line.
  struct AppLaunch {
    std::string kernel;
    HostLaunch shape;
    std::vector<uint8_t> params;
    std::string where;
  };
  // An application that launches several kernels (LaunchSpec::several_kernels) runs on a Gpu
  // that compiled every entry of its modules (platform/gpu.h): begin() places the buffers and
  // the module's variables (start() without the launch), next_app() runs the host steps up to
  // the next launch and describes it (false: the application is over), and the Gpu starts it
  // with start_app_launch() on the front-end compiled for its kernel.
  void begin(IFunctionalMemory& mem);
  bool next_app(IFunctionalMemory& mem, AppLaunch& a);
  Occupancy start_app_launch(const SmLimits& limits, unsigned sms, IFunctionalMemory& mem,
                             const AppLaunch& a);
  // Moves every region start() places in global memory (the launch file's buffers from
  // kBufferBase, the module's variables at frontend.data_base, the timing-only windows at
  // frontend.window_base) up by `offset` (gpu.address_base: several GPUs in one memory).
  // Before start().
  void relocate(uint64_t offset);
  // Those regions, [base, base + bytes), and what each holds; `buffers`: with the launch
  // file's buffers (a hosted GPU places none).
  struct Region {
    uint64_t base, bytes;
    const char* what;
  };
  std::vector<Region> regions(bool buffers) const;
  // The launch running now (its `launch:` label) and how many have started.
  const std::string& launch_label() const { return current_ ? current_->label : launch_.kernel; }
  uint64_t launches() const { return app_ ? app_->launches() : 0; }
  // "launch 3 (step): 40% of 64 CTAs done, ETA 12 s" (the ETA of this launch).
  std::string progress() const override;
  const InstInfo* peek(unsigned warp) override;
  uint64_t offer_epoch() const override { return offer_epoch_; }
  void execute(unsigned warp, WarpInst& out) override;
  void retire(const WarpInst& inst) override;
  bool done() const override;
  bool done_in(unsigned first, unsigned count) const override;
  std::string describe_warp(unsigned warp) const override;

  // After the run: reads every buffer back and calls the workload's reference checker.
  // "" when the outputs are correct, else what is wrong (first mismatch, or why it could not
  // check: kernel not finished, no checker of that name).
  std::string verify_outputs();
  // Whether verify_outputs() checks outputs: a reference checker of the workload's name or
  // `verify:` entries in the launch file (otherwise only the operands are checked).
  bool checks_outputs() const;
  // Buffer i's contents now (after the run: its final bytes), read at its current address.
  std::vector<uint8_t> buffer_contents(size_t i) const;

  const std::string& kernel_name() const { return launch_.kernel; }
  const LaunchSpec& launch() const { return launch_; }
  unsigned regs_per_thread() const { return plan_.regs_per_thread; }
  unsigned preds_per_thread() const { return plan_.preds_per_thread; }
  unsigned predicate_registers() const override { return plan_.preds_per_thread; }
  bool next_divergent(unsigned warp) override;
  uint64_t warps_finished(unsigned warp) const override {
    return warp < warps_.size() ? warps_[warp].finished : 0;
  }
  LaneValues register_value(unsigned warp, unsigned reg) const override {
    return warp < warps_.size() && reg < warps_[warp].shadow.size() ? warps_[warp].shadow[reg]
                                                                    : LaneValues{};
  }
  // ptx_virtual: ptxas's count (GPGPU-Sim sizes occupancy from it), else linear_scan's.
  unsigned occupancy_registers() const override {
    if (options_.regalloc != compiler::RegAllocMode::PtxVirtual) return 0;
    return ptxas_regs_ ? ptxas_regs_ : std::max(1u, scan_regs_);
  }
  unsigned hardware_registers() const override { return ptxas_regs_; }
  unsigned bound_warps() const override;
  const compiler::KernelPlan& plan() const { return plan_; }
  const FrontendOptions& options() const { return options_; }
  // ptxas's register count for the kernel (ptxas-registers.txt beside the PTX, else a run of
  // ptxas); 0: unknown. Where it came from (the table's path or the ptxas command line), and
  // why it is unknown.
  unsigned ptxas_registers() const { return ptxas_regs_; }
  const std::string& ptxas_source() const { return ptxas_source_; }
  // Warnings for the user (printed by whoever runs the front-end): a register count guessed.
  const std::vector<std::string>& warnings() const { return warnings_; }
  // The module the kernel runs: the launch's, its tensor instructions split as issued, or
  // its list-scheduled copy.
  const ptx::Module& module() const {
    return scheduled_ ? *scheduled_ : split_ ? *split_ : *launch_.module;
  }
  // Warp instructions executed functionally but never issued (constant-operand definitions).
  uint64_t hidden_steps() const { return hidden_steps_; }
  // Oracle reuse hints: dynamic instances whose stream differed from the profile run's (they
  // got the majority bits instead).
  uint64_t oracle_mismatches() const { return oracle_mismatches_; }
  // The static record of every instruction of the kernel, indexed by InstInfo::pc.
  const std::vector<InstInfo>& static_info() const { return info_; }
  // A text table of static_info() (pc, line, opcode, pipe, registers, hints) for docs.
  std::string info_table() const;

  // Valid after start().
  unsigned warps_per_cta() const { return warps_per_cta_; }
  unsigned resident_ctas() const { return max_ctas_; } // CTA slots in use at most
  uint64_t buffer_address(const std::string& name) const;
  uint64_t issued() const { return issued_; }
  uint64_t retired() const { return retired_; }
  uint64_t operands_checked() const { return checked_; } // source registers compared
  // Source registers read in lanes their CTA never wrote (they read 0; one warning names the
  // first).
  uint64_t undefined_reads() const { return undefined_reads_; }
  uint64_t predicate_sources() const { return pred_sources_; } // predicate operands read
  // The SMs' clock as they tick (Gpu::clock()): %clock and %clock64 read `cycle`,
  // %globaltimer `ns`; without it (the front-end run alone) they read the warp instructions
  // executed so far. Before start().
  void set_clock(std::function<uint64_t()> cycle, std::function<uint64_t()> ns) {
    cycle_ = std::move(cycle);
    ns_ = std::move(ns);
  }

private:
  struct OperandMap {
    std::array<uint16_t, InstInfo::kMaxSrc> src_vreg{};
    std::array<uint8_t, InstInfo::kMaxSrc> src_half{};
    std::array<uint16_t, InstInfo::kMaxDst> dst_vreg{};
    std::array<uint8_t, InstInfo::kMaxDst> dst_half{};
    std::array<uint16_t, InstInfo::kMaxPred> psrc_vreg{}, pdst_vreg{};
  };
  // The oracle's per-instance reuse bits of one warp, with the pcs they belong to.
  struct OracleStream {
    std::vector<uint32_t> pc;
    ReuseProfiler::InstanceBits bits;
  };
  std::vector<OracleStream> oracle_; // per linear CTA x warps_per_cta + warp in the CTA
  uint64_t oracle_mismatches_ = 0;
  struct CtaSlot {
    bool busy = false;
    unsigned engine_cta = 0, linear = 0, threads = 0;
    uint64_t issued = 0, retired = 0;
  };
  struct WarpSlot {
    int cta_slot = -1; // -1: no CTA
    unsigned engine_warp = 0;
    unsigned lanes = 0;                   // threads of the CTA in this warp
    uint64_t finished = 0;                // warps that finished in this slot
    std::vector<LaneValues> shadow;       // architectural registers as the timing model holds them
    std::vector<int32_t> writer;          // per register: last writing instruction's pc (-1: none)
    std::vector<uint32_t> written;        // per register: lanes its CTA wrote
    std::vector<LaneValues> pshadow;      // predicate registers as last written (0/1 per lane)
    const OracleStream* oracle = nullptr; // oracle reuse hints of this warp's stream
    uint64_t executed = 0;                // instructions executed since its CTA launched
    // peek()'s answer while it offers one: only the warp's own next step changes it.
    const InstInfo* next = nullptr;
    // bar.red issued: the pc of its B2R record, issued once the barrier released (-1: none),
    // and the lanes it writes.
    int b2r = -1;
    uint32_t b2r_mask = 0;
    // cp.async: per group, the copies the timing model has not completed (async_copy.h).
    ptx::AsyncGroups<unsigned> async;
    // Recursive calls in progress, innermost last (build_spills()): the call site, the
    // engine's call depth of its caller, the records issued of the save (then of the restore),
    // the caller frame's save area and the words saved (registers' lanes and written masks).
    struct Spill {
      unsigned site = 0, depth = 0, next = 0;
      bool called = false, restoring = false;
      uint64_t area = 0;
      std::vector<LaneValues> values;
      std::vector<uint32_t> written;
    };
    std::vector<Spill> spills;
  };
  // cp.async records in flight: their warp slot and group.
  std::unordered_map<const WarpInst*, std::pair<unsigned, uint64_t>> copies_;
  // Whether every copy the wait `in` covers has completed in the timing model.
  static bool copies_landed(WarpSlot& w, const ptx::Instr& in);
  // cp.async bookkeeping of an executed instruction (async_copy.h).
  void track_async(unsigned warp, const ptx::StepResult& r, WarpInst& out);
  // bar.red: the barrier part keeps the instruction's pc, a B2R record after the layout's
  // pcs writes its destination (split_bar_red()).
  void split_bar_red();
  // A call writes 0 into the registers its callee may read before writing them
  // (OperandMap::dst_vreg kZeroVreg).
  void zero_callee_frames();
  static constexpr uint16_t kZeroVreg = 0xffff;
  // Recursive calls (compiler/compile.h): before a call that may re-enter its SCC's register
  // window, a 32-bit local store per saved word (a register, or up to kMaxPred predicates
  // packed as P2R does), after it returns a local load per word, into the caller frame's save
  // area; records after the layout's pcs (spill_of_[call pc]: the first save record's pc and the
  // words; the restores follow the saves).
  void build_spills();
  struct SpillSite {
    unsigned first = 0, words = 0;
    const ptx::Function* func = nullptr; // the caller
    const ptx::Instr* call = nullptr;
  };
  std::vector<SpillSite> spill_of_;
  struct SpillRec {
    unsigned site = ~0u, word = 0, value = 0; // value: index of its first value in Spill::values
    bool restore = false;
  };
  std::vector<SpillRec> spill_rec_; // per pc (site ~0u: not a save or restore)
  std::vector<std::unique_ptr<std::string>> spill_names_;
  // The save or restore record `warp` offers next, if any (peek()).
  const InstInfo* next_spill(WarpSlot& w, const ptx::Peek& p);
  // Issues a save or restore record: values from the engine's caller frame or the save.
  void execute_spill(unsigned warp, const InstInfo& info, WarpInst& out);
  // After a step of the engine: a recursive call returned (its restores come next).
  void returned(WarpSlot& w);
  // A source's value against the shadow register file (a difference: an allocation error).
  void check_source(unsigned warp, const ptx::Function& f, const ptx::Instr& in, unsigned k,
                    unsigned vreg, const RegOperand& o) const;
  // A recursive kernel's stack per thread: cudaLimitStackSize (HostLaunch::stack_bytes), at
  // least the kernel's deepest frames with each recursive SCC once, at most
  // kMaxLocalBytesPerThread; sizes local_stride_.
  uint64_t stack_bytes_ = kDefaultStackBytes;
  uint64_t stack_limit() const;
  void size_local_stride();
  std::vector<int> b2r_of_; // per layout pc: its B2R record's pc (-1: not a bar.red)
  std::vector<std::unique_ptr<std::string>> b2r_names_;
  // Oracle reuse bits of this dynamic instance of `w`, when its stream is the profile run's.
  bool oracle_bits(WarpSlot& w, const InstInfo& info, uint32_t& bits);
  // Issues warp `warp`'s pending B2R: its destination from the engine's register.
  void execute_b2r(unsigned warp, WarpInst& out);

  // The launch in launch_ (grid, block, shared memory) with params_: the kernel, residency
  // and the first CTAs.
  Occupancy launch(const SmLimits& limits, unsigned sms);
  // The application's next launch (its host steps run first) into `a`; false when none is
  // left. A step's grid, block, shared memory and parameters are evaluated here.
  bool next_app_launch(IFunctionalMemory& mem, AppLaunch& a);
  // Sets launch_'s shape and params_ from `a` (the kernel of this front-end).
  void take(const AppLaunch& a);
  // The file's grid, block and dynamic shared memory (a step may launch with others; the
  // reference checker gets these).
  std::array<unsigned, 3> file_grid_{}, file_block_{};
  unsigned file_shared_ = 0;
  std::string file_shared_where_;
  bool file_cooperative_ = false;
  bool app_over_ = false;                // next_app() found no launch left
  std::function<uint64_t()> cycle_, ns_; // set_clock()
  // The engine's configuration of the launch in launch_; `init_data`: write the module's
  // variables' initial values.
  ptx::LaunchConfig config(bool init_data) const;
  // Module load, before the first launch (cudaModuleLoad): the .global/.const variables get
  // their initial values once, and buffers placed at variables (`symbol:`) their addresses.
  void load_module();
  std::shared_ptr<bool> module_loaded_ = std::make_shared<bool>(false);
  std::chrono::steady_clock::time_point launched_; // host time the launch started
  // The `verify:` entries against their files: "" or the first mismatch.
  std::string verify_files() const;
  unsigned func_base(const ptx::Function* f) const;
  // Stops a kernel that can never end (loop_watch.h); after every executed instruction.
  void watch_loops(unsigned warp, const InstInfo& info, const WarpInst& out);
  // The progress bound's message: the bound and the PTX lines where the warps are.
  std::string runaway_message(unsigned warp, const InstInfo& info) const;
  // Where the warps wait (ptx line -> warps) after `since` warp instructions without progress;
  // `what` prefixes the message.
  std::string runaway_message(const std::map<unsigned, unsigned>& at, uint64_t since,
                              const std::string& what) const;
  // The pc (InstInfo::pc) of the instruction an engine peek offers.
  unsigned pc_of(const ptx::Peek& p) const;
  // Malekeh's reuse hints: runs the first CTAs functionally on a private overlay of the
  // memory and sets src_reuse_near / dst_reuse_near in the records.
  // `resident`: the CTAs the device holds at once (a retry runs them together).
  void profile_reuse(const ptx::LaunchConfig& cfg, unsigned resident);
  // One profile run, `group` CTAs at once under `bound`; false: over the bound (`runaway`:
  // the message).
  bool profile_run(const ptx::LaunchConfig& cfg, unsigned group, uint64_t bound,
                   std::string& runaway);
  // Lanes of the slot's warp that hold a thread.
  static uint32_t thread_mask(const WarpSlot& w) {
    return w.lanes >= 32 ? 0xffffffffu : ((1u << w.lanes) - 1);
  }
  void launch_into(unsigned cta_slot);
  uint64_t map_address(unsigned warp, unsigned lane, const InstInfo& info, int space,
                       uint64_t addr) const;

  LaunchSpec launch_; // its vars and buffer_addr_ are what the application's steps left
  std::map<std::string, int64_t> initial_vars_; // the file's (the reference checkers get them)
  std::unique_ptr<AppRunner> app_;
  const AppStep* current_ = nullptr;
  FrontendOptions options_;
  void set_control_bits(); // frontend.control_bits: the compiler's bits into info_
  // The CFG edges between `code`'s entries; homes[k]: where entry k sits in the function.
  void set_control_flow(const ptx::Cfg& g, const std::vector<unsigned>& homes, unsigned base,
                        std::vector<compiler::CtrlInst>& code);
  unsigned ptxas_regs_ = 0;
  unsigned scan_regs_ = 0; // linear_scan's count (ptx_virtual without ptxas's)
  std::string ptxas_source_;
  std::vector<std::string> warnings_;
  std::unique_ptr<ptx::Module> split_;     // tensor instructions as issued (tensor_split.h)
  std::unique_ptr<ptx::Module> scheduled_; // Schedule::List
  std::vector<bool> hidden_;               // per pc: a constant-operand definition
  compiler::KernelPlan plan_;
  std::vector<const ptx::Function*> layout_; // functions in pc layout order
  std::vector<unsigned> layout_base_;
  std::vector<InstInfo> info_;
  std::vector<OperandMap> maps_;
  std::vector<uint8_t> params_;

  IFunctionalMemory* mem_ = nullptr;
  std::unique_ptr<ptx::GlobalMemory> adaptor_;
  // What the kernel's global accesses must hit (frontend.memory_check): the launch file's
  // buffers or the host's allocations, and the module's variables; unchecked_: a hosted
  // launch whose host gave none.
  ptx::Allocations allocations_, buffer_allocations_; // the launch's; the file's buffers
  ptx::TextureTable textures_; // the launch file's texture and surface objects (at the buffers)
  ptx::DeviceHeap* heap_ = nullptr; // the program's device heap (in-kernel malloc; host launch)
  ptx::DeviceLaunches* device_launches_ = nullptr; // dynamic parallelism's queue (host launch)
  bool unchecked_ = false;
  void use_allocations(const ptx::Allocations* given); // a launch's (null: unchecked)
  // The module's variables, placed by `k`, to `a`.
  void add_variable_allocations(const ptx::Kernel& k, ptx::Allocations& a) const;
  void host_shape(IFunctionalMemory& mem, const HostLaunch& h); // start_hosted's launch_
  std::unique_ptr<ptx::Kernel> kernel_;
  // The engine's report of the instruction just run, kept so that its vectors are not
  // reallocated per instruction.
  std::unique_ptr<ptx::StepResult> step_;
  // Runs the engine's next instruction of a warp into step_.
  void step_engine(unsigned engine_warp);
  uint64_t offer_epoch_ = 1;
  std::vector<uint64_t> buffer_addr_;
  uint64_t buffer_base_ = kBufferBase; // relocate()
  std::vector<CtaSlot> ctas_;
  std::vector<WarpSlot> warps_;
  // The warp slot of warp `i` of CTA slot `cta_slot` (CTA slots numbered SM by SM).
  unsigned warp_of(unsigned cta_slot, unsigned i) const;
  // A launch whose CTA's shared memory exceeds `limit` (`what`): names the launch file and
  // key, the static and dynamic parts and the limit (thrown as a ConfigError: exit 2).
  // A cooperative launch: refused unless every CTA is resident at once; the grid workspace
  // reset.
  void start_cooperative(uint64_t ctas, unsigned ctas_per_sm, unsigned sms, ptx::GlobalMemory& mem);
  std::string shared_memory_error(uint64_t static_bytes, uint64_t limit,
                                  const std::string& what) const;
  unsigned sm_warps_ = 0;                        // warp slots per SM
  uint64_t local_stride_ = kLocalBytesPerThread; // a thread's slice of the local window
  unsigned warps_per_cta_ = 0, max_ctas_ = 0, next_cta_ = 0, total_ctas_ = 0, live_ctas_ = 0;
  uint64_t issued_ = 0, retired_ = 0, checked_ = 0, pred_sources_ = 0, hidden_steps_ = 0;
  uint64_t undefined_reads_ = 0;
  LoopWatch loops_;
  std::vector<bool> control_; // control_registers() of the kernel, when first needed
};

} // namespace gpurf
