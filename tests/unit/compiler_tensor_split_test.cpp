// compiler/tensor_split.h: tensor instructions issued as the tensor pipe's instructions. A
// wmma.mma becomes its mma.sync pieces and, on an m16n8k8 pipe (Turing's HMMA.1688), an
// m16n8k16 piece two m16n8k8 over the k halves. Checked here: the pieces' operands (each reads
// only its own fragment registers, together every register the mma needs), branch targets
// after the split, the same results as the instruction run whole, and the front-end's records.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <set>
#include <sstream>

#include "gpurf/modules/frontend/compiler/tensor_split.h"
#include "gpurf/modules/frontend/ptx/parser.h"
#include "gpurf/modules/frontend/ptx_frontend.h"
#include "tests/unit/compiler_test_util.h"
#include "tests/unit/ptx_test_util.h"

using namespace gpurf;
using namespace gpurf::ptx;

namespace {

std::string regs(unsigned first, unsigned n) {
  std::ostringstream s;
  s << "{";
  for (unsigned i = 0; i < n; ++i) s << (i ? ", " : "") << "%r" << first + i;
  s << "}";
  return s.str();
}

// k(p, q): loads A, B, C fragments from p (32 lanes x 8 B per register, a then b then c),
// runs `mma` on them into D (%r60..), and stores D to q; a loop around it (the branch target
// must survive the split).
std::string kernel(const std::string& op, unsigned na, unsigned nb, unsigned nc, unsigned nd,
                   bool alias_d_on_a = false) {
  std::ostringstream s;
  s << ".version 8.0\n.target sm_80\n.address_size 64\n"
    << ".visible .entry k(.param .u64 p, .param .u64 q)\n{\n"
    << ".reg .b32 %r<100>;\n.reg .b64 %rd<8>;\n.reg .pred %p<4>;\n"
    << "ld.param.u64 %rd1, [p];\nld.param.u64 %rd2, [q];\nmov.u32 %r99, %tid.x;\n"
    << "mul.wide.u32 %rd3, %r99, 8;\nadd.u64 %rd4, %rd1, %rd3;\nadd.u64 %rd5, %rd2, %rd3;\n"
    << "mov.u32 %r98, 0;\n";
  const unsigned n = na + nb + nc;
  for (unsigned i = 0; i < n; ++i) s << "ld.global.b32 %r" << i << ", [%rd4+" << i * 256 << "];\n";
  s << "setp.eq.u32 %p2, %r99, 99;\n@%p2 bra DONE;\n"; // never taken: a target past the mma
  s << "LOOP:\n";
  const unsigned d = alias_d_on_a ? 0 : 60;
  s << op << " " << regs(d, nd) << ", " << regs(0, na) << ", " << regs(na, nb) << ", "
    << regs(na + nb, nc) << ";\n";
  s << "add.u32 %r98, %r98, 1;\nsetp.lt.u32 %p1, %r98, 2;\n@%p1 bra LOOP;\nDONE:\n";
  for (unsigned i = 0; i < nd; ++i)
    s << "st.global.b32 [%rd5+" << i * 256 << "], %r" << d + i << ";\n";
  s << "ret;\n}\n";
  return s.str();
}

const std::string kWmmaF32 = "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32";

// Results of `m` on inputs that make every f32 sum exact: f16 pairs of small integers / 4 for
// the inputs, small integers for C.
std::vector<uint32_t> run(const Module& m, unsigned na, unsigned nb, unsigned nc, unsigned nd) {
  std::mt19937 rng(3);
  std::vector<uint64_t> in((na + nb + nc) * 32);
  auto h = [&](int v) { // an f16 of v / 4, |v| <= 8
    _Float16 x = _Float16(float(v) / 4);
    uint16_t u;
    std::memcpy(&u, &x, 2);
    return uint64_t(u);
  };
  for (unsigned i = 0; i < (na + nb) * 32; ++i)
    in[i] = h(int(rng() % 17) - 8) | h(int(rng() % 17) - 8) << 16;
  for (unsigned i = (na + nb) * 32; i < in.size(); ++i) {
    const float f = float(int(rng() % 41) - 20);
    uint32_t u;
    std::memcpy(&u, &f, 4);
    in[i] = u;
  }
  ptxtest::Launch L(m, "k", {1, 1, 1}, {32, 1, 1});
  const uint64_t I = L.buf(in), O = L.zeros(nd * 32 * 8);
  L.arg(I).arg(O);
  L.run();
  const std::vector<uint64_t> raw = L.get<uint64_t>(O, nd * 32);
  std::vector<uint32_t> out;
  for (uint64_t v : raw) out.push_back(uint32_t(v));
  return out;
}

const Instr* find(const Function& f, Op op, size_t nth = 0) {
  for (const Instr& in : f.instrs)
    if (in.op == op && nth-- == 0) return &in;
  return nullptr;
}

} // namespace

