// gpurf energy --table FILE PATH... [--format text|json]
//
// Prices saved runs with an energy table: each run's stats.json (every statistic) and the
// three platform figures the statistics do not carry (sm.clock_ghz, bank.slices, bank.entries,
// read from the platform.yaml that gpurf run --out writes beside it) go through the same
// energy_report() as a live run, so the report is the object result.json holds under `energy`,
// with the same checks: every counted event priced or classified, the energy identity.
#include "sc_main/reprice.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "gpurf/platform/config.h"
#include "gpurf/platform/energy.h"

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

namespace gpurf {
namespace {

const char* kUsage = R"(usage: gpurf energy --table FILE PATH... [--format text|json]
  --table   energy table (configs/energy/*.yaml) to price the runs with
  PATH      a kernel's result folder (gpurf run --out; holds stats.json and platform.yaml),
            its stats.json, or a suite folder (gpurf suite --out, or one platform's folder in
            it): every kernel in it
  --format  text (default) or json: for one run (one PATH naming a run folder or its
            stats.json) the object result.json holds under "energy"; else {"schema",
            "table", "runs": [{"path", "kernel", "platform", "verified", "energy"}]}
            (docs/energy.md, "Repricing a saved run")
)";

struct BadInput : std::runtime_error {
  using std::runtime_error::runtime_error;
};

Json read_json(const fs::path& p) {
  std::ifstream f(p);
  if (!f) throw BadInput(p.string() + ": cannot open");
  try {
    return Json::parse(f);
  } catch (const Json::exception& e) {
    throw BadInput(p.string() + ": not valid JSON (" + e.what() + ")");
  }
}

// The run folders PATH names: itself (stats.json inside, or PATH is one), else every folder
// under it, two levels deep (suite/<platform>/<kernel>), that holds a stats.json.
std::vector<fs::path> run_dirs(const std::string& arg) {
  const fs::path p(arg);
  if (!fs::exists(p)) throw BadInput(arg + ": no such file or directory");
  if (fs::is_regular_file(p)) {
    if (p.filename() != "stats.json")
      throw BadInput(arg + ": expected a stats.json, a run folder or a suite folder");
    return {p.parent_path().empty() ? fs::path(".") : p.parent_path()};
  }
  if (fs::exists(p / "stats.json")) return {p};
  std::vector<fs::path> runs;
  for (auto& e : fs::directory_iterator(p)) {
    if (!e.is_directory()) continue;
    if (fs::exists(e.path() / "stats.json"))
      runs.push_back(e.path());
    else
      for (auto& k : fs::directory_iterator(e.path()))
        if (k.is_directory() && fs::exists(k.path() / "stats.json")) runs.push_back(k.path());
  }
  if (runs.empty())
    throw BadInput(arg + ": no run (expected " + (p / "stats.json").string() + ", or a suite's " +
                   (p / "<kernel>" / "stats.json").string() + " or " +
                   (p / "<platform>" / "<kernel>" / "stats.json").string() +
                   " as gpurf run/suite --out write)");
  std::sort(runs.begin(), runs.end());
  return runs;
}

// A number the platform file must hold (--dump-config form: every default written out).
double platform_number(const ConfigNode& root, const fs::path& file, const std::string& key) {
  const ConfigNode* n = root.find_path(key);
  if (!n || n->kind != ConfigNode::Kind::Scalar)
    throw BadInput(file.string() + ": " + key +
                   ": missing; the energy report needs sm.clock_ghz, bank.slices and "
                   "bank.entries (gpurf run --out writes them)");
  try {
    size_t used = 0;
    const double v = std::stod(n->scalar, &used);
    if (used == n->scalar.size() && v > 0) return v;
  } catch (const std::exception&) {
  }
  throw BadInput(n->where() + ": " + key + ": '" + n->scalar + "' is not a number > 0");
}

struct Run {
  fs::path dir;
  std::string kernel, platform;
  bool verified = false;
  Json energy;
};

Run reprice(const EnergyTable& table, const fs::path& dir) {
  Run r;
  r.dir = dir;
  const Json stats = read_json(dir / "stats.json");
  if (!stats.is_object()) throw BadInput((dir / "stats.json").string() + ": not a JSON object");
  const fs::path pf = dir / "platform.yaml";
  if (!fs::exists(pf))
    throw BadInput(pf.string() + ": missing; the energy report needs the run's platform "
                                 "(sm.clock_ghz, bank.slices, bank.entries)");
  ConfigPtr platform;
  try {
    platform = load_config(pf.string());
  } catch (const ConfigError& e) {
    throw BadInput(e.what());
  }
  const EnergyPlatform shape{platform_number(*platform, pf, "sm.clock_ghz"),
                             unsigned(platform_number(*platform, pf, "bank.slices")),
                             unsigned(platform_number(*platform, pf, "bank.entries"))};
  r.kernel = dir.filename().string();
  r.platform = dir.parent_path().filename().string();
  if (fs::exists(dir / "result.json")) {
    const Json res = read_json(dir / "result.json");
    r.kernel = res.value("kernel", r.kernel);
    r.platform = res.value("platform", r.platform);
    r.verified = res.value("verified", false);
  }
  try {
    r.energy = energy_report(table, stats, shape);
  } catch (const ConfigError& e) { // an event the table does not price: the input's fault
    throw BadInput((dir / "stats.json").string() + ": " + e.what());
  } catch (const std::logic_error& e) { // a statistic this gpurf does not classify
    throw BadInput((dir / "stats.json").string() + ": " + e.what() +
                   " (written by another gpurf version?)");
  } catch (const std::runtime_error& e) { // statistics without what every run has
    if (std::string(e.what()).find("energy identity broken") != std::string::npos) throw;
    throw BadInput((dir / "stats.json").string() + ": " + e.what());
  }
  return r;
}

std::string num(double v) {
  char b[64];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}

void print_text(const EnergyTable& t, const std::vector<Run>& runs) {
  std::cout << "energy table " << t.path << " (" << t.name << ", scope "
            << (t.scope == EnergyScope::Sm ? "sm" : "register-file") << "), pJ\n";
  const char* cols[] = {"sm_energy_pj",         "uncore_energy_pj",    "memory_energy_pj",
                        "dynamic_energy_pj",    "static_energy_pj",    "total_energy_pj",
                        "rf_dynamic_energy_pj", "rf_leakage_energy_pj"};
  std::printf("%-24s", "run");
  for (const char* c : cols) std::printf(" %14.14s", std::string(c).substr(0, 14).c_str());
  std::printf("\n");
  for (const Run& r : runs) {
    std::printf("%-24s", (r.platform + "/" + r.kernel).substr(0, 24).c_str());
    for (const char* c : cols) std::printf(" %14s", num(r.energy[c].get<double>()).c_str());
    std::printf("%s\n", r.verified ? "" : "  (not verified)");
  }
  if (runs.size() == 1) {
    std::printf("breakdown:\n");
    for (auto& [k, v] : runs[0].energy["breakdown"].items())
      std::printf("  %-22s %14s\n", k.c_str(), num(v.get<double>()).c_str());
  }
}

} // namespace

int reprice_main(const std::vector<std::string>& args) {
  try {
    std::string table_path, format = "text";
    std::vector<std::string> paths;
    for (size_t i = 0; i < args.size(); ++i) {
      const std::string& a = args[i];
      auto value = [&]() -> std::string {
        if (i + 1 >= args.size()) throw BadInput("option " + a + " needs a value\n" + kUsage);
        return args[++i];
      };
      if (a == "-h" || a == "--help") {
        std::cout << kUsage;
        return 0;
      } else if (a == "--table") {
        table_path = value();
      } else if (a.rfind("--table=", 0) == 0) {
        table_path = a.substr(8);
      } else if (a == "--format" || a.rfind("--format=", 0) == 0) {
        format = a == "--format" ? value() : a.substr(9);
        if (format != "text" && format != "json")
          throw BadInput("option --format: '" + format + "' is not text or json");
      } else if (a.size() > 1 && a[0] == '-') {
        throw BadInput("unknown option '" + a + "'\n" + kUsage);
      } else {
        paths.push_back(a);
      }
    }
    if (table_path.empty()) throw BadInput("missing --table FILE\n" + std::string(kUsage));
    if (paths.empty())
      throw BadInput("missing PATH (a run or suite folder)\n" + std::string(kUsage));

    EnergyTable table;
    try {
      table = load_energy_table(table_path);
    } catch (const ConfigError& e) {
      throw BadInput(e.what());
    }
    std::vector<Run> runs;
    bool suite = paths.size() > 1;
    for (const std::string& p : paths) {
      const std::vector<fs::path> dirs = run_dirs(p);
      suite = suite || !(fs::exists(fs::path(p) / "stats.json") || fs::is_regular_file(p));
      for (const fs::path& d : dirs) runs.push_back(reprice(table, d));
    }

    if (format == "json" && !suite) { // one run: exactly result.json's `energy`
      std::cout << runs[0].energy.dump(2) << "\n";
    } else if (format == "json") {
      Json out;
      out["schema"] = kRepriceSchema;
      out["table"] = table_path;
      out["runs"] = Json::array();
      for (const Run& r : runs)
        out["runs"].push_back({{"path", r.dir.string()},
                               {"kernel", r.kernel},
                               {"platform", r.platform},
                               {"verified", r.verified},
                               {"energy", r.energy}});
      std::cout << out.dump(2) << "\n";
    } else {
      print_text(table, runs);
    }
    return 0;
  } catch (const BadInput& e) {
    std::cerr << "gpurf energy: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) { // a broken energy identity: a gpurf bug
    std::cerr << "gpurf energy: " << e.what() << "\n";
    return 1;
  }
}

} // namespace gpurf
