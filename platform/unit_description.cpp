#include "gpurf/platform/unit_description.h"

#include <algorithm>
#include <iomanip>

#include <systemc>

namespace gpurf {

namespace {

void find_sockets(const sc_core::sc_object* o, const std::string& base,
                  std::vector<UnitDescription::Socket>& out) {
  for (const sc_core::sc_object* c : o->get_child_objects()) {
    const std::string kind = c->kind();
    std::string name = c->name();
    if (name.compare(0, base.size() + 1, base + ".") == 0) name = name.substr(base.size() + 1);
    if (kind.find("socket") != std::string::npos) // its sc_port/sc_export beside it: not listed
      out.push_back({name, kind});
    else
      find_sockets(c, base, out);
  }
}

std::string role_text(const Stat& s) {
  if (s.energy.role != EnergyRole::Undeclared)
    return std::string(energy_role_name(s.energy.role)) + ": " + s.energy.why;
  if (s.energy.labels.empty()) return "(no energy role declared)";
  std::string t;
  for (const LabelEnergy& l : s.energy.labels)
    t += (t.empty() ? "" : "; ") + l.label + " " + energy_role_name(l.role) + ": " + l.why;
  return t;
}

} // namespace

UnitDescription describe_unit(const SlotInfo& slot, const std::string& impl) {
  UnitDescription d;
  d.slot = slot.slot;
  d.impl = impl;
  const size_t first = all_stat_groups().size();
  slot.build(impl, [&] {
    const std::string own = "describe_" + impl; // default_context's module name
    const auto& all = all_stat_groups();
    for (size_t i = first; i < all.size(); ++i) {
      UnitDescription::Group g;
      g.name = all[i]->path() == own ? "" : all[i]->path();
      g.stats.assign(all[i]->stats().begin(), all[i]->stats().end());
      for (const Formula& f : all[i]->formulas())
        g.formulas.push_back({f.name, f.description, f.unit, {}, f.numerator, f.denominator});
      g.distributions.assign(all[i]->distributions().begin(), all[i]->distributions().end());
      d.groups.push_back(std::move(g));
    }
    if (const sc_core::sc_object* o = sc_core::sc_find_object(own.c_str()))
      find_sockets(o, own, d.sockets);
  });
  return d;
}

void print_unit_description(std::ostream& os, const UnitDescription& d) {
  for (const UnitDescription::Group& g : d.groups) {
    os << (g.name.empty() ? "statistics:" : "statistics of the group beside it, " + g.name + ":")
       << "\n";
    size_t wn = 0, wu = 0;
    for (const Stat& s : g.stats)
      wn = std::max(wn, s.name.size() + 2), wu = std::max(wu, s.unit.size() + 2);
    for (const Formula& f : g.formulas)
      wn = std::max(wn, f.name.size() + 2), wu = std::max(wu, f.unit.size() + 2);
    for (const Distribution& x : g.distributions)
      wn = std::max(wn, x.name.size() + 2), wu = std::max(wu, x.unit.size() + 2);
    for (const Stat& s : g.stats) {
      os << "  " << std::left << std::setw(int(wn)) << s.name << std::setw(int(wu)) << s.unit
         << s.description;
      if (s.values.size() > 1 || s.is_vector)
        os << " (" << s.values.size() << " values" << (s.labels.empty() ? "" : " by label") << ")";
      os << "\n  " << std::setw(int(wn + wu)) << ""
         << "energy " << role_text(s) << "\n";
    }
    for (const Formula& f : g.formulas)
      os << "  " << std::left << std::setw(int(wn)) << f.name << std::setw(int(wu)) << f.unit
         << f.description << " (formula)\n";
    for (const Distribution& x : g.distributions)
      os << "  " << std::left << std::setw(int(wn)) << x.name << std::setw(int(wu)) << x.unit
         << x.description << " (distribution, "
         << (x.buckets.scale == Buckets::Scale::Linear
                 ? std::to_string(x.buckets.n) + " buckets " + std::to_string(x.buckets.width()) +
                       " wide"
                 : std::to_string(x.buckets.n) + " log2 buckets")
         << ")\n";
  }
  if (!d.sockets.empty()) {
    os << "sockets:\n";
    for (const UnitDescription::Socket& s : d.sockets)
      os << "  " << s.name << "  " << s.kind << "\n";
  }
}

nlohmann::ordered_json described_stats_json(const UnitDescription& d) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const UnitDescription::Group& g : d.groups) {
    nlohmann::ordered_json& j = out["sm.sub0." + (g.name.empty() ? d.slot : g.name)];
    j["_unit"] = {{"slot", d.slot}, {"impl", d.impl}};
    for (const Stat& s : g.stats) {
      nlohmann::ordered_json x = nlohmann::ordered_json::object();
      if (s.is_vector) {
        x["values"] = std::vector<uint64_t>(s.values.size(), 0);
        x["total"] = 0;
      } else {
        x["value"] = 0;
      }
      j[s.name] = std::move(x);
    }
    for (const Distribution& x : g.distributions) j[x.name] = distribution_json(x);
  }
  return out;
}

} // namespace gpurf
