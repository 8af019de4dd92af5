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

// How messages name form f, the writeback that stores it and the reader that decodes it.
struct RegFormText {
  const char* name;
  const char* writer;
  const char* reader;
};
inline const RegFormText& reg_form_text(RegForm f) {
  static const RegFormText text[] = {
      {"full", "a writeback that stores full registers (e.g. writeback.impl: priority)",
       "readers of full registers"},
      {"CMRC's narrow", "writeback.impl: cmrc", "collector.impl: cmrc"},
      {"Warped-Compression's BDI", "writeback.impl: warped_compression",
       "arbiter.impl: warped_compression"},
  };
  return text[static_cast<unsigned>(f)];
}

} // namespace gpurf
