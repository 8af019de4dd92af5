// What a registered implementation declares, read off an instance built on default
// parameters: its statistics (name, unit, description, energy role) in every group it makes,
// and its sockets. `gpurf --describe IMPL` prints it; tests/statistics holds every
// implementation to documented statistics that the identities can read.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpurf/platform/registry.h"
#include "gpurf/platform/stats.h"

namespace gpurf {

struct UnitDescription {
  struct Group {
    std::string name; // "" for the unit's own group, else the kind of a group beside it
    std::vector<Stat> stats;
    std::vector<Formula> formulas; // name, unit and description only (not evaluated)
    std::vector<Distribution> distributions;
  };
  struct Socket {
    std::string name, kind; // name relative to the unit ("l1_port"), sc_object kind
  };
  std::string slot, impl;
  std::vector<Group> groups;
  std::vector<Socket> sockets;
};

// Builds `impl` of `slot` on default parameters (SlotInfo::build) and reads what it declares.
UnitDescription describe_unit(const SlotInfo& slot, const std::string& impl);

// The statistics and sockets part of --describe.
void print_unit_description(std::ostream& os, const UnitDescription& d);

// The description's groups as a statistics JSON of one SM sub-core ("sm.sub0.<slot>", a
// group beside it "sm.sub0.<kind>"), every count 0, each with its "_unit": what the
// identities read of a run with this implementation.
nlohmann::ordered_json described_stats_json(const UnitDescription& d);

} // namespace gpurf
