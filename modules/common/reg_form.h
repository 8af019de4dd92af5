// How a register's value sits in the banks. The writeback stores it; the unit that reads it
// out (a collector, or the arbiter) must decode that form, so the pair is chosen together
// and checked at load (platform/sm.cpp).
#pragma once

namespace gpurf {

enum class RegForm {
  Full, // 32 lanes x 4 B, as computed
  Cmrc, // CMRC: the narrow width of the lanes, coalesced into 32 B slices (docs/cmrc.md)
  Bdi,  // Warped-Compression: base-delta-immediate compressed (docs/warped-compression.md)
};

inline const char* reg_form_name(RegForm f) {
  switch (f) {
  case RegForm::Cmrc:
    return "CMRC's narrow";
  case RegForm::Bdi:
    return "Warped-Compression's BDI";
  default:
    return "full";
  }
}
// The writeback that stores form f, and the reader that decodes it, as YAML keys.
inline const char* reg_form_writer(RegForm f) {
  switch (f) {
  case RegForm::Cmrc:
    return "writeback.impl: cmrc";
  case RegForm::Bdi:
    return "writeback.impl: warped_compression";
  default:
    return "a writeback that stores full registers (e.g. writeback.impl: priority)";
  }
}
inline const char* reg_form_reader(RegForm f) {
  switch (f) {
  case RegForm::Cmrc:
    return "collector.impl: cmrc";
  case RegForm::Bdi:
    return "arbiter.impl: warped_compression";
  default:
    return "readers of full registers";
  }
}

} // namespace gpurf
