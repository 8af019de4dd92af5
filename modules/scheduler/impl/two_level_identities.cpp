// Gebhart's two-level scheduler (platform/check/identities.h): its states cover every cycle,
// and its active set changes as the checker saw it.
#include "gpurf/platform/check/identities.h"

namespace gpurf {

GPURF_IDENTITIES(two_level, identities::impl("scheduler", "two_level")) {
  for (auto& [g, group] : c.groups("scheduler", "two_level")) {
    double cycles = 0;
    if (auto sm = c.stats.find(g.substr(0, g.find('.'))); sm != c.stats.end())
      cycles = c.read_at("sm", sm.key(), *sm, "cycles");
    c.equal("every cycle of " + g + " has a two-level state",
            {{"cycles_by_state", c.read_at("scheduler", g, *group, "cycles_by_state")},
             {"sm.cycles", cycles}});
  }
  c.equal("two-level: activations = activation events",
          {{"scheduler.activations", c.sum("scheduler", "activations")},
           {"activation events", double(c.events.activations)}});
  c.equal("two-level: deactivations = deactivation events",
          {{"scheduler.deactivations", c.sum("scheduler", "deactivations")},
           {"deactivation events", double(c.events.deactivations)}});
}

} // namespace gpurf
