// Statistics, declared with name, description and unit, grouped by the module hierarchy
// (the group name is the sc_object name), dumped as JSON.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpurf {

class StatGroup;

// A counter, or a vector of counters (one per bank, per kind...).
struct Stat {
  std::string name, description, unit;
  std::vector<uint64_t> values;    // size 1 for scalars
  std::vector<std::string> labels; // optional names of the vector elements
  bool is_vector = false;          // declared with vector() (dumped as "values" even if size 1)
  uint64_t& operator[](size_t i) { return values[i]; }
  uint64_t total() const;
};

// A value computed at dump time from other statistics (IPC, utilisation...).
struct Formula {
  std::string name, description, unit;
  std::function<double()> eval;
};

class StatGroup {
public:
  explicit StatGroup(std::string path);
  StatGroup(const StatGroup&) = delete;
  ~StatGroup();
  uint64_t& scalar(const std::string& name, const std::string& desc, const std::string& unit);
  Stat& vector(const std::string& name, size_t n, const std::string& desc, const std::string& unit,
               std::vector<std::string> labels = {});
  void formula(const std::string& name, const std::string& desc, const std::string& unit,
               std::function<double()> f);
  const std::string& path() const { return path_; }
  const std::deque<Stat>& stats() const { return stats_; }
  const std::vector<Formula>& formulas() const { return formulas_; }

private:
  std::string path_;
  std::deque<Stat> stats_; // deque: references stay valid
  std::vector<Formula> formulas_;
};

// Every live group, in creation order.
std::vector<StatGroup*>& all_stat_groups();
// {"sm.subcore0.bank0": {"reads": {"value": 12, "unit": "...", "desc": "..."}, ...}, ...}
// Keys keep creation/declaration order (ordered_json converts to nlohmann::json if needed).
nlohmann::ordered_json dump_stats_json(bool with_descriptions = true);
// The groups `select` takes (it returns true and sets `key`, the name the group has in the
// dump), in creation order: a GPU's own groups, named relative to it (Gpu::stats_json).
using StatSelect = std::function<bool(const std::string& path, std::string& key)>;
nlohmann::ordered_json dump_stats_json_of(const StatSelect& select, bool with_descriptions = true);
// Whether the group at `path` is of kind `kind`: its last path component is `kind`, optionally
// followed by an index ("sm.sub0.bank3" is of kind "bank"; "sm.l1" of kind "l1").
bool group_of_kind(const std::string& path, const std::string& kind);
// Sum of a statistic over every group of kind `group_kind`
// (e.g. sum_stat("bank", "reads") sums reads of every ...bankN group).
uint64_t sum_stat(const std::string& group_kind, const std::string& name);
// A statistic's count in one group of a statistics JSON: "total" for vectors, "value" for
// scalars (and formulas); false if the group has no such statistic.
bool stat_value(const nlohmann::ordered_json& group, const std::string& name, double& out);
// sum_stat over a statistics JSON (dump_stats_json()); absent statistics count 0.
double sum_stat(const nlohmann::ordered_json& stats, const std::string& group_kind,
                const std::string& name);

} // namespace gpurf
