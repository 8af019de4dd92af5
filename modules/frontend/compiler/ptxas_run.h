// ptxas's register count for a kernel that no ptxas-registers.txt lists: runs the CUDA
// toolkit's `ptxas -v` on the PTX file, as GPGPU-Sim does for the kernels it loads, and keeps
// the answer in a cache file in the table's format. Plain C++, no SystemC.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "gpurf/modules/frontend/compiler/ptxas_table.h"

namespace gpurf::compiler {

// The ptxas executable: $GPURF_PTXAS when set ("" or "none": never run ptxas), else `ptxas`
// on the PATH, else $CUDA_HOME/bin/ptxas or $CUDA_PATH/bin/ptxas. "" when there is none.
std::string find_ptxas();

// Every entry of a `ptxas -v` log: "Compiling entry function 'NAME'", its "N bytes stack
// frame, N bytes spill stores" and "Used N registers, ... N bytes smem" lines.
std::map<std::string, PtxasInfo> parse_ptxas_log(const std::string& log);

// Runs `ptxas -arch=ARCH -v PTX -o /dev/null` and returns its entries; `error` says why not
// (no ptxas, ptxas refused the file: its first message).
std::map<std::string, PtxasInfo> run_ptxas(const std::string& ptxas, const std::string& ptx_path,
                                           const std::string& arch, std::string& error);

// ptxas's count for `kernel`: the table beside the PTX (ptxas_info), else a cache file
// `cache_dir`/ptxas-registers.txt written for the same PTX contents and arch, else a run of
// ptxas (written to that cache when cache_dir is not ""). `arch` is the PTX's `.target`
// (ptxas refuses lower ones; below sm_75, which CUDA 13 dropped, sm_75). PtxasInfo::table
// says where the count came from. nullopt: no table row and no ptxas (or ptxas failed:
// `why` says so).
struct PtxasLookup {
  bool run = true;       // run ptxas when no table lists the kernel
  std::string cache_dir; // "" = no cache
};
std::optional<PtxasInfo> ptxas_registers(const std::string& ptx_path, const std::string& kernel,
                                         const std::string& target, const PtxasLookup& how,
                                         std::string& why);

} // namespace gpurf::compiler
