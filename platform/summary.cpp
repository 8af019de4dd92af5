#include "gpurf/platform/summary.h"

#include <set>
#include <string>
#include <vector>

#include "gpurf/platform/stats.h"
#include "gpurf/policies/occupancy.h"

namespace gpurf {

namespace {
bool has_group(const std::string& kind) {
  for (StatGroup* g : all_stat_groups())
    if (group_of_kind(g->path(), kind)) return true;
  return false;
}

bool has_stat(const std::string& kind, const std::string& name) {
  for (StatGroup* g : all_stat_groups())
    if (group_of_kind(g->path(), kind))
      for (const Stat& st : g->stats())
        if (st.name == name) return true;
  return false;
}
} // namespace

// The hit ratio of every cache-like unit, from the summary's own counters (over every
// instance; a launch's from its own): null where nothing was looked up, a ratio of nothing.
void add_hit_ratios(nlohmann::ordered_json& j) {
  auto ratio = [](const nlohmann::ordered_json& o, const std::string& hits,
                  const std::vector<std::string>& lookups) {
    uint64_t n = 0;
    for (const std::string& l : lookups) n += o[l].get<uint64_t>();
    return n ? nlohmann::ordered_json(o[hits].get<double>() / double(n)) : nullptr;
  };
  for (const std::string c : {"l1", "l2"}) // as the caches' hit_rate: merges are no hits
    if (j.contains(c + "_mshr_merges"))
      j[c + "_hit_ratio"] = ratio(j, c + "_hits", {c + "_hits", c + "_misses", c + "_mshr_merges"});
  if (j.contains("rfc")) // the RFC's "reads" are the operands it served: its hits
    j["rfc"]["hit_ratio"] = ratio(j["rfc"], "reads", {"reads", "misses"});
  if (j.contains("ccu")) j["ccu"]["hit_ratio"] = ratio(j["ccu"], "hits", {"source_operands"});
  if (j.contains("verify_cache"))
    j["verify_cache"]["hit_ratio"] = ratio(j["verify_cache"], "hits", {"lookups"});
}

// The summary's counters, from the statistics as they are now (`j` holds cycles and
// warp_instructions already).
void add_counters(nlohmann::ordered_json& j) {
  const uint64_t cycles = j["cycles"], winst = j["warp_instructions"];
  j["ipc"] = cycles ? double(winst) / double(cycles) : 0.0;
  j["rf_bank_reads"] = sum_stat("bank", "reads");
  j["rf_bank_writes"] = sum_stat("bank", "writes");
  j["rf_bank_accesses"] = sum_stat("arbiter", "bank_accesses");
  j["rf_slice_activations"] = sum_stat("bank", "slice_reads") + sum_stat("bank", "slice_writes");
  j["oc_writes"] = sum_stat("collector", "oc_writes");
  j["coalesced_accesses"] = sum_stat("arbiter", "coalesced"); // CMRC Table I kinds; 0 elsewhere
  j["operands_checked"] = sum_stat("collector", "operands_checked");
  nlohmann::ordered_json conflicts;
  for (const char* k : {"read_read", "read_write", "write_write", "collector_port"})
    conflicts[k] = 0;
  for (StatGroup* g : all_stat_groups())
    for (const Stat& st : g->stats())
      if (st.name == "conflicts" && st.labels.size() == st.values.size())
        for (size_t i = 0; i < st.values.size(); ++i)
          conflicts[st.labels[i]] = conflicts[st.labels[i]].get<uint64_t>() + st.values[i];
  j["bank_conflicts"] = conflicts;
  j["l1_hits"] = sum_stat("l1", "hits");
  j["l1_misses"] = sum_stat("l1", "misses");
  j["l2_hits"] = sum_stat("l2", "hits");
  j["l2_misses"] = sum_stat("l2", "misses");
  for (const char* c : {"l1", "l2"})
    if (has_group(c)) j[std::string(c) + "_mshr_merges"] = sum_stat(c, "mshr_merges");
  // Occupancy (per SM; every SM has the same) and what bounds it, so that a sweep that
  // changes it (bank.count) shows it.
  uint64_t sms = 0;
  for (StatGroup* g : all_stat_groups()) sms += group_of_kind(g->path(), "sm");
  j["sm_count"] = sms;
  sms = std::max<uint64_t>(sms, 1);
  j["resident_warps"] = sum_stat("sm", "resident_warps") / sms;
  j["resident_ctas"] = sum_stat("sm", "resident_ctas") / sms;
  Occupancy occ;
  occ.ctas = unsigned(sum_stat("sm", "resident_ctas") / sms);
  for (StatGroup* g : all_stat_groups())
    if (group_of_kind(g->path(), "sm"))
      for (const Stat& st : g->stats())
        if (st.name == "cta_limit")
          for (size_t i = 0; i < st.values.size() && i < Occupancy::kLimits; ++i)
            occ.by[i] = unsigned(st.values[i]);
  j["occupancy_limit"] = occ.limited_by();
  // Gebhart register file cache / two-level scheduler statistics, only where the units exist.
  auto labelled = [](const std::string& name) {
    nlohmann::ordered_json o;
    for (StatGroup* g : all_stat_groups())
      for (const Stat& st : g->stats())
        if (st.name == name && st.labels.size() == st.values.size())
          for (size_t i = 0; i < st.values.size(); ++i)
            o[st.labels[i]] =
                (o.contains(st.labels[i]) ? o[st.labels[i]].get<uint64_t>() : 0) + st.values[i];
    return o;
  };
  if (sum_stat("rfc", "results") + sum_stat("rfc", "misses") > 0) {
    nlohmann::ordered_json rfc;
    for (const char* k : {"reads", "misses", "writes", "results", "mrf_writes", "writebacks",
                          "dead_elided", "flushes", "flush_writebacks"})
      rfc[k] = sum_stat("rfc", k);
    rfc["bypass"] = labelled("bypass");
    j["rfc"] = rfc;
  }
  if (nlohmann::ordered_json st = labelled("cycles_by_state"); !st.empty())
    j["scheduler_states"] = st;
  if (has_stat("collector", "ccu_hits")) { // Malekeh's cache tables, every collector's together
    nlohmann::ordered_json ccu;
    ccu["hits"] = sum_stat("collector", "ccu_hits");
    ccu["source_operands"] = sum_stat("collector", "source_operands");
    j["ccu"] = ccu;
  }
  if (has_group("verify_cache")) { // WIR's verify cache (Sec. VI-C)
    nlohmann::ordered_json vc;
    vc["lookups"] = sum_stat("verify_cache", "reads");
    vc["hits"] = sum_stat("writeback", "verify_cache_hits");
    j["verify_cache"] = vc;
  }
  add_hit_ratios(j);
}

// What one launch of an application added: `now` minus `before`, counter by counter (the
// occupancy fields are the launch's own; ipc recomputed).
nlohmann::ordered_json launch_delta(const nlohmann::ordered_json& before,
                                    const nlohmann::ordered_json& now) {
  // Never destroyed (a global destructor of a CUDA program may launch after it would be).
  static const std::set<std::string>& levels = *new std::set<std::string>{
      "resident_warps", "resident_ctas",        "sm_count", "occupancy_limit", "label",
      "launch",         "registers_per_thread", "kernel"};
  nlohmann::ordered_json d;
  for (auto it = now.begin(); it != now.end(); ++it) {
    const nlohmann::ordered_json* b = before.contains(it.key()) ? &before[it.key()] : nullptr;
    if (levels.count(it.key()) || !b)
      d[it.key()] = it.value();
    else if (it.value().is_object())
      d[it.key()] = launch_delta(*b, it.value());
    else if (it.value().is_number_unsigned())
      d[it.key()] = it.value().get<uint64_t>() - b->get<uint64_t>();
    else
      d[it.key()] = it.value();
  }
  if (d.contains("cycles")) {
    const uint64_t c = d["cycles"], w = d["warp_instructions"];
    d["ipc"] = c ? double(w) / double(c) : 0.0;
  }
  add_hit_ratios(d);
  return d;
}

// One kernel's summary object (the suite's summary.json holds a list of them).
nlohmann::ordered_json summarize(const std::string& kernel, const std::string& platform,
                                 const RunResult& r, bool verified, const std::string& error) {
  nlohmann::ordered_json j;
  j["schema"] = kResultSchema;
  j["kernel"] = kernel;
  j["platform"] = platform;
  j["verified"] = verified;
  j["error"] = error;
  j["cycles"] = r.cycles;
  j["warp_instructions"] = r.warp_instructions;
  add_counters(j);
  if (!r.energy.is_null()) {
    for (const char* k : {"rf_dynamic_energy_pj", "rf_leakage_energy_pj", "sm_energy_pj"})
      j[k] = r.energy[k];
    j["energy"] = r.energy;
  }
  j["host_seconds"] = r.host_seconds;
  j["cpu_seconds"] = r.cpu_seconds;
  const double hs = std::max(r.host_seconds, 1e-9);
  j["warp_instructions_per_second"] = r.warp_instructions / hs;
  j["cycles_per_second"] = r.cycles / hs;
  return j;
}

} // namespace gpurf
