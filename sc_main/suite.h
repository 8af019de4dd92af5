// gpurf suite (sc_main/suite.cpp).
#pragma once

#include "sc_main/cli.h"

namespace gpurf {

// Every suite kernel (or --kernels) on every --platform (default: configs/baselines.txt),
// `jobs` at a time; prints the table per platform, writes DIR/<platform>/summary.json.
// Returns 0, kExitFailed when a run failed, kExitInterrupted after SIGINT/SIGTERM.
int suite(const Cli& c);

} // namespace gpurf
