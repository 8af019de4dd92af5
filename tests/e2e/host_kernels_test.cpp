// Any kernel from the host (docs/vp.md "Host interface"): a hosted GPU runs every entry of
// every module its host loads (by API or over MMIO), selected by id or found by name, each
// with its own registers and occupancy; an unknown kernel is refused with the valid ones named;
// a kernel that fails is drained so that the next one runs. The host thread programs the
// registers through the TLM socket, places a launch file's buffers where it likes, packs the
// parameters with pack_params and checks the outputs with the suite's reference checkers, with
// every check (operands, timing checker, conservation identities) on.
#include <gtest/gtest.h>
#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <unordered_map>

#include "gpurf/modules/frontend/launch.h"
#include "gpurf/modules/frontend/ptx_frontend.h"
#include "gpurf/platform/config.h"
#include "gpurf/platform/gpu.h"
#include "gpurf/platform/host_interface.h"
#include "gpurf/platform/params.h"
#include "gpurf/platform/sm.h"
#include "gpurf/workloads/reference/reference.h"
#include "tests/support/sparse_memory.h"

using namespace gpurf;
using HI = HostInterface;

namespace {

using Memory = test::SparseMemory;

// A launch file's launch as a host runs it: its buffers at `base`, its parameters packed.
struct HostRun {
  LaunchSpec spec;
  std::vector<uint64_t> addr;
  uint64_t params = 0;
  HostRun(Memory& mem, const std::string& workload, const std::vector<std::string>& vars,
          uint64_t base)
      : spec(load_launch(GPURF_SOURCE_DIR "/workloads/" + workload + ".yaml", 1, vars)) {
    uint64_t next = base;
    for (const LaunchBuffer& b : spec.buffers) {
      addr.push_back(next);
      mem.write(next, b.initial.data(), b.initial.size());
      next = (next + b.bytes() + 255) / 256 * 256;
    }
    const std::vector<uint8_t> p = pack_params(spec, addr);
    params = next;
    mem.write(params, p.data(), p.size());
  }
  // The reference checker's verdict on the outputs in memory ("" when right).
  std::string check(Memory& mem) const {
    workload::link_all_checkers();
    const workload::Checker* c = workload::find_checker(spec.name);
    if (!c) return "no checker for " + spec.name;
    const workload::LaunchData d = checker_input(spec, spec.vars, [&](size_t i) {
      std::vector<uint8_t> bytes(spec.buffers[i].initial.size());
      mem.read(addr[i], bytes.data(), bytes.size());
      return bytes;
    });
    return (*c)(d);
  }
};

// The host CPU: a thread that runs `body` with a socket to each GPU's registers and each GPU's
// interrupt (bound in the same order); `gpu` picks the one the accesses go to.
struct Host : sc_core::sc_module {
  SC_HAS_PROCESS(Host);
  tlm_utils::multi_passthrough_initiator_socket<Host> regs;
  sc_core::sc_port<sc_core::sc_signal_in_if<bool>, 0> irq;
  std::function<void(Host&)> body;
  bool done = false;
  unsigned gpu = 0;
  explicit Host(sc_core::sc_module_name nm) : sc_module(nm), regs("regs"), irq("irq") {
    SC_THREAD(run);
  }
  void run() {
    body(*this);
    done = true;
  }
  uint32_t access(tlm::tlm_command cmd, unsigned off, uint32_t v) {
    tlm::tlm_generic_payload gp;
    gp.set_command(cmd);
    gp.set_address(off);
    gp.set_data_ptr(reinterpret_cast<unsigned char*>(&v));
    gp.set_data_length(4);
    gp.set_streaming_width(4);
    gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    regs[gpu]->b_transport(gp, d);
    EXPECT_TRUE(gp.is_response_ok()) << off;
    wait(d); // at least a delta: irq follows IRQ_ACK a delta later
    return v;
  }
  void write(unsigned off, uint32_t v) { access(tlm::TLM_WRITE_COMMAND, off, v); }
  uint32_t read(unsigned off) { return access(tlm::TLM_READ_COMMAND, off, 0); }
  void write64(unsigned lo, uint64_t v) {
    write(lo, uint32_t(v));
    write(lo + 4, uint32_t(v >> 32));
  }
  // Launches kernel `kernel` with `r`'s shape and parameters; STATUS after the interrupt.
  uint32_t launch(uint32_t kernel, const HostRun& r) {
    start(kernel, r);
    return wait_end();
  }
  void start(uint32_t kernel, const HostRun& r) {
    for (unsigned d = 0; d < 3; ++d) {
      write(HI::kGridX + 4 * d, r.spec.grid[d]);
      write(HI::kBlockX + 4 * d, r.spec.block[d]);
    }
    write64(HI::kParamLo, r.params);
    write(HI::kShared, r.spec.shared_bytes);
    write(HI::kKernel, kernel);
    write(HI::kControl, HI::kStart);
  }
  uint32_t wait_end() {
    if (!irq[gpu]->read()) wait(irq[gpu]->posedge_event());
    write(HI::kControl, HI::kIrqAck);
    return read(HI::kStatus);
  }
};

// A hosted GPU (fermi unless told, LT port, `sms` SMs) built with daxpy_dot's PTX (module 0),
// below whatever module is being built.
struct HostedGpu {
  ConfigPtr cfg;
  std::unique_ptr<PtxFrontend> frontend;
  std::unique_ptr<Params> top;
  std::unique_ptr<Gpu> gpu;
  explicit HostedGpu(unsigned sms = 1, const std::string& platform = "configs/fermi.yaml",
                     const std::vector<std::string>& overrides = {}) {
    cfg = load_config(GPURF_SOURCE_DIR "/" + platform);
    for (const std::string& o : overrides) apply_override(*cfg, o);
    for (const std::string& o : {std::string("gpu.hosted=true"), std::string("gpu.memory_port=lt"),
                                 "gpu.sm_count=" + std::to_string(sms)})
      apply_override(*cfg, o);
    frontend = std::make_unique<PtxFrontend>(
        load_launch(GPURF_SOURCE_DIR "/workloads/daxpy_dot.yaml"), frontend_options(*cfg));
    top = std::make_unique<Params>(cfg.get(), "");
    gpu = std::make_unique<Gpu>(*top, *frontend, frontend->regs_per_thread());
  }
};

// A hosted GPU at the top level with its memory and a host thread.
struct Platform : HostedGpu {
  Memory mem{"memory"};
  Host host{"host_cpu"};
  sc_core::sc_signal<bool> irq{"irq"};
  explicit Platform(unsigned sms = 1, const std::string& platform = "configs/fermi.yaml",
                    const std::vector<std::string>& overrides = {})
      : HostedGpu(sms, platform, overrides) {
    gpu->memory_port().bind(mem.socket);
    host.regs.bind(gpu->host().socket);
    gpu->host().irq.bind(irq);
    host.irq.bind(irq);
  }
  const std::string& text() const { return gpu->host().error_text(); }
};

std::string file_text(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

} // namespace

// Two kernels of two modules (daxpy_dot, the GPU's own; sgemm, loaded by API) launched one
// after the other from one host thread, each verified; each ran with its own registers.
TEST(HostKernels, TwoModulesFromOneHostThread) {
  Platform p;
  const unsigned m = p.gpu->load_module(GPURF_SOURCE_DIR "/workloads/ptx/sgemm.ptx");
  ASSERT_EQ(m, 1u);
  const uint32_t sgemm = m << Gpu::kEntryBits;
  ASSERT_NE(p.gpu->kernel(sgemm), nullptr);
  EXPECT_EQ(p.gpu->kernel(sgemm)->kernel_name(), "sgemm");
  EXPECT_EQ(p.gpu->find_kernel("sgemm"), sgemm);
  // The registers occupancy counts (fermi: ptx_virtual, ptxas's count).
  auto regs = [](const PtxFrontend& k) {
    return k.occupancy_registers() ? k.occupancy_registers() : k.regs_per_thread();
  };
  const unsigned regs_daxpy = regs(*p.frontend), regs_sgemm = regs(*p.gpu->kernel(sgemm));
  ASSERT_NE(regs_daxpy, regs_sgemm); // else this test could not tell the kernels' registers
  HostRun daxpy(p.mem, "daxpy_dot", {"n=16384"}, 0x40000000);
  HostRun gemm(p.mem, "sgemm", {}, 0x180000000); // above 4 GiB
  HostRun daxpy2(p.mem, "daxpy_dot", {"n=8192", "ctas=4"}, 0x1C0000000);
  std::vector<unsigned> seen_regs;
  uint64_t kernel_cycles = 0;
  const Cycle idle = 50000; // the host's own work between two launches
  p.host.body = [&](Host& h) {
    EXPECT_EQ(h.read(HI::kKernel), p.gpu->gpu_kernel()); // reset: the GPU's kernel
    EXPECT_EQ(h.launch(p.gpu->gpu_kernel(), daxpy), HI::kDone) << p.text();
    kernel_cycles += h.read(HI::kCyclesLo);
    seen_regs.push_back(p.gpu->sm(0).limits().regs_per_thread);
    wait(p.gpu->clock().time(idle));
    EXPECT_EQ(h.launch(sgemm, gemm), HI::kDone) << p.text();
    seen_regs.push_back(p.gpu->sm(0).limits().regs_per_thread);
    // CYCLES is the kernel's own; the GPU's count runs from time 0, the host's time included.
    const uint64_t own = h.read(HI::kCyclesLo);
    kernel_cycles += own;
    EXPECT_GT(own, 1000u);
    EXPECT_GE(p.gpu->cycles(), kernel_cycles + idle);
    EXPECT_LT(own, p.gpu->cycles() - idle);
    EXPECT_EQ(h.launch(p.gpu->gpu_kernel(), daxpy2), HI::kDone) << p.text(); // back again
  };
  sc_core::sc_start();
  ASSERT_TRUE(p.host.done);
  EXPECT_EQ(daxpy.check(p.mem), "");
  EXPECT_EQ(gemm.check(p.mem), "");
  EXPECT_EQ(daxpy2.check(p.mem), "");
  EXPECT_EQ(seen_regs, (std::vector<unsigned>{regs_daxpy, regs_sgemm}));
}

// A module loaded over MMIO (LOAD: PTX text in memory), its kernel found by name (FIND), run
// and verified; every register of the sequence as documented.
TEST(HostKernels, LoadOverMmioAndFindByName) {
  Platform p;
  const std::string ptx = file_text(GPURF_SOURCE_DIR "/workloads/ptx/reduce.ptx");
  ASSERT_FALSE(ptx.empty());
  const uint64_t text_at = 0x200000000, name_at = 0x200100000;
  p.mem.write(text_at, ptx.data(), ptx.size());
  p.mem.write(name_at, "reduce", 7);
  HostRun red(p.mem, "reduce", {"n=32768"}, 0x40000000);
  p.host.body = [&](Host& h) {
    h.write64(HI::kModuleLo, text_at);
    h.write(HI::kModuleLen, uint32_t(ptx.size()));
    h.write(HI::kControl, HI::kLoad);
    ASSERT_EQ(h.read(HI::kStatus), HI::kDone) << p.text();
    EXPECT_EQ(h.read(HI::kError), HI::kNone);
    EXPECT_EQ(h.read(HI::kModule), 1u);
    h.write64(HI::kNameLo, name_at);
    h.write(HI::kControl, HI::kFind);
    ASSERT_EQ(h.read(HI::kStatus), HI::kDone) << p.text();
    EXPECT_EQ(h.read(HI::kKernel), 1u << Gpu::kEntryBits);
    EXPECT_EQ(h.launch(h.read(HI::kKernel), red), HI::kDone) << p.text();
  };
  sc_core::sc_start();
  ASSERT_TRUE(p.host.done);
  EXPECT_EQ(red.check(p.mem), "");
}

// An unknown kernel id, an unknown name and bad PTX text are refused with ERROR 1 and a text
// that names what is valid; the GPU then runs a kernel as before.
TEST(HostKernels, UnknownKernelIsRejectedWithTheValidOnes) {
  Platform p;
  const std::string bad = ".version 7.0\n.target sm_75\n.address_size 64\n.entry k( {\n";
  p.mem.write(0x200000000, bad.data(), bad.size());
  p.mem.write(0x200100000, "no_such_kernel", 15);
  HostRun daxpy(p.mem, "daxpy_dot", {"n=4096", "ctas=2"}, 0x40000000);
  p.host.body = [&](Host& h) {
    EXPECT_EQ(h.launch(0x50003, daxpy), HI::kFailed);
    EXPECT_EQ(h.read(HI::kError), HI::kRejected);
    EXPECT_NE(p.text().find("KERNEL 0x50003: no such kernel"), std::string::npos) << p.text();
    EXPECT_NE(p.text().find("0x0 daxpy_dot"), std::string::npos) << p.text();
    h.write64(HI::kNameLo, 0x200100000);
    h.write(HI::kControl, HI::kFind | HI::kStart); // FIND fails: START is not done
    EXPECT_EQ(h.read(HI::kStatus), HI::kFailed);
    EXPECT_EQ(h.read(HI::kError), HI::kRejected);
    EXPECT_NE(p.text().find("no kernel 'no_such_kernel'"), std::string::npos) << p.text();
    EXPECT_NE(p.text().find("daxpy_dot"), std::string::npos) << p.text();
    h.write64(HI::kModuleLo, 0x200000000);
    h.write(HI::kModuleLen, uint32_t(bad.size()));
    h.write(HI::kControl, HI::kLoad);
    EXPECT_EQ(h.read(HI::kStatus), HI::kFailed);
    EXPECT_EQ(h.read(HI::kError), HI::kRejected);
    EXPECT_NE(p.text().find("LOAD: "), std::string::npos) << p.text();
    EXPECT_EQ(p.gpu->modules(), 1u); // nothing loaded
    EXPECT_EQ(h.launch(p.gpu->gpu_kernel(), daxpy), HI::kDone) << p.text();
  };
  sc_core::sc_start();
  ASSERT_TRUE(p.host.done);
  EXPECT_EQ(daxpy.check(p.mem), "");
}

// A kernel that fails (a pointer outside the memory: its load's functional access fails as it
// issues) is drained, on one SM and on two (the second halted by the first); the next kernel,
// of another module, runs on empty pipelines and verifies, and so does the failed one's
// kernel launched right.
void failed_then_good(unsigned sms, const std::string& platform = "configs/fermi.yaml",
                      const std::vector<std::string>& overrides = {}) {
  Platform p(sms, platform, overrides);
  const uint32_t sgemm = p.gpu->load_module(GPURF_SOURCE_DIR "/workloads/ptx/sgemm.ptx")
                         << Gpu::kEntryBits;
  HostRun bad(p.mem, "daxpy_dot", {"n=16384"}, 0x40000000);
  const uint64_t outside = uint64_t(32) << 30;
  const std::vector<uint8_t> params = pack_params(bad.spec, {outside, bad.addr[1], bad.addr[2]});
  p.mem.write(bad.params, params.data(), params.size());
  HostRun gemm(p.mem, "sgemm", {}, 0x80000000);
  HostRun daxpy(p.mem, "daxpy_dot", {"n=16384"}, 0xC0000000);
  p.host.body = [&](Host& h) {
    EXPECT_EQ(h.launch(p.gpu->gpu_kernel(), bad), HI::kFailed);
    EXPECT_EQ(h.read(HI::kError), HI::kKernelFailed) << p.text();
    EXPECT_NE(p.text().find("outside the memory"), std::string::npos) << p.text();
    for (unsigned s = 0; s < sms; ++s) EXPECT_TRUE(p.gpu->sm(s).drained()) << s;
    EXPECT_EQ(h.launch(sgemm, gemm), HI::kDone) << p.text();
    EXPECT_EQ(h.launch(p.gpu->gpu_kernel(), daxpy), HI::kDone) << p.text();
  };
  sc_core::sc_start();
  ASSERT_TRUE(p.host.done);
  EXPECT_EQ(gemm.check(p.mem), "");
  EXPECT_EQ(daxpy.check(p.mem), "");
}

TEST(HostKernels, FailedKernelIsDrainedAndTheNextRuns) { failed_then_good(1); }
TEST(HostKernels, FailedKernelIsDrainedOnTwoSms) { failed_then_good(2); }

// The same on the variants, whose units keep per-slot state (W-C's compressed rows, WIR's
// renaming, Malekeh's collector caches, a register file cache, sub-cores, predicates in banks).
// Their allocators give daxpy_dot fewer registers than sgemm: the SMs are built for 64.
// Malekeh's reuse hints profile a launch's first warps functionally before it starts, and the
// profile of a kernel that reads outside the memory fails there (ERROR 1): without the
// profile, the kernel fails as it runs.
class HostKernelsOn : public testing::TestWithParam<const char*> {};
TEST_P(HostKernelsOn, FailedKernelIsDrainedAndTheNextRuns) {
  std::vector<std::string> o{"gpu.hosted_registers=64"};
  if (std::string(GetParam()).find("malekeh") != std::string::npos)
    o.push_back("frontend.reuse_profile_warps=0");
  failed_then_good(1, GetParam(), o);
}
INSTANTIATE_TEST_SUITE_P(Variants, HostKernelsOn,
                         testing::Values("configs/warped-compression.yaml", "configs/wir-rlpv.yaml",
                                         "configs/malekeh.yaml", "configs/gebhart-rfc.yaml",
                                         "configs/cmrc-wshift.yaml", "configs/turing-subcore.yaml",
                                         "tests/platforms/pred-banks.yaml"),
                         [](const testing::TestParamInfo<const char*>& i) {
                           std::string n = i.param;
                           n = n.substr(n.rfind('/') + 1);
                           n = n.substr(0, n.find('.'));
                           for (char& c : n)
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

// A module whose kernel needs more registers than the SMs were built for is refused, naming
// the key that makes room; nothing is loaded.
TEST(HostKernels, AModuleTooLargeForTheSmsIsRefused) {
  Platform p(1, "configs/turing-subcore.yaml"); // daxpy_dot: 16 registers, sgemm 39
  try {
    p.gpu->load_module(GPURF_SOURCE_DIR "/workloads/ptx/sgemm.ptx");
    FAIL() << "loaded";
  } catch (const WorkloadError& e) {
    EXPECT_NE(std::string(e.what()).find("kernel 'sgemm' needs 39 registers"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("gpu.hosted_registers"), std::string::npos) << e.what();
  }
  EXPECT_EQ(p.gpu->modules(), 1u);
}

namespace {
// A subsystem of one's own holding a hosted GPU: the GPU sits below the module in the
// hierarchy.
struct GpuSubsystem : sc_core::sc_module, HostedGpu {
  sc_core::sc_signal<bool> irq{"irq"};
  GpuSubsystem(sc_core::sc_module_name nm, unsigned sms) : sc_module(nm), HostedGpu(sms) {
    gpu->host().irq.bind(irq);
  }
};
} // namespace

// Two GPUs inside modules of one's own, sharing one memory, driven by one host thread: each
// runs two different kernels of two modules (daxpy_dot, its own; sgemm, loaded), the two GPUs
// at the same time, with every check on (a broken identity fails the kernel: ERROR 2). All
// outputs verify; each GPU's statistics count only its own kernels.
TEST(HostKernels, TwoGpusInOwnModulesEachRunTwoKernels) {
  GpuSubsystem a("soc_a", 1), b("soc_b", 2);
  Memory mem("memory");
  Host host("host_cpu");
  for (GpuSubsystem* g : {&a, &b}) {
    g->gpu->memory_port().bind(mem.socket);
    host.regs.bind(g->gpu->host().socket);
    host.irq.bind(g->irq);
  }
  EXPECT_NE(a.gpu->path(), b.gpu->path());
  const uint32_t sgemm_a = a.gpu->load_module(GPURF_SOURCE_DIR "/workloads/ptx/sgemm.ptx")
                           << Gpu::kEntryBits;
  const uint32_t sgemm_b = b.gpu->load_module(GPURF_SOURCE_DIR "/workloads/ptx/sgemm.ptx")
                           << Gpu::kEntryBits;
  // Buffers where neither GPU keeps its own regions (the second's are 4 GiB up).
  HostRun daxpy_a(mem, "daxpy_dot", {"n=16384"}, 0x40000000);
  HostRun gemm_a(mem, "sgemm", {}, 0x60000000);
  HostRun daxpy_b(mem, "daxpy_dot", {"n=8192", "ctas=4"}, 0x340000000);
  HostRun gemm_b(mem, "sgemm", {"n=32"}, 0x360000000);
  uint64_t winst[2] = {0, 0};
  host.body = [&](Host& h) {
    auto both = [&](uint32_t ka, const HostRun& ra, uint32_t kb, const HostRun& rb) {
      h.gpu = 0;
      h.start(ka, ra);
      h.gpu = 1;
      h.start(kb, rb);
      for (unsigned g : {0u, 1u}) {
        h.gpu = g;
        EXPECT_EQ(h.wait_end(), HI::kDone) << (g ? b : a).gpu->host().error_text();
        winst[g] += h.read(HI::kWinstLo) | uint64_t(h.read(HI::kWinstHi)) << 32;
      }
    };
    both(a.gpu->gpu_kernel(), daxpy_a, sgemm_b, gemm_b);
    both(sgemm_a, gemm_a, b.gpu->gpu_kernel(), daxpy_b);
  };
  sc_core::sc_start();
  ASSERT_TRUE(host.done);
  EXPECT_EQ(daxpy_a.check(mem), "");
  EXPECT_EQ(gemm_a.check(mem), "");
  EXPECT_EQ(daxpy_b.check(mem), "");
  EXPECT_EQ(gemm_b.check(mem), "");
  // Statistics separate: each GPU's tree counts its own kernels' warp instructions, and its
  // SMs alone; the identities hold for each tree.
  const auto sa = a.gpu->stats_json(false), sb = b.gpu->stats_json(false);
  EXPECT_EQ(sa["gpu"]["warp_instructions"]["value"].get<uint64_t>(), winst[0]);
  EXPECT_EQ(sb["gpu"]["warp_instructions"]["value"].get<uint64_t>(), winst[1]);
  EXPECT_NE(winst[0], winst[1]);
  EXPECT_TRUE(sa.contains("sm") && !sa.contains("sm0"));
  EXPECT_TRUE(sb.contains("sm0") && sb.contains("sm1") && !sb.contains("sm"));
  EXPECT_EQ(a.gpu->broken_identities(), "");
  EXPECT_EQ(b.gpu->broken_identities(), "");
}
