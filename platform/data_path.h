// Where gpurf's data files are: the platforms (configs/*.yaml) and the suite's workloads
// (workloads/: launch files, PTX, input files), in a source tree or an installed prefix's
// share/gpurf (docs/vp.md "The installed package").
#pragma once

#include <string>
#include <vector>

// find_package(gpurf) defines this (the found prefix's share/gpurf) for the projects that link
// gpurf::gpurf, so an installed tree moved or installed with `--prefix` is found wherever it is.
#ifndef GPURF_PACKAGE_DATA_DIR
#define GPURF_PACKAGE_DATA_DIR ""
#endif

namespace gpurf {

// The folders data files are looked up in, in order: $GPURF_DATA, `package` (the found
// package's share/gpurf; GPURF_PACKAGE_DATA_DIR at the caller), the install prefix's
// share/gpurf and the source tree gpurf was built from (both compiled in). Only existing
// folders are listed.
std::vector<std::string> data_roots(const std::string& package = GPURF_PACKAGE_DATA_DIR);

// `rel` ("configs/fermi.yaml", "workloads/sgemm.yaml") as given if it exists, else the first
// data root holding it; else `rel` unchanged, so that the loader's error names it.
std::string data_path(const std::string& rel, const std::string& package = GPURF_PACKAGE_DATA_DIR);

// The first data root holding `sub` (a folder such as "configs"), for listing its files;
// throws ConfigError naming the places looked in when none does.
std::string data_dir(const std::string& sub, const std::string& package = GPURF_PACKAGE_DATA_DIR);

// The baseline platforms' names, one a line in <root>/configs/baselines.txt (gpurf suite's
// default; scripts/bench and the baseline pipeline tests read the same file).
std::vector<std::string> baseline_platforms(const std::string& root);

} // namespace gpurf
