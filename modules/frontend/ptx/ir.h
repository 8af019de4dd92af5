// PTX intermediate representation (plain C++, no SystemC).
//
// A parsed PTX file is a `Module`; each `.entry`/`.func` is a `Function` holding a flat vector
// of `Instr`. Registers are *virtual registers* (`VReg`) indexed by a dense per-function id:
// every `.reg` declaration (the range form `%r<N>` expanded to %r0..%r(N-1), scoped `{ }`
// declarations included) gets one id, in declaration order.
//
// Operand conventions (what a pass can rely on):
//   * `Instr::dst` holds the written operands, `Instr::src` the read operands, in PTX order.
//   * Memory ops: ld      dst={value (Reg or Vector)}            src={Addr}
//                 st      dst={}                                 src={Addr, value (Reg/Imm/Vector)}
//                 atom    dst={d}                                src={Addr, b [, c for cas]}
//                 red     dst={}                                 src={Addr, b}
//   * setp p|q:           dst={p [, q]}  src={a, b [, c (bool-op predicate, may be negated)]}
//   * shfl.sync d|p:      dst={d [, p]}  src={a, b, c, membermask}
//   * vote.sync:          dst={d}        src={pred-or-b32, membermask}
//   * bra:                dst={}         src={Label}
//   * call:               dst={return-param Symbol...} src={arg-param Symbol...}; callee in
//                         `Instr::callee` (function index in the module). Call arguments live
//                         in `.param` space, so a call itself reads/writes no vreg.
//   * `Instr::guard` is the guard predicate (`@%p` / `@!%p`), -1 when absent. It is read
//     by the instruction and is reported by reads_writes().
// Vreg ids are `unsigned` indexes into `Function::regs`.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "gpurf/modules/common/warp_inst.h" // gpurf::Pipe (header-only use)
#include "gpurf/modules/frontend/ptx/mma.h" // TensorSpec

