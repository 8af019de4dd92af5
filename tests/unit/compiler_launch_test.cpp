// The launch loader (modules/frontend/launch.h): expressions, --scale, buffer initialisation,
// parameter packing and every kind of bad launch file (errors name file:line and the key).
#include <cstring>
#include <fstream>

#include <gtest/gtest.h>

#include "gpurf/modules/frontend/launch.h"
#include "gpurf/platform/config.h"
#include "tests/unit/compiler_test_util.h"

using namespace gpurf;

namespace {

std::string expr_error(const std::string& e, const std::map<std::string, int64_t>& v) {
  try {
    eval_expr(e, v);
  } catch (const ExprError& x) {
    return x.what();
  }
  return "";
}

using Launch = compilertest::ReduceLaunch;

const std::string kGood = R"(name: reduce
ptx: ptx/reduce.ptx
kernel: reduce
vars: {n: 1024, ctas: 2, half: "n / 2"}
scaled: [n]
grid: ["ctas", 1, 1]
block: [256]
shared_bytes: "4 * 4"
buffers:
  in: {type: f32, count: "n", init: {uniform: {min: -1.0, max: 1.0, seed: 6}}}
  partial: {type: f32, count: "ctas", init: {iota: {start: 1.5, step: 2}}, output: true}
  total: {type: u64, count: 3, init: {uniform: {min: 0, max: 9223372036854775807, seed: 0}}}
params:
  - {buffer: in}
  - {buffer: partial}
  - {buffer: total}
  - {s32: "n - 1"}
)";

std::string with(std::string s, const std::string& from, const std::string& to) {
  const size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

} // namespace

TEST(CompilerLaunch, Expressions) {
  const std::map<std::string, int64_t> v = {{"n", 64}, {"m", 7}};
  EXPECT_EQ(eval_expr("n/16", v), 4);
  EXPECT_EQ(eval_expr("(n + 255) / 256", v), 1);
  EXPECT_EQ(eval_expr("n*n + m % 4 - -3", v), 64 * 64 + 3 + 3);
  EXPECT_EQ(eval_expr(" 2 * (m + 1) * 3 ", v), 48);
  EXPECT_EQ(eval_expr("0x10 + 1", v), 17);
  EXPECT_EQ(eval_expr("-7 / 2", v), -3);
  EXPECT_EQ(eval_expr("-7 % 2", v), -1);
  EXPECT_NE(expr_error("nn + 1", v).find("unknown variable 'nn'"), std::string::npos);
  EXPECT_NE(expr_error("nn + 1", v).find("did you mean 'n'?"), std::string::npos);
  EXPECT_NE(expr_error("n / (m - 7)", v).find("division by zero"), std::string::npos);
  EXPECT_NE(expr_error("n +", v).find("expected a number"), std::string::npos);
  EXPECT_NE(expr_error("(n + 1", v).find("expected ')'"), std::string::npos);
  EXPECT_NE(expr_error("n $ 2", v).find("unexpected '$' at column 3"), std::string::npos);
  EXPECT_NE(expr_error("1.5 * n", v).find("only integers"), std::string::npos);
  EXPECT_NE(expr_error("9223372036854775807 + 1", v).find("overflow"), std::string::npos);
  EXPECT_NE(expr_error("", v).find("empty"), std::string::npos);
}

// f16 and bf16 elements are the values rounded to nearest even (IEEE bits written out here).
TEST(CompilerLaunch, HalfBuffers) {
  for (const char* type : {"f16", "bf16"}) {
    Launch l(with(kGood, "type: f32, count: \"n\", init: {uniform: {min: -1.0, max: 1.0, seed: 6}}",
                  std::string("type: ") + type +
                      ", count: \"n\", init: {values: [0.1, -2.5, 1e-7, 65504, 1.00048828125]}"));
    const LaunchSpec s = load_launch(l.path, 1);
    ASSERT_EQ(s.buffers[0].initial.size(), 1024u * 2);
    uint16_t h[5];
    std::memcpy(h, s.buffers[0].initial.data(), sizeof h);
    const bool f16 = std::string(type) == "f16";
    // 0.1; -2.5; 1e-7 (an f16 subnormal: 1.68 x 2^-24 -> 2 x 2^-24); 65504 (f16's largest; bf16:
    // 65536); 1 + 2^-11 (a tie: f16 keeps the even 1.0, bf16 rounds it to 1.0 too).
    const uint16_t want_f16[] = {0x2E66, 0xC100, 0x0002, 0x7BFF, 0x3C00};
    const uint16_t want_bf16[] = {0x3DCD, 0xC020, 0x33D7, 0x4780, 0x3F80};
    for (int i = 0; i < 5; ++i)
      EXPECT_EQ(h[i], f16 ? want_f16[i] : want_bf16[i]) << type << " element " << i;
    EXPECT_DOUBLE_EQ(s.buffers[0].value(s.buffers[0].initial.data() + 2), -2.5);
  }
}

