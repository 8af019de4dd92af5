// examples/dramsys/dramsys_adapter.h without DRAMSys (which is not installed here): a target
// that answers as DRAMSys's arbiter does (docs/vp.md "A DRAM model: DRAMSys"): every forward
// call TLM_ACCEPTED, END_REQ and BEGIN_RESP on the backward path, the payload acquired at
// BEGIN_REQ and released at END_RESP, one response in flight per initiator until END_RESP
// comes on the forward path (or BEGIN_RESP returns TLM_UPDATED with END_RESP), and the address
// offset subtracted from the payload's address for good. A response the initiator completes
// with TLM_COMPLETED is never ended, so the arbiter holds the rest, as DRAMSys v5.1's did.
#include <gtest/gtest.h>
#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/peq_with_cb_and_phase.h>

#include <deque>
#include <memory>
#include <unordered_map>

#include "examples/dramsys/dramsys_adapter.h"
#include "gpurf/modules/frontend/launch.h"
#include "gpurf/modules/frontend/ptx_frontend.h"
#include "gpurf/platform/config.h"
#include "gpurf/platform/gpu.h"
#include "gpurf/platform/params.h"

using namespace gpurf;

namespace {

DECLARE_EXTENDED_PHASE(resp_ready); // the arbiter's own: the controller answered

struct ArbiterLike : sc_core::sc_module {
  tlm_utils::multi_passthrough_target_socket<ArbiterLike> socket; // as DRAMSys's tSocket
  static constexpr uint64_t kOffset = 0x1000;                     // simconfig AddressOffset
  uint64_t begin_resps = 0, end_resps = 0, violations = 0;
  std::string first_violation;

  explicit ArbiterLike(sc_core::sc_module_name nm) : sc_module(nm), socket("socket") {
    socket.register_nb_transport_fw(this, &ArbiterLike::nb_transport_fw);
    socket.register_transport_dbg(this, &ArbiterLike::transport_dbg);
  }

  tlm::tlm_sync_enum nb_transport_fw(int, tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph,
                                     sc_core::sc_time& delay) {
    if (ph == tlm::BEGIN_REQ) {
      if (!gp.has_mm()) violation("a payload without a memory manager");
      gp.acquire();
      gp.set_address(gp.get_address() - kOffset); // for good, as the arbiter does
      copy(gp);
      gp.set_response_status(tlm::TLM_OK_RESPONSE);
      peq.notify(gp, tlm::END_REQ, delay + sc_core::sc_time(10, sc_core::SC_NS));
    } else if (ph == tlm::END_RESP) {
      peq.notify(gp, tlm::END_RESP, delay);
    } else {
      violation(std::string("phase ") + ph.get_name() + " on the forward path");
    }
    return tlm::TLM_ACCEPTED;
  }

  void phase(tlm::tlm_generic_payload& gp, const tlm::tlm_phase& ph) {
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    if (ph == tlm::END_REQ) {
      tlm::tlm_phase p = tlm::END_REQ;
      socket[0]->nb_transport_bw(gp, p, d);
      peq.notify(gp, resp_ready, sc_core::sc_time(150, sc_core::SC_NS));
    } else if (ph == resp_ready) {
      ready.push_back(&gp);
      respond();
    } else if (ph == tlm::END_RESP) {
      ++end_resps;
      busy = false;
      gp.release();
      respond();
    }
  }

  void respond() {
    if (busy || ready.empty()) return;
    tlm::tlm_generic_payload& gp = *ready.front();
    ready.pop_front();
    busy = true;
    ++begin_resps;
    tlm::tlm_phase p = tlm::BEGIN_RESP;
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    const tlm::tlm_sync_enum r = socket[0]->nb_transport_bw(gp, p, d);
    if (r == tlm::TLM_UPDATED && p == tlm::END_RESP)
      peq.notify(gp, tlm::END_RESP, d); // early completion, as the arbiter takes it
    else if (r == tlm::TLM_COMPLETED)
      violation("BEGIN_RESP answered TLM_COMPLETED: the response channel is never freed");
  }

  unsigned transport_dbg(int, tlm::tlm_generic_payload& gp) {
    gp.set_address(gp.get_address() - kOffset);
    copy(gp);
    return gp.get_data_length();
  }

  void copy(tlm::tlm_generic_payload& gp) {
    const unsigned char* be = gp.get_byte_enable_ptr();
    for (unsigned i = 0; i < gp.get_data_length(); ++i) {
      if (be && be[i % gp.get_byte_enable_length()] != TLM_BYTE_ENABLED) continue;
      const uint64_t a = gp.get_address() + i;
      auto& page = pages[a >> 12];
      if (!page) page = std::make_unique<unsigned char[]>(4096);
      if (gp.is_write())
        page[a & 4095] = gp.get_data_ptr()[i];
      else if (gp.is_read())
        gp.get_data_ptr()[i] = page[a & 4095];
    }
  }
  void violation(const std::string& what) {
    if (!violations++) first_violation = what;
  }

  tlm_utils::peq_with_cb_and_phase<ArbiterLike> peq{this, &ArbiterLike::phase};
  std::deque<tlm::tlm_generic_payload*> ready;
  bool busy = false;
  std::unordered_map<uint64_t, std::unique_ptr<unsigned char[]>> pages;
};

} // namespace

// Two SMs on the arbiter-like target through the adapter, started and stopped as the example
// does: every response is ended on the forward path and daxpy_dot verifies.
TEST(DramsysAdapter, EveryResponseEndsAndTheKernelVerifies) {
  ConfigPtr cfg = load_config(GPURF_SOURCE_DIR "/configs/fermi.yaml");
  for (const char* o : {"gpu.memory_port=at", "gpu.sm_count=2"}) apply_override(*cfg, o);
  const LaunchSpec spec = load_launch(GPURF_SOURCE_DIR "/workloads/daxpy_dot.yaml");
  PtxFrontend fe(spec, frontend_options(*cfg));
  Params top(cfg.get(), "");
  Gpu gpu(top, fe, fe.regs_per_thread());
  gpurf_dramsys::DramsysAdapter adapter("adapter");
  ArbiterLike dram("dram");
  gpu.memory_port().bind(adapter.in);
  adapter.out.bind(dram.socket);
  gpurf_dramsys::StartAndStop driver("driver", gpu); // as examples/dramsys/main.cpp
  sc_core::sc_start();
  ASSERT_TRUE(gpu.finished()) << gpu.error() << "; " << dram.first_violation;
  EXPECT_EQ(fe.verify_outputs(), "");
  EXPECT_EQ(dram.violations, 0u) << dram.first_violation;
  EXPECT_GT(dram.begin_resps, 1000u);
  EXPECT_EQ(dram.end_resps, dram.begin_resps);
  EXPECT_TRUE(dram.ready.empty());
}
