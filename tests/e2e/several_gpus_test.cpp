// GPUs as ordinary IP (docs/vp.md "Several GPUs"): GPUs inside a virtual platform's own
// modules, two under one parent, sharing one memory; each with its own statistics, identities
// and outputs. gpu.start() before sc_start with a target that answers only once elaboration has
// ended (a tlm_utils multi-passthrough socket), and once the simulation runs.
#include <gtest/gtest.h>
#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <unordered_map>

#include "gpurf/modules/frontend/launch.h"
#include "gpurf/modules/frontend/ptx_frontend.h"
#include "gpurf/platform/config.h"
#include "gpurf/platform/gpu.h"
#include "gpurf/platform/host_interface.h"
#include "gpurf/platform/params.h"
#include "tests/support/sparse_memory.h"

using namespace gpurf;

namespace {

using SharedMemory = test::SparseMemory;

ConfigPtr platform(const std::vector<std::string>& overrides) {
  ConfigPtr cfg = load_config(GPURF_SOURCE_DIR "/configs/fermi.yaml");
  for (const std::string& o : overrides) apply_override(*cfg, o);
  return cfg;
}

// A GPU with its platform and kernel; built inside whatever module is being built.
struct Part {
  ConfigPtr cfg;
  PtxFrontend fe;
  Params top;
  Gpu gpu;
  Part(const char* name, const std::string& kernel, const std::vector<std::string>& overrides)
      : cfg(platform(overrides)),
        fe(load_launch(GPURF_SOURCE_DIR "/workloads/" + kernel + ".yaml"), frontend_options(*cfg)),
        top(cfg.get(), ""), gpu(name, top, fe, fe.regs_per_thread()) {}
};

// A module of one's own holding one GPU.
struct Cluster : sc_core::sc_module {
  Part part;
  Cluster(sc_core::sc_module_name nm, const std::string& kernel,
          const std::vector<std::string>& overrides = {})
      : sc_module(nm), part(nullptr, kernel, overrides) {}
};

uint64_t value(const nlohmann::ordered_json& stats, const std::string& group,
               const std::string& name) {
  return stats.at(group).at(name).at("value").get<uint64_t>();
}

// A GPU's run: finished, outputs and identities right, statistics its own (named as the tool
// names them, its warp instructions those its front-end retired).
void expect_own_run(Part& p, const std::string& path) {
  SCOPED_TRACE(path);
  EXPECT_EQ(p.gpu.path(), path);
  ASSERT_TRUE(p.gpu.finished()) << p.gpu.error();
  EXPECT_EQ(p.fe.verify_outputs(), "");
  EXPECT_EQ(p.gpu.broken_identities(), "");
  const nlohmann::ordered_json s = p.gpu.stats_json(false);
  for (auto it = s.begin(); it != s.end(); ++it) {
    std::string root = it.key().substr(0, it.key().find('.'));
    if (root.rfind("sm", 0) == 0 && root.find_first_not_of("0123456789", 2) == std::string::npos)
      root = "sm"; // sm0, sm1, ...
    EXPECT_TRUE(root == "sm" || root == "gpu" || root == "interconnect" || root == "l2" ||
                root == "memory_port")
        << it.key();
  }
  EXPECT_GT(p.fe.retired(), 0u);
  EXPECT_EQ(value(s, "gpu", "warp_instructions"), p.fe.retired());
  EXPECT_EQ(value(s, "gpu", "warp_instructions"), p.gpu.retired());
  EXPECT_EQ(value(s, "gpu", "cycles"), p.gpu.cycles());
  uint64_t sms = 0;
  for (unsigned i = 0; i < p.gpu.sm_count(); ++i)
    sms += value(s, p.gpu.sm_count() == 1 ? "sm" : "sm" + std::to_string(i), "warp_instructions");
  EXPECT_EQ(sms, p.fe.retired());
  EXPECT_TRUE(s.contains("interconnect"));
  EXPECT_TRUE(s.contains("l2"));
}

} // namespace

// Two GPUs, each inside a module of one's own, share one memory: both kernels verified, the
// identities hold for each, and each GPU's statistics are its own.
TEST(SeveralGpus, InModulesOfOnesOwnSharingOneMemory) {
  Cluster a("a", "sgemm"), b("b", "daxpy_dot", {"gpu.sm_count=2"});
  SharedMemory mem("mem");
  a.part.gpu.memory_port().bind(mem.socket);
  b.part.gpu.memory_port().bind(mem.socket);
  a.part.gpu.start(); // before sc_start: the multi-passthrough socket is not bound yet
  b.part.gpu.start();
  sc_core::sc_start();
  expect_own_run(a.part, "a.gpu");
  expect_own_run(b.part, "b.gpu");
  EXPECT_NE(a.part.gpu.stats_json(false)["gpu"], b.part.gpu.stats_json(false)["gpu"]);
  // Both went to the memory, through their own sockets.
  ASSERT_EQ(mem.requests.size(), 2u);
  for (auto& [id, n] : mem.requests) EXPECT_GT(n, 0u) << id;
  // The second GPU's regions lie 4 GiB above the first's.
  EXPECT_EQ(a.part.gpu.address_base(), 0u);
  EXPECT_EQ(b.part.gpu.address_base(), uint64_t(4) << 30);
  EXPECT_EQ(a.part.fe.buffer_address("A"), PtxFrontend::kBufferBase);
  EXPECT_EQ(b.part.fe.buffer_address("x"), PtxFrontend::kBufferBase + (uint64_t(4) << 30));
}

