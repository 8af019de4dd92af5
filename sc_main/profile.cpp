#include "sc_main/profile.h"

#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

#include "gpurf/modules/frontend/ptx_frontend.h"
#include "gpurf/platform/probe.h"
#include "gpurf/platform/profile.h"
#include "gpurf/platform/simulation.h"
#include "gpurf/platform/sm.h"

namespace gpurf {
namespace {

using json = nlohmann::ordered_json;

// Feeds every issued instruction to the profiler (values are set at issue: the front-end
// executes an instruction when the scheduler issues it).
struct ProfileObserver : Observer {
  std::unique_ptr<Profiler> profiler;
  void issue(const WarpInst& i, Cycle) override { profiler->add(i); }
};

std::string pct(const json& share) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(1) << 100 * share.get<double>() << "%";
  return o.str();
}

std::string histogram(const json& h) {
  std::string s;
  for (size_t k = 0; k < h["labels"].size(); ++k)
    s += (k ? "  " : "") + h["labels"][k].get<std::string>() + ": " + pct(h["share"][k]);
  return s;
}

// The report's headline figures as (quantity, value) rows, for text and markdown.
std::vector<std::pair<std::string, std::string>> rows(const json& j) {
  const json& b = j["banks"];
  const json& l = j["value_lifetime"];
  const json& w = j["operand_width"];
  const json& r = j["reuse_distance"];
  std::string bank_shares;
  for (const json& s : b["read_share"]) bank_shares += (bank_shares.empty() ? "" : " ") + pct(s);
  const json& rt = j["registers_per_thread"];
  const json& px = rt["ptxas"];
  const unsigned gpurf = rt["gpurf"].get<unsigned>(), numbered = rt["numbered"].get<unsigned>();
  return {
      {"registers per thread (gpurf / ptxas)",
       std::to_string(gpurf) +
           (numbered != gpurf ? " (numbered r0-r" + std::to_string(numbered - 1) + ")" : "") +
           " / " + (px.is_null() ? "-" : std::to_string(px.get<unsigned>()))},
      {"warp instructions", std::to_string(j["warp_instructions"].get<uint64_t>())},
      {"reads to the 6 hottest registers", pct(j["register_reads"]["hottest6_share"])},
      {"reads per bank", bank_shares},
      {"same-bank sources (random mapping)",
       pct(b["same_bank_share"]) + " (" + pct(b["same_bank_share_random"]) + ")"},
      {"reads per value", histogram(l["reads_per_value"])},
      {"values read once", pct(l["read_once_share"])},
      {"values read once within 3 instructions", pct(l["read_once_within3_share"])},
      {"lifetime of once-read values", histogram(l["lifetime_of_once_read"])},
      {"bytes per lane (reads and writes)",
       histogram({{"labels", w["labels"]}, {"share", w["accesses"]}})},
      {"full-width accesses", pct(w["full_width_share"])},
      {"wasted bank bandwidth", pct(w["wasted_bandwidth"])},
      {"reuse distance", histogram(r)},
      {"reuses below 12 (above 10)",
       pct(r["below12_share"]) + " (" + pct(r["above10_share"]) + ")"},
      {"repeated computations per 1K (>10 times; WIR-reusable)",
       pct(j["repeated_computations"]["share"]) + " (" +
           pct(j["repeated_computations"]["over10_share"]) + "; " +
           pct(j["repeated_computations"]["reusable_share"]) + ")"},
  };
}

} // namespace

int profile_kernel(ConfigNode& platform, const std::string& platform_name, const LaunchSpec& spec,
                   const std::string& format) {
  PtxFrontend fe(spec, frontend_options(platform));
  const unsigned regs = fe.regs_per_thread();
  ProfileObserver obs;
  SimOptions opt;
  opt.observers.push_back(&obs);
  Simulation sim(platform, fe, regs, opt);
  const SmShape& shape = sim.sm().shape();
  obs.profiler = std::make_unique<Profiler>(shape.banks, [&shape](unsigned warp, unsigned reg) {
    return shape.mapping->map(warp / shape.subcores, reg).bank;
  });
  const RunResult r = sim.run();
  if (!r.ok) {
    std::cerr << "error: " << spec.name << " on " << platform_name << ": " << r.error << "\n";
    return 1;
  }
  obs.profiler->finish();

  json j;
  j["kernel"] = spec.name;
  j["platform"] = platform_name;
  j["counted"] = "warp-level: one access per warp instruction and register operand";
  // gpurf: the registers the allocation needs (ptx_virtual: those of the PTX values, no
  // reuse); numbered: highest register number + 1 (ptx_virtual numbers by GPGPU-Sim's banks).
  const bool virt = fe.options().regalloc == compiler::RegAllocMode::PtxVirtual;
  j["registers_per_thread"] = {
      {"gpurf", virt ? fe.plan().value_regs : regs},
      {"numbered", regs},
      {"ptxas", fe.ptxas_registers() ? json(fe.ptxas_registers()) : json(nullptr)}};
  j.update(obs.profiler->report());
  if (format == "json") {
    std::cout << j.dump(2) << "\n";
  } else if (format == "markdown") {
    std::cout << "| " << spec.name << " on " << platform_name << " | |\n|---|---|\n";
    for (auto& [q, v] : rows(j)) std::cout << "| " << q << " | " << v << " |\n";
  } else {
    std::cout << spec.name << " on " << platform_name << " (warp-level accesses)\n";
    size_t w = 0; // the longest quantity and two spaces: no name runs into its value
    for (auto& [q, v] : rows(j)) w = std::max(w, q.size() + 2);
    for (auto& [q, v] : rows(j))
      std::cout << "  " << std::left << std::setw(int(w)) << q << v << "\n";
  }
  return 0;
}

} // namespace gpurf
