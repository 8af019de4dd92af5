// Fuzzes the launch loader (launch files, vars and their expressions, buffers, generators)
// and the PTX front-end's compile of the kernel it names: an input loads and compiles, or
// raises ConfigError naming the launch file (or a WorkloadError/CompileError about the kernel).
// The fuzzed file sits beside copies of workloads/ptx and workloads/data, so the suite's launch
// files (the seeds, applications included) reach their real kernels.
#include <unistd.h>

#include "common.h"
#include "gpurf/modules/frontend/compiler/compile.h"
#include "gpurf/modules/frontend/launch.h"
#include "gpurf/modules/frontend/ptx_frontend.h"
#include "gpurf/platform/config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpurf_fuzz;
  static const bool ptx_there = [] { // the suite's PTX and data, as workloads/ has them
    for (const char* d : {"ptx", "data"})
      std::filesystem::copy(std::string(GPURF_SOURCE_DIR "/workloads/") + d, scratch() / d,
                            std::filesystem::copy_options::recursive |
                                std::filesystem::copy_options::overwrite_existing);
    // examples/poly_struct's PTX and expected output (a struct parameter, constant memory,
    // verify against a file) beside the input, as its launch file names them.
    for (const char* f : {"poly_struct.ptx", "expected_y.bin"})
      std::filesystem::copy(std::string(GPURF_SOURCE_DIR "/examples/poly_struct/") + f,
                            scratch() / f, std::filesystem::copy_options::overwrite_existing);
    return true;
  }();
  (void)ptx_there;
  const std::string path = write("launch.yaml", data, size);
  try {
    const gpurf::LaunchSpec spec = gpurf::load_launch(path);
    gpurf::PtxFrontend fe(spec, {}, {/*run ptxas*/ false, ""});
  } catch (const gpurf::ConfigError& e) {
    require_location("ConfigError", e.what(), "launch.yaml");
  } catch (const gpurf::WorkloadError&) {
  } catch (const gpurf::compiler::CompileError&) {
  } catch (const std::exception& e) {
    unexpected(e.what());
  }
  return 0;
}
