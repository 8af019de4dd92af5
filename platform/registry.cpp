#include "gpurf/platform/registry.h"

namespace gpurf {

std::vector<SlotInfo>& all_slots() {
  static std::vector<SlotInfo> slots;
  return slots;
}

void unknown_impl(const Params& p, const std::string& impl, const std::vector<std::string>& names) {
  std::string list;
  for (size_t i = 0; i < names.size(); ++i) list += (i ? ", " : "") + names[i];
  if (names.empty()) list = "(none)";
  std::string near = closest(impl, names);
  p.fail("impl", "unknown implementation '" + impl + "'; " +
                     (near.empty() ? "" : "did you mean '" + near + "'? ") + "registered: " + list);
}

} // namespace gpurf
