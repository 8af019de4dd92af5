// An example virtual platform (docs/vp.md "Example virtual platform"): a host CPU thread, a
// memory and gpurf's GPU. The host puts daxpy_dot's inputs into memory at addresses of its
// own choosing, packs the kernel's parameter buffer, programs the GPU over its host interface
// (MMIO), sleeps until the interrupt, reads y and the per-CTA partial sums back and checks them
// against its own computation. It launches daxpy_dot three times (sizes, factors, addresses
// above 4 GiB), one launch the GPU rejects (no CTA); then it loads a second module over MMIO
// (sgemm's PTX text, put in memory: LOAD), finds its kernel by name (FIND), launches it and
// checks C = A * B; then a daxpy_dot with a pointer outside the memory, whose error stays
// with that kernel (the GPU drains it, the platform runs on), and a good sgemm and daxpy_dot
// after it, both checked.
//
//   vp SOURCE_DIR [annotate|wait|at] [SM_COUNT]
//     SOURCE_DIR: gpurf's source tree or an installed share/gpurf; "-": wherever
//     gpurf::data_path finds the platform and kernel (the installed package found by CMake).
//     annotate: the memory adds its latency to the delay (LT); wait: it waits a random
//     latency (100-400 ns) in b_transport, as a slower VP memory may; at: the GPU talks to it
//     with the 4-phase AT protocol, and it accepts a request after 0-30 ns (backpressure) and
//     answers after a random 100-400 ns. Exit 0 when every check passes.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/peq_with_cb_and_phase.h>
#include <tlm_utils/simple_initiator_socket.h>

#include "gpurf/modules/frontend/launch.h"
#include "gpurf/modules/frontend/ptx_frontend.h"
#include "gpurf/platform/config.h"
#include "gpurf/platform/data_path.h"
#include "gpurf/platform/gpu.h"
#include "gpurf/platform/host_interface.h"
#include "gpurf/platform/params.h"

namespace {

// A sparse byte-addressed memory below 16 GiB for every initiator that binds to it; pages of
// 4 KiB appear on first write and read as 0 before.
struct Memory : sc_core::sc_module {
  tlm_utils::multi_passthrough_target_socket<Memory> socket;
  static constexpr uint64_t kSize = uint64_t(16) << 30;
  bool wait_random = false;
  std::mt19937 rng{7};

