#include "gpurf/modules/frontend/ptx/ir.h"

#include <set>

namespace gpurf::ptx {

const char* type_name(Type t) {
  switch (t) {
  case Type::None:
    return "none";
  case Type::B8:
    return "b8";
  case Type::B16:
    return "b16";
  case Type::B32:
    return "b32";
  case Type::B64:
    return "b64";
  case Type::U8:
    return "u8";
  case Type::U16:
    return "u16";
  case Type::U32:
    return "u32";
  case Type::U64:
    return "u64";
  case Type::S8:
    return "s8";
  case Type::S16:
    return "s16";
  case Type::S32:
    return "s32";
  case Type::S64:
    return "s64";
  case Type::F32:
    return "f32";
  case Type::F64:
    return "f64";
  case Type::F16:
    return "f16";
  case Type::F16X2:
    return "f16x2";
  case Type::BF16:
    return "bf16";
  case Type::BF16X2:
    return "bf16x2";
  case Type::Pred:
    return "pred";
  }
  return "?";
}

const char* space_name(Space s) {
  switch (s) {
  case Space::None:
    return "none";
  case Space::Generic:
    return "generic";
  case Space::Global:
    return "global";
  case Space::Shared:
    return "shared";
  case Space::Local:
    return "local";
  case Space::Param:
    return "param";
  case Space::Const:
    return "const";
  case Space::Reg:
    return "reg";
  }
  return "?";
}

const char* op_name(Op op) {
  static const char* const names[] = {
      "add",   "sub",  "mul",        "mad",      "mul24",         "mad24",    "div",
      "rem",   "abs",  "neg",        "min",      "max",           "addc",     "subc",
      "madc",  "popc", "clz",        "brev",     "bfe",           "bfi",      "bfind",
      "prmt",  "and",  "or",         "xor",      "not",           "cnot",     "shl",
      "shr",   "fma",  "rcp",        "sqrt",     "rsqrt",         "ex2",      "lg2",
      "sin",   "cos",  "setp",       "selp",     "slct",          "cvt",      "cvta",
      "mov",   "ld",   "ldu",        "st",       "atom",          "red",      "prefetch",
      "bra",   "call", "ret",        "exit",     "bar",           "membar",   "fence",
      "shfl",  "vote", "activemask", "match",    "nanosleep",     "copysign", "testp",
      "lop3",  "shf",  "sad",        "trap",     "mma",           "ldmatrix", "movmatrix",
      "redux", "dp4a", "dp2a",       "fns",      "elect",         "cp",       "cp",
      "cp",    "tex",  "tld4",       "suld",     "sust",          "bmsk",     "wmma",
      "set",   "tanh", "vsimd",      "isspacep", "griddepcontrol"};
  static_assert(sizeof(names) / sizeof(names[0]) == size_t(Op::Count_), "op_name table");
  unsigned i = unsigned(op);
  return i < unsigned(Op::Count_) ? names[i] : "?";
}

int Function::find_reg(const std::string& n) const {
  for (size_t i = 0; i < regs.size(); ++i)
    if (regs[i].name == n) return int(i);
  return -1;
}

int Function::find_param(const std::string& n) const {
  for (size_t i = 0; i < params.size(); ++i)
    if (params[i].name == n) return int(i);
  return -1;
}

const Function* Module::find_function(const std::string& n) const {
  int i = function_index(n);
  return i < 0 ? nullptr : &functions[size_t(i)];
}

int Module::function_index(const std::string& n) const {
  // Prefer a definition over a prototype of the same name.
  int proto = -1;
  for (size_t i = 0; i < functions.size(); ++i)
    if (functions[i].name == n) {
      if (functions[i].has_body) return int(i);
      if (proto < 0) proto = int(i);
    }
  return proto;
}

int Module::var_index(const std::string& n) const {
  for (size_t i = 0; i < vars.size(); ++i)
    if (vars[i].name == n) return int(i);
  return -1;
}

std::vector<std::string> Module::entry_names() const {
  std::vector<std::string> r;
  for (const auto& f : functions)
    if (f.is_entry && f.has_body) r.push_back(f.name);
  return r;
}

bool builtin_function(const std::string& name) {
  static const std::set<std::string> names = {
      "vprintf", "__assertfail", "malloc", "free",
      // CDP2's device runtime (cuda_device_runtime_api.h), device_launch.h
      "__cudaCDP2GetParameterBuffer", "__cudaCDP2GetParameterBufferV2", "__cudaCDP2LaunchDevice",
      "__cudaCDP2LaunchDeviceV2", "__cudaCDP2StreamCreateWithFlags", "__cudaCDP2StreamDestroy",
      "__cudaCDP2GetLastError", "__cudaCDP2PeekAtLastError"};
  return names.count(name) != 0;
}

std::string Module::no_entry(const std::string& name) const {
  const auto it = refused.find(name);
  return it == refused.end() ? "unknown kernel '" + name + "'"
                             : "kernel '" + name + "' cannot be loaded (" + it->second + ")";
}

static void collect_regs(const Operand& o, std::vector<unsigned>& out) {
  switch (o.kind) {
  case Operand::Kind::Reg:
    out.push_back(o.reg);
    break;
  case Operand::Kind::Addr:
    if (o.has_base_reg) out.push_back(o.reg);
    break;
  case Operand::Kind::Vector:
    for (const auto& e : o.elems) collect_regs(e, out);
    break;
  default:
    break;
  }
}

void reads_writes(const Function&, const Instr& in, std::vector<unsigned>& reads,
                  std::vector<unsigned>& writes) {
  reads.clear();
  writes.clear();
  if (in.guard >= 0) reads.push_back(unsigned(in.guard));
  for (const auto& o : in.src) collect_regs(o, reads);
  for (const auto& o : in.dst) {
    if (o.kind == Operand::Kind::Addr) { // not produced by the parser, but be safe
      if (o.has_base_reg) reads.push_back(o.reg);
      continue;
    }
    collect_regs(o, writes);
  }
}

static bool is_mem_long(Space s) {
  return s == Space::Global || s == Space::Local || s == Space::Generic || s == Space::Const;
}

gpurf::Pipe class_pipe(gpurf::OpClass c) {
  using gpurf::OpClass;
  using gpurf::Pipe;
  switch (c) {
  case OpClass::IntLogic:
  case OpClass::IntMul:
  case OpClass::IntMad:
  case OpClass::IntDiv:
    return Pipe::INT;
  case OpClass::FpDiv:
  case OpClass::RcpSqrt:
  case OpClass::Transcendental:
    return Pipe::SFU;
  case OpClass::DpAdd:
  case OpClass::DpMinMax:
  case OpClass::DpMul:
  case OpClass::DpFma:
  case OpClass::DpDiv:
  case OpClass::DpRcpSqrt:
  case OpClass::DpCvt:
    return Pipe::DP;
  case OpClass::Shfl:
  case OpClass::Mem:
    return Pipe::MEM;
  case OpClass::Tensor:
    return Pipe::TENSOR;
  default:
    return Pipe::SP;
  }
}

OpTraits op_traits(const Instr& in) {
  using gpurf::OpClass;
  OpTraits t;
  const bool f64 = in.type == Type::F64;
  const bool f32 = in.type == Type::F32 || type_is_half(in.type); // f16: the FMA pipe's
  // By operand type: integer, f32 or f64 variant of a class.
  auto by_type = [&](OpClass i, OpClass f, OpClass d) { return f64 ? d : f32 ? f : i; };
  OpClass& c = t.op_class;
  switch (in.op) {
  case Op::Add:
  case Op::Sub:
  case Op::Addc:
  case Op::Subc:
    c = by_type(OpClass::IntAdd, OpClass::FpAdd, OpClass::DpAdd);
    break;
  case Op::Abs:
  case Op::Neg:
  case Op::Copysign:
    c = by_type(OpClass::IntLogic, OpClass::FpAdd, OpClass::DpAdd);
    break;
  case Op::Min:
  case Op::Max:
    c = by_type(OpClass::IntMinMax, OpClass::FpMinMax, OpClass::DpMinMax);
    break;
  case Op::Mul:
  case Op::Mul24:
    c = by_type(OpClass::IntMul, OpClass::FpMul, OpClass::DpMul);
    break;
  case Op::Mad:
  case Op::Madc:
  case Op::Mad24:
  case Op::Fma:
    c = by_type(OpClass::IntMad, OpClass::FpFma, OpClass::DpFma);
    break;
  case Op::Div:
  case Op::Rem:
    c = by_type(OpClass::IntDiv, OpClass::FpDiv, OpClass::DpDiv);
    break;
  case Op::Rcp:
  case Op::Sqrt:
  case Op::Rsqrt:
    c = f64 ? OpClass::DpRcpSqrt : OpClass::RcpSqrt;
    break;
  case Op::Ex2:
  case Op::Lg2:
  case Op::Sin:
  case Op::Cos:
  case Op::Tanh:
    c = OpClass::Transcendental;
    break;
  case Op::Popc:
  case Op::Clz:
  case Op::Brev:
  case Op::Bfe:
  case Op::Bfi:
  case Op::Bfind:
  case Op::Prmt:
  case Op::And:
  case Op::Or:
  case Op::Xor:
  case Op::Not:
  case Op::Cnot:
  case Op::Shl:
  case Op::Shr:
  case Op::Lop3:
  case Op::Shf:
  case Op::Bmsk:
  case Op::Sad:
  case Op::Vsimd: // Turing's VABSDIFF4: an integer ALU instruction
    c = OpClass::IntLogic;
    break;
  case Op::Setp:
  case Op::Testp:
    c = f64 ? OpClass::DpAdd : OpClass::Compare;
    break;
  case Op::Isspacep: // an address-range comparison
    c = OpClass::Compare;
    break;
  case Op::Set: // compares its source type (type2)
    c = in.type2 == Type::F64 ? OpClass::DpAdd : OpClass::Compare;
    break;
  case Op::Selp:
  case Op::Slct:
    c = OpClass::Compare;
    break;
  case Op::Cvt:
    c = f64 || in.type2 == Type::F64 ? OpClass::DpCvt : OpClass::Cvt;
    break;
  case Op::Mov:
  case Op::Cvta:
    c = OpClass::Move;
    break;
  case Op::Shfl:
  case Op::Match:
  case Op::Movmatrix: // a warp-wide exchange, as shfl
    c = OpClass::Shfl;
    break;
  case Op::Mma:
    c = OpClass::Tensor;
    break;
  case Op::Wmma: // load and store: the memory pipe's, as ld/st of their fragments
    if (in.tensor.wmma == 'm') {
      c = OpClass::Tensor;
      break;
    }
    c = OpClass::Mem;
    (in.tensor.wmma == 'l' ? t.is_load : t.is_store) = true;
    t.long_latency = in.tensor.wmma == 'l' && is_mem_long(in.space);
    break;
  case Op::Ldmatrix: // a shared-memory load of 16 B per lane
    c = OpClass::Mem;
    t.is_load = true;
    break;
  case Op::Vote:
  case Op::Activemask:
  case Op::Elect:
    c = OpClass::Vote;
    break;
  case Op::Redux: // a cross-lane reduction: the shuffle path's
    c = OpClass::Shfl;
    break;
  case Op::Dp4a:
  case Op::Dp2a:
    c = OpClass::IntMad;
    break;
  case Op::Fns:
    c = OpClass::IntLogic;
    break;
  case Op::CpAsync: // a global read the LSU times; its shared write lands at the wait
    c = OpClass::Mem;
    t.is_load = true;
    t.long_latency = true;
    break;
  case Op::Ld:
  case Op::Ldu:
  case Op::Tex: // a texture/surface read is a global load of its texels (docs/frontend.md)
  case Op::Tld4:
  case Op::Suld:
    c = OpClass::Mem;
    t.is_load = true;
    t.long_latency = is_mem_long(in.space);
    break;
  case Op::St:
  case Op::Sust:
    c = OpClass::Mem;
    t.is_store = true;
    break;
  case Op::Atom:
    c = OpClass::Mem;
    t.is_atomic = true;
    // An mbarrier wait may suspend the thread until the phase completes (PTX ISA: try_wait):
    // a dependence on it is a long-latency one (a two-level scheduler lets others in).
    t.long_latency = in.space != Space::Shared || in.atom == AtomOp::MbarTestWait ||
                     in.atom == AtomOp::MbarTestWaitParity;
    break;
  case Op::Red:
    c = OpClass::Mem;
    t.is_atomic = true;
    break;
  case Op::Prefetch:
    c = OpClass::Mem;
    break;
  case Op::Bra:
    t.branch = true;
    break;
  case Op::Call:
    t.call = true;
    break;
  case Op::Ret:
    t.ret = true;
    break;
  case Op::Exit:
    t.exit = true;
    break;
  case Op::Bar:
    t.barrier = in.bar == BarMode::Sync || in.bar == BarMode::Red;
    break;
  default: // membar, fence, nanosleep: control (the OpTraits default)
    break;
  }
  t.pipe = class_pipe(c);
  return t;
}

gpurf::MemSpace mem_space(const Instr& in) {
  switch (in.op) {
  case Op::Ld:
  case Op::Ldu:
  case Op::St:
  case Op::Atom:
  case Op::Red:
  case Op::Ldmatrix:
  case Op::Wmma:
  case Op::Tex:
  case Op::Tld4:
  case Op::Suld:
  case Op::Sust:
    break;
  case Op::CpAsync: // the global read (the shared write is not an LSU access)
    return gpurf::MemSpace::Global;
  default:
    return gpurf::MemSpace::None;
  }
  switch (in.space) {
  case Space::Shared:
    return gpurf::MemSpace::Shared;
  case Space::Local:
    return gpurf::MemSpace::Local;
  case Space::Param:
    return gpurf::MemSpace::Param;
  case Space::Const:
    return gpurf::MemSpace::Const;
  default:
    return gpurf::MemSpace::Global;
  }
}

} // namespace gpurf::ptx
