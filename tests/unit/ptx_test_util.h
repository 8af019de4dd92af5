// Shared helpers for the PTX front-end unit tests.
#pragma once

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gpurf/modules/frontend/ptx/engine.h"
#include "gpurf/modules/frontend/ptx/parser.h"

#ifndef GPURF_PTX_TEST_DATA
#define GPURF_PTX_TEST_DATA "tests/unit/ptx_data"
#endif

namespace ptxtest {

// A float rounded to f16 (the host's _Float16) as its bits, and back.
inline uint16_t f16(float x) {
  _Float16 h = _Float16(x);
  uint16_t u;
  std::memcpy(&u, &h, 2);
  return u;
}
inline float from_f16(uint16_t u) {
  _Float16 h;
  std::memcpy(&h, &u, 2);
  return float(h);
}

inline const gpurf::ptx::Module& data_module(const std::string& name) {
  static std::map<std::string, gpurf::ptx::Module> cache;
  auto it = cache.find(name);
  if (it == cache.end())
    it = cache
             .emplace(name,
                      gpurf::ptx::parse_ptx_file(std::string(GPURF_PTX_TEST_DATA) + "/" + name))
             .first;
  return it->second;
}

// One kernel launch over a fresh sparse memory.
struct Launch {
  gpurf::ptx::SparseMemory mem;
  const gpurf::ptx::Module& m;
  std::string name;
  gpurf::ptx::LaunchConfig cfg;
  gpurf::ptx::ParamPacker pk;
  unsigned next = 0;

  Launch(const gpurf::ptx::Module& mod, const std::string& kernel, gpurf::ptx::Dim3 grid,
         gpurf::ptx::Dim3 block)
      : m(mod), name(kernel), pk(gpurf::ptx::Kernel::find_entry(mod, kernel)) {
    cfg.grid = grid;
    cfg.block = block;
  }
  template <class T> uint64_t buf(const std::vector<T>& v) {
    uint64_t a = mem.alloc(v.size() * sizeof(T) + 16);
    mem.write_vec(a, v);
    return a;
  }
  uint64_t zeros(size_t bytes) { return mem.alloc(bytes + 16); }
  template <class T> Launch& arg(const T& v) {
    pk.set(next++, v);
    return *this;
  }
  gpurf::ptx::FunctionalStats run() {
    return gpurf::ptx::run_functional(m, name, cfg, pk.bytes(), mem);
  }
  template <class T> std::vector<T> get(uint64_t a, size_t n) { return mem.read_vec<T>(a, n); }
};

} // namespace ptxtest
