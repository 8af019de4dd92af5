// gpurf suite: every suite kernel on every platform, each run in a process of its own; the
// table, DIR/<platform>/summary.json, and --resume after an interruption.
#include "sc_main/suite.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "gpurf/modules/frontend/launch.h"
#include "gpurf/platform/data_path.h"
#include "gpurf/platform/interrupt.h"
#include "gpurf/platform/summary.h"
#include "gpurf/platform/text.h"
#include "sc_main/names.h"
#include "sc_main/provenance.h"
#include "sc_main/spawn.h"

namespace fs = std::filesystem;

namespace gpurf {
namespace {

// Results of an earlier suite in `out` that this one would not overwrite (another platform's
// folder, another kernel's) would be read as this suite's: where `out` is a suite's folder (its
// provenance.json says so), remove the folders gpurf wrote there and name what else is left.
void remove_stale(const std::string& out, const std::vector<std::string>& platforms,
                  const std::map<std::string, std::string>& name_of) {
  std::set<std::string> pnames, knames;
  for (auto& p : platforms) pnames.insert(fs::path(p).stem());
  for (auto& [k, n] : name_of) knames.insert(n);
  std::ifstream pf(out + "/provenance.json");
  const auto prov = nlohmann::ordered_json::parse(pf, nullptr, false);
  const bool suite_dir = pf && !prov.is_discarded() && prov.is_object() && prov.contains("suite");
  // A folder gpurf wrote: a platform's (summary.json) or a run's (result.json, log.txt), or
  // one holding only such folders (an older gpurf's apps/<name>).
  std::function<bool(const fs::path&, int)> ours = [&](const fs::path& d, int depth) {
    for (const char* f : {"summary.json", "result.json", "log.txt"})
      if (fs::is_regular_file(d / f)) return true;
    bool any = false;
    for (auto& e : fs::directory_iterator(d)) {
      if (depth == 0 || !e.is_directory() || !ours(e.path(), depth - 1)) return false;
      any = true;
    }
    return any;
  };
  std::vector<std::string> removed, left;
  auto sweep = [&](const fs::path& dir, const std::set<std::string>& keep, const char* file) {
    for (auto& e : fs::directory_iterator(dir)) {
      const std::string n = e.path().filename();
      if (n == file || keep.count(n)) continue;
      if (suite_dir && e.is_directory() && ours(e.path(), 1)) {
        fs::remove_all(e.path());
        removed.push_back(e.path().string());
      } else {
        left.push_back(e.path().string());
      }
    }
  };
  sweep(out, pnames, "provenance.json");
  for (auto& p : pnames)
    if (fs::is_directory(fs::path(out) / p)) sweep(fs::path(out) / p, knames, "summary.json");
  if (!removed.empty())
    std::cerr << "note: removed " << removed.size()
              << " result folder(s) of an earlier suite that this one does not run: "
              << join(removed) << "\n";
  if (!left.empty())
    std::cerr << "note: left in place ("
              << (suite_dir ? "not gpurf's results" : "no suite's provenance.json there")
              << "; not this suite's): " << join(left) << "\n";
}

} // namespace

// Every suite kernel on every platform, each simulation in its own process (SystemC allows
// one elaboration per process), `jobs` at a time.
int suite(const Cli& c) {
  std::vector<std::string> platforms = c.platforms;
  if (platforms.empty())
    for (auto& b : baseline_platforms(kSource))
      platforms.push_back(kSource + "/configs/" + b + ".yaml");
  for (auto& p : platforms)
    if (!fs::exists(p)) throw ConfigError("--platform: cannot open platform file '" + p + "'");
  std::vector<std::string> kernels;
  if (!c.kernels.empty()) {
    std::stringstream ss(c.kernels);
    for (std::string k; std::getline(ss, k, ',');) kernels.push_back(k);
    if (kernels.empty() || c.kernels.back() == ',' ||
        std::find(kernels.begin(), kernels.end(), "") != kernels.end())
      throw ConfigError("--kernels: '" + c.kernels +
                        "' has an empty kernel name; expected suite kernels or launch files "
                        "separated by commas, e.g. --kernels sgemm,scan");
  } else {
    for (auto& e : fs::directory_iterator(kSource + "/workloads"))
      if (e.path().extension() == ".yaml") kernels.push_back(e.path().stem());
    std::sort(kernels.begin(), kernels.end());
  }
  // Each kernel goes by its launch file's `name`, as its summary does: its folder, the table,
  // compare and sweep all say the same (unknown names fail before anything runs).
  std::map<std::string, std::string> name_of, given_as;
  for (auto& k : kernels) {
    const std::string file = named_yaml("--kernels", k, kSource + "/workloads",
                                        "launch file or suite kernel", "kernels", {"synthetic"});
    const std::string n = k == "synthetic" ? k : load_launch(file, c.scale).name;
    if (given_as.count(n))
      throw ConfigError("--kernels: '" + given_as[n] + "' and '" + k + "' are both named '" + n +
                        "' (their launch files' name:); a suite runs each name once");
    given_as[n] = k;
    name_of[k] = n;
  }
  const std::string out = c.out.empty() ? "out" : c.out;
  // What this suite is: a resumed one must be the same.
  nlohmann::ordered_json what;
  what["platforms"] = nlohmann::ordered_json::array();
  for (auto& p : platforms) what["platforms"].push_back(file_facts(p));
  what["kernels"] = kernels;
  what["scale"] = c.scale;
  what["overrides"] = c.overrides;
  const std::string prov_path = out + "/provenance.json";
  nlohmann::ordered_json prov;
  const bool holds = fs::is_directory(out) && !fs::is_empty(out);
  if (c.resume) {
    std::ifstream f(prov_path);
    if (!f)
      throw ConfigError("--resume: '" + prov_path + "' does not exist: --out '" + out +
                        "' holds no suite to resume");
    prov = nlohmann::ordered_json::parse(f, nullptr, false);
    if (prov.is_discarded() || !prov.contains("suite"))
      throw ConfigError("--resume: '" + prov_path + "' is not a suite's provenance file");
    if (prov["suite"] != what)
      throw ConfigError("--resume: '" + out + "' holds another suite (" + prov["suite"].dump() +
                        "); resume it with the same platforms, kernels, --scale and -p");
  } else if (holds && !c.force) {
    if (!c.out.empty())
      throw ConfigError("--out '" + out + "' is not empty (an earlier suite's results?); add " +
                        "--force to overwrite them, --resume to run only what is not done " +
                        "there, or give another folder");
    std::cerr << "note: replacing the results in " << out << "/ (give --out DIR to keep them)\n";
  }
  if (holds && !c.resume) remove_stale(out, platforms, name_of);
  struct Job {
    std::string platform, kernel, dir, given; // kernel: the launch file's name; given: --kernels
  };
  std::vector<Job> all, todo;
  for (auto& p : platforms)
    for (auto& k : kernels)
      all.push_back({p, name_of[k], out + "/" + fs::path(p).stem().string() + "/" + name_of[k], k});
  auto finished = [](const Job& j) { // result.json, not an interrupted run's
    std::ifstream f(j.dir + "/result.json");
    if (!f) return false;
    const auto r = nlohmann::ordered_json::parse(f, nullptr, false);
    return !r.is_discarded() && r.is_object() && !r.value("interrupted", false);
  };
  std::vector<GpurfRun> runs;
  for (const Job& j : all) {
    if (c.resume && finished(j)) continue;
    make_out_dir(j.dir);
    fs::remove(j.dir + "/result.json");
    fs::remove(j.dir + "/log.txt"); // an earlier run's log is no error of this one
    std::vector<std::string> args = {"gpurf",      "run",      "--quiet",
                                     "--platform", j.platform, "--workload",
                                     j.given,      "--scale",  std::to_string(c.scale),
                                     "--out",      j.dir};
    for (auto& o : c.overrides) args.insert(args.end(), {"-p", o});
    runs.push_back({args, j.dir + "/log.txt"});
    todo.push_back(j);
  }
  make_out_dir(out);
  if (c.resume) {
    prov["resumed"].push_back(provenance(c.argv, kResultSchema));
  } else {
    prov = provenance(c.argv, kResultSchema);
    prov["suite"] = what;
  }
  std::ofstream(prov_path) << prov.dump(2) << "\n";
  if (c.resume)
    std::cerr << "resume: " << all.size() - todo.size() << " of " << all.size()
              << " runs already done\n";
  // Progress on stderr: done/total, failures so far, an ETA from the mean time per run.
  const auto t0 = std::chrono::steady_clock::now();
  size_t done = 0, bad = 0;
  run_gpurf_all(runs, c.jobs, [&](size_t i, bool ok) {
    ++done;
    bad += !ok;
    if (c.quiet) return;
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::cerr << "[" << done << "/" << runs.size() << ", " << bad << " failed, ETA " << std::fixed
              << std::setprecision(0) << s / double(done) * double(runs.size() - done) << " s] "
              << fs::path(todo[i].platform).stem().string() << " " << todo[i].kernel << ": "
              << (ok ? "ok" : "FAILED") << "\n";
  }); // a failed run is reported from its missing result.json

  int failed = 0, not_run = 0;
  for (auto& p : platforms) {
    const std::string pname = fs::path(p).stem();
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    std::cout << "\n"
              << pname << "\n"
              << std::left << std::setw(12) << "kernel" << std::right << std::setw(9) << "verified"
              << std::setw(11) << "cycles" << std::setw(12) << "warp-insts" << std::setw(8) << "IPC"
              << std::setw(11) << "bank-rd" << std::setw(11) << "bank-wr" << std::setw(11)
              << "oc-writes" << std::setw(12) << "winst/s\n";
    for (const Job& j : all) {
      if (j.platform != p) continue;
      nlohmann::ordered_json r;
      std::ifstream f(j.dir + "/result.json");
      // A run an interrupted suite never started failed nothing: "not run", not "NO".
      const bool started = fs::exists(j.dir + "/log.txt");
      if (f) {
        r = nlohmann::ordered_json::parse(f);
      } else {
        std::ifstream log(j.dir + "/log.txt");
        std::string text((std::istreambuf_iterator<char>(log)), {});
        r = {{"schema", kResultSchema},
             {"kernel", j.kernel},
             {"platform", pname},
             {"verified", false},
             {"error", !text.empty() ? text
                       : !started    ? "not run (the suite was interrupted)"
                                     : "the simulation process failed"}};
        if (!started) r["not_run"] = true;
      }
      const bool ok = r.value("verified", false), ran = !r.value("not_run", false);
      failed += !ok && ran;
      not_run += !ran;
      std::cout << std::left << std::setw(12) << j.kernel << std::right << std::setw(9)
                << (ok    ? "yes"
                    : ran ? "NO"
                          : "not run")
                << std::setw(11) << r.value("cycles", uint64_t(0)) << std::setw(12)
                << r.value("warp_instructions", uint64_t(0)) << std::setw(8) << std::fixed
                << std::setprecision(3) << r.value("ipc", 0.0) << std::setw(11)
                << r.value("rf_bank_reads", uint64_t(0)) << std::setw(11)
                << r.value("rf_bank_writes", uint64_t(0)) << std::setw(11)
                << r.value("oc_writes", uint64_t(0)) << std::setw(11) << std::setprecision(0)
                << r.value("warp_instructions_per_second", 0.0) << "\n";
      if (!ok && ran) std::cout << "    " << r.value("error", std::string()) << "\n";
      list.push_back(r);
    }
    std::ofstream(out + "/" + pname + "/summary.json") << list.dump(2) << "\n";
  }
  std::cout << "\n"
            << all.size() - failed - not_run << " passed, " << failed << " failed"
            << (not_run ? ", " + std::to_string(not_run) + " not run" : std::string()) << "\n";
  if (interrupt_requested()) {
    size_t left = 0;
    for (const Job& j : all) left += !finished(j);
    std::cerr << "interrupted: " << left << " of " << all.size()
              << " runs not done; the same command with --resume runs them\n";
    return kExitInterrupted;
  }
  return failed ? kExitFailed : 0;
}

} // namespace gpurf