// m16n16k16 on an m16n8k16 pipe: two mma.m16n8k16, one per 8-column half of D, each reading all
// of A's four distinct registers (the other four are the ISA's copies), its half of B and C.
TEST(CompilerTensorSplit, WmmaM16n16k16IsTwoPiecesOnAnM16n8k16Pipe) {
  const Module m = parse_ptx(kernel(kWmmaF32, 8, 8, 8, 8), "w.ptx");
  const Module s = compiler::split_tensor(m, {16});
  const Function& f = s.functions[0];
  ASSERT_EQ(f.instrs.size(), m.functions[0].instrs.size() + 1);
  const Instr* p0 = find(f, Op::Mma, 0);
  const Instr* p1 = find(f, Op::Mma, 1);
  ASSERT_TRUE(p0 && p1);
  EXPECT_EQ(find(f, Op::Wmma), nullptr);
  for (const Instr* p : {p0, p1}) {
    EXPECT_EQ(p->tensor.k, 16);
    EXPECT_EQ(p->src[0].elems.size(), 4u);
    EXPECT_EQ(p->src[1].elems.size(), 2u);
    EXPECT_EQ(p->src[2].elems.size(), 4u);
    EXPECT_EQ(p->dst[0].elems.size(), 4u);
  }
  // Together they read A's registers 0-3, all four distinct B registers and all eight C
  // registers, and write all eight D registers.
  std::set<unsigned> b, c, d;
  for (const Instr* p : {p0, p1}) {
    for (const Operand& e : p->src[1].elems) b.insert(e.reg);
    for (const Operand& e : p->src[2].elems) c.insert(e.reg);
    for (const Operand& e : p->dst[0].elems) d.insert(e.reg);
  }
  EXPECT_EQ(b.size(), 4u);
  EXPECT_EQ(c.size(), 8u);
  EXPECT_EQ(d.size(), 8u);
  EXPECT_NE(p0->text.find("[1/2]"), std::string::npos) << p0->text;
  // The loop's branch still targets the first piece, the forward branch the first store.
  const Instr* fwd = find(f, Op::Bra, 0);
  const Instr* loop = find(f, Op::Bra, 1);
  ASSERT_TRUE(fwd && loop);
  EXPECT_EQ(&f.instrs[loop->src[0].label], p0);
  EXPECT_EQ(f.labels.at("LOOP"), unsigned(p0 - f.instrs.data()));
  const Instr* store = find(f, Op::St);
  ASSERT_TRUE(store);
  EXPECT_EQ(&f.instrs[fwd->src[0].label], store);
  EXPECT_EQ(f.labels.at("DONE"), unsigned(store - f.instrs.data()));
}

// A module whose first kernel has a wmma.mma and whose second has none (a conversion kernel
// beside a tensor-core GEMM): the second keeps its instructions. Before, they were moved into
// the split function's buffer and dropped, the engine ran moved-from instructions and crashed.
TEST(CompilerTensorSplit, AFunctionWithoutTensorInstructionsKeepsItsInstructions) {
  std::string text = kernel(kWmmaF32, 8, 8, 8, 8);
  text += ".visible .entry plain(.param .u64 p)\n{\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n"
          "ld.param.u64 %rd1, [p];\nmov.u32 %r1, %tid.x;\nst.global.u32 [%rd1], %r1;\n"
          "ret;\n}\n";
  const Module m = parse_ptx(text, "w.ptx");
  const Module s = compiler::split_tensor(m, {16});
  ASSERT_EQ(s.functions.size(), 2u);
  const Function &before = m.functions[1], &after = s.functions[1];
  ASSERT_EQ(after.name, "plain");
  ASSERT_EQ(after.instrs.size(), before.instrs.size());
  for (size_t i = 0; i < before.instrs.size(); ++i) {
    EXPECT_EQ(after.instrs[i].text, before.instrs[i].text) << i;
    EXPECT_EQ(after.instrs[i].src.size(), before.instrs[i].src.size()) << i;
    EXPECT_EQ(after.instrs[i].dst.size(), before.instrs[i].dst.size()) << i;
  }
  EXPECT_EQ(s.functions[0].instrs.size(), m.functions[0].instrs.size() + 1); // still split
}