  explicit Memory(sc_core::sc_module_name nm) : sc_module(nm), socket("socket") {
    socket.register_b_transport(this, &Memory::b_transport);
    socket.register_nb_transport_fw(this, &Memory::nb_transport_fw);
    socket.register_transport_dbg(this, &Memory::transport_dbg);
  }
  // AT: accept (END_REQ) after 0-30 ns, one request at a time; answer (BEGIN_RESP) after a
  // random 100-400 ns more; the bytes move at BEGIN_REQ.
  tlm::tlm_sync_enum nb_transport_fw(int id, tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay) {
    if (phase == tlm::END_RESP) return tlm::TLM_COMPLETED;
    gp.set_response_status(copy(gp) ? tlm::TLM_OK_RESPONSE : tlm::TLM_ADDRESS_ERROR_RESPONSE);
    const sc_core::sc_time accept(rng() % 31, sc_core::SC_NS);
    tlm::tlm_phase end = tlm::END_REQ, resp = tlm::BEGIN_RESP;
    initiator_[&gp] = id;
    peq_.notify(gp, end, delay + accept);
    peq_.notify(gp, resp, delay + accept + sc_core::sc_time(100 + rng() % 301, sc_core::SC_NS));
    return tlm::TLM_ACCEPTED;
  }
  void phase(tlm::tlm_generic_payload& gp, const tlm::tlm_phase& ph) {
    tlm::tlm_phase p = ph;
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    const int id = initiator_[&gp];
    socket[id]->nb_transport_bw(gp, p, d);
  }
  tlm_utils::peq_with_cb_and_phase<Memory> peq_{this, &Memory::phase};
  std::unordered_map<const tlm::tlm_generic_payload*, int> initiator_;
  void b_transport(int, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
    if (!copy(gp)) return gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    if (wait_random) {
      wait(delay + sc_core::sc_time(100 + rng() % 301, sc_core::SC_NS));
      delay = sc_core::SC_ZERO_TIME;
    } else {
      delay += sc_core::sc_time(200, sc_core::SC_NS);
    }
  }
  unsigned transport_dbg(int, tlm::tlm_generic_payload& gp) {
    return copy(gp) ? gp.get_data_length() : 0;
  }
  bool copy(tlm::tlm_generic_payload& gp) {
    const uint64_t a = gp.get_address();
    const unsigned len = gp.get_data_length();
    unsigned sw = gp.get_streaming_width();
    if (sw == 0 || sw > len) sw = len;
    if (a >= kSize || kSize - a < sw) return false;
    const unsigned char* be = gp.get_byte_enable_ptr();
    const unsigned bl = gp.get_byte_enable_length();
    for (unsigned i = 0; i < len; ++i) {
      if (be && bl && be[i % bl] != TLM_BYTE_ENABLED) continue;
      const uint64_t at = a + i % sw;
      auto& page = pages[at >> 12];
      if (gp.is_write()) {
        if (!page) page = std::make_unique<unsigned char[]>(4096);
        page[at & 4095] = gp.get_data_ptr()[i];
      } else if (gp.is_read()) {
        gp.get_data_ptr()[i] = page ? page[at & 4095] : 0;
      }
    }
    return true;
  }
  std::unordered_map<uint64_t, std::unique_ptr<unsigned char[]>> pages;
};

// The host: a CPU thread with one socket to the memory and one to the GPU's registers.
struct Host : sc_core::sc_module {
  SC_HAS_PROCESS(Host);
  tlm_utils::simple_initiator_socket<Host> mem, gpu;
  sc_core::sc_in<bool> irq;
  const gpurf::HostInterface* gpu_regs = nullptr; // for the error text (not a register)
  std::string sgemm_ptx;                          // a second module, loaded over MMIO
  unsigned failures = 0, launches = 0;

  explicit Host(sc_core::sc_module_name nm) : sc_module(nm), mem("mem"), gpu("gpu"), irq("irq") {
    SC_THREAD(run);
  }

  void access(tlm_utils::simple_initiator_socket<Host>& s, tlm::tlm_command cmd, uint64_t addr,
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
    if (!gp.is_response_ok()) fail("host access at " + std::to_string(addr) + " failed");
    wait(d);
  }
  void store(uint64_t a, const void* p, unsigned n) {
    access(mem, tlm::TLM_WRITE_COMMAND, a, const_cast<void*>(p), n);
  }
  void load(uint64_t a, void* p, unsigned n) { access(mem, tlm::TLM_READ_COMMAND, a, p, n); }
  void reg_write(unsigned off, uint32_t v) { access(gpu, tlm::TLM_WRITE_COMMAND, off, &v, 4); }
  uint32_t reg_read(unsigned off) {
    uint32_t v = 0;
    access(gpu, tlm::TLM_READ_COMMAND, off, &v, 4);
    return v;
  }
  void fail(const std::string& what) {
    std::printf("FAIL: %s\n", what.c_str());
    ++failures;
  }

  using HI = gpurf::HostInterface;
  uint32_t daxpy_kernel = 0, sgemm_kernel = 0; // KERNEL values: (module << 16) | entry

