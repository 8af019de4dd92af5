// Kernels that call CUDA's device library functions without a body in PTX: vprintf and
// __assertfail compile (the engine runs them: device_output.h); any other such call is refused.
#include <gtest/gtest.h>

#include "gpurf/modules/frontend/compiler/compile.h"
#include "gpurf/modules/frontend/ptx/parser.h"

using namespace gpurf;

namespace {
const ptx::Module& kernels() {
  static const ptx::Module m = ptx::parse_ptx_file(std::string(GPURF_COMPILER_TEST_ROOT) +
                                                   "/tests/unit/ptx_data/ptx_device_output.ptx");
  return m;
}
} // namespace

TEST(CompilerDeviceCalls, AssertAndPrintfCompile) {
  EXPECT_NO_THROW(compiler::compile_kernel(kernels(), "check"));
  EXPECT_NO_THROW(compiler::compile_kernel(kernels(), "say"));
}

TEST(CompilerDeviceCalls, OtherBodilessCallsAreRefused) {
  const std::string ptx = R"(.version 9.0
.target sm_75
.address_size 64
.extern .func mystery(.param .b64 a);
.visible .entry k(.param .u64 p) {
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [p];
  { .param .b64 param0;
    st.param.b64 [param0+0], %rd1;
    call.uni mystery, (param0); }
  ret;
}
)";
  const ptx::Module m = ptx::parse_ptx(ptx, "mystery.ptx");
  try {
    compiler::compile_kernel(m, "k");
    FAIL() << "a call of a function without a body compiled";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("'mystery', which has no body"), std::string::npos)
        << e.what();
  }
}