// On an m16n8k8 pipe each m16n8k16 piece is two m16n8k8 over the k halves, the second reading
// the first's D as its C; an mma.sync m16n8k16 too. The results equal the whole instruction's.
TEST(CompilerTensorSplit, KHalvesOnAnM16n8k8PipeGiveTheSameResults) {
  const Module m = parse_ptx(kernel(kWmmaF32, 8, 8, 8, 8), "w.ptx");
  const Module s8 = compiler::split_tensor(m, {8});
  const Module s16 = compiler::split_tensor(m, {16});
  const Function& f = s8.functions[0];
  std::vector<const Instr*> p;
  for (size_t i = 0; find(f, Op::Mma, i); ++i) p.push_back(find(f, Op::Mma, i));
  ASSERT_EQ(p.size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(p[i]->tensor.k, 8);
    EXPECT_EQ(p[i]->src[0].elems.size(), 2u);
    EXPECT_EQ(p[i]->src[1].elems.size(), 1u);
  }
  for (size_t i = 1; i < 4; i += 2) // the second k half accumulates onto the first's D
    for (size_t r = 0; r < 4; ++r) {
      EXPECT_EQ(p[i]->src[2].elems[r].reg, p[i - 1]->dst[0].elems[r].reg);
      EXPECT_EQ(p[i]->dst[0].elems[r].reg, p[i - 1]->dst[0].elems[r].reg);
    }
  const std::vector<uint32_t> whole = run(m, 8, 8, 8, 8);
  EXPECT_EQ(run(s16, 8, 8, 8, 8), whole);
  EXPECT_EQ(run(s8, 8, 8, 8, 8), whole);
  // m8n32k16 runs transposed (A's copies hold A^T as one B tile), and an mma.sync.m16n8k16.
  const Module t =
      parse_ptx(kernel("wmma.mma.sync.aligned.col.row.m8n32k16.f32.f32", 8, 8, 8, 8), "t.ptx");
  EXPECT_EQ(run(compiler::split_tensor(t, {8}), 8, 8, 8, 8), run(t, 8, 8, 8, 8));
  const Module k16 =
      parse_ptx(kernel("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", 4, 2, 4, 4), "k.ptx");
  ASSERT_TRUE(compiler::has_tensor_split(k16, {8}));
  EXPECT_FALSE(compiler::has_tensor_split(k16, {16}));
  EXPECT_EQ(run(compiler::split_tensor(k16, {8}), 4, 2, 4, 4), run(k16, 4, 2, 4, 4));
}

// A D that overlaps A (hand-written PTX) would be overwritten by the first piece before the
// second reads it: such an instruction is issued whole.
TEST(CompilerTensorSplit, AnInstructionWhosePiecesWouldClobberEachOtherStaysWhole) {
  const Module m = parse_ptx(kernel(kWmmaF32, 8, 8, 8, 8, true), "a.ptx");
  EXPECT_FALSE(compiler::has_tensor_split(m, {16}));
  const Module s = compiler::split_tensor(m, {16});
  EXPECT_NE(find(s.functions[0], Op::Wmma), nullptr);
}

// The front-end's records of the suite's wmma_gemm: every tensor record reads at most 10
// registers (4 A + 2 B + 4 C on Ampere's pipe; 2 + 1 + 4 on Turing's), two records per
// wmma.mma on hmma m16n8k16, four on m16n8k8.
TEST(CompilerTensorSplit, FrontEndRecordsOfWmmaGemm) {
  const LaunchSpec spec = load_launch(compilertest::workloads() + "/wmma_gemm.yaml");
  for (unsigned k : {8u, 16u}) {
    FrontendOptions o;
    o.hmma_k = k;
    PtxFrontend fe(spec, o);
    unsigned tensor = 0, wmma_mma = 0;
    for (const InstInfo& i : fe.static_info())
      if (i.op_class == OpClass::Tensor) {
        ++tensor;
        EXPECT_LE(i.n_src, k == 16 ? 10u : 7u) << i.opname;
        EXPECT_EQ(i.n_dst, 4u) << i.opname;
      }
    for (const Function& f : spec.module->functions)
      for (const Instr& in : f.instrs) wmma_mma += in.op == Op::Wmma && in.tensor.wmma == 'm';
    ASSERT_GT(wmma_mma, 0u);
    EXPECT_EQ(tensor, wmma_mma * (k == 16 ? 2 : 4)) << "hmma k" << k;
  }
}