  // Runs `kernel` on a grid of `ctas` x `ctas_y` CTAs of `bx` x `by` threads with the
  // parameter buffer at `params`; returns STATUS after the interrupt.
  uint32_t launch(const char* what, uint32_t kernel, unsigned ctas, unsigned ctas_y, unsigned bx,
                  unsigned by, uint64_t params) {
    reg_write(HI::kGridX, ctas);
    reg_write(HI::kGridX + 4, ctas_y);
    reg_write(HI::kGridX + 8, 1);
    reg_write(HI::kBlockX, bx);
    reg_write(HI::kBlockX + 4, by);
    reg_write(HI::kBlockX + 8, 1);
    reg_write(HI::kParamLo, uint32_t(params));
    reg_write(HI::kParamHi, uint32_t(params >> 32));
    reg_write(HI::kShared, 0);
    reg_write(HI::kKernel, kernel);
    reg_write(HI::kControl, HI::kStart);
    ++launches;
    if (!irq.read()) wait(irq.posedge_event());
    const uint32_t status = reg_read(HI::kStatus);
    const uint64_t cycles = reg_read(HI::kCyclesLo) | uint64_t(reg_read(HI::kCyclesHi)) << 32;
    std::printf("launch %u: %s, KERNEL 0x%x, %u CTAs: status %u, error %u, %llu cycles%s%s\n",
                launches, what, kernel, ctas * ctas_y, status, reg_read(HI::kError),
                (unsigned long long)cycles, status == HI::kDone ? "" : ": ",
                gpu_regs->error_text().c_str());
    reg_write(HI::kControl, HI::kIrqAck);
    return status;
  }

  // Launches daxpy_dot on n elements with factor a; returns STATUS after the interrupt.
  uint32_t launch(uint64_t x, uint64_t y, uint64_t partial, uint64_t params, int32_t n, double a,
                  unsigned ctas) {
    unsigned char p[40] = {}; // the .entry's .param layout: x, y, partial, n, a
    std::memcpy(p + 0, &x, 8);
    std::memcpy(p + 8, &y, 8);
    std::memcpy(p + 16, &partial, 8);
    std::memcpy(p + 24, &n, 4);
    std::memcpy(p + 32, &a, 8);
    store(params, p, sizeof p);
    const std::string what = "daxpy_dot n " + std::to_string(n) + ", a " + std::to_string(a);
    return launch(what.c_str(), daxpy_kernel, ctas, 1, 256, 1, params);
  }

  // Loads sgemm's module over MMIO: its PTX text in memory at `at`, LOAD, then FIND by name.
  void load_sgemm(uint64_t at) {
    store(at, sgemm_ptx.data(), unsigned(sgemm_ptx.size()));
    reg_write(HI::kModuleLo, uint32_t(at));
    reg_write(HI::kModuleHi, uint32_t(at >> 32));
    reg_write(HI::kModuleLen, uint32_t(sgemm_ptx.size()));
    reg_write(HI::kControl, HI::kLoad);
    if (reg_read(HI::kStatus) != HI::kDone) return fail("LOAD: " + gpu_regs->error_text());
    const char name[] = "sgemm";
    store(at + sgemm_ptx.size(), name, sizeof name);
    reg_write(HI::kNameLo, uint32_t(at + sgemm_ptx.size()));
    reg_write(HI::kNameHi, uint32_t((at + sgemm_ptx.size()) >> 32));
    reg_write(HI::kControl, HI::kFind);
    if (reg_read(HI::kStatus) != HI::kDone) return fail("FIND: " + gpu_regs->error_text());
    sgemm_kernel = reg_read(HI::kKernel);
    std::printf("module %u loaded over MMIO: sgemm is KERNEL 0x%x\n", reg_read(HI::kModule),
                sgemm_kernel);
  }

