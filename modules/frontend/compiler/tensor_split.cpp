#include "gpurf/modules/frontend/compiler/tensor_split.h"

#include <algorithm>

#include "gpurf/modules/frontend/ptx/mma.h"

namespace gpurf::compiler {

namespace {

using ptx::Instr;
using ptx::Operand;

Operand vec(const Operand& frag, const std::vector<uint8_t>& idx) {
  Operand v;
  v.kind = Operand::Kind::Vector;
  for (uint8_t i : idx) v.elems.push_back(frag.elems[i]);
  return v;
}

Operand range(const Operand& frag, unsigned first, unsigned n) {
  std::vector<uint8_t> idx;
  for (unsigned i = 0; i < n; ++i) idx.push_back(uint8_t(first + i));
  return vec(frag, idx);
}

// An mma of `spec` reading a, b, c and writing d, otherwise a copy of `in`.
Instr piece(const Instr& in, const ptx::TensorSpec& spec, Operand d, Operand a, Operand b,
            Operand c) {
  Instr p = in;
  p.op = ptx::Op::Mma;
  p.tensor = spec;
  p.dst = {std::move(d)};
  p.src = {std::move(a), std::move(b), std::move(c)};
  return p;
}

// m16n8k16 .f16/.bf16 into two m16n8k8: A registers {0, 1} and B register 0 hold k 0-7, A {2,
// 3} and B 1 hold k 8-15 (the ISA's layouts); the second piece's C is the first's D.
bool k_splits(const ptx::TensorSpec& s, const TensorIssue& t) {
  return t.hmma_k == 8 && s.m == 16 && s.n == 8 && s.k == 16 &&
         (s.a() == ptx::MmaType::F16 || s.a() == ptx::MmaType::BF16);
}

void split_k(const Instr& in, std::vector<Instr>& out, std::vector<bool>& chained) {
  ptx::TensorSpec lo = in.tensor;
  lo.k = 8;
  ptx::TensorSpec hi = lo;
  hi.type[3] = hi.d(); // accumulates onto the first piece's D
  const Operand& d = in.dst[0];
  out.push_back(piece(in, lo, d, range(in.src[0], 0, 2), range(in.src[1], 0, 1), in.src[2]));
  out.push_back(piece(in, hi, d, range(in.src[0], 2, 2), range(in.src[1], 1, 1), d));
  chained.push_back(false);
  chained.push_back(true);
}

// The pieces of `in` (none: issue it whole).
std::vector<Instr> pieces(const Instr& in, const TensorIssue& t) {
  std::vector<Instr> out;
  std::vector<bool> chained; // per piece: its C is the previous piece's D
  if (in.op == ptx::Op::Mma && k_splits(in.tensor, t)) {
    split_k(in, out, chained);
  } else if (in.op == ptx::Op::Wmma && in.tensor.wmma == 'm') {
    const std::vector<ptx::WmmaPart> parts = ptx::wmma_parts(in.tensor);
    if (parts.size() < 2 && !k_splits(parts[0].mma, t)) return {};
    for (const ptx::WmmaPart& p : parts) {
      auto from = [&](char f) -> const Operand& { return in.src[f == 'a' ? 0 : 1]; };
      Instr m = piece(in, p.mma, vec(in.dst[0], p.d), vec(from(p.a_from), p.a),
                      vec(from(p.b_from), p.b), vec(in.src[2], p.c));
      if (k_splits(p.mma, t)) {
        split_k(m, out, chained);
      } else {
        out.push_back(std::move(m));
        chained.push_back(false);
      }
    }
  } else {
    return {};
  }
  // A piece may not overwrite what a later piece reads, except the D that the second half of
  // a k split accumulates onto (its C is its D).
  auto reads = [](const Operand& v, unsigned reg) {
    return std::any_of(v.elems.begin(), v.elems.end(),
                       [&](const Operand& e) { return e.reg == reg; });
  };
  for (size_t j = 1; j < out.size(); ++j) {
    for (size_t i = 0; i < j; ++i)
      for (const Operand& w : out[i].dst[0].elems)
        if (reads(out[j].src[0], w.reg) || reads(out[j].src[1], w.reg) ||
            (reads(out[j].src[2], w.reg) && !(chained[j] && i + 1 == j)))
          return {};
  }
  const std::string n = std::to_string(out.size());
  for (size_t i = 0; i < out.size(); ++i)
    out[i].text = in.text + " [" + std::to_string(i + 1) + "/" + n + "]";
  return out;
}

void move_labels(Operand& o, const std::vector<unsigned>& at) {
  if (o.kind == Operand::Kind::Label && o.label < at.size()) o.label = at[o.label];
  for (Operand& e : o.elems) move_labels(e, at);
}

} // namespace

bool has_tensor_split(const ptx::Module& m, const TensorIssue& t) {
  for (const ptx::Function& f : m.functions)
    for (const Instr& in : f.instrs)
      if (!pieces(in, t).empty()) return true;
  return false;
}

ptx::Module split_tensor(const ptx::Module& m, const TensorIssue& t) {
  ptx::Module out = m;
  for (ptx::Function& f : out.functions) {
    std::vector<Instr> code;
    std::vector<unsigned> at(f.instrs.size() + 1); // old index -> new index
    for (size_t i = 0; i < f.instrs.size(); ++i) {
      at[i] = unsigned(code.size());
      std::vector<Instr> p = pieces(f.instrs[i], t);
      if (p.empty())
        code.push_back(std::move(f.instrs[i]));
      else
        for (Instr& x : p) code.push_back(std::move(x));
    }
    at[f.instrs.size()] = unsigned(code.size());
    // Every instruction was moved into `code`, split or not: a function without tensor
    // instructions gets them back too (its labels stay where they were).
    for (Instr& in : code) {
      for (Operand& o : in.src) move_labels(o, at);
      for (Operand& o : in.dst) move_labels(o, at);
    }
    for (auto& [name, idx] : f.labels) idx = at[idx];
    f.instrs = std::move(code);
  }
  return out;
}

} // namespace gpurf::compiler