// Two GPUs under one parent (named and unnamed), one with an LT port: names of their own.
TEST(SeveralGpus, TwoUnderOneParent) {
  struct Pair : sc_core::sc_module {
    Part left, right;
    explicit Pair(sc_core::sc_module_name nm)
        : sc_module(nm), left(nullptr, "heat2d", {"gpu.memory_port=lt"}),
          right("right", "bfs", {}) {}
  };
  Pair pair("pair");
  SharedMemory mem("mem");
  pair.left.gpu.memory_port().bind(mem.socket);
  pair.right.gpu.memory_port().bind(mem.socket);
  pair.left.gpu.start();
  pair.right.gpu.start();
  sc_core::sc_start();
  expect_own_run(pair.left, "pair.gpu");
  expect_own_run(pair.right, "pair.right");
  EXPECT_TRUE(pair.left.gpu.stats_json(false).contains("memory_port"));
  EXPECT_NE(pair.left.gpu.stats_json(false)["gpu"], pair.right.gpu.stats_json(false)["gpu"]);
}

// Regions of two GPUs that would overlap in one memory are refused, naming the key.
TEST(SeveralGpus, OverlappingRegionsAreRefused) {
  Cluster a("a", "sgemm");
  try {
    Part b("b", "sgemm", {"gpu.address_base=0x10000000"});
    FAIL() << "overlapping GPUs accepted";
  } catch (const ConfigError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("address_base"), std::string::npos) << m;
    EXPECT_NE(m.find("overlap"), std::string::npos) << m;
    EXPECT_NE(m.find("'a.gpu'"), std::string::npos) << m;
  }
}

// A name another object of the parent has is refused (SystemC would rename the GPU, and its
// statistics would no longer be found under its name).
TEST(SeveralGpus, ANameTakenIsRefused) {
  Part a("twin", "sgemm", {});
  try {
    Part b("twin", "sgemm", {});
    FAIL() << "a second 'twin' accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("'twin'"), std::string::npos) << e.what();
  }
}

namespace {

// A host CPU in the same module as a hosted GPU: runs daxpy_dot (y = a x + y and per-CTA
// partial sums of x y) over MMIO and checks y against its own computation.
struct Soc : sc_core::sc_module {
  SC_HAS_PROCESS(Soc);
  Part part;
  SharedMemory mem;
  tlm_utils::simple_initiator_socket<Soc> to_mem, to_gpu;
  sc_core::sc_signal<bool> irq;
  uint32_t status = 0;
  std::string error, wrong;

  explicit Soc(sc_core::sc_module_name nm)
      : sc_module(nm), part(nullptr, "daxpy_dot", {"gpu.hosted=true"}), mem("mem"),
        to_mem("to_mem"), to_gpu("to_gpu"), irq("irq") {
    part.gpu.memory_port().bind(mem.socket);
    to_mem.bind(mem.socket);
    to_gpu.bind(part.gpu.host().socket);
    part.gpu.host().irq.bind(irq);
    SC_THREAD(cpu);
  }
  void access(tlm_utils::simple_initiator_socket<Soc>& s, tlm::tlm_command cmd, uint64_t addr,
              void* data, unsigned len) {
    tlm::tlm_generic_payload gp;
    gp.set_command(cmd);
    gp.set_address(addr);
    gp.set_data_ptr(static_cast<unsigned char*>(data));
    gp.set_data_length(len);
    gp.set_streaming_width(len);
    gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    s->b_transport(gp, d);
    if (!gp.is_response_ok()) wrong = "host access failed at " + std::to_string(addr);
    wait(d);
  }
  void reg(unsigned off, uint32_t v) { access(to_gpu, tlm::TLM_WRITE_COMMAND, off, &v, 4); }
  void cpu() {
    using HI = HostInterface;
    const int32_t n = 8192;
    const double a = 1.5;
    const uint64_t x = uint64_t(8) << 30, y = x + 0x100000, partial = x + 0x200000,
                   params = x + 0x300000;
    std::vector<double> hx(n), hy(n);
    std::mt19937_64 r{5};
    std::uniform_real_distribution<double> u(-1, 1);
    for (int32_t i = 0; i < n; ++i) hx[size_t(i)] = u(r), hy[size_t(i)] = u(r);
    access(to_mem, tlm::TLM_WRITE_COMMAND, x, hx.data(), n * 8);
    access(to_mem, tlm::TLM_WRITE_COMMAND, y, hy.data(), n * 8);
    unsigned char p[40] = {}; // the .entry's .param layout: x, y, partial, n, a
    std::memcpy(p + 0, &x, 8);
    std::memcpy(p + 8, &y, 8);
    std::memcpy(p + 16, &partial, 8);
    std::memcpy(p + 24, &n, 4);
    std::memcpy(p + 32, &a, 8);
    access(to_mem, tlm::TLM_WRITE_COMMAND, params, p, sizeof p);
    for (unsigned d = 0; d < 3; ++d) {
      reg(HI::kGridX + 4 * d, d ? 1 : 4);
      reg(HI::kBlockX + 4 * d, d ? 1 : 256);
    }
    reg(HI::kParamLo, uint32_t(params));
    reg(HI::kParamHi, uint32_t(params >> 32));
    reg(HI::kControl, HI::kStart);
    wait(irq.posedge_event());
    access(to_gpu, tlm::TLM_READ_COMMAND, HI::kStatus, &status, 4);
    error = part.gpu.host().error_text();
    std::vector<double> gy(n);
    access(to_mem, tlm::TLM_READ_COMMAND, y, gy.data(), n * 8);
    for (int32_t i = 0; i < n && wrong.empty(); ++i)
      if (std::fabs(gy[size_t(i)] - std::fma(a, hx[size_t(i)], hy[size_t(i)])) > 1e-12)
        wrong = "y[" + std::to_string(i) + "] = " + std::to_string(gy[size_t(i)]);
  }
};

} // namespace