  // C = A * B, n x n floats (n a multiple of 16), checked against the host's own product.
  void sgemm(int32_t n, uint64_t base) {
    const uint64_t a = base, b = base + 0x100000 * 4, c = base + 0x200000 * 4,
                   params = base + 0x300000 * 4;
    const size_t nn = size_t(n) * size_t(n);
    std::vector<float> ha(nn), hb(nn), hc(nn);
    std::mt19937 r{static_cast<uint32_t>(n)};
    std::uniform_real_distribution<float> u(-1, 1);
    for (size_t i = 0; i < nn; ++i) ha[i] = u(r), hb[i] = u(r);
    store(a, ha.data(), unsigned(nn * 4));
    store(b, hb.data(), unsigned(nn * 4));
    unsigned char p[32] = {}; // the .entry's .param layout: A, B, C, n
    std::memcpy(p + 0, &a, 8);
    std::memcpy(p + 8, &b, 8);
    std::memcpy(p + 16, &c, 8);
    std::memcpy(p + 24, &n, 4);
    store(params, p, sizeof p);
    const std::string what = "sgemm n " + std::to_string(n);
    if (launch(what.c_str(), sgemm_kernel, unsigned(n) / 16, unsigned(n) / 16, 16, 16, params) !=
        HI::kDone)
      return fail("sgemm failed");
    load(c, hc.data(), unsigned(nn * 4));
    for (int32_t i = 0; i < n; ++i)
      for (int32_t j = 0; j < n; ++j) {
        double want = 0, scale = 0;
        for (int32_t k = 0; k < n; ++k) {
          const double t = double(ha[size_t(i * n + k)]) * hb[size_t(k * n + j)];
          want += t;
          scale += std::fabs(t);
        }
        if (std::fabs(hc[size_t(i * n + j)] - want) > 1e-5 * scale + 1e-7)
          return fail("C[" + std::to_string(i) + "][" + std::to_string(j) + "] = " +
                      std::to_string(hc[size_t(i * n + j)]) + ", expected " + std::to_string(want));
      }
  }

  // y = a * x + y and the per-CTA partial sums of x * y_new, checked against the host's own.
  void daxpy(int32_t n, double a, unsigned ctas, uint64_t base) {
    const uint64_t x = base, y = base + 0x100000 * 8, partial = base + 0x300000 * 8,
                   params = base + 0x310000 * 8;
    std::vector<double> hx(static_cast<size_t>(n)), hy(static_cast<size_t>(n));
    std::mt19937_64 r{static_cast<uint64_t>(n)};
    std::uniform_real_distribution<double> u(-1, 1);
    for (int32_t i = 0; i < n; ++i) hx[size_t(i)] = u(r), hy[size_t(i)] = u(r);
    store(x, hx.data(), unsigned(n) * 8);
    store(y, hy.data(), unsigned(n) * 8);
    if (launch(x, y, partial, params, n, a, ctas) != HI::kDone) return fail("launch failed");
    std::vector<double> gy(static_cast<size_t>(n)), gp(ctas);
    load(y, gy.data(), unsigned(n) * 8);
    load(partial, gp.data(), ctas * 8);
    std::vector<double> sum(ctas, 0);
    for (int32_t i = 0; i < n; ++i) {
      const double want = std::fma(a, hx[size_t(i)], hy[size_t(i)]);
      if (std::fabs(gy[size_t(i)] - want) > 1e-12 * (std::fabs(a * hx[size_t(i)]) + 1))
        return fail("y[" + std::to_string(i) + "] = " + std::to_string(gy[size_t(i)]) +
                    ", expected " + std::to_string(want));
      sum[(unsigned(i) / 256) % ctas] += hx[size_t(i)] * want;
    }
    for (unsigned b = 0; b < ctas; ++b)
      if (std::fabs(gp[b] - sum[b]) > 1e-9 * (std::fabs(sum[b]) + 1))
        return fail("partial[" + std::to_string(b) + "] = " + std::to_string(gp[b]) +
                    ", expected " + std::to_string(sum[b]));
  }

