#include "gpurf/platform/stats.h"

#include <algorithm>
#include <cctype>
#include <cmath>
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
                         [&](const Formula& f) { return f.name == name; }) ||
             std::any_of(g.distributions().begin(), g.distributions().end(),
                         [&](const Distribution& d) { return d.name == name; });
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
  formulas_.push_back({name, desc, unit, std::move(f), {}, {}});
}

void StatGroup::ratio(const std::string& name, const std::string& desc, const std::string& unit,
                      std::vector<std::string> numerator, std::vector<std::string> denominator) {
  for (const auto* names : {&numerator, &denominator})
    for (const std::string& n : *names) (void)counter(n); // declared before the ratio
  check_new(*this, name);
  Formula f{name, desc, unit, {}, std::move(numerator), std::move(denominator)};
  f.eval = [this, num = f.numerator, den = f.denominator] {
    uint64_t a = 0, b = 0;
    for (const std::string& n : num) a += counter(n);
    for (const std::string& n : den) b += counter(n);
    return gpurf::ratio(double(a), double(b));
  };
  formulas_.push_back(std::move(f));
}

uint64_t StatGroup::counter(const std::string& name) const {
  for (const Stat& s : stats_)
    if (s.name == name) return s.total();
  throw std::logic_error("statistic '" + path_ + "." + name + "' is not declared");
}

Buckets Buckets::linear(uint64_t width, unsigned n) {
  if (width == 0 || (width & (width - 1)) || n == 0)
    throw std::logic_error("linear buckets: the width must be a power of two, n at least 1");
  Buckets b;
  b.scale = Scale::Linear;
  while ((uint64_t(1) << b.shift) < width) ++b.shift;
  b.n = n;
  return b;
}

Buckets Buckets::log2(unsigned n) {
  if (n == 0 || n > 64) throw std::logic_error("log2 buckets: 1 to 64 of them");
  Buckets b;
  b.scale = Scale::Log2;
  b.n = n;
  return b;
}

uint64_t Distribution::bucket_low(size_t i) const {
  if (buckets.scale == Buckets::Scale::Linear) return uint64_t(i) << buckets.shift;
  return i == 0 ? 0 : uint64_t(1) << (i - 1);
}

uint64_t Distribution::bucket_high(size_t i) const {
  if (i >= buckets.n) return UINT64_MAX;
  return bucket_low(i + 1) - 1;
}

uint64_t Distribution::percentile(unsigned pct) const {
  const uint64_t rank = std::max<uint64_t>(1, (uint64_t(pct) * count + 99) / 100);
  uint64_t seen = 0;
  for (size_t i = 0; i < counts.size(); ++i)
    if ((seen += counts[i]) >= rank) return std::min(bucket_high(i), max);
  return max;
}

Distribution& StatGroup::distribution(const std::string& name, const std::string& desc,
                                      const std::string& unit, Buckets buckets) {
  check_new(*this, name);
  Distribution d;
  d.name = name;
  d.description = desc;
  d.unit = unit;
  d.buckets = buckets;
  d.counts.assign(buckets.n + 1, 0);
  distributions_.push_back(std::move(d));
  return distributions_.back();
}

nlohmann::ordered_json distribution_json(const Distribution& d) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  j["kind"] = "distribution";
  j["count"] = d.count;
  j["sum"] = d.sum;
  const bool any = d.count > 0;
  j["mean"] = any ? nlohmann::ordered_json(double(d.sum) / double(d.count)) : nullptr;
  j["min"] = any ? nlohmann::ordered_json(d.min) : nullptr;
  j["max"] = any ? nlohmann::ordered_json(d.max) : nullptr;
  for (unsigned p : {50u, 90u, 99u})
    j["p" + std::to_string(p)] = any ? nlohmann::ordered_json(d.percentile(p)) : nullptr;
  // The buckets that hold samples: [lowest value, highest value (null: no bound), count].
  nlohmann::ordered_json& b = j["buckets"] = nlohmann::ordered_json::object();
  b["scale"] = d.buckets.scale == Buckets::Scale::Linear ? "linear" : "log2";
  if (d.buckets.scale == Buckets::Scale::Linear) b["width"] = d.buckets.width();
  b["n"] = d.buckets.n;
  nlohmann::ordered_json& held = b["held"] = nlohmann::ordered_json::array();
  for (size_t i = 0; i < d.counts.size(); ++i)
    if (d.counts[i])
      held.push_back({d.bucket_low(i),
                      i < d.buckets.n ? nlohmann::ordered_json(d.bucket_high(i)) : nullptr,
                      d.counts[i]});
  j["energy"] = energy_role_name(EnergyRole::NotEvent);
  return j;
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
      j["kind"] = s.is_vector ? "vector" : "counter";
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
      j["kind"] = "formula";
      const double v = f.eval ? f.eval() : 0.0;
      j["value"] = std::isnan(v) ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(v);
      if (!f.denominator.empty())
        j["ratio_of"] = {{"numerator", f.numerator}, {"denominator", f.denominator}};
      if (with_descriptions) {
        j["unit"] = f.unit;
        j["desc"] = f.description;
      }
      grp[f.name] = std::move(j);
    }
    for (const Distribution& d : g->distributions()) {
      nlohmann::ordered_json j = distribution_json(d);
      if (with_descriptions) {
        j["unit"] = d.unit;
        j["desc"] = d.description;
      }
      grp[d.name] = std::move(j);
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
