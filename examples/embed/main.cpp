// The smallest program built on the gpurf library: its own sc_main runs one kernel of a launch
// file on a platform file, checks the outputs and prints the cycles. (<systemc> declares
// sc_main extern "C", as libsystemc's main calls it.) A relative name that is not a file here
// ("configs/fermi.yaml", "workloads/sgemm.yaml") is looked up by gpurf::data_path: in
// $GPURF_DATA, the installed package's share/gpurf, or gpurf's source tree.
//   embed PLATFORM.yaml LAUNCH.yaml
#include <iostream>

#include <systemc>

#include "gpurf/modules/frontend/launch.h"
#include "gpurf/modules/frontend/ptx_frontend.h"
#include "gpurf/platform/config.h"
#include "gpurf/platform/data_path.h"
#include "gpurf/platform/simulation.h"

int sc_main(int argc, char* argv[]) {
  if (argc != 3) {
    std::cerr << "usage: embed PLATFORM.yaml LAUNCH.yaml\n";
    return 2;
  }
  try {
    const std::string platform_file = gpurf::data_path(argv[1]);
    const std::string launch_file = gpurf::data_path(argv[2]);
    std::cout << "platform " << platform_file << ", launch " << launch_file << "\n";
    gpurf::ConfigPtr platform = gpurf::load_config(platform_file);
    const gpurf::LaunchSpec launch = gpurf::load_launch(launch_file);
    gpurf::PtxFrontend frontend(launch, gpurf::frontend_options(*platform));
    gpurf::Simulation sim(*platform, frontend, frontend.regs_per_thread());
    const gpurf::RunResult r = sim.run();
    const std::string bad = r.ok ? frontend.verify_outputs() : r.error;
    std::cout << launch.name << ": " << r.cycles << " cycles, " << r.warp_instructions
              << " warp instructions, " << (bad.empty() ? "verified" : "FAILED: " + bad) << "\n";
    return bad.empty() ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
}
