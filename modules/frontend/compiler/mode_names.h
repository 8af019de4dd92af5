// The platform name of a compiler mode <-> its enum value (enum values in the order of the
// name list), shared by the frontend.* choices.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace gpurf::compiler {

// The mode named `name` in `names`; throws std::invalid_argument ("unknown WHAT 'name'").
template <class Mode>
Mode mode_from_name(const std::vector<std::string>& names, const std::string& name,
                    const char* what) {
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return Mode(i);
  throw std::invalid_argument(std::string("unknown ") + what + " '" + name + "'");
}

} // namespace gpurf::compiler
