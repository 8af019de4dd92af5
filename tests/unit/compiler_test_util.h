// Shared helpers of the compiler / launch / PTX front-end unit tests (no SystemC).
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "gpurf/modules/frontend/launch.h"
#include "gpurf/platform/config.h"

#ifndef GPURF_COMPILER_TEST_ROOT
#define GPURF_COMPILER_TEST_ROOT "."
#endif

namespace compilertest {

inline std::string root() { return GPURF_COMPILER_TEST_ROOT; }
inline std::string workloads() { return root() + "/workloads"; }

// Names of the suite's launch files (workloads/*.yaml), sorted.
inline std::vector<std::string> suite() {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(workloads()))
    if (e.path().extension() == ".yaml") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

// A temporary directory with files, removed at the end of the test.
struct TempDir {
  std::filesystem::path dir;
  TempDir() {
    static int n = 0;
    dir = std::filesystem::temp_directory_path() /
          ("gpurf_compiler_test_" + std::to_string(::getpid()) + "_" + std::to_string(n++));
    std::filesystem::create_directories(dir);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  }
};

// A launch file (`yaml`, written as `file`) in a temporary folder beside a copy of the suite's
// reduce PTX (ptx/reduce.ptx); error() is the loader's message for it, "" when it loads.
struct ReduceLaunch {
  TempDir d;
  std::string path;
  explicit ReduceLaunch(const std::string& yaml, const std::string& file = "launch.yaml") {
    std::filesystem::create_directories(d.dir / "ptx");
    std::filesystem::copy_file(workloads() + "/ptx/reduce.ptx", d.dir / "ptx/reduce.ptx");
    path = d.write(file, yaml);
  }
  std::string error(unsigned scale = 1) const {
    try {
      gpurf::load_launch(path, scale);
    } catch (const gpurf::ConfigError& e) {
      return e.what();
    }
    return "";
  }
};

} // namespace compilertest
