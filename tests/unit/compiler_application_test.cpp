// Application files (launch.h AppStep, application.h AppRunner): steps parsed and checked at
// load, and run in order against a plain memory: loops, conditions on device values, swaps,
// fills, copies, parameters evaluated at every launch.
#include <cstring>

#include <gtest/gtest.h>

#include "gpurf/modules/frontend/application.h"
#include "gpurf/platform/config.h"
#include "tests/unit/compiler_test_util.h"

using namespace gpurf;

namespace {

// Byte-addressed memory for the runner.
struct Memory : IFunctionalMemory {
  std::map<uint64_t, uint8_t> bytes;
  void read(uint64_t a, void* d, unsigned n) override {
    for (unsigned i = 0; i < n; ++i) static_cast<uint8_t*>(d)[i] = bytes[a + i];
  }
  void write(uint64_t a, const void* s, unsigned n) override {
    for (unsigned i = 0; i < n; ++i) bytes[a + i] = static_cast<const uint8_t*>(s)[i];
  }
  int32_t s32(uint64_t a) {
    int32_t v;
    read(a, &v, 4);
    return v;
  }
};

// reduce.ptx's entry: (in, partial, total, n).
const std::string kHead = R"(name: app
ptx: ptx/reduce.ptx
kernel: reduce
vars: {n: 8, t: 0, k: 0}
grid: [1, 1, 1]
block: [32]
buffers:
  in: {type: s32, count: 4, init: {constant: 0}}
  partial: {type: s32, count: 4, init: {constant: 0}}
  total: {type: u64, count: 1, init: {constant: 0}}
params:
  - {buffer: in}
  - {buffer: partial}
  - {buffer: total}
  - {s32: "n * 10 + t"}
)";

// The head above with `steps`, as app.yaml.
struct App : compilertest::ReduceLaunch {
  explicit App(const std::string& steps) : ReduceLaunch(kHead + steps, "app.yaml") {}
};

// The n parameter (offset 24) of every launch, the steps run against `mem`.
std::vector<uint32_t> run(LaunchSpec& s, Memory& mem, std::vector<uint64_t>& addr,
                          std::vector<std::string>* labels = nullptr) {
  AppRunner r(s, addr);
  std::vector<uint32_t> params;
  while (const AppStep* l = r.next(mem)) {
    const std::vector<uint8_t> p = pack_params(s, addr);
    uint32_t v;
    std::memcpy(&v, p.data() + 24, 4);
    params.push_back(v);
    if (labels) labels->push_back(l->label);
  }
  EXPECT_EQ(r.launches(), params.size());
  return params;
}

} // namespace

TEST(CompilerApplication, ComparisonsAndElements) {
  const std::map<std::string, int64_t> v = {{"n", 4}};
  EXPECT_EQ(eval_expr("n == 4", v), 1);
  EXPECT_EQ(eval_expr("n != 4", v), 0);
  EXPECT_EQ(eval_expr("n + 1 > 4", v), 1);
  EXPECT_EQ(eval_expr("n <= 3", v), 0);
  EXPECT_EQ(eval_expr("n >= 4", v), 1);
  EXPECT_EQ(eval_expr("n < 5", v), 1);
  const ElementReader element = [](const std::string& b, int64_t i) -> int64_t {
    return b == "flag" ? 100 + i : -1;
  };
  EXPECT_EQ(eval_expr("flag[n - 1] * 2", v, element), 206);
  EXPECT_EQ(eval_expr("flag[0] != 0", v, element), 1);
  try {
    eval_expr("flag[0]", v);
    FAIL() << "a buffer element read without a reader";
  } catch (const ExprError& e) {
    EXPECT_NE(std::string(e.what()).find("only the conditions of `steps`"), std::string::npos);
  }
  EXPECT_THROW(eval_expr("1 < 2 < 3", v), ExprError); // one comparison at most
}

TEST(CompilerApplication, SingleLaunchFileIsOneStep) {
  App a("");
  LaunchSpec s = load_launch(a.path);
  EXPECT_FALSE(s.application);
  Memory mem;
  std::vector<uint64_t> addr = {0x1000, 0x2000, 0x3000};
  EXPECT_EQ(run(s, mem, addr), (std::vector<uint32_t>{80}));
}