namespace gpurf::ptx {

// ---------------------------------------------------------------------------------------------
// Types and modifiers
// ---------------------------------------------------------------------------------------------
enum class Type : uint8_t {
  None,
  B8,
  B16,
  B32,
  B64,
  U8,
  U16,
  U32,
  U64,
  S8,
  S16,
  S32,
  S64,
  F32,
  F64,
  F16,    // binary16 (modules/frontend/ptx/half.h)
  F16X2,  // two f16 in 32 bits, low half first
  BF16,   // bfloat16
  BF16X2, // two bf16
  Pred,
};
// Inline: the engine asks these per lane and operand.
inline unsigned type_bits(Type t) { // Pred: 1, None: 0
  switch (t) {
  case Type::B8:
  case Type::U8:
  case Type::S8:
    return 8;
  case Type::B16:
  case Type::U16:
  case Type::S16:
  case Type::F16:
  case Type::BF16:
    return 16;
  case Type::B32:
  case Type::U32:
  case Type::S32:
  case Type::F32:
  case Type::F16X2:
  case Type::BF16X2:
    return 32;
  case Type::B64:
  case Type::U64:
  case Type::S64:
  case Type::F64:
    return 64;
  case Type::Pred:
    return 1;
  case Type::None:
    return 0;
  }
  return 0;
}
inline unsigned type_bytes(Type t) { return t == Type::Pred ? 1 : type_bits(t) / 8; }
inline bool type_is_float(Type t) { return t == Type::F32 || t == Type::F64; }
inline bool type_is_half(Type t) { // f16, bf16 and their pairs
  return t == Type::F16 || t == Type::F16X2 || t == Type::BF16 || t == Type::BF16X2;
}
inline bool type_is_signed(Type t) { // S8..S64 only
  return t == Type::S8 || t == Type::S16 || t == Type::S32 || t == Type::S64;
}
const char* type_name(Type t); // "s32", "pred"...

// State spaces.
enum class Space : uint8_t { None, Generic, Global, Shared, Local, Param, Const, Reg };
const char* space_name(Space s);

// Rounding / precision modifiers. RNI..RPI are the integer-rounding forms of cvt (and
// cvt.f32.f32 round-to-integral); Approx/Full are the div/rcp/sqrt precision forms.
// RNA: to nearest, ties away from zero (cvt.rna.tf32.f32 alone).
enum class Round : uint8_t { None, RN, RZ, RM, RP, RNI, RZI, RMI, RPI, Approx, Full, RNA };

enum class CmpOp : uint8_t {
  None,
  EQ,
  NE,
  LT,
  LE,
  GT,
  GE, // signed / ordered float
  LO,
  LS,
  HI,
  HS, // unsigned
  EQU,
  NEU,
  LTU,
  LEU,
  GTU,
  GEU, // unordered float
  NUM,
  NaN,
};
enum class BoolOp : uint8_t { None, And, Or, Xor, Popc }; // Popc: bar.red.popc only
enum class MulMode : uint8_t { None, Lo, Hi, Wide };
enum class AtomOp : uint8_t {
  None,
  Add,
  Min,
  Max,
  Inc,
  Dec,
  Exch,
  Cas,
  And,
  Or,
  Xor,
  // mbarrier (sm_80): a 64-bit barrier object in shared memory updated atomically (mbarrier.h)
  MbarInit,
  MbarInval,
  MbarArrive,
  MbarArriveDrop,
  MbarTestWait,
  MbarTestWaitParity
};
enum class ShflMode : uint8_t { None, Up, Down, Bfly, Idx };
enum class VoteMode : uint8_t { None, All, Any, Uni, Ballot };
enum class PrmtMode : uint8_t { Default, F4E, B4E, RC8, ECL, ECR, RC16 };
// bar.sync == barrier.sync; Warp: bar.warp.sync (a functional no-op: lanes are converged)
enum class BarMode : uint8_t { None, Sync, Arrive, Red, Warp };
enum class TestpMode : uint8_t { None, Finite, Infinite, Number, NotANumber, Normal, Subnormal };
enum class MatchMode : uint8_t { None, Any, All };
// The SIMD video instructions' operation (vadd2 ... vmax4: Instr::vec holds 2 or 4 elements).
enum class VideoOp : uint8_t { None, Add, Sub, Avrg, Absdiff, Min, Max };
enum class CvtFormat : uint8_t { None, Tf32, E4M3x2, E5M2x2 };

enum class Op : uint16_t {
  // integer / bit
  Add,
  Sub,
  Mul,
  Mad,
  Mul24,
  Mad24,
  Div,
  Rem,
  Abs,
  Neg,
  Min,
  Max,
  Addc,
  Subc,
  Madc, // carry-in forms (add.cc etc. are Add/Sub/Mad with Instr::cc)
  Popc,
  Clz,
  Brev,
  Bfe,
  Bfi,
  Bfind,
  Prmt,
  And,
  Or,
  Xor,
  Not,
  Cnot,
  Shl,
  Shr,
  // floating point (also Add/Sub/Mul/Mad/Div/Abs/Neg/Min/Max above with a float type)
  Fma,
  Rcp,
  Sqrt,
  Rsqrt,
  Ex2,
  Lg2,
  Sin,
  Cos,
  // comparison / selection / conversion / moves
  Setp,
  Selp,
  Slct,
  Cvt,
  Cvta,
  Mov,
  // memory
  Ld,
  Ldu,
  St,
  Atom,
  Red,
  Prefetch,
  // control flow
  Bra,
  Call,
  Ret,
  Exit,
  // synchronisation / warp-level
  Bar,
  Membar,
  Fence,
  Shfl,
  Vote,
  Activemask,
  Match,
  Nanosleep,
  // late additions (math-library helpers)
  Copysign,
  Testp,
  Lop3,
  Shf,
  Sad,
  Trap,
  // warp-level matrix instructions (mma.h): dst={Vector}, src={Vector a, Vector b, Vector c}
  // for mma; src={Addr} for ldmatrix; src={Reg} for movmatrix
  Mma,
  Ldmatrix,
  Movmatrix,
  // warp reductions, integer dot products, find-nth-set, leader election (warp_ops.h)
  Redux,
  Dp4a,
  Dp2a,
  Fns,
  Elect,
  // asynchronous copies global -> shared (async_copy.h)
  CpAsync,       // cp.async: src={Addr shared dst, Addr global src, Imm cp-size [, src-size]}
  CpAsyncCommit, // cp.async.commit_group
  CpAsyncWait,   // cp.async.wait_group N: src={Imm N}; cp.async.wait_all: src={}, cp_all
  // textures and surfaces (texture.h): dst/src as for ld/st, the address [handle, {coords}]
  // split into src[0] = handle register, src[1] = coordinate vector (sust: src[2] = value)
  Tex,
  Tld4,
  Suld,
  Sust,
  Bmsk, // bmsk.{clamp,wrap}.b32 d, a, b (shf_clamp)
  // wmma (mma.h; which one: tensor.wmma): load dst={Vector} src={Addr[, stride]}; store
  // src={Addr, Vector[, stride]}; mma dst={Vector d} src={Vector a, Vector b, Vector c}
  Wmma,
  Set,      // set.CmpOp[.BoolOp].dtype.stype d, a, b[, c]: the comparison as a value of dtype
  Tanh,     // tanh.approx.f32 (what tanhf compiles to with -use_fast_math, and __tanhf)
  Vsimd,    // vadd2/4, vsub, vavrg, vabsdiff, vmin, vmax (warp_ops.h): d, a, b, c; which in `video`
  Isspacep, // isspacep.space p, a: whether generic address a is in `space`'s window
  // griddepcontrol.wait / .launch_dependents (programmatic dependent launch, sm_90): gpurf
  // runs a stream's grids one after another, so the grids waited for have completed (no-ops)
  Griddepcontrol,
  Count_
};
// The operations the engine computes on f16/bf16 values (half.h); moves, selects, loads and
// stores of them are bits; any other is refused at load.
inline bool half_arithmetic(Op op) {
  return op == Op::Add || op == Op::Sub || op == Op::Mul || op == Op::Fma || op == Op::Neg ||
         op == Op::Abs || op == Op::Min || op == Op::Max || op == Op::Setp || op == Op::Cvt ||
         op == Op::Set || op == Op::Tanh || op == Op::Ex2;
}
const char* op_name(Op op); // base mnemonic, e.g. "add"

// Special registers (component selects .x/.y/.z where applicable).
enum class SReg : uint8_t {
  Tid,
  Ntid,
  Ctaid,
  Nctaid,
  Laneid,
  Warpid,
  Nwarpid,
  Smid,
  Nsmid,
  Gridid,
  Clock,
  Clock64,
  Globaltimer,
  LanemaskEq,
  LanemaskLe,
  LanemaskLt,
  LanemaskGe,
  LanemaskGt,
  DynamicSmemSize,
  TotalSmemSize,
  Envreg, // %envreg<32>, the driver's values (component = the register's number)
  // %reserved_smem_offset_{begin,end,cap,0,1} (sm_80+): the CTA's reserved shared memory,
  // which cooperative groups' multi-warp tiles use (Offset: component 0 or 1 for _0 / _1)
  ReservedSmemBegin,
  ReservedSmemEnd,
  ReservedSmemCap,
  ReservedSmemOffset,
};

// ---------------------------------------------------------------------------------------------
// Operands
// ---------------------------------------------------------------------------------------------
// A reference to a named variable: a module-scope declaration, a function-scope declaration
// (.shared/.local/.param incl. call-sequence .param), a parameter or return parameter of the
// current function, or a function (for address-of a function: not supported at run time).
struct SymRef {
  enum class Scope : uint8_t { None, Global, Local, Param, RetParam, Function };
  Scope scope = Scope::None;
  unsigned index = 0; // into Module::vars, Function::locals, Function::params,
                      // Function::ret_params or Module::functions
};

struct Operand {
  enum class Kind : uint8_t {
    None,
    Reg,     // vreg `reg`; `negate` for a `!%p` predicate source
    Imm,     // immediate: `imm` holds the bits; see ImmKind
    Addr,    // [base + offset]: base is vreg `reg` (has_base_reg) or symbol `sym`, or absolute
    Symbol,  // bare symbol name used as a value (address-of) or a call parameter
    Label,   // branch target: instruction index `label`
    Special, // special register `sreg`, component `comp` (0..2 = x,y,z)
    Vector,  // { e0, e1, ... }: elements are Reg, Imm or Sink
    Sink,    // `_`
  };
  enum class ImmKind : uint8_t { Int, F32, F64 }; // F32: 0fXXXXXXXX; F64: 0dXXX.. or decimal

