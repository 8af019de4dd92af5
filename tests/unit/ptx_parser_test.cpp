// Parser, IR helpers and CFG tests; hand-written PTX for forms nvcc rarely emits.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "gpurf/modules/frontend/ptx/cfg.h"
#include "tests/unit/ptx_test_util.h"

using namespace gpurf::ptx;
using ptxtest::data_module;

namespace {

// The file's error, or the first function it refused (a body gpurf cannot read refuses only
// that function).
std::string parse_error(const std::string& text, const std::string& file = "t.ptx") {
  try {
    const Module m = parse_ptx(text, file);
    if (!m.refused.empty()) return m.refused.begin()->second;
  } catch (const ParseError& e) {
    return e.what();
  }
  return "(no error)";
}

const char* kHeader = ".version 8.0\n.target sm_80\n.address_size 64\n";

std::string kernel(const std::string& body, const std::string& regs = "") {
  return std::string(kHeader) + ".visible .entry k(.param .u64 p)\n{\n" +
         ".reg .b32 %r<10>;\n.reg .b64 %rd<10>;\n.reg .pred %p<4>;\n.reg .f32 %f<4>;\n" + regs +
         body + "\n}\n";
}

} // namespace

TEST(PtxParser, ParsesNvccOutput) {
  const Module& m = data_module("ptx_basic.ptx");
  EXPECT_EQ(m.version, "9.0");
  EXPECT_EQ(m.target, "sm_75");
  EXPECT_EQ(m.address_size, 64u);
  const Function* vadd = m.find_function("vadd");
  ASSERT_NE(vadd, nullptr);
  EXPECT_TRUE(vadd->is_entry);
  ASSERT_EQ(vadd->params.size(), 4u);
  EXPECT_EQ(vadd->params[0].name, "vadd_param_0");
  EXPECT_EQ(vadd->param_bytes, 28u);
  // %r<N> ranges expanded, predicates flagged
  int r1 = vadd->find_reg("%r1"), p1 = vadd->find_reg("%p1"), rd1 = vadd->find_reg("%rd1");
  ASSERT_GE(r1, 0);
  ASSERT_GE(p1, 0);
  ASSERT_GE(rd1, 0);
  EXPECT_EQ(vadd->regs[size_t(r1)].width_bits, 32u);
  EXPECT_TRUE(vadd->regs[size_t(p1)].is_pred);
  EXPECT_EQ(vadd->regs[size_t(p1)].width_bits, 1u);
  EXPECT_EQ(vadd->regs[size_t(rd1)].width_bits, 64u);
  // instruction lines point at the instruction text in the file
  std::ifstream f(std::string(GPURF_PTX_TEST_DATA) + "/ptx_basic.ptx");
  std::vector<std::string> lines;
  for (std::string l; std::getline(f, l);) lines.push_back(l);
  for (const auto& in : vadd->instrs) {
    ASSERT_GT(in.ptx_line, 0u);
    ASSERT_LE(in.ptx_line, lines.size());
    EXPECT_NE(lines[in.ptx_line - 1].find(in.text), std::string::npos) << in.text;
  }
  // .func with return parameter; call sequences with scoped .param declarations
  const Function* helper = m.find_function("_Z6helperiiPi");
  ASSERT_NE(helper, nullptr);
  EXPECT_FALSE(helper->is_entry);
  EXPECT_EQ(helper->ret_params.size(), 1u);
  EXPECT_EQ(helper->params.size(), 2u); // nvcc dropped the unused int parameter b=3 (constant)
  const Function* calls = m.find_function("calls");
  ASSERT_NE(calls, nullptr);
  int ncalls = 0;
  for (const auto& in : calls->instrs)
    if (in.op == Op::Call) {
      ++ncalls;
      ASSERT_GE(in.callee, 0);
      EXPECT_EQ(m.functions[size_t(in.callee)].name, in.callee_name);
      for (const auto& a : in.src) EXPECT_EQ(a.sym.scope, SymRef::Scope::Local);
    }
  EXPECT_EQ(ncalls, 3);
  // module variables with initialisers
  int ti = m.var_index("table");
  ASSERT_GE(ti, 0);
  const VarDecl& table = m.vars[size_t(ti)];
  EXPECT_EQ(table.space, Space::Const);
  EXPECT_EQ(table.size, 32u);
  ASSERT_EQ(table.init.size(), 32u);
  EXPECT_EQ(table.init[0], 3);
  EXPECT_EQ(table.init[20], 9);
  int ci = m.var_index("counter");
  ASSERT_GE(ci, 0);
  EXPECT_EQ(m.vars[size_t(ci)].init[0], 5);
  // lookup helpers
  EXPECT_EQ(m.find_function("nope"), nullptr);
  auto entries = m.entry_names();
  EXPECT_NE(std::find(entries.begin(), entries.end(), "reduce_shared"), entries.end());
  EXPECT_EQ(std::find(entries.begin(), entries.end(), "_Z4factj"), entries.end());
}

