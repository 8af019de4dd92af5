// Warped-Compression's 2-bit compression range indicator as a row tag (policies/row_tags.h):
// 0 is uncompressed, so the indicators of rows never written say "uncompressed" (a reset
// state: no register needs decompressing before it holds a value).
#pragma once

#include <cstdint>

#include "gpurf/policies/bdi.h"

namespace gpurf {

inline uint8_t wc_tag(bdi::Choice c) { return uint8_t(3 - unsigned(c)); }
inline bdi::Choice wc_choice(uint8_t tag) { return bdi::Choice(3 - (tag & 3u)); }

} // namespace gpurf
