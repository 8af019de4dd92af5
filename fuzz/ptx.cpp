// Fuzzes the PTX parser and the compiler passes (liveness, register allocation, long-latency
// marks, the instruction records): a module parses and each of its kernels compiles, or the
// parser raises ParseError "kernel.ptx:line: ..." / the front-end a WorkloadError or
// CompileError.
#include <unistd.h>

#include "common.h"
#include "gpurf/modules/frontend/compiler/compile.h"
#include "gpurf/modules/frontend/launch.h"
#include "gpurf/modules/frontend/ptx/parser.h"
#include "gpurf/modules/frontend/ptx_frontend.h"
#include "gpurf/platform/config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gpurf_fuzz;
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    auto module = std::make_shared<gpurf::ptx::Module>(gpurf::ptx::parse_ptx(text, "kernel.ptx"));
    for (const auto& f : module->functions) {
      if (!f.is_entry) continue;
      gpurf::LaunchSpec spec;
      spec.file = "fuzz.yaml";
      spec.kernel = f.name;
      spec.module = module;
      gpurf::PtxFrontend fe(spec, {}, {/*run ptxas*/ false, ""});
    }
  } catch (const gpurf::ptx::ParseError& e) {
    require_location("ParseError", e.what(), "kernel.ptx");
  } catch (const gpurf::WorkloadError&) {
  } catch (const gpurf::compiler::CompileError&) {
  } catch (const gpurf::ConfigError&) {
  } catch (const std::exception& e) {
    unexpected(e.what());
  }
  return 0;
}
