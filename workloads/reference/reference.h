// Reference checkers for the built-in kernel suite (workloads/*.yaml).
//
// A checker receives the launch as it ran: every buffer's initial contents (as produced by the
// loader from the YAML `init`) and final contents (read back after the kernel), the integer vars
// (after --scale), grid and block. It recomputes the expected outputs from the initial inputs in
// plain C++ and returns "" when they match, else a message naming the first mismatch (buffer,
// index, expected, got).
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpurf::workload {

struct Buffer {
  std::string name,
      type; // type: u8 s8 u16 s16 u32 s32 u64 s64 f16 bf16 f32 f64 (f16/bf16: raw uint16_t bits)
  uint64_t count = 0;           // elements
  std::vector<uint8_t> initial; // count * sizeof(element) bytes, before the launch
  std::vector<uint8_t> final;   // same size, after the launch
  bool output = false;
  // Typed views; throw std::runtime_error if sizeof(T) does not match the buffer's byte size.
  template <class T> const T* in() const { return view<T>(initial); }
  template <class T> const T* out() const { return view<T>(final); }

private:
  template <class T> const T* view(const std::vector<uint8_t>& bytes) const {
    if (bytes.size() != count * sizeof(T))
      throw std::runtime_error("buffer '" + name + "': " + std::to_string(bytes.size()) +
                               " bytes, expected " + std::to_string(count) + " x " +
                               std::to_string(sizeof(T)));
    return reinterpret_cast<const T*>(bytes.data());
  }
};

struct LaunchData {
  std::map<std::string, Buffer> buffers;
  std::map<std::string, int64_t> vars;
  std::array<unsigned, 3> grid{1, 1, 1}, block{1, 1, 1};
  // Throws std::runtime_error naming the missing buffer / var.
  const Buffer& buf(const std::string& name) const;
  int64_t var(const std::string& name) const;
};

// "" = pass, else a message naming the first mismatch.
using Checker = std::string (*)(const LaunchData&);

// Registers (or replaces) the checker for a workload name.
void register_checker(const char* name, Checker fn);
// nullptr if none.
const Checker* find_checker(const std::string& name);
// Sorted.
std::vector<std::string> checker_names();

// Registers every checker of the suite explicitly. Call it once before find_checker(): the
// references live in a static library, and this call is what makes the linker keep them (static
// registration alone is dropped with unreferenced archive members). Idempotent.
void link_all_checkers();

} // namespace gpurf::workload

// GPURF_REFERENCE(sgemm, check_sgemm) in a checker's .cpp, at global scope: registers `fn` (found
// from namespace gpurf::workload, so it may live there or in a nested/anonymous namespace of it)
// under the workload name `name` (an identifier equal to the YAML `name`) by static
// initialisation, and defines gpurf::workload::link_checker_<name>(), which link_all_checkers()
// calls.
#define GPURF_REFERENCE(name, fn)                                                                  \
  namespace gpurf::workload {                                                                      \
  void link_checker_##name() { register_checker(#name, fn); }                                      \
  namespace {                                                                                      \
  [[maybe_unused]] const bool registered_##name = (register_checker(#name, fn), true);             \
  }                                                                                                \
  }