TEST(CompilerLaunch, LoadsAndScales) {
  Launch l(kGood);
  const LaunchSpec s = load_launch(l.path, 3);
  EXPECT_EQ(s.name, "reduce");
  EXPECT_EQ(s.kernel, "reduce");
  EXPECT_EQ(s.scale, 3u);
  EXPECT_EQ(s.vars.at("n"), 3072);
  EXPECT_EQ(s.vars.at("half"), 1536); // computed from the scaled n
  EXPECT_EQ(s.vars.at("ctas"), 2);
  EXPECT_EQ(s.grid, (std::array<unsigned, 3>{2, 1, 1}));
  EXPECT_EQ(s.block, (std::array<unsigned, 3>{256, 1, 1}));
  EXPECT_EQ(s.shared_bytes, 16u);
  ASSERT_EQ(s.buffers.size(), 3u);
  EXPECT_EQ(s.buffers[0].count, 3072u);
  EXPECT_EQ(s.buffers[0].initial.size(), 3072u * 4);
  EXPECT_FALSE(s.buffers[0].output);
  EXPECT_TRUE(s.buffers[1].output);
  float p[2];
  std::memcpy(p, s.buffers[1].initial.data(), 8);
  EXPECT_EQ(p[0], 1.5f);
  EXPECT_EQ(p[1], 3.5f);
  // splitmix64(seed 0) first draw is 0xE220A8397B1DCDAF; max - min + 1 = 2^63.
  uint64_t t;
  std::memcpy(&t, s.buffers[2].initial.data(), 8);
  EXPECT_EQ(t, 0xE220A8397B1DCDAFull % (1ull << 63));
  const float* in = reinterpret_cast<const float*>(s.buffers[0].initial.data());
  for (unsigned i = 0; i < 3072; ++i) {
    ASSERT_GE(in[i], -1.0f);
    ASSERT_LE(in[i], 1.0f);
  }
  ASSERT_EQ(s.params.size(), 4u);
  EXPECT_EQ(s.params[3].kind, LaunchParam::Kind::S32);
  EXPECT_EQ(s.params[3].bits, 3071u);
  const std::vector<uint8_t> pk = pack_params(s, {0x1000, 0x2000, 0x3000});
  ASSERT_EQ(pk.size(), 28u);
  uint64_t a;
  std::memcpy(&a, pk.data() + 8, 8);
  EXPECT_EQ(a, 0x2000u);
  uint32_t n;
  std::memcpy(&n, pk.data() + 24, 4);
  EXPECT_EQ(n, 3071u);
  // Deterministic: the same file gives the same contents.
  EXPECT_EQ(load_launch(l.path, 3).buffers[0].initial, s.buffers[0].initial);
}

TEST(CompilerLaunch, SuiteFilesLoad) {
  for (const std::string& name : compilertest::suite()) {
    const LaunchSpec s = load_launch(compilertest::workloads() + "/" + name + ".yaml");
    EXPECT_EQ(s.name, name);
    EXPECT_EQ(s.params.size(), s.entry().params.size());
  }
  // bfs reads its inputs from files.
  const LaunchSpec b = load_launch(compilertest::workloads() + "/bfs.yaml");
  EXPECT_EQ(b.find_buffer("row_ptr")->initial.size(), 4097u * 4);
}