// A hosted GPU inside a module of one's own, checks on: the kernel's identities hold on the
// GPU's own statistics (they were looked up at the top level: "sm.cycles = 0").
TEST(SeveralGpus, AHostedGpuInsideAModule) {
  Soc soc("soc");
  sc_core::sc_start();
  EXPECT_EQ(soc.status, HostInterface::kDone) << soc.error;
  EXPECT_EQ(soc.error, "");
  EXPECT_EQ(soc.wrong, "");
  EXPECT_EQ(soc.part.gpu.path(), "soc.gpu");
  EXPECT_EQ(soc.part.gpu.broken_identities(), "");
}

// gpu.start() before sc_start with a target that answers debug transport only once
// elaboration has ended: the launch's writes wait for the start of the simulation.
TEST(SeveralGpus, StartBeforeSimulationWithAMultiPassthroughTarget) {
  Part p(nullptr, "sgemm", {});
  SharedMemory mem("mem");
  p.gpu.memory_port().bind(mem.socket);
  p.gpu.start();
  sc_core::sc_start();
  expect_own_run(p, "");
}

// gpu.start() once the simulation runs: the SMs idle until then and start at SystemC's time.
TEST(SeveralGpus, StartOnceTheSimulationRuns) {
  Part p(nullptr, "sgemm", {});
  SharedMemory mem("mem");
  p.gpu.memory_port().bind(mem.socket);
  sc_core::sc_start(1, sc_core::SC_US);
  EXPECT_FALSE(p.gpu.stopped());
  EXPECT_EQ(p.gpu.retired(), 0u);
  p.gpu.start();
  sc_core::sc_start();
  expect_own_run(p, "");
  EXPECT_GT(sc_core::sc_time_stamp(), sc_core::sc_time(1, sc_core::SC_US));
  EXPECT_GE(p.gpu.cycles(), 700u); // 1 us of fermi's 0.7 GHz clock idled first
}

// A write the target refuses even once the simulation runs fails the kernel, naming it.
TEST(SeveralGpus, AWriteRefusedAtTheStartFailsTheKernel) {
  Part p(nullptr, "sgemm", {});
  SharedMemory mem("mem");
  mem.size = PtxFrontend::kBufferBase; // the buffers lie beyond it
  p.gpu.memory_port().bind(mem.socket);
  p.gpu.start();
  sc_core::sc_start();
  EXPECT_FALSE(p.gpu.finished());
  EXPECT_NE(p.gpu.error().find("refused by the memory target"), std::string::npos) << p.gpu.error();
}

// gpu.start() from a thread of the platform, decoupled SMs (memory_port: lt): they idle until
// then, run the kernel, and the thread sees done_event().
TEST(SeveralGpus, StartFromAThread) {
  struct Starter : sc_core::sc_module {
    SC_HAS_PROCESS(Starter);
    Gpu* gpu = nullptr;
    bool idle_before = false, done = false;
    explicit Starter(sc_core::sc_module_name nm) : sc_module(nm) { SC_THREAD(run); }
    void run() {
      wait(2, sc_core::SC_US);
      idle_before = !gpu->stopped() && gpu->retired() == 0;
      gpu->start();
      wait(gpu->done_event());
      done = true;
    }
  };
  Part p(nullptr, "sgemm", {"gpu.memory_port=lt"});
  SharedMemory mem("mem");
  Starter starter("starter");
  starter.gpu = &p.gpu;
  p.gpu.memory_port().bind(mem.socket);
  sc_core::sc_start();
  EXPECT_TRUE(starter.idle_before);
  EXPECT_TRUE(starter.done);
  expect_own_run(p, "");
  EXPECT_GE(p.gpu.cycles(), 1400u); // 2 us of fermi's 0.7 GHz clock idled first
}
