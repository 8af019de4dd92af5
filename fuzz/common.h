// Shared by the fuzz harnesses: the input goes to a file (the loaders read files), and any
// exception that is not the loader's own error type, or an own error without a location, is
// a finding (abort, so libFuzzer saves the input).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace gpurf_fuzz {

// A private scratch folder for this process.
inline const std::filesystem::path& scratch() {
  static const std::filesystem::path dir = [] {
    auto d = std::filesystem::temp_directory_path() / ("gpurf-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  return dir;
}

inline std::string write(const std::string& name, const uint8_t* data, size_t size) {
  const std::string path = (scratch() / name).string();
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(data), std::streamsize(size));
  return path;
}

// Aborts unless `what` names `needle` (the file, so the user knows where to look).
inline void require_location(const char* kind, const std::string& what, const std::string& needle) {
  if (what.find(needle) != std::string::npos) return;
  std::fprintf(stderr, "%s without a location ('%s' not named): %s\n", kind, needle.c_str(),
               what.c_str());
  std::abort();
}

[[noreturn]] inline void unexpected(const char* what) {
  std::fprintf(stderr, "escaped exception: %s\n", what);
  std::abort();
}

} // namespace gpurf_fuzz