TEST(CompilerLaunch, Errors) {
  struct Case {
    std::string from, to, expect;
  };
  const std::vector<Case> cases = {
      {"kernel: reduce", "kernl: reduce",
       "launch.yaml:3: kernl: unknown key; did you mean 'kernel'?"},
      {"ptx: ptx/reduce.ptx", "ptx: ptx/missing.ptx", "launch.yaml:2: ptx: cannot open PTX file"},
      {"kernel: reduce", "kernel: reduse", "launch.yaml:3: kernel: unknown kernel 'reduse' in"},
      {"kernel: reduce", "kernel: reduse", "did you mean 'reduce'? (entries: reduce)"},
      {"  - {s32: \"n - 1\"}\n", "", "params: 3 parameters given; .entry reduce"},
      {"  - {s32: \"n - 1\"}", "  - {s32: \"n - 1\"}\n  - {u32: 1}",
       "5 parameters given; .entry reduce"},
      {"  - {s32: \"n - 1\"}", "  - {f32: 1.0}",
       "launch.yaml:17: params[3]: f32 does not match .param .u32 reduce_param_3"},
      {"  - {buffer: total}", "  - {u32: 5}", "params[2]: u32 does not match .param .u64"},
      {"  - {buffer: total}", "  - {buffer: totl}",
       "params[2].buffer: unknown buffer 'totl'; did you mean 'total'?"},
      {"  - {buffer: total}", "  - {buffr: total}",
       "launch.yaml:16: params[2].buffr: unknown key; did you mean 'buffer'?"},
      {"grid: [\"ctas\", 1, 1]", "grid: [\"ctas - 2\", 1, 1]",
       "launch.yaml:6: grid.x: value 0 ('ctas - 2') out of range"},
      {"block: [256]", "block: [0]", "block.x: value 0 out of range"},
      {"block: [256]", "block: [256, 8]", "2048 threads per CTA; at most 1024"},
      {"grid: [\"ctas\", 1, 1]", "grid: [\"ctas\", 1, 1, 1]", "expected 1 to 3 integers"},
      {"grid: [\"ctas\", 1, 1]", "grid: [\"ctas\", 65535, 65535]",
       "launch.yaml:6: grid: 2 x 65535 x 65535 = 8589672450 CTAs; at most 4294967295"},
      {"grid: [\"ctas\", 1, 1]", "grid: [\"ctas * \", 1, 1]", "grid.x: bad value 'ctas * '"},
      {"grid: [\"ctas\", 1, 1]", "grid: [\"ctaz\", 1, 1]", "did you mean 'ctas'?"},
      {"count: \"ctas\"", "count: \"ctas - 3\"", "buffers.partial.count: value -1"},
      {"count: 3", "count: 0", "buffers.total.count: value 0 out of range"},
      {"type: u64", "type: f6", "buffers.total.type: unknown value 'f6'; did you mean 'f64'?"},
      {"scaled: [n]", "scaled: [m]", "launch.yaml:5: scaled[0]: unknown var 'm'"},
      {"shared_bytes: \"4 * 4\"", "shared_bytes: -4", "shared_bytes: value -4 out of range"},
      {"init: {iota", "init: {iot", "unknown key; did you mean 'iota'?"},
      {"max: 1.0, seed: 6", "max: 1.0", "missing key 'seed'"},
      {"output: true", "output: maybe", "buffers.partial.output: bad value 'maybe'"},
      {"{min: 0, max: 9223372036854775807", "{min: 5, max: 4", "min (5) exceeds max (4)"},
      {"name: reduce\n", "", "name: missing"},
      {"vars: {n: 1024", "vars: {n: 1024, m: \"q\"", "vars.m: bad value 'q'"},
      // Non-finite values: refused where they are read, not found later by verification.
      {"min: -1.0, max: 1.0", "min: -1.0, max: inf",
       "buffers.in.init.uniform.max: bad value 'inf': expected a finite number"},
      {"min: -1.0, max: 1.0", "min: nan, max: 1.0",
       "buffers.in.init.uniform.min: bad value 'nan': expected a finite number"},
      {"start: 1.5", "start: 1e999", "init.iota.start: bad value '1e999': expected a finite"},
      {"min: -1.0, max: 1.0", "min: -1.0, max: 1e39",
       "uniform.max: bad value '1e39': outside the f32 range"},
      {"  - {s32: \"n - 1\"}", "  - {f32: -inf}", "params[3].f32: bad value '-inf': expected a"},
      {"type: f32, count: \"n\", init: {uniform: {min: -1.0, max: 1.0",
       "type: f16, count: \"n\", init: {uniform: {min: -1.0, max: 7e4",
       "uniform.max: bad value '7e4': outside the f16 range (magnitude at most 65504)"},
      {"type: f32, count: \"n\", init: {uniform: {min: -1.0, max: 1.0",
       "type: bf16, count: \"n\", init: {uniform: {min: -1e39, max: 1.0",
       "uniform.min: bad value '-1e39': outside the bf16 range (magnitude at most 3.3895314e38)"},
  };
  for (const Case& c : cases) {
    Launch l(with(kGood, c.from, c.to));
    const std::string e = l.error();
    EXPECT_NE(e.find(c.expect), std::string::npos) << "want: " << c.expect << "\ngot:  " << e;
  }
  // A data file of the wrong size.
  const std::string bad =
      with(kGood, "count: 3, init: {uniform: {min: 0, max: 9223372036854775807, seed: 0}}",
           "count: 3, init: {file: data.bin}");
  Launch g(bad);
  g.d.write("data.bin", "12345");
  EXPECT_NE(g.error().find("has 5 bytes; buffer 'total' needs 3 x 8 = 24"), std::string::npos)
      << g.error();
  // Constants out of the element type's range.
  Launch h(with(kGood, "count: 3, init: {uniform: {min: 0, max: 9223372036854775807, seed: 0}}",
                "count: 3, init: {constant: -1}"));
  EXPECT_NE(h.error().find("value -1 out of range; a u64 value"), std::string::npos) << h.error();
  EXPECT_NE(Launch(kGood).error(0).find("--scale 0"), std::string::npos);
}

