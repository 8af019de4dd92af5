// Dynamic parallelism's device runtime as engine builtins (ptx/device_launch.h): nvcc's PTX of
// kernels launching kernels (ptx_data/ptx_device_launch.cu) runs, its launches queued with the
// child kernel, shape and a parameter buffer the parent filled in; libcudadevrt's own body of
// a runtime call is not loaded; the pending-launch and depth limits return CUDA's errors.
#include <gtest/gtest.h>

#include <set>

#include "ptx_test_util.h"

using namespace gpurf::ptx;

namespace {

constexpr uint64_t kBuffers = 0x7000000;

const Module& device_launch_module() { return ptxtest::data_module("ptx_device_launch.ptx"); }

} // namespace

TEST(PtxDeviceLaunch, LibraryBodyOfABuiltinIsNotLoaded) {
  const Module& m = device_launch_module();
  const Function* f = m.find_function("__cudaCDP2GetParameterBufferV2");
  ASSERT_NE(f, nullptr);
  EXPECT_FALSE(f->has_body); // the engine runs it
  EXPECT_TRUE(builtin_function("__cudaCDP2LaunchDeviceV2"));
  EXPECT_FALSE(builtin_function("__cuda_syscall_cnpv2GetParameterBufferV2"));
}

TEST(PtxDeviceLaunch, EachBlockQueuesItsChildWithFilledParameterBuffer) {
  const Module& m = device_launch_module();
  ptxtest::Launch l(m, "_Z6parentPi", Dim3(4), Dim3(32));
  const uint64_t o = l.zeros(128 * 4);
  DeviceLaunches d(kBuffers, 4096);
  l.cfg.device_launches = &d;
  l.arg(o).run();
  const std::vector<DeviceLaunch> q = d.take();
  ASSERT_EQ(q.size(), 4u); // thread 0 of each block
  std::set<int> bases;
  for (const DeviceLaunch& c : q) {
    EXPECT_EQ(m.functions[size_t(c.function)].name, "_Z5childPii");
    EXPECT_EQ(c.grid, (std::array<unsigned, 3>{1, 1, 1}));
    EXPECT_EQ(c.block, (std::array<unsigned, 3>{32, 1, 1}));
    EXPECT_EQ(c.stream, 0u);
    EXPECT_EQ(c.buffer_bytes, 12u); // the child's parameters: int*, int
    EXPECT_GE(c.buffer, kBuffers);
    EXPECT_LT(c.buffer, kBuffers + 4096);
    // the parameters as the parent stored them: (o, blockIdx.x * 32)
    EXPECT_EQ(l.get<uint64_t>(c.buffer, 1)[0], o);
    bases.insert(l.get<int>(c.buffer + 8, 1)[0]);
  }
  EXPECT_EQ(bases, (std::set<int>{0, 32, 64, 96}));
  // The children have not run: the parent's grid ended first.
  for (int v : l.get<int>(o, 128)) EXPECT_EQ(v, 0);
}

TEST(PtxDeviceLaunch, PastThePendingLimitTheLaunchReturnsCudasError) {
  const Module& m = device_launch_module();
  ptxtest::Launch l(m, "_Z5threePiS_", Dim3(1), Dim3(1));
  const uint64_t o = l.zeros(128 * 4), err = l.zeros(3 * 4);
  DeviceLaunches d(kBuffers, 4096);
  d.pending_limit = 2;
  l.cfg.device_launches = &d;
  l.arg(o).arg(err).run();
  // cudaGetLastError after each launch: the third is over the limit
  EXPECT_EQ(l.get<int>(err, 3), (std::vector<int>{0, 0, kCudaErrorLaunchPendingCountExceeded}));
  const std::vector<DeviceLaunch> q = d.take();
  ASSERT_EQ(q.size(), 2u);
  EXPECT_EQ(q[0].stream, kStreamTailLaunch);
  EXPECT_EQ(l.get<int>(q[1].buffer + 8, 1)[0], 32); // the second launch's base
}

TEST(PtxDeviceLaunch, AGridAtTheDepthLimitCannotLaunch) {
  const Module& m = device_launch_module();
  ptxtest::Launch l(m, "_Z5threePiS_", Dim3(1), Dim3(1));
  const uint64_t o = l.zeros(128 * 4), err = l.zeros(3 * 4);
  DeviceLaunches d(kBuffers, 4096);
  d.depth = kMaxLaunchDepth;
  l.cfg.device_launches = &d;
  l.arg(o).arg(err).run();
  EXPECT_EQ(l.get<int>(err, 3), std::vector<int>(3, kCudaErrorLaunchMaxDepthExceeded));
  EXPECT_TRUE(d.take().empty());
}

TEST(PtxDeviceLaunch, WithoutADeviceRuntimeTheKernelStopsSayingSo) {
  const Module& m = device_launch_module();
  ptxtest::Launch l(m, "_Z6parentPi", Dim3(1), Dim3(32));
  const uint64_t o = l.zeros(128 * 4);
  try {
    l.arg(o).run();
    FAIL() << "expected RuntimeError";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("dynamic parallelism"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("gpurf exec"), std::string::npos) << e.what();
  }
}
