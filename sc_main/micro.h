// gpurf micro: runs the microbenchmarks of workloads/micro/ on one platform and prints, for
// every latency and throughput they measure, the configured value, the measured one and the
// formula relating them (docs/tools.md).
#pragma once

#include <string>
#include <vector>

namespace gpurf {

// `args` are the arguments after "micro". Returns 0 when every measurement equals its
// configuration, 1 when one differs or a simulation failed, 2 for bad input.
int micro_main(const std::vector<std::string>& args);

} // namespace gpurf
