#include "gpurf/modules/frontend/compiler/reuse_key.h"

#include "gpurf/modules/common/hash.h"
#include "gpurf/modules/common/warp_inst.h"

namespace gpurf::compiler {

namespace {

using Hash = Hash64;

// The identity of constant operand `v`: its only definition (ld.param, mov of an immediate,
// cvta of a constant operand); false if it has none of those forms.
bool constant_identity(const ptx::Function& f, unsigned v, const ConstantOperands& c, Hash& h,
                       unsigned depth = 0) {
  if (depth > 8) return false;
  for (const ptx::Instr& d : f.instrs) {
    if (d.dst.size() != 1 || !d.dst[0].is_reg() || d.dst[0].reg != v) continue;
    h.add(uint64_t(d.op));
    h.add(uint64_t(d.type));
    if (d.src.empty()) return false;
    const ptx::Operand& s = d.src[0];
    switch (s.kind) {
    case ptx::Operand::Kind::Imm:
      h.add(s.imm);
      return true;
    case ptx::Operand::Kind::Addr:
    case ptx::Operand::Kind::Symbol:
      h.add(s.name);
      h.add(uint64_t(s.offset));
      return !s.has_base_reg;
    case ptx::Operand::Kind::Reg:
      return s.reg < c.vreg.size() && c.vreg[s.reg] && constant_identity(f, s.reg, c, h, depth + 1);
    default:
      return false;
    }
  }
  return false;
}

// The opcode with every modifier and type that changes what it computes. (The fields after
// the first list were missing, which made two different computations one: min.f16 and
// min.NaN.f16, cvt.rn.f16.f32 and its .relu, vabsdiff4 and vabsdiff4.add on the same registers
// reused each other's results, as did cvt.rn.f16x2.e4m3x2 and .e5m2x2 of one register. They
// are hashed only where set, so every other instruction keeps its tag.)
void add_opcode(Hash& h, const ptx::Instr& in) {
  for (uint64_t x :
       {uint64_t(in.op), uint64_t(in.type), uint64_t(in.type2), uint64_t(in.rnd), uint64_t(in.ftz),
        uint64_t(in.sat), uint64_t(in.mul), uint64_t(in.cmp), uint64_t(in.bop), uint64_t(in.prmt),
        uint64_t(in.shf_right), uint64_t(in.shf_clamp), uint64_t(in.shiftamt), uint64_t(in.testp),
        uint64_t(in.space), uint64_t(in.cvta_to), uint64_t(in.vec)})
    h.add(x);
  const uint64_t more[] = {uint64_t(in.relu),  uint64_t(in.satfinite), uint64_t(in.nan),
                           uint64_t(in.atom),  uint64_t(in.video),     uint64_t(in.video_add),
                           uint64_t(in.type3), uint64_t(in.fmt)};
  for (size_t i = 0; i < sizeof(more) / sizeof(more[0]); ++i)
    if (more[i]) h.add(uint64_t(i + 1) << 56 | more[i]);
}

} // namespace

uint32_t computation_op(const ptx::Function& f, const ptx::Instr& in, const ConstantOperands& c) {
  Hash h;
  add_opcode(h, in);
  for (const ptx::Operand& o : in.src) {
    h.add(uint64_t(o.kind) << 8 | uint64_t(o.negate));
    switch (o.kind) {
    case ptx::Operand::Kind::Imm:
      h.add(o.imm);
      break;
    case ptx::Operand::Kind::Addr:
    case ptx::Operand::Kind::Symbol:
      h.add(o.name);
      h.add(uint64_t(o.offset));
      break;
    case ptx::Operand::Kind::Reg: // a constant operand is not a register source: its identity
      if (o.reg < c.vreg.size() && c.vreg[o.reg] && !constant_identity(f, o.reg, c, h))
        h.add(uint64_t(o.reg) << 40); // unknown constant: this operand only
      break;
    case ptx::Operand::Kind::Special: // its value is the result's: the name suffices
      h.add(uint64_t(o.sreg) << 8 | o.comp);
      break;
    case ptx::Operand::Kind::Vector:
      for (const ptx::Operand& e : o.elems) h.add(uint64_t(e.kind) << 32 ^ e.imm);
      break;
    default:
      break;
    }
  }
  return h.nonzero32();
}

ReuseKey reuse_key(const ptx::Function& f, const ptx::Instr& in, const ConstantOperands& c) {
  ReuseKey k;
  const ptx::OpTraits t = ptx::op_traits(in);
  const OpClass oc = t.op_class;
  const MemSpace space = ptx::mem_space(in);
  const bool load = t.is_load && !in.is_volatile && in.space != ptx::Space::Generic &&
                    (space == MemSpace::Global || space == MemSpace::Shared ||
                     space == MemSpace::Const || space == MemSpace::Param);
  auto no = [](ReuseKey::Why why) {
    ReuseKey n;
    n.why = why;
    return n;
  };
  if ((t.is_load && !load) || t.is_store || t.is_atomic || (oc == OpClass::Mem && !load))
    return no(ReuseKey::Memory);
  if (t.branch || t.call || t.ret || t.barrier || t.exit || oc == OpClass::Control)
    return no(ReuseKey::Control);
  if (in.guard >= 0) return no(ReuseKey::Guarded);
  // Writes the carry (add.cc), or reads it: addc, subc and madc add it, an operand the tag
  // does not hold (addc.u32 d, 0, 0 reads the carry alone).
  if (in.cc || in.op == ptx::Op::Addc || in.op == ptx::Op::Subc || in.op == ptx::Op::Madc)
    return no(ReuseKey::Carry);
  if (oc == OpClass::Shfl || oc == OpClass::Vote || oc == OpClass::Tensor)
    return no(ReuseKey::ShuffleVote);
  if (in.dst.size() != 1 || !in.dst[0].is_reg() || f.regs[in.dst[0].reg].is_pred)
    return no(ReuseKey::NoRegisterResult);
  // Read-only memory (Sec. VI-A, Fig. 10 i1, i2: no store can change it, so its loads reuse
  // as arithmetic does): the constant space, and global loads through the non-coherent path
  // (ld.global.nc: PTX requires the data read-only for the kernel's lifetime; sm_1x's texture
  // fetches).
  if (load) k.load = in.nc ? MemSpace::Const : space;
  Hash h;
  add_opcode(h, in);
  // A register operand: a constant operand's identity, or its halves as tag operands.
  auto reg = [&](unsigned v) {
    const ptx::VReg& r = f.regs[v];
    if (r.is_pred) return false;
    if (v < c.vreg.size() && c.vreg[v]) { // held in the encoding: part of the opcode
      h.add(uint64_t(1) << 40);
      return constant_identity(f, v, c, h);
    }
    for (unsigned half = 0; half < (r.width_bits > 32 ? 2u : 1u); ++half) {
      if (k.regs.size() == 3) return false;
      h.add(uint64_t(k.regs.size()) << 32); // the position of the register operand
      k.regs.push_back({v, half});
    }
    return true;
  };
  for (const ptx::Operand& o : in.src) {
    h.add(uint64_t(o.kind));
    if (o.kind == ptx::Operand::Kind::Imm) {
      h.add(o.imm);
      continue;
    }
    if (o.kind == ptx::Operand::Kind::Addr && load) {
      h.add(o.name);
      h.add(uint64_t(o.offset));
      if (o.has_base_reg && !reg(o.reg))
        return no(k.regs.size() == 3 ? ReuseKey::TooManyOperands : ReuseKey::OtherOperand);
      continue;
    }
    if (o.kind != ptx::Operand::Kind::Reg || o.negate || !reg(o.reg))
      return no(k.regs.size() == 3 ? ReuseKey::TooManyOperands : ReuseKey::OtherOperand);
  }
  k.op = h.nonzero32();
  return k;
}

} // namespace gpurf::compiler
