#include "gpurf/platform/time_series.h"

#include <filesystem>

#include <nlohmann/json.hpp>

#include "gpurf/platform/config.h"
#include "gpurf/platform/sm.h"
#include "gpurf/platform/stats.h"

namespace gpurf {

namespace {
bool ends_with(const std::string& s, const std::string& end) {
  return s.size() >= end.size() && s.compare(s.size() - end.size(), end.size(), end) == 0;
}
} // namespace

TimeSeries::TimeSeries(const std::string& path, Cycle interval, Sm& sm)
    : interval_(interval), next_(interval), sm_(sm) {
  if (!ends_with(path, ".csv") && !ends_with(path, ".jsonl"))
    throw ConfigError("--samples '" + path +
                      "': unknown format; expected a name ending in .csv "
                      "or .jsonl (JSON lines)");
  csv_ = ends_with(path, ".csv");
  std::error_code ec; // its folder is made once the platform is known good (--out DIR)
  if (const auto dir = std::filesystem::path(path).parent_path(); !dir.empty())
    std::filesystem::create_directories(dir, ec);
  out_.open(path);
  if (ec || !out_)
    throw ConfigError("--samples '" + path + "': cannot write there" +
                      (ec ? " (" + ec.message() + ")" : std::string()));
  // Every counter a column sums, where the platform has it (no RFC: no rfc columns).
  add("scheduler", "issued", "issued");
  add("scheduler", "active_cycles", "active_cycles");
  add("scheduler", "stall_cycles", "stall");
  add("scheduler", "cycles_by_state", "state");
  add("arbiter", "conflicts", "conflicts");
  add("bank", "reads", "bank_reads");
  add("bank", "writes", "bank_writes");
  add("allocator", "occupied_collector_cycles", "occupied_collector_cycles");
  for (const char* c : {"l1", "l2"}) {
    add(c, "hits", std::string(c) + "_hits");
    add(c, "misses", std::string(c) + "_misses");
    add(c, "mshr_merges", std::string(c) + "_mshr_merges");
    ratio(std::string(c) + "_hit_ratio",
          {std::string(c) + "_hits", std::string(c) + "_misses", std::string(c) + "_mshr_merges"});
  }
  add("rfc", "reads", "rfc_hits"); // Gebhart's register file cache
  add("rfc", "misses", "rfc_misses");
  ratio("rfc_hit_ratio", {"rfc_hits", "rfc_misses"});
  add("collector", "ccu_hits", "ccu_hits"); // Malekeh's cache tables
  add("collector", "source_operands", "source_operands");
  ratio("ccu_hit_ratio", {"ccu_hits"}, "source_operands");
  if (const int a = find("active_cycles"); a >= 0) // one part per scheduler
    schedulers_ = unsigned(counters_[size_t(a)].parts.size());
  deltas_.resize(counters_.size());
  write_header();
}

void TimeSeries::add(const std::string& kind, const std::string& stat, const std::string& column) {
  for (const StatGroup* g : all_stat_groups()) {
    if (!group_of_kind(g->path(), kind)) continue;
    for (const Stat& s : g->stats()) {
      if (s.name != stat) continue;
      const bool labelled = !s.labels.empty() && s.labels.size() == s.values.size();
      for (size_t i = 0; i < s.values.size(); ++i) {
        const std::string name = labelled ? column + "." + s.labels[i] : column;
        int c = find(name);
        if (c < 0) c = int(counters_.size()), counters_.push_back(Counter{name, {}, 0});
        counters_[size_t(c)].parts.emplace_back(&s, i);
      }
    }
  }
}

// A ratio column where the counters exist: parts[0] / (sum of parts), or / `over` if given.
void TimeSeries::ratio(const std::string& name, std::vector<std::string> parts,
                       const std::string& over) {
  Ratio r{name, find(parts[0]), {}};
  for (const std::string& p : over.empty() ? parts : std::vector<std::string>{over})
    if (find(p) >= 0) r.over.push_back(unsigned(find(p)));
  if (r.hits >= 0 && !r.over.empty()) ratios_.push_back(std::move(r));
}

uint64_t TimeSeries::value(const Counter& c) const {
  uint64_t v = 0;
  for (const auto& [s, i] : c.parts) v += s->values[i];
  return v;
}

int TimeSeries::find(const std::string& name) const {
  for (size_t i = 0; i < counters_.size(); ++i)
    if (counters_[i].name == name) return int(i);
  return -1;
}

uint64_t TimeSeries::delta(const std::string& name) const {
  const int i = find(name);
  return i < 0 ? 0 : deltas_[size_t(i)];
}

// The columns: interval, instructions and IPC, every counter's delta, then the ratios.
void TimeSeries::write_header() {
  if (!csv_) return;
  out_ << "cycle,cycles,warp_instructions,ipc";
  for (const Counter& c : counters_) out_ << "," << c.name;
  out_ << ",collectors_in_use";
  for (const Ratio& r : ratios_) out_ << "," << r.name;
  out_ << "\n";
}

void TimeSeries::reach(Cycle now) {
  while (next_ <= now) row(next_);
}

void TimeSeries::close(Cycle end) {
  if (closed_) return;
  closed_ = true;
  reach(end);
  if (end > from_) row(end);
  out_.flush();
}

void TimeSeries::row(Cycle at) {
  sm_.settle(at);
  const Cycle cycles = at - from_;
  for (size_t i = 0; i < counters_.size(); ++i) {
    const uint64_t v = value(counters_[i]);
    deltas_[i] = v - counters_[i].last;
    counters_[i].last = v;
  }
  const uint64_t winst = sm_.retired() - retired_;
  retired_ = sm_.retired();
  // Every scheduler cycle of the interval issued or stalled for a reason (and has a two-level
  // state): a time-integrated counter settled to the wrong boundary breaks it.
  uint64_t accounted = delta("active_cycles"), states = 0;
  bool two_level = false;
  for (size_t i = 0; i < counters_.size(); ++i) {
    if (counters_[i].name.rfind("stall.", 0) == 0) accounted += deltas_[i];
    if (counters_[i].name.rfind("state.", 0) == 0) states += deltas_[i], two_level = true;
  }
  const uint64_t expect = uint64_t(schedulers_) * cycles;
  if (error_.empty() && schedulers_ && (accounted != expect || (two_level && states != expect)))
    error_ = "time series: cycles [" + std::to_string(from_) + ", " + std::to_string(at) +
             "): the schedulers account for " + std::to_string(two_level ? states : accounted) +
             " cycles, expected " + std::to_string(schedulers_) + " x " + std::to_string(cycles);
  const double n = double(cycles);
  std::vector<double> ratios; // -1: no access in the interval
  for (const Ratio& r : ratios_) {
    uint64_t all = 0;
    for (unsigned i : r.over) all += deltas_[i];
    ratios.push_back(all ? double(deltas_[unsigned(r.hits)]) / double(all) : -1.0);
  }
  const double in_use = double(delta("occupied_collector_cycles")) / n;
  if (csv_) {
    out_ << from_ << "," << cycles << "," << winst << "," << double(winst) / n;
    for (uint64_t d : deltas_) out_ << "," << d;
    out_ << "," << in_use;
    for (double r : ratios) {
      out_ << ",";
      if (r >= 0) out_ << r;
    }
    out_ << "\n";
  } else {
    nlohmann::ordered_json j;
    j["cycle"] = from_;
    j["cycles"] = cycles;
    j["warp_instructions"] = winst;
    j["ipc"] = double(winst) / n;
    for (size_t i = 0; i < counters_.size(); ++i) j[counters_[i].name] = deltas_[i];
    j["collectors_in_use"] = in_use;
    for (size_t i = 0; i < ratios_.size(); ++i)
      j[ratios_[i].name] = ratios[i] >= 0 ? nlohmann::json(ratios[i]) : nullptr;
    out_ << j.dump() << "\n";
  }
  ++rows_;
  from_ = at;
  next_ = (at / interval_ + 1) * interval_;
}

} // namespace gpurf