  void run() {
    if (reg_read(HI::kId) != HI::kMagic) fail("no gpurf GPU behind the host socket");
    daxpy_kernel = reg_read(HI::kKernel); // reset: the kernel the GPU was built with
    daxpy(16384, 1.5, 8, 0x40000000);
    daxpy(32768, -2.25, 16, 0x180000000); // above 4 GiB: buffers wherever the host wants
    // A launch the GPU rejects (no CTA): ERROR 1, and the GPU still works.
    reg_write(HI::kGridX, 0);
    reg_write(HI::kControl, HI::kStart);
    if (!irq.read()) wait(irq.posedge_event());
    if (reg_read(HI::kStatus) != HI::kFailed || reg_read(HI::kError) != HI::kRejected)
      fail("a grid of 0 CTAs was not rejected with ERROR 1");
    reg_write(HI::kControl, HI::kIrqAck);
    daxpy(8192, 0.5, 4, 0x40000000);
    // A second module over MMIO, its kernel found by name.
    load_sgemm(0x200000000);
    sgemm(64, 0x240000000);
    // A pointer beyond the memory: the kernel fails (ERROR 2) and is drained; the platform
    // runs on, and the next kernels, of either module, run and verify.
    if (launch(uint64_t(32) << 30, 0x40000000, 0x40000000, 0x40000000 + 0x310000 * 8, 256, 1.0,
               1) != HI::kFailed ||
        reg_read(HI::kError) != HI::kKernelFailed)
      fail("a kernel reading outside the memory did not report ERROR 2");
    sgemm(32, 0x280000000);
    daxpy(4096, -0.75, 2, 0x2C0000000);
    wait(1, sc_core::SC_US); // the platform runs on
    std::printf("%u launches, %u failures\n", launches, failures);
  }
};

} // namespace

int sc_main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s SOURCE_DIR [annotate|wait] [SM_COUNT]\n", argv[0]);
    return 2;
  }
  const std::string src = argv[1], mode = argc > 2 ? argv[2] : "annotate";
  const std::string sms = argc > 3 ? argv[3] : "1";
  try {
    const auto data = [&](const std::string& rel) {
      return src == "-" ? gpurf::data_path(rel) : src + "/" + rel;
    };
    gpurf::ConfigPtr platform = gpurf::load_config(data("configs/fermi.yaml"));
    const std::string port = mode == "at" ? "at" : "lt";
    // gpurf's own regions (module variables, timing-only windows) where this VP wants them.
    for (const std::string& o : std::vector<std::string>{
             "gpu.hosted=true", "gpu.memory_port=" + port, "gpu.sm_count=" + sms,
             "frontend.data_base=0x300000000", "frontend.window_base=0x340000000"})
      gpurf::apply_override(*platform, o);
    const gpurf::LaunchSpec spec = gpurf::load_launch(data("workloads/daxpy_dot.yaml"));
    const std::string sgemm_path = data("workloads/ptx/sgemm.ptx");
    std::ifstream sgemm_ptx(sgemm_path);
    if (!sgemm_ptx) throw std::runtime_error(sgemm_path + ": cannot read");
    gpurf::PtxFrontend frontend(spec, gpurf::frontend_options(*platform));
    gpurf::Params top(platform.get(), "");
    gpurf::Gpu gpu(top, frontend, frontend.regs_per_thread());
    Memory memory("memory");
    memory.wait_random = mode == "wait";
    Host host("host_cpu");
    sc_core::sc_signal<bool> irq("irq");
    gpu.memory_port().bind(memory.socket);
    host.mem.bind(memory.socket);
    host.gpu.bind(gpu.host().socket);
    host.gpu_regs = &gpu.host();
    host.sgemm_ptx.assign(std::istreambuf_iterator<char>(sgemm_ptx), {});
    gpu.host().irq.bind(irq);
    host.irq.bind(irq);
    sc_core::sc_start();
    std::printf("simulated %s\n", sc_core::sc_time_stamp().to_string().c_str());
    return host.failures || host.launches != 7 ? 1 : 0; // the rejected one is no launch()
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
}