TEST(PtxParser, ParsesAllTestData) {
  for (const char* f : {"ptx_basic.ptx", "ptx_warp.ptx", "ptx_math.ptx"}) {
    const Module& m = data_module(f);
    EXPECT_FALSE(m.entry_names().empty()) << f;
  }
}

TEST(PtxParser, ErrorsNameFileAndLine) {
  EXPECT_EQ(parse_error(kernel("vshl.u32.u32.u32.clamp.add %r1, %r2, %r3, %r4;")),
            "t.ptx:10: unsupported PTX instruction 'vshl.u32.u32.u32.clamp.add'");
  EXPECT_EQ(parse_error(kernel("  mov.u32 %r1, 1;\n  frobnicate %r1;")),
            "t.ptx:11: unsupported PTX instruction 'frobnicate'");
  std::string e = parse_error(kernel("mov.u32 %r1, 1\nadd.s32 %r2, %r1, 1;"));
  EXPECT_EQ(e, "t.ptx:10: expected ';' or ',' after the operands of 'mov.u32', found 'add.s32'");
  e = parse_error(kernel("add.s32 %r2, %r99, 1;"));
  EXPECT_EQ(e, "t.ptx:10: undeclared register '%r99'") << e;
  e = parse_error(kernel("bra $L_nowhere;"));
  EXPECT_EQ(e, "t.ptx:10: undefined label '$L_nowhere'") << e;
  e = parse_error(kernel("add.s32 %r1, %r2;"));
  EXPECT_EQ(e, "t.ptx:10: 'add.s32' expects 2 source operands, got 1") << e;
  e = parse_error(kernel("add.e4m3 %r1, %r2, %r3;"));
  EXPECT_NE(e.find("t.ptx:10: type '.e4m3' is not supported"), std::string::npos) << e;
  e = parse_error(kernel("ld.global.u32 %r1, %rd1;"));
  EXPECT_EQ(e, "t.ptx:10: expected an address [..] operand in 'ld.global.u32'") << e;
  e = parse_error(kernel("add.s32.bogus %r1, %r2, %r3;"));
  EXPECT_EQ(e, "t.ptx:10: unsupported modifier '.bogus' in 'add.s32.bogus'") << e;
  e = parse_error(std::string(kHeader) + ".visible .entry k()\n{\n/* never closed\n");
  EXPECT_EQ(e, "t.ptx:6: unterminated /* comment") << e;
  e = parse_error(std::string(kHeader) + ".visible .entry k()\n{\n  ret;\n");
  EXPECT_NE(e.find("t.ptx:7: unexpected end of file inside the body of 'k'"), std::string::npos)
      << e;
  e = parse_error(std::string(kHeader) + ".bogus 3;\n");
  EXPECT_EQ(e, "t.ptx:4: unexpected '.bogus' at module scope (expected a directive)") << e;
  e = parse_error(kernel("@%r1 ret;"));
  EXPECT_EQ(e, "t.ptx:10: guard '%r1' is not a predicate") << e;
  EXPECT_THROW(parse_ptx_file("/nonexistent/x.ptx"), ParseError);
}