  Kind kind = Kind::None;
  bool negate = false;       // Reg predicate `!%p`
  unsigned reg = 0;          // Reg / Addr base
  bool has_base_reg = false; // Addr
  ImmKind imm_kind = ImmKind::Int;
  uint64_t imm = 0;           // Imm: integer value (two's complement) or float bits
  int64_t offset = 0;         // Addr: byte offset; Symbol: offset too (sym+off in initialisers)
  SymRef sym;                 // Addr (no base reg) / Symbol
  std::string name;           // Symbol / Addr-with-symbol / Label: name as written
  unsigned label = 0;         // Label: target instruction index
  SReg sreg = SReg::Tid;      // Special
  uint8_t comp = 0;           // Special component x,y,z = 0,1,2
  std::vector<Operand> elems; // Vector

  bool is_reg() const { return kind == Kind::Reg; }
};

// ---------------------------------------------------------------------------------------------
// Declarations
// ---------------------------------------------------------------------------------------------
struct VReg {
  std::string name; // "%r5", "%p1", "%SP"...
  Type type = Type::None;
  unsigned width_bits = 32; // 1 for pred, else 8/16/32/64
  bool is_pred = false;
};

// A `.global/.const/.shared/.local/.param` variable (module or function scope).
struct VarDecl {
  std::string name;
  Space space = Space::None;
  Type type = Type::None;    // element type (.b8 for byte arrays)
  unsigned vec = 1;          // .v2/.v4 element vectors
  unsigned align = 1;        // bytes (default: element size)
  uint64_t size = 0;         // total bytes (0 for `.extern .shared x[]`: dynamic shared memory)
  bool is_extern = false;    // .extern (dynamic shared memory when .shared and unsized)
  bool is_visible = false;   // .visible
  std::vector<uint8_t> init; // initial bytes (empty: zero-filled); size == `size` if non-empty
  // Initialiser entries that are addresses of other symbols (generic address of `name` +
  // `offset` stored as 8 bytes (or 4 with .u32) at `at`); resolved by the engine.
  struct AddrInit {
    uint64_t at = 0;
    unsigned bytes = 8;
    std::string name;
    int64_t offset = 0;
  };
  std::vector<AddrInit> addr_inits;
  // Function-local .param declared in a call-sequence `{ }` block: its scope id (>0).
  unsigned scope = 0;
  unsigned line = 0; // line of the declaration in the PTX file (messages)
};

// A function parameter or return parameter.
struct Param {
  std::string name;
  Type type = Type::B8;
  unsigned size = 0;   // bytes
  unsigned align = 1;  // bytes
  unsigned offset = 0; // byte offset in the parameter buffer (aligned, in declaration order)
  bool is_ptr = false; // `.ptr` attribute present
  Space ptr_space = Space::None; // `.ptr .global` etc.
};

// ---------------------------------------------------------------------------------------------
// Instructions
// ---------------------------------------------------------------------------------------------
struct Instr {
  Op op = Op::Mov;
  std::string text;        // the mnemonic as written, e.g. "ld.global.nc.v4.f32" (diagnostics)
  Type type = Type::None;  // the (destination) type: add.s32 → S32; cvt.f32.s32 → F32
  Type type2 = Type::None; // second type: cvt source type, slct selector type, setp: unused
  Round rnd = Round::None;
  bool ftz = false, sat = false;
  bool relu = false, satfinite = false, nan = false; // f16/bf16: .relu, .satfinite; min/max .NaN
  bool cc = false;             // .cc: writes the carry flag (add.cc, sub.cc, mad.lo.cc, addc.cc..)
  bool uni = false;            // bra.uni / call.uni
  MulMode mul = MulMode::None; // mul/mad .lo/.hi/.wide (mul24/mad24 .lo/.hi)
  CmpOp cmp = CmpOp::None;     // setp / set
  BoolOp bop = BoolOp::None;   // setp.<cmp>.<bop>; bar.red.<popc|and|or>
  Space space = Space::None;   // ld/st/atom/red/cvta/prefetch; Generic when no space written
  bool cvta_to = false;        // cvta.to.<space> (generic → space); false: space → generic
  unsigned vec = 1;            // .v2 / .v4
  bool is_volatile = false, nc = false; // volatile: a strong (.volatile/.relaxed/.acquire) op
  AtomOp atom = AtomOp::None;
  ShflMode shfl = ShflMode::None;
  VoteMode vote = VoteMode::None;
  PrmtMode prmt = PrmtMode::Default;
  BarMode bar = BarMode::None;
  TestpMode testp = TestpMode::None;
  MatchMode match = MatchMode::None;
  VideoOp video = VideoOp::None; // vadd2 ... vmax4: the operation; type = dtype, type2 = atype
  Type type3 = Type::None;       // vadd2 ... vmax4: btype
  bool video_add = false;        // vop2/vop4 .add: the secondary accumulate (else the merge)
  bool shiftamt = false;         // bfind.shiftamt
  bool shf_right = false;        // shf.r (false: shf.l)
  bool shf_clamp = false;        // shf.clamp (false: .wrap)
  TensorSpec tensor;             // mma/ldmatrix/movmatrix/wmma: shape, types, layouts (mma.h)
  uint8_t tex_dims = 0;          // tex/tld4/suld/sust: .1d/.2d/.3d; .a1d/.a2d: kTexLayered | 1, 2
  uint8_t tex_comp = 0;          // tld4.r/.g/.b/.a: 0..3; suld/sust: 0 .trap, 1 .clamp, 2 .zero
  int guard = -1;                // guard predicate vreg, -1: none
  bool guard_neg = false;        // @!%p
  int callee = -1;               // call: index into Module::functions (-1: indirect)
  // An indirect call (`call %rd, (args), prototype`): src[0] is the register holding the
  // function's address; the functions it can reach are every function whose address the module
  // takes with the prototype's parameter and return counts (the call graph the allocator stacks).
  bool indirect = false;
  std::vector<int> targets;
  // The functions a call can run: its callee, or an indirect call's targets.
  std::vector<int> callees() const { return indirect ? targets : std::vector<int>{callee}; }
  std::string callee_name;  // call: the called function's name
  std::vector<Operand> dst; // written operands (see header comment)
  std::vector<Operand> src; // read operands
  unsigned ptx_line = 0;    // 1-based line of the instruction in the PTX file

