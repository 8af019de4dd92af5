// How the command line names things: a platform by path or by its name under configs/.
#pragma once

#include <string>

namespace gpurf {

// `p` when it is a file, else configs/<p>.yaml of the source tree `source` for a bare name
// (`--platform fermi`); throws ConfigError naming the option, the value and the platforms
// there (with a did-you-mean) when neither exists.
std::string platform_path(const std::string& source, const std::string& p);

} // namespace gpurf