TEST(PtxParser, ABodyItCannotReadRefusesOnlyThatFunctionAndItsCallers) {
  const std::string text = std::string(kHeader) +
                           ".func bad()\n{\n  frobnicate;\n  ret;\n}\n"       // lines 4-8
                           ".func mid()\n{\n  call.uni bad, ();\n  ret;\n}\n" // lines 9-13
                           ".visible .entry uses()\n{\n  call.uni mid, ();\n  ret;\n}\n"
                           ".visible .entry good(.param .u64 p)\n{\n  { ret; }\n}\n";
  const Module m = parse_ptx(text, "t.ptx");
  EXPECT_EQ(m.entry_names(), std::vector<std::string>{"good"});
  ASSERT_EQ(m.refused.size(), 3u);
  EXPECT_EQ(m.refused.at("bad"), "t.ptx:6: unsupported PTX instruction 'frobnicate'");
  EXPECT_EQ(m.refused.at("mid"),
            "t.ptx:11: calls 'bad', which is not loaded: " + m.refused.at("bad"));
  EXPECT_EQ(m.refused.at("uses").rfind("t.ptx:16: calls 'mid'", 0), 0u) << m.refused.at("uses");
  EXPECT_EQ(m.no_entry("uses"), "kernel 'uses' cannot be loaded (" + m.refused.at("uses") + ")");
  EXPECT_EQ(m.no_entry("nosuch"), "unknown kernel 'nosuch'");
  ASSERT_NE(m.find_function("good"), nullptr);
  EXPECT_EQ(m.find_function("good")->instrs.size(), 1u); // parsing went on after the bad body
  // A module-scope error still refuses the file.
  EXPECT_THROW(parse_ptx(text + ".bogus 3;\n", "t.ptx"), ParseError);
}

// WARP_SZ, PTX's predefined warp size, is an immediate 32 (cuda_fp16.hpp's __shfl_*_sync of
// __half2 compute their clamp operand from it). Before: "undeclared identifier 'WARP_SZ'".
TEST(PtxParser, WarpSizeIsAnImmediate) {
  const Module m =
      parse_ptx(kernel("{mov.u32 %r1, WARP_SZ;\n}\nshl.b32 %r2, %r1, 8;\nret;"), "t.ptx");
  ASSERT_TRUE(m.refused.empty()) << m.refused.begin()->second;
  const Instr& mov = m.functions[0].instrs[0];
  ASSERT_EQ(mov.src.size(), 1u);
  EXPECT_EQ(mov.src[0].kind, Operand::Kind::Imm);
  EXPECT_EQ(mov.src[0].imm, 32u);
}

// createpolicy and .L2::cache_hint (cuda::annotated_ptr, CUTLASS), griddepcontrol
// (cudaGridDependencySynchronize), discard and applypriority: the policy a mov of 0, the hint's
// operand dropped, the grid dependency its own no-op, the line hints prefetches. Before: each
// refused its kernel.
TEST(PtxParser, CachePoliciesAndGridDependencies) {
  const Module m = parse_ptx(
      kernel("griddepcontrol.wait;\n"
             "createpolicy.fractional.L2::evict_last.L2::evict_unchanged.b64 %rd1, 0f3F800000;\n"
             "ld.global.L2::cache_hint.f32 %f1, [%rd2], %rd1;\n"
             "st.global.L2::cache_hint.f32 [%rd2+4], %f1, %rd1;\n"
             "cp.async.cg.shared.global.L2::cache_hint [%r1], [%rd2], 16, %rd1;\n"
             "griddepcontrol.launch_dependents;\n"
             "discard.global.L2 [%rd2], 128;\n"
             "applypriority.global.L2::evict_normal [%rd2], 128;\nret;"),
      "t.ptx");
  ASSERT_TRUE(m.refused.empty()) << m.refused.begin()->second;
  const std::vector<Instr>& in = m.functions[0].instrs;
  EXPECT_EQ(in[0].op, Op::Griddepcontrol);
  EXPECT_EQ(in[1].op, Op::Mov);
  ASSERT_EQ(in[1].src.size(), 1u);
  EXPECT_EQ(in[1].src[0].kind, Operand::Kind::Imm);
  EXPECT_EQ(in[2].op, Op::Ld);
  EXPECT_EQ(in[2].src.size(), 1u); // the address; the policy dropped
  EXPECT_EQ(in[3].op, Op::St);
  EXPECT_EQ(in[3].src.size(), 2u);
  EXPECT_EQ(in[4].op, Op::CpAsync);
  EXPECT_EQ(in[4].src.size(), 3u);
  EXPECT_EQ(in[5].op, Op::Griddepcontrol);
  for (size_t i : {6, 7}) { // L2 line hints: a prefetch of the address
    EXPECT_EQ(in[i].op, Op::Prefetch);
    EXPECT_EQ(in[i].src.size(), 1u);
  }
  EXPECT_NE(parse_error(kernel("ld.global.L2::cache_hint.f32 %f1, [%rd2];\nret;"))
                .find("needs a cache-policy operand last"),
            std::string::npos);
}