// The entry's .reqntid and .maxntid bound the block at load, as a GPU refuses such a launch.
TEST(CompilerLaunch, LaunchBounds) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {".reqntid 128",
       "launch.yaml:7: block: [256,1,1], but .entry reduce requires .reqntid 128,1,1"},
      {".reqntid 256, 2", "requires .reqntid 256,2,1"},
      {".maxntid 64, 2",
       "256 threads per CTA, but .entry reduce allows at most 128 (.maxntid 64,2,1)"},
      {".reqntid 256", ""}, // the block it requires
      {".maxntid 512", ""},
  };
  for (const auto& [directive, expect] : cases) {
    Launch l(kGood);
    const std::filesystem::path ptx = l.d.dir / "ptx/reduce.ptx";
    std::ifstream in(ptx);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    in.close();
    text = with(text, ")\n{", ")\n" + directive + "\n{");
    std::ofstream(ptx) << text;
    const std::string e = l.error();
    if (expect.empty())
      EXPECT_EQ(e, "") << directive;
    else
      EXPECT_NE(e.find(expect), std::string::npos)
          << directive << "\nwant: " << expect << "\ngot:  " << e;
  }
}

TEST(CompilerLaunch, MalformedPtx) {
  Launch l(kGood);
  l.d.write("ptx/reduce.ptx", ".version 9.0\n.target sm_75\n.address_size 64\n\n.visible .entry "
                              "reduce()\n{\n  bogus.op %r1;\n}\n");
  const std::string e = l.error();
  EXPECT_NE(e.find("reduce.ptx:7:"), std::string::npos) << e;
  // A bad body refuses only its kernel: named where the launch file names it.
  EXPECT_NE(e.find("launch.yaml:"), std::string::npos) << e;
  EXPECT_NE(e.find("kernel 'reduce' cannot be loaded ("), std::string::npos) << e;
}