  // cvt to or from a format that is not a register type (engine.cpp cvt_format): tf32 in a
  // .b32, a pair of fp8 values in a .b16 (e4m3x2, e5m2x2; the first source in the high byte)
  CvtFormat fmt = CvtFormat::None;

  // cp.async (async_copy.h)
  bool cp_all = false;        // cp.async.wait_all (every copy, committed or not)
  bool cp_ignore_src = false; // the 4th operand is the ignore-src predicate
};

// ---------------------------------------------------------------------------------------------
// Functions and module
// ---------------------------------------------------------------------------------------------
struct Function {
  std::string name;
  bool is_entry = false;  // .entry (kernel) vs .func
  bool is_extern = false; // declaration only (.extern .func / prototype without body)
  bool is_visible = false;
  bool has_body = false;
  std::vector<Param> params;     // in declaration order, offsets assigned
  std::vector<Param> ret_params; // .func return parameters
  unsigned param_bytes = 0;      // total size of the parameter buffer (aligned)
  unsigned ret_bytes = 0;
  std::vector<VReg> regs;      // virtual registers by dense id
  std::vector<VarDecl> locals; // function-scope .shared/.local/.param declarations
  std::vector<Instr> instrs;
  std::map<std::string, unsigned> labels; // label → index of the instruction that follows
  // Performance-tuning directives (kept for information).
  unsigned maxntid[3] = {0, 0, 0}, reqntid[3] = {0, 0, 0};
  unsigned minnctapersm = 0, maxnreg = 0;
  unsigned decl_line = 0; // line of the .entry/.func directive