TEST(CompilerApplication, LoopsSetsAndSwaps) {
  App a(R"(steps:
  - for: {var: t, from: 1, to: "n", step: 3}
    do:
      - launch: loop
      - swap: [in, partial]
  - set: {k: "t * 2", n: "k + 1"}
  - launch: last
)");
  LaunchSpec s = load_launch(a.path);
  EXPECT_TRUE(s.application);
  Memory mem;
  std::vector<uint64_t> addr = {0x1000, 0x2000, 0x3000};
  std::vector<std::string> labels;
  // t = 1, 4, 7 (< 8); then t = 10 after the loop, k = 20, n = 21: 21 * 10 + 10.
  EXPECT_EQ(run(s, mem, addr, &labels), (std::vector<uint32_t>{81, 84, 87, 220}));
  EXPECT_EQ(labels, (std::vector<std::string>{"loop", "loop", "loop", "last"}));
  EXPECT_EQ(addr, (std::vector<uint64_t>{0x2000, 0x1000, 0x3000})); // three swaps
  EXPECT_EQ(s.vars.at("k"), 20);
}

TEST(CompilerApplication, RepeatWhileADeviceValueHolds) {
  // A countdown kept in device memory: `in[2]` is set to 3 and the host decrements it.
  App a(R"(steps:
  - fill: {buffer: in, value: 3, first: 2, count: 1}
  - repeat:
      - launch: pass
      - set: {t: "t + 1"}
      - fill: {buffer: in, value: "in[2] - 1", first: 2, count: 1}
    while: "in[2] > 0"
)");
  LaunchSpec s = load_launch(a.path);
  Memory mem;
  std::vector<uint64_t> addr = {0x1000, 0x2000, 0x3000};
  EXPECT_EQ(run(s, mem, addr), (std::vector<uint32_t>{80, 81, 82}));
  EXPECT_EQ(mem.s32(0x1000 + 8), 0);
}

TEST(CompilerApplication, FillStrideAndCopy) {
  App a(R"(steps:
  - fill: {buffer: in, value: 7, first: 1, stride: 2}
  - copy: {from: in, to: partial}
  - fill: {buffer: in, value: -1}
  - launch:
)");
  LaunchSpec s = load_launch(a.path);
  Memory mem;
  std::vector<uint64_t> addr = {0x1000, 0x2000, 0x3000};
  EXPECT_EQ(run(s, mem, addr).size(), 1u);
  for (unsigned i = 0; i < 4; ++i) {
    EXPECT_EQ(mem.s32(0x1000 + 4 * i), -1) << i;
    EXPECT_EQ(mem.s32(0x2000 + 4 * i), i % 2 ? 7 : 0) << i;
  }
}