// `textures:` (workloads/README.md, "Textures"): descriptors, handles in the parameters, and
// every bad entry named by file:line, key, value and the valid values.
TEST(CompilerLaunch, Textures) {
  const std::string tex =
      with(with(kGood, "params:\n",
                "textures:\n"
                "  img: {buffer: in, dims: [16, 8], pitch: 128, type: f32, filter: linear,\n"
                "        address: [wrap, border], normalized: true, border: [1, 2, 3, 4]}\n"
                "  out: {buffer: in, dims: [32, 4, 2], type: u8, channels: 4, surface: true}\n"
                "params:\n"),
           "  - {buffer: total}", "  - {texture: img}");
  {
    Launch l(tex);
    const LaunchSpec s = load_launch(l.path, 1);
    ASSERT_EQ(s.textures.size(), 2u);
    const ptx::TextureDesc& d = s.textures[0].desc;
    EXPECT_EQ(d.resource, ptx::TexResource::Pitch2D);
    EXPECT_EQ(d.width, 16u);
    EXPECT_EQ(d.height, 8u);
    EXPECT_EQ(d.row_pitch(), 128u);
    EXPECT_EQ(d.filter, ptx::TexFilter::Linear);
    EXPECT_EQ(d.address[0], ptx::TexAddress::Wrap);
    EXPECT_EQ(d.address[1], ptx::TexAddress::Border);
    EXPECT_TRUE(d.normalized);
    EXPECT_EQ(d.border[3], 4.0f);
    const ptx::TextureDesc& o = s.textures[1].desc;
    EXPECT_TRUE(o.surface);
    EXPECT_EQ(o.resource, ptx::TexResource::Array);
    EXPECT_EQ(o.texel_bytes(), 4u);
    EXPECT_EQ(o.kind, ptx::TexChannel::Unsigned);
    // the parameter carries the handle, and the table places the texture at its buffer
    const std::vector<uint8_t> pk = pack_params(s, {0x1000, 0x2000, 0x3000});
    uint64_t h;
    std::memcpy(&h, pk.data() + 16, 8);
    const ptx::TextureTable t = texture_table(s, {0x1000, 0x2000, 0x3000});
    ASSERT_NE(t.find(h), nullptr);
    EXPECT_EQ(t.find(h)->base, 0x1000u);
    EXPECT_FALSE(t.find(h)->surface);
  }
  struct Case {
    std::string from, to, expect;
  };
  const std::vector<Case> cases = {
      {"filter: linear", "filter: cubic",
       "launch.yaml:14: textures.img.filter: unknown value 'cubic'"},
      {"filter: linear", "filter: cubic", "point, linear"},
      {"address: [wrap, border]", "address: [wrap, clip]",
       "textures.img.address[1]: unknown value 'clip'"},
      {"address: [wrap, border]", "address: [wrap]", "got 1 modes for 2 dimensions"},
      {"type: f32, filter", "type: s32, filter",
       "textures.img: invalid texture: linear filtering of a texture that returns integers"},
      {"type: u8, channels: 4", "type: u8, channels: 3", "textures.out.channels: bad value '3'"},
      {"type: f32, filter", "type: f64, filter", "textures.img.type: unknown value 'f64'"},
      {"dims: [16, 8]", "dims: [16, 40]",
       "textures.img.dims: the texels need 5120 bytes, buffer "
       "'in' has 4096"},
      {"dims: [16, 8]", "dims: [16, 8, 1, 1]", "expected a list of 1 to 3 sizes"},
      {"pitch: 128", "pitch: 32", "textures.img.pitch: bad value 32: a row of 16 texels takes 64"},
      {"normalized: true", "normalised: true", "textures.img.normalised: unknown key"},
      {"{buffer: in, dims: [32", "{buffer: inn, dims: [32", "textures.out.buffer: unknown buffer"},
      {"{texture: img}", "{texture: out}",
       "params[2].texture: unknown texture 'out' (textures in `textures:`: img)"},
      {"{texture: img}", "{surface: img}",
       "params[2].surface: unknown surface 'img' (surfaces in `textures:` with surface: true: "
       "out)"},
  };
  for (const Case& c : cases) {
    Launch l(with(tex, c.from, c.to));
    const std::string e = l.error();
    EXPECT_NE(e.find(c.expect), std::string::npos) << c.to << "\n got: " << e;
  }
}
