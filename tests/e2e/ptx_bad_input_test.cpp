// End-to-end bad inputs of the PTX front-end: launch files that name an unknown kernel, pass the
// wrong parameters, or point at malformed PTX fail with a ConfigError naming file:line, before
// any simulation is built; a kernel that does not fit the SM fails the run with a clear error.
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <unistd.h>

#include "gpurf/modules/frontend/launch.h"
#include "gpurf/modules/frontend/ptx_frontend.h"
#include "gpurf/platform/config.h"
#include "gpurf/platform/simulation.h"

using namespace gpurf;

namespace {

namespace fs = std::filesystem;

std::string repo_root() { return GPURF_SOURCE_DIR; }

// A launch directory with a copy of the reduce kernel's PTX.
struct Dir {
  fs::path dir = fs::temp_directory_path() / ("gpurf_ptx_e2e_" + std::to_string(::getpid()));
  Dir() {
    fs::create_directories(dir / "ptx");
    fs::copy_file(repo_root() + "/workloads/ptx/reduce.ptx", dir / "ptx/reduce.ptx",
                  fs::copy_options::overwrite_existing);
  }
  ~Dir() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  }
};

const char* kReduce = R"(name: reduce
ptx: ptx/reduce.ptx
kernel: KERNEL
vars: {n: 1024, ctas: 2}
grid: ["ctas", 1, 1]
block: [256, 1, 1]
buffers:
  in: {type: f32, count: "n", init: {uniform: {min: -1.0, max: 1.0, seed: 6}}}
  partial: {type: f32, count: "ctas", init: {constant: 0}, output: true}
  total: {type: f32, count: 1, init: {constant: 0}, output: true}
params:
  - {buffer: in}
  - {buffer: partial}
  - {buffer: total}
PARAMS)";

std::string launch_text(const std::string& kernel,
                        const std::string& extra = "  - {s32: \"n\"}\n") {
  std::string s = kReduce;
  s.replace(s.find("KERNEL"), 6, kernel);
  s.replace(s.find("PARAMS"), 6, extra);
  return s;
}

std::string error_of(const std::string& path) {
  try {
    load_launch(path);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST(PtxE2eBadInput, UnknownKernelListsEntries) {
  Dir d;
  const std::string e = error_of(d.write("l.yaml", launch_text("reduc")));
  EXPECT_NE(e.find("l.yaml:3: kernel: unknown kernel 'reduc'"), std::string::npos) << e;
  EXPECT_NE(e.find("did you mean 'reduce'?"), std::string::npos) << e;
  EXPECT_NE(e.find("entries: reduce"), std::string::npos) << e;
}

TEST(PtxE2eBadInput, WrongParameterCount) {
  Dir d;
  const std::string e = error_of(d.write("l.yaml", launch_text("reduce", "")));
  EXPECT_NE(e.find("l.yaml:11: params: 3 parameters given; .entry reduce"), std::string::npos) << e;
  EXPECT_NE(e.find("takes 4"), std::string::npos) << e;
}

TEST(PtxE2eBadInput, WrongParameterType) {
  Dir d;
  const std::string e = error_of(d.write("l.yaml", launch_text("reduce", "  - {f64: 2.5}\n")));
  EXPECT_NE(e.find("l.yaml:15: params[3]: f64 does not match .param .u32"), std::string::npos) << e;
}

TEST(PtxE2eBadInput, MalformedPtxNamesFileAndLine) {
  Dir d;
  std::ifstream in(d.dir / "ptx/reduce.ptx");
  std::string ptx((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t at = ptx.find("\tshl.b32");
  ASSERT_NE(at, std::string::npos);
  ptx.replace(at, 8, "\tfrobnicate.b32");
  const size_t line = size_t(std::count(ptx.begin(), ptx.begin() + long(at), '\n')) + 1;
  d.write("ptx/reduce.ptx", ptx);
  const std::string e = error_of(d.write("l.yaml", launch_text("reduce")));
  EXPECT_NE(e.find("reduce.ptx:" + std::to_string(line) + ":"), std::string::npos) << e;
  EXPECT_NE(e.find("frobnicate"), std::string::npos) << e;
  // Only the kernel with the bad body is refused, named by the launch file's key.
  EXPECT_NE(e.find("l.yaml:3: kernel: kernel 'reduce' cannot be loaded ("), std::string::npos) << e;
}

TEST(PtxE2eBadInput, GoodLaunchRunsAndChecks) {
  Dir d;
  const LaunchSpec spec = load_launch(d.write("l.yaml", launch_text("reduce")));
  ConfigPtr platform = load_config(repo_root() + "/configs/fermi.yaml");
  PtxFrontend fe(spec, frontend_options(*platform));
  Simulation sim(*platform, fe, fe.regs_per_thread());
  const RunResult r = sim.run();
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(fe.verify_outputs(), "");
}

TEST(PtxE2eBadInput, CtaTooLargeForTheSm) {
  Dir d;
  const LaunchSpec spec = load_launch(d.write("l.yaml", launch_text("reduce")));
  ConfigPtr platform = load_config(repo_root() + "/configs/fermi.yaml");
  PtxFrontend fe(spec, frontend_options(*platform));
  // 512 B of shared memory per SM; the kernel needs 1024 per CTA.
  apply_override(*platform, "sm.shared_bytes=512");
  Simulation sim(*platform, fe, fe.regs_per_thread());
  try {
    sim.run();
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) { // the launch file, both parts and the limit
    const std::string m = e.what();
    for (const char* part :
         {"l.yaml: kernel 'reduce': a CTA needs 1024 bytes of shared memory", "(1024 static",
          "+ 0 dynamic, `shared_bytes`", "sm.shared_bytes is 512 bytes"})
      EXPECT_NE(m.find(part), std::string::npos) << part << " in " << m;
  }
}

TEST(PtxE2eBadInput, CtaWiderThanTheWarpSlots) {
  Dir d;
  const LaunchSpec spec = load_launch(d.write("l.yaml", launch_text("reduce")));
  ConfigPtr platform = load_config(repo_root() + "/configs/fermi.yaml");
  PtxFrontend fe(spec, frontend_options(*platform));
  apply_override(*platform, "sm.warps=2"); // reduce's CTA has 8 warps
  Simulation sim(*platform, fe, fe.regs_per_thread());
  try {
    sim.run();
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("needs 8 warp slots; sm.warps is 2"), std::string::npos)
        << e.what();
  }
}