  int find_reg(const std::string& name) const; // -1 if not found (linear search)
  int find_param(const std::string& name) const;
};

struct Module {
  std::string filename;
  std::string version; // "9.0"
  std::string target;  // "sm_75" (first target in the list)
  unsigned address_size = 64;
  std::vector<VarDecl> vars; // module-scope .global/.const/.shared declarations
  std::vector<Function> functions;
  // Functions whose body gpurf cannot load (an instruction or type it does not support, a
  // syntax error), by name: "file:line: why". They stay declarations without a body; the
  // module's other functions load, and a function calling one is refused with it.
  std::map<std::string, std::string> refused;

  // Lookup by name (nullptr / -1 if absent).
  const Function* find_function(const std::string& name) const;
  int function_index(const std::string& name) const;
  int var_index(const std::string& name) const;
  std::vector<std::string> entry_names() const;
  // "kernel 'k' cannot be loaded (file:line: why)" for a refused function, else "unknown
  // kernel 'k'".
  std::string no_entry(const std::string& name) const;
};

// A function the engine runs itself (printf, assert, in-kernel malloc/free, the dynamic
// parallelism device runtime's calls): a call of one needs no body, and a body a library gives
// it (libcudadevrt's, linked in with -rdc=true) is not loaded.
bool builtin_function(const std::string& name);

// ---------------------------------------------------------------------------------------------
// Helpers for passes and the timing model
// ---------------------------------------------------------------------------------------------
// The vreg ids an instruction reads (sources, vector elements, address base registers, the
// guard predicate, setp/selp predicate inputs) and writes (destinations incl. vector
// elements, setp's second predicate, shfl's predicate output). Duplicates are kept in
// operand order; use Function::regs[id].is_pred to separate predicates from data registers.
// Both vectors are cleared first.
void reads_writes(const Function& f, const Instr& in, std::vector<unsigned>& reads,
                  std::vector<unsigned>& writes);

// Timing-model classification of an instruction: its latency class (gpurf::OpClass, by
// opcode and type; the table is in docs/frontend.md) and the pipe the class runs on unless
// the platform moves it (exec.classes):
//   SP: int_add, int_minmax, compare, fp_add, fp_minmax, fp_mul, fp_fma, cvt, move, vote,
//       control; INT: int_logic, int_mul, int_mad, int_div; SFU: fp_div, rcp_sqrt,
//       transcendental; DP: dp_* (f64 arithmetic, setp/testp f64, cvt touching f64);
//   MEM: mem (ld/st/atom/red/prefetch) and shfl/match (the LSU/MIO path on Volta+);
//   TENSOR: tensor.
struct OpTraits {
  gpurf::Pipe pipe = gpurf::Pipe::SP;
  gpurf::OpClass op_class = gpurf::OpClass::Control;
  bool long_latency = false; // ld/ldu/atom on global/local/const/generic, atom on shared is not
  bool is_load = false, is_store = false, is_atomic = false; // atomic: atom and red
  bool barrier = false; // bar.sync / bar.red / barrier.sync (bar.arrive, bar.warp: false)
  bool exit = false;    // exit, or ret from the .entry function (set by the engine)
  bool branch = false;  // bra
  bool call = false, ret = false;
};
OpTraits op_traits(const Instr& in);
// The pipe a latency class runs on unless the platform moves it.
gpurf::Pipe class_pipe(gpurf::OpClass c);

// Maps an instruction's state space to the timing model's MemSpace (Generic → Global).
gpurf::MemSpace mem_space(const Instr& in);

} // namespace gpurf::ptx
