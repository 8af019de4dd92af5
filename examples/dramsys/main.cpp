// gpurf's GPU on DRAMSys (docs/vp.md "A DRAM model: DRAMSys"): the GPU's AT memory port, the
// adapter (dramsys_adapter.h) and DRAMSys as the whole memory; one suite kernel, its outputs
// checked, its cycles printed.
//
//   gpurf_dramsys DRAMSYS_CONFIG.json DRAMSYS_RESOURCE_DIR [KERNEL] [SM_COUNT]
//
// The DRAMSys configuration must store data ("simconfig": {"StoreMode": "Store"}: gpurf writes
// the kernel's buffers and reads its outputs by debug transport) and its address map must cover
// the GPU's addresses: the module's variables (frontend.data_base, 240 MiB from 0x01000000), the
// buffers from 0x10000000 and the timing-only windows (frontend.window_base, 1 GiB), which this
// program moves from 0xA0000000 to 0x40000000 (PLACE below): 2 GiB of DRAM in all.
#include <cstdio>
#include <string>
#include <vector>

#include <DRAMSys/config/DRAMSysConfiguration.h>
#include <DRAMSys/simulation/DRAMSys.h>
#include <systemc>

#include "dramsys_adapter.h"
#include "gpurf/modules/frontend/launch.h"
#include "gpurf/modules/frontend/ptx_frontend.h"
#include "gpurf/platform/config.h"
#include "gpurf/platform/data_path.h"
#include "gpurf/platform/gpu.h"
#include "gpurf/platform/params.h"

int sc_main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s DRAMSYS_CONFIG.json DRAMSYS_RESOURCE_DIR [KERNEL] [SM_COUNT]\n",
                 argv[0]);
    return 2;
  }
  const std::string kernel = argc > 3 ? argv[3] : "sgemm", sms = argc > 4 ? argv[4] : "1";
  try {
    gpurf::ConfigPtr platform = gpurf::load_config(gpurf::data_path("configs/fermi.yaml"));
    // PLACE: the timing-only windows inside a 2 GiB DRAM.
    for (const std::string& o : std::vector<std::string>{
             "gpu.memory_port=at", "gpu.sm_count=" + sms, "frontend.window_base=0x40000000"})
      gpurf::apply_override(*platform, o);
    const gpurf::LaunchSpec spec =
        gpurf::load_launch(gpurf::data_path("workloads/" + kernel + ".yaml"));
    gpurf::PtxFrontend frontend(spec, gpurf::frontend_options(*platform));
    gpurf::Params top(platform.get(), "");
    gpurf::Gpu gpu(top, frontend, frontend.regs_per_thread());

    DRAMSys::DRAMSys dram("dram", DRAMSys::Config::from_path(argv[1], argv[2]));
    gpurf_dramsys::DramsysAdapter adapter("adapter");
    gpu.memory_port().bind(adapter.in);
    adapter.out.bind(dram.tSocket);
    gpurf_dramsys::StartAndStop driver("driver", gpu);

    sc_core::sc_start();
    const std::string bad = gpu.finished() ? frontend.verify_outputs() : gpu.error();
    std::printf("%s on DRAMSys: %llu cycles, %llu END_RESPs sent by the adapter, %s\n",
                kernel.c_str(), (unsigned long long)gpu.cycles(),
                (unsigned long long)adapter.end_resps_sent,
                bad.empty() ? "verified" : ("FAILED: " + bad).c_str());
    return bad.empty() ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
}
