// PTX text → Module (see ir.h). Handles the whole output of nvcc 12/13 for ordinary CUDA
// code: directives, linkage, .entry/.func with parameter lists, variable declarations with
// initialisers, scoped `{ }` blocks with call sequences, labels, comments, debug directives.
#pragma once

#include <stdexcept>
#include <string>

#include "gpurf/modules/frontend/ptx/ir.h"

namespace gpurf::ptx {

// Every parse error: what() is "file:line: message". An instruction outside the supported
// set gives exactly "file:line: unsupported PTX instruction 'X'" (X = the mnemonic as written).
struct ParseError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

Module parse_ptx(const std::string& text, const std::string& filename);

// Reads a file and parses it; a missing file throws ParseError("file: cannot open ...").
Module parse_ptx_file(const std::string& path);

} // namespace gpurf::ptx
