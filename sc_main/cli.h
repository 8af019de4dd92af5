// gpurf's command line: the options of run, suite, profile and the listings, parsed from one
// table (sc_main/cli.cpp) that also gives the did-you-mean hints and is checked against the
// usage text.
#pragma once

#include <string>
#include <vector>

#include "gpurf/modules/common/warp_inst.h"
#include "gpurf/platform/config.h"

namespace gpurf {

constexpr int kExitBadInput = 2, kExitFailed = 1, kExitInterrupted = 130; // 128 + SIGINT

extern const char* const kUsage;
// The folder of platforms (configs/) and kernels (workloads/): $GPURF_DATA or the source tree.
extern const std::string kSource;

struct Cli {
  std::string command, workload = "sgemm", out, describe, kernels, format;
  std::vector<std::string> platforms, overrides, vars;
  unsigned scale = 1, jobs = 0;
  bool quiet = false, force = false, resume = false, workload_given = false;
  std::vector<std::string> argv; // the command line, for the provenance
  std::string trace, vcd;        // docs/trace.md
  std::string dump_outputs;      // run: the output buffers' final bytes go there
  std::string samples;           // run: the time series' file
  Cycle sample_interval = 0;
  Cycle trace_from = 0, trace_to = kNever;
  bool trace_window = false;
  std::vector<std::string> vcd_signals;
  std::string platform() const {
    return platforms.empty() ? kSource + "/configs/fermi.yaml" : platforms.front();
  }
};

// The command line of run, suite, profile, --list, --describe, --dump-config, --help and
// --version; bad input throws ConfigError (exit 2) naming the option and what is valid.
Cli parse(int argc, char** argv);

// Makes output folder `dir` (of option `opt`); a failure names the option.
void make_out_dir(const std::string& dir, const std::string& opt = "--out");

} // namespace gpurf