TEST(CompilerApplication, RunTimeErrorsNameTheStep) {
  App a(R"(steps:
  - repeat:
      - launch:
    while: "1"
    max: 3
)");
  // The WorkloadError running `app`'s steps raises ("" if none).
  auto error = [](const App& app) -> std::string {
    LaunchSpec s = load_launch(app.path);
    Memory mem;
    std::vector<uint64_t> addr = {0x1000, 0x2000, 0x3000};
    try {
      run(s, mem, addr);
    } catch (const WorkloadError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(error(a).find("app.yaml:17: repeat: '1' still holds after 3 passes"), std::string::npos)
      << error(a);
  App b(R"(steps:
  - repeat:
      - launch:
    while: "in[n] != 0"
)");
  EXPECT_NE(error(b).find("in[8]: outside the buffer's 4 elements"), std::string::npos) << error(b);
  App c(R"(steps:
  - set: {n: "3000000000"}
  - launch:
)");
  LaunchSpec sc = load_launch(c.path);
  Memory mem;
  std::vector<uint64_t> addr = {0x1000, 0x2000, 0x3000};
  EXPECT_THROW(run(sc, mem, addr), ExprError); // the s32 parameter overflows
}

TEST(CompilerApplication, BadStepsNameTheKey) {
  auto has = [](const std::string& err, const std::string& needle) {
    EXPECT_NE(err.find(needle), std::string::npos) << "missing '" << needle << "' in: " << err;
  };
  has(App("steps:\n  - lanch: x\n").error(), "unknown step 'lanch'; did you mean 'launch'?");
  has(App("steps:\n  - swap: [in, total]\n  - launch:\n").error(),
      "swap needs buffers of the same type and count");
  has(App("steps:\n  - swap: [in, inn]\n  - launch:\n").error(),
      "unknown buffer 'inn'; did you mean 'in'?");
  has(App("steps:\n  - set: {tt: 1}\n  - launch:\n").error(),
      "steps[0].set.tt: unknown var 'tt'; did you mean 't'?");
  has(App("steps:\n  - for: {var: t, from: 0, to: \"m\"}\n    do: [{launch: }]\n").error(),
      "steps[0].for.to: bad value 'm'");
  has(App("steps:\n  - repeat: [{launch: }]\n    while: \"flag[0]\"\n").error(),
      "unknown buffer 'flag'");
  has(App("steps:\n  - fill: {buffer: in, value: 1}\n").error(), "no step launches the kernel");
  has(App("steps:\n  - repeat: [{launch: }]\n").error(), "missing key 'while'");
  has(App("steps: {launch: x}\n").error(), "expected a list of steps");
}

// `launch: {kernel, grid, block, params, shared, label}` (issue 33): parsed at load, the
// expressions kept for the launch, the step's own params packed against its kernel's .entry.
TEST(CompilerApplication, LaunchMapForm) {
  App a("steps:\n"
        "  - launch: {kernel: reduce, grid: [\"n / 4\", 2], block: [64], shared: \"n * 8\",\n"
        "             label: quarter, params: [{buffer: total}, {buffer: in}, {buffer: partial},\n"
        "             {s32: \"t + 1\"}]}\n"
        "  - launch:\n");
  LaunchSpec s = load_launch(a.path);
  ASSERT_EQ(s.steps.size(), 2u);
  const AppStep& st = s.steps[0];
  EXPECT_EQ(st.kernel, "reduce");
  EXPECT_EQ(st.label, "quarter");
  EXPECT_EQ(st.grid, (std::vector<std::string>{"n / 4", "2", "1"}));
  EXPECT_EQ(st.block, (std::vector<std::string>{"64", "1", "1"}));
  EXPECT_EQ(st.shared, "n * 8");
  ASSERT_TRUE(st.own_params);
  EXPECT_FALSE(s.several_kernels); // only the file's kernel: compiled and run as before
  EXPECT_TRUE(s.steps[1].kernel.empty());
  EXPECT_FALSE(s.steps[1].own_params);
  const std::vector<uint64_t> addr = {0x100, 0x200, 0x300};
  const std::vector<uint8_t> p = pack_params(s, addr, s.entry(), st.params);
  uint64_t first;
  int32_t n;
  std::memcpy(&first, p.data(), 8);
  std::memcpy(&n, p.data() + 24, 4);
  EXPECT_EQ(first, 0x300u); // total's address first
  EXPECT_EQ(n, 1);
}

TEST(CompilerApplication, LaunchMapFormErrors) {
  auto has = [](const std::string& err, const std::string& needle) {
    EXPECT_NE(err.find(needle), std::string::npos) << "missing '" << needle << "' in: " << err;
  };
  has(App("steps:\n  - launch: {kernel: reduse}\n").error(),
      "unknown kernel 'reduse'; did you mean 'reduce'?");
  has(App("steps:\n  - launch: {grid: [1]}\n").error(), "missing key 'kernel'");
  has(App("steps:\n  - launch: {kernel: reduce, gird: [1]}\n").error(),
      "unknown key; did you mean 'grid'?");
  has(App("steps:\n  - launch: {kernel: reduce, params: [{buffer: in}]}\n").error(),
      "steps[0].launch.params: 1 parameters given; .entry reduce");
  has(App("steps:\n  - launch: {kernel: reduce, grid: [\"n - 8\"]}\n").error(),
      "steps[0].launch.grid.x: value 0 out of range");
  has(App("steps:\n  - launch: {kernel: reduce, grid: [\"in[0]\"]}\n").error(),
      "only the conditions of `steps` may");
  has(compilertest::ReduceLaunch(
          "name: app\nptx: [ptx/reduce.ptx, ptx/reduce.ptx]\nkernel: reduce\ngrid: [1]\n"
          "block: [32]\nparams: []\nsteps: [{launch: }]\n",
          "twice.yaml")
          .error(),
      "is listed twice");
  has(compilertest::ReduceLaunch("name: app\nptx: []\nkernel: reduce\ngrid: [1]\nblock: [32]\n",
                                 "empty.yaml")
          .error(),
      "ptx: an empty list");
}
