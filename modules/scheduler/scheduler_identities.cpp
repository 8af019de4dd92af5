// Every scheduler's cycles (platform/check/identities.h).
#include "gpurf/platform/check/identities.h"

#include "gpurf/platform/stats.h"

namespace gpurf {

// Per scheduler: every cycle of its SM ("sm", or "sm1" of several) issued or stalled for a
// reason.
GPURF_IDENTITIES(scheduler_cycles, identities::always()) {
  for (const auto& [name, group] : c.groups("scheduler")) {
    const std::string& g = name;
    const nlohmann::ordered_json& grp = *group;
    double cycles = 0;
    if (auto sm = c.stats.find(g.substr(0, g.find('.'))); sm != c.stats.end())
      cycles = c.read_at("sm", sm.key(), *sm, "cycles");
    auto one = [&](const char* stat) { return c.read_at("scheduler", g, grp, stat); };
    c.equal("every cycle of " + g + " issued or stalled for a reason",
            {{"active_cycles + stall_cycles", one("active_cycles") + one("stall_cycles")},
             {"sm.cycles", cycles}});
  }
}

} // namespace gpurf
