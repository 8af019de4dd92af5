// Separate compilation (nvcc -rdc=true): each translation unit's PTX declares what another
// unit defines (.extern), and nvlink joins the units' SASS. gpurf runs PTX, so it joins the
// units' PTX into one module, resolving symbols as nvlink does (docs/programs.md
// "Separate compilation").
#pragma once

#include <string>
#include <vector>

namespace gpurf::ptx {

struct PtxUnit {
  std::string text;
  std::string name; // for messages
};

// One PTX module holding every unit's functions and variables:
// - a symbol defined .visible (or an .entry) in one unit and declared .extern in others is that
//   definition; defined .visible twice is an error (ParseError naming both units and lines);
// - .weak definitions (inline functions, template instances) collapse to one (a .visible one
//   where there is one, else the first);
// - a unit's own (internal) symbols that another unit also names are renamed `name$uN` (N: the
//   unit's index), as the units' string constants `$str` always are;
// - declarations before the definition become prototypes (ptxas refuses an .extern declaration
//   of a function the module defines); later ones go;
// - .file, .loc and .section (debug information) are dropped: their file numbers and labels are
//   per unit.
// The header is the highest .version and .target of the units; their .address_size must agree.
// A single unit is returned as it is.
std::string link_ptx(const std::vector<PtxUnit>& units);

} // namespace gpurf::ptx
