// The engine's device printf and assert (device_output.h; docs/programs.md "printf and
// assert") on nvcc's PTX (tests/unit/ptx_data/ptx_device_output.cu).
#include <gtest/gtest.h>

#include "gpurf/modules/frontend/ptx/device_output.h"
#include "tests/unit/ptx_test_util.h"

using namespace gpurf::ptx;
using ptxtest::data_module;
using ptxtest::Launch;

namespace {
const Module& kernels() { return data_module("ptx_device_output.ptx"); }

struct Sink {
  std::string text;
  Sink() {
    set_device_output([this](const std::string& s) { text += s; });
  }
  ~Sink() { set_device_output(nullptr); }
};
} // namespace

TEST(PtxDeviceOutput, PrintfFormatsEveryActiveLaneAsCuda) {
  Sink sink;
  Launch L(kernels(), "say", Dim3(1), Dim3(32));
  const uint64_t v = L.buf(std::vector<int>{7, -8, 9});
  L.arg(v).arg(2.5);
  L.run();
  EXPECT_EQ(sink.text, "t0 v=7 d=2.500 u=4000000000 x=ff c=A s=str l=-5000000000%\n"
                       "t1 v=-8 d=2.500 u=4000000000 x=ff c=B s=str l=-5000000000%\n"
                       "t2 v=9 d=2.500 u=4000000000 x=ff c=C s=str l=-5000000000%\n");
}

TEST(PtxDeviceOutput, PrintfWithoutSinkIsANoOp) {
  Launch L(kernels(), "say", Dim3(1), Dim3(32));
  const uint64_t v = L.buf(std::vector<int>{1, 2, 3});
  L.arg(v).arg(1.0);
  EXPECT_NO_THROW(L.run());
}

TEST(PtxDeviceOutput, AssertStopsTheKernelNamingFileLineFunctionBlockAndThread) {
  std::vector<int> in(64, 1);
  in[45] = -1; // block 1, thread 13 of 32
  Launch L(kernels(), "check", Dim3(2), Dim3(32));
  L.arg(L.buf(in));
  try {
    L.run();
    FAIL() << "the assert did not stop the kernel";
  } catch (const RuntimeError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("ptx_device_output.cu:14: void check(const int *): block: [1,0,0], "
                     "thread: [13,0,0] Assertion `v[i] >= 0` failed."),
              std::string::npos)
        << m;
  }
}

TEST(PtxDeviceOutput, AssertThatHoldsRuns) {
  Launch L(kernels(), "check", Dim3(2), Dim3(32));
  L.arg(L.buf(std::vector<int>(64, 3)));
  EXPECT_NO_THROW(L.run());
}

TEST(PtxDeviceOutput, ArgumentBufferLayout) {
  // ints 4 bytes, longs/doubles/pointers 8 at their alignment.
  EXPECT_EQ(device_printf_args_bytes("%d %f"), 16u);
  EXPECT_EQ(device_printf_args_bytes("%d %d %s"), 16u);
  EXPECT_EQ(device_printf_args_bytes("100%% %c"), 4u);
  const unsigned char buf[16] = {42, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xf8, 0x3f};
  EXPECT_EQ(format_device_printf("%d %.1f|%5s", buf, 16, [](uint64_t) { return "x"; }),
            "42 1.5|    x");
}