// tf32's conversions are one cvt of format Tf32 (half.h to_tf32), .satfinite optional on the
// sm_90 roundings; fp4 is refused by name.
TEST(PtxParser, Tf32ConversionsAreCvtFormats) {
  const Module m =
      parse_ptx(kernel("cvt.rna.tf32.f32 %r1, %f1;\ncvt.rz.tf32.f32 %r2, %f1;\nret;"), "t.ptx");
  ASSERT_TRUE(m.refused.empty()) << m.refused.begin()->second;
  const std::vector<Instr>& in = m.functions[0].instrs;
  ASSERT_EQ(in.size(), 3u);
  EXPECT_EQ(in[0].op, Op::Cvt);
  EXPECT_EQ(in[0].fmt, CvtFormat::Tf32);
  EXPECT_EQ(in[0].rnd, Round::RNA);
  EXPECT_EQ(in[1].rnd, Round::RZ);
  EXPECT_FALSE(in[1].satfinite);
  EXPECT_NE(parse_error(kernel("cvt.rn.relu.tf32.f32 %r1, %f1;\nret;")).find("tf32"),
            std::string::npos);
}

TEST(PtxParser, DirectivesCommentsAndScopes) {
  std::string text =
      std::string(kHeader) +
      "// comment\n"
      ".file 1 \"x.cu\"\n"
      ".global .align 8 .b8 g[16] = {1, 2, 3};\n"
      ".global .u64 gp = generic(g)+4;\n"
      ".extern .func (.param .b32 r) ext(.param .b32 a);\n"
      "/* block\n comment */\n"
      ".visible .entry k(.param .u64 .ptr .global .align 4 k_p0, .param .align 8 .b8 "
      "k_p1[12])\n"
      ".maxntid 128, 1, 1\n.minnctapersm 2\n"
      "{\n"
      "  .reg .b32 %r<3>;\n  .reg .v2 .f32 %v;\n  .local .align 8 .b8 depot[24];\n"
      "  .loc 1 5 3\n"
      "  { .reg .b32 t; mov.u32 t, 1; }\n"
      "  { .reg .b32 t; mov.u32 t, 2; }\n"
      "$L1:\n  mov.f32 %v.x, 0f3F800000;\n  mov.u32 %r1, depot;\n  ret;\n"
      "}\n";
  Module m = parse_ptx(text, "d.ptx");
  const Function* k = m.find_function("k");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->maxntid[0], 128u);
  EXPECT_EQ(k->minnctapersm, 2u);
  ASSERT_EQ(k->params.size(), 2u);
  EXPECT_TRUE(k->params[0].is_ptr);
  EXPECT_EQ(k->params[0].align, 8u);
  EXPECT_EQ(k->params[1].size, 12u);
  EXPECT_EQ(k->params[1].offset, 8u);
  EXPECT_EQ(k->param_bytes, 20u);
  // two scoped `t` registers are distinct vregs; %v expands to %v.x/%v.y
  EXPECT_EQ(k->instrs[0].dst[0].reg + 1, k->instrs[1].dst[0].reg);
  EXPECT_GE(k->find_reg("%v.y"), 0);
  EXPECT_EQ(k->labels.at("$L1"), 2u);
  EXPECT_EQ(k->instrs[3].src[0].kind, Operand::Kind::Symbol);
  EXPECT_EQ(k->instrs[3].src[0].sym.scope, SymRef::Scope::Local);
  const VarDecl& g = m.vars[size_t(m.var_index("g"))];
  EXPECT_EQ(g.init, std::vector<uint8_t>({1, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
  const VarDecl& gp = m.vars[size_t(m.var_index("gp"))];
  ASSERT_EQ(gp.addr_inits.size(), 1u);
  EXPECT_EQ(gp.addr_inits[0].name, "g");
  EXPECT_EQ(gp.addr_inits[0].offset, 4);
  const Function* ext = m.find_function("ext");
  ASSERT_NE(ext, nullptr);
  EXPECT_FALSE(ext->has_body);
}

// CUDA's half-precision math (hexp, hsin, ... in cuda_fp16.hpp) is inline asm whose blocks
// write a directive and its type without a space: `.reg.b32` is `.reg .b32`.
TEST(PtxParser, DirectivesWrittenWithoutSpaces) {
  std::string text =
      std::string(kHeader) +
      ".visible .entry k(.param .u64 k_p0)\n"
      "{\n"
      "  .reg .b16 %rs<3>;\n"
      "  {.reg.b32         f, C;\n"
      "   .reg.b16         h,r;\n"
      "   mov.b16 h, %rs1;\n"
      "   cvt.f32.f16 f, h;\n"
      "   mov.b32 C, 0x3fb8aa3bU;\n"
      "   mul.f32 f, f, C;\n"
      "   cvt.rn.f16.f32 r, f;\n"
      "  {.reg.b16 spc, p;\n   mov.b16 spc, 0X1F79U;\n   set.eq.f16.f16 p, h, spc;\n  }\n"
      "  {.reg.b16 spc, p;\n   mov.b16 spc, 0X25CFU;\n   set.eq.f16.f16 p, h, spc;\n  }\n"
      "   mov.b16 %rs2, r;\n"
      "  }\n"
      "  ret;\n"
      "}\n";
  Module m = parse_ptx(text, "h.ptx");
  const Function* k = m.find_function("k");
  ASSERT_NE(k, nullptr);
  ASSERT_EQ(k->instrs.size(), 11u);
  EXPECT_EQ(k->instrs[1].dst[0].reg, k->instrs[4].src[0].reg); // f
  EXPECT_EQ(k->instrs[3].src[1].reg, k->instrs[2].dst[0].reg); // C
  EXPECT_EQ(k->regs[k->instrs[2].dst[0].reg].width_bits, 32u);
  EXPECT_EQ(k->regs[k->instrs[0].dst[0].reg].width_bits, 16u); // h
  // the two inner blocks' `spc` are distinct registers
  EXPECT_NE(k->instrs[5].dst[0].reg, k->instrs[7].dst[0].reg);
}

TEST(PtxIr, ReadsWritesAndTraits) {
  std::string text = kernel("@!%p1 st.global.v2.u32 [%rd1+8], {%r1, %r2};\n"
                            "ld.shared.v4.u32 {%r3, _, %r4, %r5}, [%r6];\n"
                            "setp.lt.and.s32 %p2|%p3, %r1, %r2, !%p1;\n"
                            "mov.b64 {%r7, %r8}, %rd2;\n"
                            "div.rn.f64 %rd3, %rd4, %rd5;\n"
                            "ex2.approx.f32 %f1, %f2;\n"
                            "atom.global.add.u32 %r1, [%rd1], 1;\n"
                            "bar.sync 0;\n"
                            "ret;");
  Module m = parse_ptx(text, "rw.ptx");
  const Function& f = m.functions[0];
  auto id = [&](const char* n) { return unsigned(f.find_reg(n)); };
  std::vector<unsigned> r, w;
  reads_writes(f, f.instrs[0], r, w);
  EXPECT_EQ(r, (std::vector<unsigned>{id("%p1"), id("%rd1"), id("%r1"), id("%r2")}));
  EXPECT_TRUE(w.empty());
  reads_writes(f, f.instrs[1], r, w);
  EXPECT_EQ(r, (std::vector<unsigned>{id("%r6")}));
  EXPECT_EQ(w, (std::vector<unsigned>{id("%r3"), id("%r4"), id("%r5")}));
  reads_writes(f, f.instrs[2], r, w);
  EXPECT_EQ(r, (std::vector<unsigned>{id("%r1"), id("%r2"), id("%p1")}));
  EXPECT_EQ(w, (std::vector<unsigned>{id("%p2"), id("%p3")}));
  EXPECT_TRUE(f.instrs[2].src[2].negate);
  reads_writes(f, f.instrs[3], r, w);
  EXPECT_EQ(w, (std::vector<unsigned>{id("%r7"), id("%r8")}));

  EXPECT_EQ(op_traits(f.instrs[0]).pipe, gpurf::Pipe::MEM);
  EXPECT_TRUE(op_traits(f.instrs[0]).is_store);
  EXPECT_FALSE(op_traits(f.instrs[1]).long_latency); // shared
  EXPECT_EQ(op_traits(f.instrs[4]).pipe, gpurf::Pipe::DP);
  EXPECT_EQ(op_traits(f.instrs[5]).pipe, gpurf::Pipe::SFU);
  EXPECT_TRUE(op_traits(f.instrs[6]).long_latency);
  EXPECT_TRUE(op_traits(f.instrs[6]).is_atomic);
  EXPECT_TRUE(op_traits(f.instrs[7]).barrier);
  EXPECT_TRUE(op_traits(f.instrs[8]).ret);
  EXPECT_EQ(mem_space(f.instrs[1]), gpurf::MemSpace::Shared);
  EXPECT_EQ(mem_space(f.instrs[0]), gpurf::MemSpace::Global);
}

TEST(PtxCfg, DiamondAndLoopPostDominators) {
  std::string text = kernel("  setp.eq.s32 %p1, %r1, 0;\n"     // 0  B0
                            "  @%p1 bra $ELSE;\n"              // 1
                            "  add.s32 %r2, %r2, 1;\n"         // 2  B1
                            "  bra.uni $JOIN;\n"               // 3
                            "$ELSE:\n  add.s32 %r2, %r2, 2;\n" // 4 B2
                            "$JOIN:\n  add.s32 %r3, %r3, 1;\n" // 5 B3 (loop head)
                            "  setp.lt.s32 %p2, %r3, 10;\n"    // 6
                            "  @%p2 bra $JOIN;\n"              // 7
                            "  ret;");                         // 8  B4
  Module m = parse_ptx(text, "cfg.ptx");
  Cfg g = build_cfg(m.functions[0]);
  ASSERT_EQ(g.blocks.size(), 5u);
  EXPECT_EQ(g.blocks[0].succs, (std::vector<unsigned>{2, 1}));
  EXPECT_EQ(g.blocks[0].ipdom, 3);
  EXPECT_EQ(g.blocks[1].ipdom, 3);
  EXPECT_EQ(g.blocks[3].ipdom, 4);
  EXPECT_EQ(g.blocks[4].ipdom, -1);
  EXPECT_TRUE(g.blocks[4].exits);
  EXPECT_EQ(g.reconv_pc(1), 5u);
  EXPECT_EQ(g.reconv_pc(7), 8u);
  EXPECT_EQ(g.blocks[3].preds.size(), 3u); // B1, B2 and the back edge
}

// -------------------------------------------------------------------------------------------
// Hand-written PTX executed by the engine
// -------------------------------------------------------------------------------------------
TEST(PtxHandWritten, VectorsGenericAddressingAndSelects) {
  std::string text = std::string(kHeader) +
                     ".visible .entry k(.param .u64 out)\n{\n"
                     "  .reg .b32 %r<12>;\n  .reg .b64 %rd<8>;\n  .reg .pred %p<4>;\n"
                     "  .reg .f32 %f<4>;\n  .reg .b16 %rs<3>;\n"
                     "  .shared .align 8 .b8 sh[256];\n"
                     "  ld.param.u64 %rd1, [out];\n"
                     "  mov.u32 %r1, %tid.x;\n"
                     "  mov.u64 %rd2, 0x0000000500000007;\n"
                     "  mov.b64 {%r2, %r3}, %rd2;\n" // unpack: r2=7, r3=5
                     "  mov.b64 %rd3, {%r3, %r2};\n" // pack
                     "  mov.u32 %r4, sh;\n"
                     "  shl.b32 %r5, %r1, 3;\n"
                     "  add.s32 %r6, %r4, %r5;\n"
                     "  st.shared.v2.u32 [%r6], {%r1, %r2};\n"
                     "  cvt.u64.u32 %rd4, %r6;\n"
                     "  cvta.shared.u64 %rd5, %rd4;\n"
                     "  ld.v2.u32 {%r7, %r8}, [%rd5];\n" // generic → shared
                     "  setp.lt.and.u32 %p1|%p2, %r1, 3, 1;\n"
                     "  selp.b32 %r9, 100, 200, %p2;\n"
                     "  cvt.rn.f32.s32 %f1, %r1;\n"
                     "  sub.f32 %f2, %f1, 0f40000000;\n"
                     "  slct.s32.f32 %r10, 1, -1, %f2;\n"
                     "  mov.b32 %r11, {%rs1, %rs2};\n"
                     "  mul.wide.u32 %rd6, %r1, 48;\n"
                     "  add.s64 %rd7, %rd1, %rd6;\n"
                     "  st.global.v4.u32 [%rd7], {%r7, %r8, %r9, %r10};\n"
                     "  st.global.u64 [%rd7+16], %rd3;\n"
                     "  st.global.u64 [%rd7+24], %rd5;\n"
                     "  ret;\n}\n";
  Module m = parse_ptx(text, "hw.ptx");
  SparseMemory mem;
  uint64_t out = mem.alloc(48 * 8);
  LaunchConfig cfg;
  cfg.grid = Dim3(1);
  cfg.block = Dim3(8);
  ParamPacker pk(Kernel::find_entry(m, "k"));
  pk.set(0, out);
  run_functional(m, "k", cfg, pk.bytes(), mem);
  for (unsigned t = 0; t < 8; ++t) {
    auto w = mem.read_vec<uint32_t>(out + t * 48, 4);
    EXPECT_EQ(w[0], t);
    EXPECT_EQ(w[1], 7u);
    EXPECT_EQ(w[2], t < 3 ? 200u : 100u) << t; // p2 = !(t<3) && 1
    EXPECT_EQ(w[3], t >= 2 ? 1u : uint32_t(-1)) << t;
    auto d = mem.read_vec<uint64_t>(out + t * 48 + 16, 2);
    EXPECT_EQ(d[0], 0x0000000700000005ull);
    EXPECT_EQ(d[1], kSharedWindow + t * 8);
  }
}

TEST(PtxHandWritten, NamedBarrierDeadlockIsDetected) {
  std::string text = std::string(kHeader) +
                     ".visible .entry k()\n{\n  .reg .b32 %r<3>;\n  .reg .pred %p1;\n"
                     "  mov.u32 %r1, %tid.x;\n"
                     "  setp.lt.u32 %p1, %r1, 32;\n"
                     "  @%p1 bra $A;\n"
                     "  bar.sync 2;\n"
                     "  ret;\n"
                     "$A:\n  bar.sync 1;\n  ret;\n}\n";
  Module m = parse_ptx(text, "dl.ptx");
  SparseMemory mem;
  LaunchConfig cfg;
  cfg.grid = Dim3(1);
  cfg.block = Dim3(64);
  try {
    run_functional(m, "k", cfg, {}, mem);
    FAIL() << "expected a deadlock error";
  } catch (const RuntimeError& e) {
    std::string s = e.what();
    EXPECT_NE(s.find("barrier deadlock"), std::string::npos) << s;
    EXPECT_NE(s.find("barrier 1"), std::string::npos) << s;
    EXPECT_NE(s.find("barrier 2"), std::string::npos) << s;
  }
}

TEST(PtxHandWritten, ProducerConsumerNamedBarriers) {
  // warp 0 produces into shared memory and arrives at barrier 1 (64 threads); warp 1 waits.
  std::string text = std::string(kHeader) +
                     ".visible .entry k(.param .u64 out)\n{\n"
                     "  .reg .b32 %r<6>;\n  .reg .b64 %rd<4>;\n  .reg .pred %p1;\n"
                     "  .shared .align 4 .b8 buf[128];\n"
                     "  ld.param.u64 %rd1, [out];\n"
                     "  mov.u32 %r1, %tid.x;\n"
                     "  and.b32 %r2, %r1, 31;\n"
                     "  shl.b32 %r3, %r2, 2;\n"
                     "  setp.ge.u32 %p1, %r1, 32;\n"
                     "  @%p1 bra $CONS;\n"
                     "  mul.lo.u32 %r4, %r2, 3;\n"
                     "  st.shared.u32 [%r3+buf], %r4;\n"
                     "  bar.arrive 1, 64;\n"
                     "  ret;\n"
                     "$CONS:\n"
                     "  bar.sync 1, 64;\n"
                     "  ld.shared.u32 %r5, [%r3+buf];\n"
                     "  mul.wide.u32 %rd2, %r2, 4;\n"
                     "  add.s64 %rd3, %rd1, %rd2;\n"
                     "  st.global.u32 [%rd3], %r5;\n"
                     "  ret;\n}\n";
  std::string e = parse_error(text);
  // `[%r3+buf]` is not PTX: an address is a register or a symbol plus a constant offset
  EXPECT_NE(e.find("t.ptx:"), std::string::npos);
  // fixed form: compute the address first
  std::string fixed = text;
  for (std::string from : {"st.shared.u32 [%r3+buf], %r4;", "ld.shared.u32 %r5, [%r3+buf];"}) {
    std::string to = from.find("st.") == 0 ? "mov.u32 %r5, buf;\n  add.s32 %r5, %r5, %r3;\n  "
                                             "st.shared.u32 [%r5], %r4;"
                                           : "mov.u32 %r5, buf;\n  add.s32 %r5, %r5, %r3;\n  "
                                             "ld.shared.u32 %r5, [%r5];";
    fixed.replace(fixed.find(from), from.size(), to);
  }
  Module m = parse_ptx(fixed, "pc.ptx");
  SparseMemory mem;
  uint64_t out = mem.alloc(128);
  LaunchConfig cfg;
  cfg.grid = Dim3(1);
  cfg.block = Dim3(64);
  ParamPacker pk(Kernel::find_entry(m, "k"));
  pk.set(0, out);
  // run the consumer warp first: it must wait until the producer arrives
  Kernel k(m, "k", cfg, pk.bytes(), mem);
  unsigned cta = k.launch_cta(0);
  unsigned prod = k.cta_warps(cta)[0], cons = k.cta_warps(cta)[1];
  StepResult r;
  while (k.peek(cons).state == Peek::State::Ready) k.step(cons, r);
  EXPECT_EQ(k.peek(cons).state, Peek::State::AtBarrier);
  while (k.peek(prod).state == Peek::State::Ready) k.step(prod, r);
  EXPECT_EQ(k.peek(prod).state, Peek::State::Finished);
  EXPECT_EQ(k.peek(cons).state, Peek::State::Ready);
  while (k.peek(cons).state == Peek::State::Ready) k.step(cons, r);
  EXPECT_TRUE(k.cta_done(cta));
  auto v = mem.read_vec<uint32_t>(out, 32);
  for (unsigned i = 0; i < 32; ++i) EXPECT_EQ(v[i], i * 3);
}

TEST(PtxHandWritten, MisalignedAccessIsReported) {
  std::string text = std::string(kHeader) +
                     ".visible .entry k(.param .u64 p)\n{\n  .reg .b64 %rd<3>;\n  .reg .b32 %r1;\n"
                     "  ld.param.u64 %rd1, [p];\n"
                     "  ld.global.u32 %r1, [%rd1+2];\n"
                     "  ret;\n}\n";
  Module m = parse_ptx(text, "mis.ptx");
  SparseMemory mem;
  LaunchConfig cfg;
  cfg.grid = Dim3(1);
  cfg.block = Dim3(1);
  ParamPacker pk(Kernel::find_entry(m, "k"));
  pk.set(0, uint64_t(0x1000));
  try {
    run_functional(m, "k", cfg, pk.bytes(), mem);
    FAIL();
  } catch (const RuntimeError& e) {
    std::string s = e.what();
    EXPECT_NE(s.find("misaligned global load of 4 bytes at 0x1002 (needs 4-byte alignment)"),
              std::string::npos)
        << s;
    EXPECT_NE(s.find("thread 0, lane 0,"), std::string::npos) << s;
    EXPECT_NE(s.find("mis.ptx:9"), std::string::npos) << s;
  }
}

// A local access is held to its natural alignment too (as compute-sanitizer reports it), named
// by warp, thread and lane.
TEST(PtxHandWritten, MisalignedLocalStoreIsReported) {
  Module m = parse_ptx(kernel(".local .align 8 .b8 buf[16];\n"
                              "  mov.u32 %r1, 7;\n"
                              "  mov.u64 %rd1, 9;\n"
                              "  mov.u32 %r2, %tid.x;\n"
                              "  setp.eq.u32 %p1, %r2, 3;\n"
                              "  @%p1 st.local.u64 [buf+4], %rd1;\n"
                              "  @!%p1 st.local.u32 [buf+4], %r1;\n"
                              "  ret;"),
                       "local.ptx");
  SparseMemory mem;
  LaunchConfig cfg;
  cfg.grid = Dim3(1);
  cfg.block = Dim3(8);
  cfg.local_bytes_per_thread = 64;
  ParamPacker pk(Kernel::find_entry(m, "k"));
  pk.set(0, uint64_t(0x1000));
  try {
    run_functional(m, "k", cfg, pk.bytes(), mem);
    FAIL() << "the misaligned store ran";
  } catch (const RuntimeError& e) {
    const std::string s = e.what();
    EXPECT_NE(s.find("warp 0, thread 3, lane 3,"), std::string::npos) << s;
    EXPECT_NE(s.find("misaligned local store of 8 bytes at 0x"), std::string::npos) << s;
    EXPECT_NE(s.find("4 (needs 8-byte alignment)"), std::string::npos) << s;
  }
}
