// The warp instruction record: everything a unit of the timing model may need to know about
// one dynamic warp instruction. The front-end fills it (static part at decode, values at
// functional execution); the timing model only reads it, except for the timing fields.
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace gpurf {

using Cycle = uint64_t;
constexpr Cycle kNever = ~Cycle(0);
constexpr unsigned kWarpSize = 32;
constexpr unsigned kRegBytes = kWarpSize * 4; // one 32-bit warp register = 128 B
using LaneValues = std::array<uint32_t, kWarpSize>;

// Execution pipes. A pipe with count 0 in the platform folds onto SP.
enum class Pipe : uint8_t { SP, INT, DP, SFU, MEM, TENSOR };
constexpr unsigned kNumPipes = 6;
inline const char* pipe_name(Pipe p) {
  static const char* const names[] = {"sp", "int", "dp", "sfu", "mem", "tensor"};
  return names[static_cast<unsigned>(p)];
}
bool pipe_from_name(const std::string& s, Pipe& out);

// Latency classes: what an instruction does, as far as its timing goes (the front-end
// classifies each PTX instruction by opcode and type, docs/frontend.md). A platform gives a
// class its own latency, initiation interval and pipe (exec.classes); by default a class
// runs on the pipe the front-end chose with that pipe's timing. `unclassified`: hand-built
// instructions (scripted workloads, tests), always timed by their pipe.
enum class OpClass : uint8_t {
  Unclassified,
  IntAdd,         // add/sub/addc/subc on integers
  IntMinMax,      // min/max on integers
  IntLogic,       // and/or/xor/not/cnot/lop3, shifts, bit fields, popc/clz/brev/prmt/sad, abs/neg
  IntMul,         // mul (lo/hi/wide), mul24
  IntMad,         // mad, madc, mad24
  IntDiv,         // div, rem
  Compare,        // setp/testp (not f64), selp, slct
  FpAdd,          // add/sub/abs/neg/copysign f32
  FpMinMax,       // min/max f32
  FpMul,          // mul f32
  FpFma,          // fma/mad f32
  FpDiv,          // div f32
  RcpSqrt,        // rcp/sqrt/rsqrt f32
  Transcendental, // sin/cos/ex2/lg2
  DpAdd,          // add/sub/abs/neg/copysign/setp/testp f64
  DpMinMax,       // min/max f64
  DpMul,          // mul f64
  DpFma,          // fma/mad f64
  DpDiv,          // div f64
  DpRcpSqrt,      // rcp/sqrt/rsqrt f64
  Cvt,            // cvt without f64
  DpCvt,          // cvt to or from f64
  Move,           // mov, cvta
  Shfl,           // shfl, match
  Vote,           // vote, activemask
  Control,        // bra, call, ret, exit, bar, membar, fence, nanosleep
  Mem,            // ld, ldu, st, atom, red, prefetch (timed by the LSU)
  Tensor,         // mma.sync
};
constexpr unsigned kNumOpClasses = static_cast<unsigned>(OpClass::Tensor) + 1;
inline const char* op_class_name(OpClass c) {
  static const char* const names[kNumOpClasses] = {
      "unclassified", "int_add",  "int_minmax",     "int_logic", "int_mul",   "int_mad",
      "int_div",      "compare",  "fp_add",         "fp_minmax", "fp_mul",    "fp_fma",
      "fp_div",       "rcp_sqrt", "transcendental", "dp_add",    "dp_minmax", "dp_mul",
      "dp_fma",       "dp_div",   "dp_rcp_sqrt",    "cvt",       "dp_cvt",    "move",
      "shfl",         "vote",     "control",        "mem",       "tensor"};
  return names[static_cast<unsigned>(c)];
}

// Where a register value is stored or read from. Bypass: forwarded from the result of an
// instruction still in flight (fixed-stage register read, collector/impl/fixed_stage.cpp).
// Ccu: the cache table of a caching collector unit (Malekeh, collector/impl/ccu.cpp).
// Rename: no storage; a logical register remapped to a physical register that already holds
// the value (WIR's register reuse, writeback/impl/wir.cpp).
enum class Store : uint8_t { Bank, Rfc, Bypass, Ccu, Rename };
inline const char* store_name(Store s) {
  static const char* const names[] = {"bank", "rfc", "bypass", "ccu", "rename"};
  return names[static_cast<unsigned>(s)];
}

enum class MemSpace : uint8_t { None, Global, Shared, Local, Param, Const };
constexpr unsigned kMemSpaces = 6;
enum class MemKind : uint8_t { None, Load, Store, Atomic };

// One 32-bit architectural register operand (64-bit PTX values use an aligned pair).
struct RegOperand {
  uint16_t reg = 0;
  // Compiler hints, filled once per kernel by the front-end's passes.
  bool last_read = false;    // Gebhart: this read is the register instance's last
  bool reuse_near = false;   // Malekeh: reuse distance below the threshold
  bool long_latency = false; // value is produced by a long-latency (memory) operation
  // Sources: sequence number of the instruction whose value the read must return (0: the
  // register was not written since the SM started). Set by the SM at issue; under register
  // renaming (WIR) by the rename stage: the producer of the physical register's value.
  uint64_t version = 0;
  // WIR: the physical register the operand maps to (renamed sources; destinations once the
  // register-allocation stage chose); -1: no renaming.
  int32_t phys = -1;
  LaneValues value{}; // functional per-lane value (source: read; destination: result)
};

// Static description of an instruction; identical for every dynamic instance.
struct InstInfo {
  uint32_t pc = 0;       // instruction index within the kernel
  uint32_t ptx_line = 0; // source line in the PTX file (0: hand-built)
  const char* opname = "?";
  Pipe pipe = Pipe::SP; // the pipe the front-end chose (a platform may move the class)
  OpClass op_class = OpClass::Unclassified;
  uint8_t n_src = 0, n_dst = 0;
  static constexpr unsigned kMaxSrc = 12, kMaxDst = 8; // mma: 10 fragment registers
  std::array<uint16_t, kMaxSrc> src_reg{};
  std::array<uint16_t, kMaxDst> dst_reg{};
  std::array<bool, kMaxSrc> src_last_read{};
  std::array<bool, kMaxSrc> src_reuse_near{};
  std::array<bool, kMaxDst> dst_reuse_near{}; // Malekeh: the result is read again soon
  // frontend.reg64: one_operand (GPGPU-Sim's PTX mode): bit k set = source / destination k
  // is the high half of the 64-bit PTX register whose low half is operand k - 1; the pair is
  // one register-file operand (one bank access, one collector write; docs/cmrc.md).
  uint16_t src_hi = 0, dst_hi = 0;
  bool src_is_hi(unsigned k) const { return src_hi >> k & 1; }
  bool dst_is_hi(unsigned k) const { return dst_hi >> k & 1; }
  // Predicate registers read (guard, selp/addc inputs) and written (setp, carry-out), in the
  // separate predicate file; scoreboarded like data registers (index regs_per_thread + p).
  static constexpr unsigned kMaxPred = 4;
  uint8_t n_psrc = 0, n_pdst = 0;
  std::array<uint16_t, kMaxPred> psrc_reg{}, pdst_reg{};
  // Gebhart RFC hints per destination (compiler/rfc_hints.h): never read (dead on definition);
  // not read before the warp is next deactivated (bypass the RFC, Sec. 5.3); not read before
  // the next long-latency operation (evict first, Sec. 5.3).
  std::array<bool, kMaxDst> dst_dead{};
  std::array<bool, kMaxDst> dst_unread_before_suspend{};
  std::array<bool, kMaxDst> dst_evict_first{};
  // Control bits of current NVIDIA cores (Huerta et al., MICRO'25, Sec. 4; set by
  // compiler/control_bits.h when frontend.control_bits is on): reuse bit of source k (bit k,
  // k < 3: the register-file cache's operand slots), stall count, yield, the dependence
  // counters incremented at issue and decremented at the write-back (wr_sb) or the operand
  // read (rd_sb; kNoSb: none), the counters that must be zero before issue (wait_mask).
  static constexpr uint8_t kNoSb = 7;
  uint8_t reuse_mask = 0, stall = 1, wr_sb = kNoSb, rd_sb = kNoSb, wait_mask = 0;
  bool yield = false;
  // WIR reuse-buffer tag, static part (compiler/reuse_key.h): the computation's identity
  // apart from its register sources (0: never reused), and the source slot of each register
  // operand in operand order.
  uint32_t reuse_op = 0;
  uint8_t reuse_n = 0;
  std::array<uint8_t, 3> reuse_src{};
  MemSpace reuse_load = MemSpace::None; // a reusable load: its space (Const: read-only)
  uint8_t reuse_why = 0;                // not reusable: why (compiler/reuse_key.h ReuseKey::Why)
  // The operation apart from its register values (compiler/reuse_key.h computation_op): two
  // instances with equal ids and equal input and result values repeat one computation.
  uint32_t computation_op = 0;
  bool consumes_long_latency = false; // two-level scheduler: suspend before issuing
  bool produces_long_latency = false; // global/local/texture load
  MemSpace space = MemSpace::None;
  // A generic-address access (space Global here): it may reach shared memory as well.
  bool generic = false;
  MemKind mem = MemKind::None;
  bool barrier = false; // bar.sync / bar.red: the warp waits for its CTA
  // A fence (membar, fence) or an acquire load or atomic: other threads' stores it
  // synchronises with are visible to the warp's later loads (WIR: a new load-reuse phase).
  bool acquire = false;
  bool exit = false; // the warp (or its active threads) finish
  // cp.async (docs/ptx.md "Asynchronous copies"): a copy (a global read, mem = Load), a
  // commit_group, a wait_group for all but the async_n newest committed groups, a wait_all.
  enum class Async : uint8_t { None, Copy, Commit, Wait, WaitAll };
  Async async = Async::None;
  uint8_t async_n = 0;
};

struct WarpInst {
  const InstInfo* info = nullptr;
  uint32_t warp = 0; // warp slot in the SM
  uint32_t cta = 0;  // CTA slot in the SM
  uint64_t seq = 0;  // dynamic sequence number within the SM, from 1 (set by the SM at issue)
  uint32_t active_mask = 0;
  uint32_t thread_mask = 0xffffffffu; // lanes that hold a thread (a CTA's last warp may have fewer)
  // Ran with fewer lanes than the warp has threads (SIMT divergence or a partial guard).
  bool divergent() const { return active_mask != thread_mask; }
  // Not a program instruction: inserted by the timing model (Warped-Compression's dummy MOV).
  bool injected = false;
  // WIR: its result was reused; it bypassed register read, execution and write.
  bool reused = false;
  // WIR: it looked the reuse buffer up and missed, so it records its tag (these dynamic parts
  // included: the thread block of a shared-memory load, -1 none; the barrier count of a load)
  // at retire, holding references on the tag's registers until then.
  bool reuse_tagged = false;
  int16_t reuse_block = -1;
  uint8_t reuse_barriers = 0;
  uint8_t n_src = 0, n_dst = 0; // equal to info's; copied for locality
  std::array<RegOperand, InstInfo::kMaxSrc> src;
  std::array<RegOperand, InstInfo::kMaxDst> dst;
  // Predicate operands' per-lane values (0/1), in psrc_reg/pdst_reg order: what a platform
  // that keeps predicates in the banks reads and writes there.
  std::array<LaneValues, InstInfo::kMaxPred> psrc_value{}, pdst_value{};
  // Memory access, per lane (valid where the lane is active).
  uint8_t access_bytes = 0; // bytes per lane per access
  std::array<uint64_t, kWarpSize> addr{};
  // Timing, filled by the timing model.
  Cycle issue_cycle = 0, dispatch_cycle = 0, complete_cycle = 0, retire_cycle = 0;
  unsigned subcore = 0, scheduler = 0;
  uint8_t wb_sent = 0, wb_pending = 0; // writeback progress over the destinations
  // Dependents of the data destinations were released early (ValueReady): their values
  // reach them through forwarding; the write still releases WAW.
  bool value_ready = false;
};

} // namespace gpurf
