#include "gpurf/platform/stats.h"

#include <algorithm>
#include <cctype>
#include <numeric>
#include <stdexcept>

namespace gpurf {

uint64_t Stat::total() const { return std::accumulate(values.begin(), values.end(), uint64_t(0)); }

std::vector<StatGroup*>& all_stat_groups() {
  static std::vector<StatGroup*> groups;
  return groups;
}

void set_stat_origin(size_t first, const std::string& slot, const std::string& impl) {
  auto& g = all_stat_groups();
  for (size_t i = first; i < g.size(); ++i)
    if (g[i]->impl().empty()) g[i]->set_origin(slot, impl);
}

StatGroup::StatGroup(std::string path) : path_(std::move(path)) {
  all_stat_groups().push_back(this);
}

StatGroup::~StatGroup() {
  auto& g = all_stat_groups();
  g.erase(std::remove(g.begin(), g.end(), this), g.end());
}

static void check_new(const StatGroup& g, const std::string& name) {
  bool dup = std::any_of(g.stats().begin(), g.stats().end(),
                         [&](const Stat& s) { return s.name == name; }) ||
             std::any_of(g.formulas().begin(), g.formulas().end(),
                         [&](const Formula& f) { return f.name == name; });
  if (dup) throw std::logic_error("statistic '" + g.path() + "." + name + "' declared twice");
}

const char* energy_role_name(EnergyRole r) {
  switch (r) {
  case EnergyRole::Priced:
    return "priced";
  case EnergyRole::Structure:
    return "structure";
  case EnergyRole::Leakage:
    return "leakage";
  case EnergyRole::NotEvent:
    return "not_event";
  case EnergyRole::NotModelled:
    return "not_modelled";
  case EnergyRole::Scope:
    return "scope";
  case EnergyRole::Undeclared:
    break;
  }
  return "";
}

EnergyRole energy_role_of(const std::string& name) {
  for (EnergyRole r : {EnergyRole::Priced, EnergyRole::Structure, EnergyRole::Leakage,
                       EnergyRole::NotEvent, EnergyRole::NotModelled, EnergyRole::Scope})
    if (name == energy_role_name(r)) return r;
  return EnergyRole::Undeclared;
}

uint64_t& StatGroup::scalar(const std::string& name, const std::string& desc,
                            const std::string& unit, StatEnergy energy, Unwatched unwatched) {
  Stat& s = vector(name, 1, desc, unit, {}, std::move(energy), std::move(unwatched));
  s.is_vector = false;
  return s[0];
}

Stat& StatGroup::vector(const std::string& name, size_t n, const std::string& desc,
                        const std::string& unit, std::vector<std::string> labels, StatEnergy energy,
                        Unwatched unwatched) {
  check_new(*this, name);
  for (const LabelEnergy& l : energy.labels)
    if (std::find(labels.begin(), labels.end(), l.label) == labels.end())
      throw std::logic_error("statistic '" + path_ + "." + name + "': energy role of label '" +
                             l.label + "', which it does not have");
  if (!labels.empty() && labels.size() != n)
    throw std::logic_error("statistic '" + path_ + "." + name +
                           "': " + std::to_string(labels.size()) + " labels for " +
                           std::to_string(n) + " values");
  Stat s;
  s.name = name;
  s.description = desc;
  s.unit = unit;
  s.values.assign(n, 0);
  s.labels = std::move(labels);
  s.is_vector = true;
  s.energy = std::move(energy);
  s.unwatched = std::move(unwatched);
  stats_.push_back(std::move(s));
  return stats_.back();
}

void StatGroup::formula(const std::string& name, const std::string& desc, const std::string& unit,
                        std::function<double()> f) {
  check_new(*this, name);
  formulas_.push_back({name, desc, unit, std::move(f)});
}

nlohmann::ordered_json dump_stats_json(bool with_descriptions) {
  return dump_stats_json_of(
      [](const std::string& path, std::string& key) {
        key = path;
        return true;
      },
      with_descriptions);
}

nlohmann::ordered_json dump_stats_json_of(const StatSelect& select, bool with_descriptions) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  std::string key;
  for (const StatGroup* g : all_stat_groups()) {
    if (!select(g->path(), key)) continue;
    nlohmann::ordered_json& grp = out[key];
    if (grp.is_null()) grp = nlohmann::ordered_json::object();
    if (!g->impl().empty()) grp["_unit"] = {{"slot", g->slot()}, {"impl", g->impl()}};
    for (const Stat& s : g->stats()) {
      nlohmann::ordered_json j = nlohmann::ordered_json::object();
      if (!s.is_vector) {
        j["value"] = s.values[0];
      } else {
        j["values"] = s.values;
        if (!s.labels.empty()) j["labels"] = s.labels;
        j["total"] = s.total();
      }
      if (s.energy.role != EnergyRole::Undeclared) {
        j["energy"] = energy_role_name(s.energy.role);
      } else if (!s.energy.labels.empty()) {
        nlohmann::ordered_json& e = j["energy"] = nlohmann::ordered_json::object();
        for (const LabelEnergy& l : s.energy.labels) e[l.label] = energy_role_name(l.role);
      }
      if (with_descriptions) {
        j["unit"] = s.unit;
        j["desc"] = s.description;
      }
      grp[s.name] = std::move(j);
    }
    for (const Formula& f : g->formulas()) {
      nlohmann::ordered_json j = nlohmann::ordered_json::object();
      j["value"] = f.eval ? f.eval() : 0.0;
      if (with_descriptions) {
        j["unit"] = f.unit;
        j["desc"] = f.description;
      }
      grp[f.name] = std::move(j);
    }
  }
  return out;
}

bool group_of_kind(const std::string& path, const std::string& kind) {
  const size_t dot = path.rfind('.');
  std::string last = dot == std::string::npos ? path : path.substr(dot + 1);
  if (last == kind) return true; // "l1" is a kind, not "l" + index 1
  while (!last.empty() && std::isdigit(static_cast<unsigned char>(last.back()))) last.pop_back();
  return last == kind;
}

uint64_t sum_stat(const std::string& group_kind, const std::string& name) {
  uint64_t sum = 0;
  for (const StatGroup* g : all_stat_groups()) {
    if (!group_of_kind(g->path(), group_kind)) continue;
    for (const Stat& s : g->stats())
      if (s.name == name) sum += s.total();
  }
  return sum;
}

bool stat_value(const nlohmann::ordered_json& group, const std::string& name, double& out) {
  auto it = group.find(name);
  if (it == group.end() || !it->is_object()) return false;
  for (const char* key : {"total", "value"})
    if (auto v = it->find(key); v != it->end() && v->is_number()) {
      out = v->get<double>();
      return true;
    }
  return false;
}

double sum_stat(const nlohmann::ordered_json& stats, const std::string& group_kind,
                const std::string& name) {
  double sum = 0, v = 0;
  for (auto it = stats.begin(); it != stats.end(); ++it)
    if (it.value().is_object() && group_of_kind(it.key(), group_kind) &&
        stat_value(it.value(), name, v))
      sum += v;
  return sum;
}

} // namespace gpurf
