// gpurf command line.
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include <systemc>

#include "gpurf/modules/frontend/launch.h"
#include "gpurf/modules/frontend/ptx_frontend.h"
#include "gpurf/modules/frontend/scripted.h"
#include "gpurf/platform/config.h"
#include "gpurf/platform/gpu.h"
#include "gpurf/platform/interrupt.h"
#include "gpurf/platform/registry.h"
#include "gpurf/platform/simulation.h"
#include "gpurf/platform/stats.h"
#include "gpurf/platform/summary.h"
#include "gpurf/platform/unit_description.h"
#include "gpurf/workloads/reference/reference.h"
#include "sc_main/compare.h"
#include "sc_main/exec.h"
#include "sc_main/micro.h"
#include "sc_main/names.h"
#include "sc_main/profile.h"
#include "sc_main/provenance.h"
#include "sc_main/reprice.h"
#include "sc_main/spawn.h"

namespace fs = std::filesystem;
using namespace gpurf;

namespace {

// SystemC prints its banner before sc_main unless told not to by the environment.
const bool quiet_banner = setenv("SC_COPYRIGHT_MESSAGE", "DISABLE", 0) == 0;

constexpr int kExitBadInput = 2, kExitFailed = 1, kExitInterrupted = 130; // 128 + SIGINT

const char* kUsage = R"(usage:
  gpurf run [--platform FILE] [-p key.path=value]... [--workload W] [--scale N] [--out DIR]
            W: a launch file (workloads/K.yaml), a suite kernel name K, or synthetic;
               one per run (an application file launches several kernels)
            [--var name=value]...                          replace a var of the launch file
            [--trace FILE.json [--trace-window FROM:TO]]   instruction lifecycles (Perfetto)
            [--vcd FILE] [--vcd-signals S,S...|list]       waveforms (docs/trace.md)
            [--max-cycles N]                     stop after N cycles (= -p sm.max_cycles=N)
            [--dump-outputs DIR]                 output buffers as raw bytes + index.json
            [--sample-interval N [--samples FILE.csv|.jsonl]]   a time series: counters of
                                         every N cycles (default file: DIR/timeline.csv)
  gpurf suite [--platform FILE]... [-p key.path=value]... [--scale N] [--kernels K,K...]
              [-j JOBS] [--out DIR]      every suite kernel on each platform (default: the
                                         five baselines); DIR/<platform>/summary.json
              [--force | --resume]       a non-empty DIR: overwrite it, or run only what is
                                         not done there (after an interruption)
  gpurf compare DIR... [--stats S,S...] [--kernels K,K...] [--format text|markdown|csv]
                [--normalize[=on|off]]   per-kernel tables normalised to the first DIR
                [--strict]               refuse energy priced by different energy tables
  gpurf energy --table FILE PATH... [--format text|json]   price saved runs (a run folder,
                                         its stats.json, a suite folder) with another energy
                                         table/scope (docs/energy.md)
  gpurf micro [--platform FILE] [-p key.path=value]... [--format text|markdown|json] [-j JOBS]
              [--out DIR]                microbenchmarks: measured vs configured latencies
                                         and throughputs (docs/tools.md)
  gpurf profile [--platform FILE] [-p key.path=value]... [--workload W] [--scale N]
                [--format text|markdown|json]   the kernel's register traffic: operand reads
                                         per register and bank, value lifetimes, widths,
                                         reuse distances (docs/tools.md, docs/workloads.md)
  gpurf exec [--platform P] [--out DIR] [-p key.path=value]... [--timed SPEC] [--quiet]
             -- PROGRAM ARGS...         an unmodified CUDA program (nvcc -cudart shared)
                                         on a platform (docs/programs.md); --timed: the
                                         launches timed (e.g. 40-,sgemm), the rest
                                         fast-forwarded
  gpurf --version                   gpurf's and SystemC's versions
  gpurf --list                      every slot and its implementations
  gpurf --list platforms            the platforms in configs/ (--platform NAME takes them)
  gpurf --describe IMPL             an implementation's parameters with defaults, statistics
                                    (unit, energy role) and sockets
  gpurf --dump-config [--platform FILE] [-p key.path=value]...
)";

const std::string kSource = data_root(); // $GPURF_DATA or the source tree
// Version of the result files' layout; tools refuse results of another version.
constexpr int kSchema = kResultSchema;
const std::vector<std::string> kBaselines = {"fermi", "warped-compression", "gebhart",
                                             "turing-subcore", "wir"};

struct Cli {
  std::string command, workload = "sgemm", out, describe, kernels, format;
  std::vector<std::string> platforms, overrides, vars;
  unsigned scale = 1, jobs = 0;
  bool quiet = false, force = false, resume = false;
  std::vector<std::string> argv; // the command line, for the provenance
  std::string trace, vcd;        // docs/trace.md
  std::string dump_outputs;      // run: the output buffers' final bytes go there
  std::string samples;           // run: the time series' file
  Cycle sample_interval = 0;
  Cycle trace_from = 0, trace_to = kNever;
  bool trace_window = false;
  std::vector<std::string> vcd_signals;
  std::string platform() const {
    return platforms.empty() ? kSource + "/configs/fermi.yaml" : platforms.front();
  }
};

unsigned to_count(const std::string& opt, const std::string& v) {
  try {
    size_t pos = 0;
    const long n = std::stol(v, &pos);
    if (pos == v.size() && n >= 1 && n <= 1 << 20) return unsigned(n);
  } catch (const std::exception&) {
  }
  throw ConfigError("option " + opt + ": '" + v +
                    "' is not a count; expected an integer in [1, 1048576]");
}

Cli parse(int argc, char** argv) {
  Cli c;
  bool workload_given = false;
  auto value = [&](int& i) -> std::string {
    if (i + 1 >= argc)
      throw ConfigError(std::string("option ") + argv[i] + " needs a value\n" + kUsage);
    return argv[++i];
  };
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--list" && i + 1 < argc && std::string(argv[i + 1]) == "platforms") {
      c.command = "--list-platforms";
      ++i;
    } else if (a == "run" || a == "suite" || a == "profile" || a == "--list" ||
               a == "--dump-config") {
      c.command = a;
    } else if (a == "--describe") {
      c.command = a;
      c.describe = value(i);
    } else if (a == "--platform") {
      c.platforms.push_back(platform_path(kSource, value(i)));
    } else if (a == "--scale") {
      c.scale = to_count(a, value(i));
    } else if (a == "-j") {
      c.jobs = to_count(a, value(i));
    } else if (a.size() > 2 && a.compare(0, 2, "-j") == 0) { // -jN, as make and ninja take it
      c.jobs = to_count("-j", a.substr(2));
    } else if (a == "--max-cycles") {                     // the same as -p sm.max_cycles=N
      c.overrides.push_back("sm.max_cycles=" + value(i)); // checked as the parameter
    } else if (a == "--kernels") {
      c.kernels = value(i);
    } else if (a == "--quiet") {
      c.quiet = true;
    } else if (a == "--force") {
      c.force = true;
    } else if (a == "--resume") {
      c.resume = true;
    } else if (a == "-p") {
      c.overrides.push_back(value(i));
    } else if (a == "--var") {
      c.vars.push_back(value(i));
    } else if (a == "--workload") {
      // One launch file or application per run: a second would have replaced the first.
      if (workload_given)
        throw ConfigError("option --workload given twice ('" + c.workload + "', then '" + value(i) +
                          "'); a run runs one launch file or application: launch " +
                          "several kernels from one application file (steps with `launch: " +
                          "{kernel: NAME}`, several PTX files as `ptx: [a.ptx, b.ptx]`; " +
                          "workloads/README.md, \"Applications\")");
      c.workload = value(i);
      workload_given = true;
    } else if (a == "--format") {
      c.format = value(i);
      if (c.format != "text" && c.format != "markdown" && c.format != "json")
        throw ConfigError("option --format: '" + c.format +
                          "' is not a format; expected text, markdown or json");
    } else if (a == "--out") {
      c.out = value(i);
    } else if (a == "--trace") {
      c.trace = value(i);
    } else if (a == "--sample-interval") {
      const std::string v = value(i);
      if (v.empty() || v.size() > 12 || v.find_first_not_of("0123456789") != std::string::npos ||
          std::stoull(v) == 0)
        throw ConfigError("option --sample-interval: '" + v +
                          "' is not a cycle count; expected an integer in [1, 10^12)");
      c.sample_interval = std::stoull(v);
    } else if (a == "--samples") {
      c.samples = value(i);
    } else if (a == "--dump-outputs") {
      c.dump_outputs = value(i);
    } else if (a == "--vcd") {
      c.vcd = value(i);
    } else if (a == "--vcd-signals") {
      std::stringstream ss(value(i));
      for (std::string s; std::getline(ss, s, ',');)
        if (!s.empty()) c.vcd_signals.push_back(s);
    } else if (a == "--trace-window") {
      const std::string v = value(i);
      const size_t colon = v.find(':');
      auto cycle = [&](const std::string& s, Cycle def) {
        if (s.empty()) return def;
        if (s.find_first_not_of("0123456789") != std::string::npos || s.size() > 18)
          throw ConfigError("option --trace-window: '" + v +
                            "' is not FROM:TO with cycle numbers (e.g. 100:600; FROM: or :TO "
                            "leave one end open)");
        return Cycle(std::stoull(s));
      };
      if (colon == std::string::npos) cycle("x", 0); // reports the expected form
      c.trace_from = cycle(v.substr(0, colon), 0);
      c.trace_to = cycle(v.substr(colon + 1), kNever);
      if (c.trace_from >= c.trace_to)
        throw ConfigError("option --trace-window: FROM (" + std::to_string(c.trace_from) +
                          ") must be below TO (" + std::to_string(c.trace_to) +
                          "): the window is the cycles FROM <= cycle < TO");
      c.trace_window = true;
    } else if (a == "-h" || a == "--help") {
      c.command = "help";
    } else if (a == "--version") {
      c.command = "version";
    } else {
      const std::string hint = closest(a, {"run",          "suite",          "profile",
                                           "--list",       "--dump-config",  "--describe",
                                           "--platform",   "--scale",        "-j",
                                           "--max-cycles", "--kernels",      "--quiet",
                                           "-p",           "--var",          "--workload",
                                           "--format",     "--out",          "--trace",
                                           "--vcd",        "--vcd-signals",  "--trace-window",
                                           "--help",       "--version",      "--force",
                                           "--resume",     "--dump-outputs", "--sample-interval",
                                           "--samples"});
      throw ConfigError("unknown argument '" + a + "'" +
                        (hint.empty() ? "" : "; did you mean '" + hint + "'?") + "\n" + kUsage);
    }
  }
  if (c.command.empty()) throw ConfigError(std::string("no command given\n") + kUsage);
  c.argv.assign(argv, argv + argc);
  if ((c.force || c.resume) && c.command != "suite")
    throw ConfigError("options --force and --resume need gpurf suite");
  if (c.force && c.resume)
    throw ConfigError("options --force and --resume exclude each other: --force runs everything "
                      "again, --resume only what is not done");
  if (!c.vars.empty() && (c.command != "run" || c.workload == "synthetic"))
    throw ConfigError("option --var needs gpurf run with a launch file (--workload)");
  if (!c.dump_outputs.empty() && (c.command != "run" || c.workload == "synthetic"))
    throw ConfigError("option --dump-outputs needs gpurf run with a launch file (--workload)");
  if (!c.format.empty() && c.command != "profile")
    throw ConfigError("option --format needs gpurf profile (gpurf compare and gpurf micro take "
                      "their own)");
  if (c.command == "profile" && c.workload == "synthetic")
    throw ConfigError("gpurf profile needs a PTX kernel (--workload: a launch file or suite "
                      "kernel name), not synthetic");
  if ((c.sample_interval || !c.samples.empty()) && c.command != "run")
    throw ConfigError("options --sample-interval and --samples need gpurf run");
  if (!c.samples.empty() && !c.sample_interval)
    throw ConfigError("option --samples needs --sample-interval N (cycles per row)");
  if (c.sample_interval && c.samples.empty()) {
    if (c.out.empty())
      throw ConfigError("option --sample-interval: name the file with --samples FILE.csv (or "
                        ".jsonl) or give --out DIR (it then goes to DIR/timeline.csv)");
    c.samples = c.out + "/timeline.csv";
  }
  if (c.trace_window && c.trace.empty())
    throw ConfigError("option --trace-window needs --trace FILE.json");
  const bool list_signals = c.vcd_signals.size() == 1 && c.vcd_signals[0] == "list";
  if (!c.vcd_signals.empty() && !list_signals && c.vcd.empty())
    throw ConfigError("option --vcd-signals needs --vcd FILE");
  // A file where the output folder goes is found before anything runs (the folder itself is
  // made only once there is something to write: bad input writes nothing).
  for (const auto& [opt, dir] : {std::pair{"--out", &c.out}, {"--dump-outputs", &c.dump_outputs}})
    if (!dir->empty() && fs::exists(*dir) && !fs::is_directory(*dir))
      throw ConfigError(std::string(opt) + " '" + *dir +
                        "': cannot make a folder there (a file of that name exists)");
  return c;
}

// Makes output folder `dir` (of option `opt`); a failure names the option.
void make_out_dir(const std::string& dir, const std::string& opt = "--out") {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    throw ConfigError(opt + " '" + dir + "': cannot make a folder there (" + ec.message() + ")");
}

ConfigPtr platform(const Cli& c) {
  ConfigPtr root = load_platform_file(c.platform());
  for (const auto& o : c.overrides) apply_override(*root, o);
  return root;
}

int list() {
  auto slots = all_slots();
  std::sort(slots.begin(), slots.end(), [](auto& a, auto& b) { return a.slot < b.slot; });
  size_t w = 0; // the longest name and two spaces: no name runs into its description
  for (const SlotInfo& s : slots)
    for (auto& [name, desc] : s.impls()) w = std::max(w, name.size() + 2);
  for (const SlotInfo& s : slots) {
    std::cout << s.slot << ": " << s.description << "\n";
    for (auto& [name, desc] : s.impls())
      std::cout << "  " << std::left << std::setw(int(w)) << name << desc << "\n";
  }
  return 0;
}

// gpurf --list platforms: configs/*.yaml, each with its `description`.
int list_platforms() {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(kSource + "/configs"))
    if (e.path().extension() == ".yaml") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  size_t w = 0;
  for (const fs::path& f : files) w = std::max(w, f.stem().string().size() + 2);
  for (const fs::path& f : files) {
    const ConfigPtr root = load_config(f.string());
    const ConfigNode* d = root->find("description");
    std::cout << std::left << std::setw(int(w)) << f.stem().string() << (d ? d->scalar : "")
              << "\n";
  }
  return 0;
}

int describe(const std::string& impl) {
  bool found = false;
  for (const SlotInfo& s : all_slots())
    for (auto& [name, desc] : s.impls()) {
      if (name != impl) continue;
      found = true;
      std::cout << s.slot << " impl: " << name << " -- " << desc << "\n";
      const std::vector<ParamDecl> decls = s.describe(impl);
      size_t wn = 0, wt = 0, wd = 0; // column widths: the longest entry and a space or two
      for (const ParamDecl& d : decls)
        if (d.type != "map")
          wn = std::max(wn, d.name.size() + 2), wt = std::max(wt, d.type.size() + 2),
          wd = std::max(wd, d.default_text.size() + 2);
      for (const ParamDecl& d : decls) {
        if (d.type == "map") continue;
        std::cout << "  " << std::left << std::setw(int(wn)) << d.name << std::setw(int(wt))
                  << d.type << "default " << std::setw(int(wd)) << d.default_text << d.description;
        if (!d.range_text.empty()) std::cout << " " << d.range_text;
        std::cout << "\n";
      }
      print_unit_description(std::cout, describe_unit(s, impl)); // statistics, sockets
    }
  if (!found) {
    std::vector<std::string> all;
    for (const SlotInfo& s : all_slots())
      for (auto& p : s.impls()) all.push_back(p.first);
    std::string hint = closest(impl, all);
    throw ConfigError("--describe: unknown implementation '" + impl + "'" +
                      (hint.empty() ? "" : "; did you mean '" + hint + "'?") +
                      " (see gpurf --list)");
  }
  return 0;
}

// The built-in synthetic load: dependent arithmetic over registers that share banks,
// global loads and stores, and a barrier: it exercises every unit of the pipeline.
std::unique_ptr<ScriptedFrontend> synthetic() {
  std::vector<ScriptOp> prog;
  auto op = [&](ScriptOp::Kind k, std::vector<uint16_t> d, std::vector<uint16_t> s,
                uint32_t imm = 0, Pipe pipe = Pipe::SP) {
    ScriptOp o;
    o.kind = k;
    o.dst = d;
    o.src = s;
    o.imm = imm;
    o.pipe = pipe;
    prog.push_back(o);
  };
  op(ScriptOp::Mov, {0}, {}, 1);
  op(ScriptOp::Mov, {1}, {}, 100);
  for (unsigned it = 0; it < 40; ++it) {
    op(ScriptOp::Add, {2}, {0, 1});
    op(ScriptOp::Add, {3}, {2, 0}, 3, Pipe::INT);
    op(ScriptOp::Add, {4}, {1, 5}, 0, Pipe::SFU);
    ScriptOp ld;
    ld.kind = ScriptOp::Load;
    ld.dst = {5};
    ld.base = 0x10000 + 128 * (it % 16);
    prog.push_back(ld);
    op(ScriptOp::Add, {0}, {3, 4, 5});
    if (it % 10 == 9) op(ScriptOp::Barrier, {}, {});
  }
  ScriptOp st;
  st.kind = ScriptOp::Store;
  st.src = {0};
  st.base = 0x20000;
  prog.push_back(st);
  return std::make_unique<ScriptedFrontend>(prog, 32, 8);
}

// A launch file path, or the name of a suite kernel.
std::string workload_path(const std::string& w) {
  return named_yaml("--workload", w, kSource + "/workloads", "launch file or suite kernel",
                    "kernels", {"synthetic"});
}

uint64_t sum(const std::string& kind, const std::string& stat) { return sum_stat(kind, stat); }

// --dump-outputs DIR: every output buffer's final bytes (DIR/<name>.bin, raw little-endian
// elements) and DIR/index.json describing them.
void dump_outputs(const PtxFrontend& ptx, const std::string& dir) {
  make_out_dir(dir, "--dump-outputs");
  nlohmann::ordered_json index;
  index["kernel"] = ptx.launch().name;
  index["buffers"] = nlohmann::ordered_json::array();
  for (size_t i = 0; i < ptx.launch().buffers.size(); ++i) {
    const LaunchBuffer& b = ptx.launch().buffers[i];
    if (!b.output) continue;
    const std::vector<uint8_t> bytes = ptx.buffer_contents(i);
    const std::string file = b.name + ".bin";
    std::ofstream(dir + "/" + file, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    index["buffers"].push_back({{"name", b.name},
                                {"type", b.type},
                                {"count", b.count},
                                {"bytes", bytes.size()},
                                {"file", file},
                                {"hash", content_hash(bytes.data(), bytes.size())}});
  }
  std::ofstream(dir + "/index.json") << index.dump(2) << "\n";
}

int run(const Cli& c) {
  ConfigPtr root = platform(c);
  std::unique_ptr<IFrontend> fe;
  PtxFrontend* ptx = nullptr;
  unsigned regs = 0;
  std::string kernel = c.workload;
  if (c.workload == "synthetic") {
    auto s = synthetic();
    regs = s->regs();
    fe = std::move(s);
  } else {
    LaunchSpec spec = load_launch(workload_path(c.workload), c.scale, c.vars);
    kernel = spec.name;
    for (const std::string& w : spec.warnings) std::cerr << "warning: " << w << "\n";
    compiler::PtxasLookup px; // ptxas's count cached in the output folder
    px.cache_dir = c.out;
    auto p = std::make_unique<PtxFrontend>(spec, frontend_options(*root), px);
    for (const std::string& w : p->warnings()) std::cerr << "warning: " << w << "\n";
    ptx = p.get();
    regs = p->regs_per_thread();
    fe = std::move(p);
  }
  SimOptions opt;
  opt.trace_path = c.trace;
  opt.trace_from = c.trace_from;
  opt.trace_to = c.trace_to;
  const bool list_signals = c.vcd_signals.size() == 1 && c.vcd_signals[0] == "list";
  if (!list_signals) opt.vcd_path = c.vcd, opt.vcd_signals = c.vcd_signals;
  if (list_signals) opt.trace_path.clear();
  opt.samples_path = c.samples;
  opt.sample_interval = c.sample_interval;
  // An application's launches: the counters after each (docs/results.md, "launches").
  std::vector<nlohmann::ordered_json> ends;
  Simulation* simp = nullptr;
  if (ptx && ptx->launch().application)
    opt.on_launch_end = [&] {
      nlohmann::ordered_json j;
      j["launch"] = ends.size();
      j["label"] = ptx->launch_label();
      // The kernel this launch ran (an application's step may name another) and its registers.
      if (const auto* k = dynamic_cast<const PtxFrontend*>(&simp->gpu().running())) {
        j["kernel"] = k->kernel_name();
        j["registers_per_thread"] = k->regs_per_thread();
      }
      j["cycles"] = simp->gpu().cycles();
      j["warp_instructions"] = simp->gpu().retired();
      add_counters(j);
      ends.push_back(std::move(j));
    };
  Params::fill_defaults = true; // the platform as run, every default in it (platform.yaml)
  Simulation sim(*root, *fe, regs, opt);
  simp = &sim;
  if (list_signals) {
    for (const std::string& n : sim.vcd_signal_names()) std::cout << n << "\n";
    return 0;
  }
  RunResult r = sim.run();
  std::string error = r.interrupted ? kInterrupted : r.error;
  // A kernel from outside the suite may have no reference: its operands are still checked.
  workload::link_all_checkers();
  const bool outputs_checked = ptx && ptx->checks_outputs();
  if (r.ok && outputs_checked) error = ptx->verify_outputs();
  if (ptx && !c.dump_outputs.empty() && !r.interrupted) dump_outputs(*ptx, c.dump_outputs);
  if (ptx && !outputs_checked && !c.quiet && !r.interrupted)
    std::cerr << "note: no reference checker for '" << kernel
              << "' and no `verify:`: operands are checked, outputs are not\n";
  const bool verified = error.empty() && sum("collector", "operands_checked") > 0;
  if (error.empty() && !verified) error = "no operand was checked";
  const std::string pname = fs::path(c.platform()).stem();
  nlohmann::ordered_json summary = summarize(kernel, pname, r, verified, error);
  summary["registers_per_thread"] = regs;
  // ptxas's count (occupancy under ptx_virtual, the target of ptxas_like) and its source.
  if (ptx) {
    summary["ptxas_registers"] =
        ptx->ptxas_registers() ? nlohmann::ordered_json(ptx->ptxas_registers()) : nullptr;
    summary["ptxas_source"] = ptx->ptxas_source();
  }
  // Warp instructions executed functionally but never issued (frontend.constants: operands).
  summary["constant_instructions"] = ptx ? ptx->hidden_steps() : 0;
  // Register reads in lanes their CTA never wrote (read as 0; docs/frontend.md).
  summary["undefined_reads"] = ptx ? ptx->undefined_reads() : 0;
  if (ptx && ptx->options().reuse_oracle)
    summary["reuse_oracle_mismatches"] = ptx->oracle_mismatches();
  summary["outputs_checked"] = outputs_checked;
  if (r.interrupted) summary["interrupted"] = true; // partial: the statistics so far
  if (ptx && ptx->launch().several_kernels) {       // every kernel compiled, with its registers
    nlohmann::ordered_json ks = nlohmann::ordered_json::array();
    for (unsigned m = 0; m < sim.gpu().modules(); ++m)
      for (uint32_t e = 0; const PtxFrontend* k = sim.gpu().kernel(m << Gpu::kEntryBits | e); ++e)
        ks.push_back(
            {{"kernel", k->kernel_name()},
             {"ptx", k->launch().ptx_path},
             {"registers_per_thread", k->regs_per_thread()},
             {"ptxas_registers",
              k->ptxas_registers() ? nlohmann::ordered_json(k->ptxas_registers()) : nullptr}});
    summary["kernels"] = ks;
  }
  if (ptx && ptx->launch().application) {
    summary["launch_count"] = ends.size();
    nlohmann::ordered_json launches = nlohmann::ordered_json::array();
    nlohmann::ordered_json zero = {{"cycles", 0u}, {"warp_instructions", 0u}};
    for (size_t i = 0; i < ends.size(); ++i)
      launches.push_back(launch_delta(i ? ends[i - 1] : zero, ends[i]));
    summary["launches"] = launches;
  }
  if (!c.quiet) {
    // Outputs nothing compared are not called verified (operands and timing were checked).
    std::cout << kernel << " on " << pname << ": "
              << (!verified ? "FAILED"
                  : outputs_checked || !ptx
                      ? "verified"
                      : "unchecked (operands and timing verified; no reference "
                        "checker and no `verify:` for the outputs)")
              << "\n"
              << "  cycles " << r.cycles << ", warp instructions " << r.warp_instructions
              << ", IPC " << std::setprecision(4) << summary["ipc"].get<double>() << "\n"
              << "  occupancy " << summary["resident_warps"] << " warps, "
              << summary["resident_ctas"] << " CTAs"
              << (summary["sm_count"].get<uint64_t>() > 1
                      ? " per SM, " + std::to_string(summary["sm_count"].get<uint64_t>()) + " SMs"
                      : "")
              << " (limited by " << summary["occupancy_limit"].get<std::string>() << ")\n"
              << "  host " << std::setprecision(3) << r.host_seconds << " s, "
              << uint64_t(summary["warp_instructions_per_second"].get<double>())
              << " warp-instructions/s, " << uint64_t(summary["cycles_per_second"].get<double>())
              << " cycles/s\n";
    if (summary.contains("launches")) { // per label: launches, cycles, warp instructions, IPC
      std::map<std::string, std::array<uint64_t, 3>> by;
      std::vector<std::string> order;
      for (const auto& l : summary["launches"]) {
        const std::string label = l["label"];
        if (!by.count(label)) order.push_back(label);
        auto& a = by[label];
        a[0] += 1;
        a[1] += l["cycles"].get<uint64_t>();
        a[2] += l["warp_instructions"].get<uint64_t>();
      }
      std::cout << "  " << ends.size() << " launches";
      for (const auto& label : order) {
        const auto& a = by[label];
        std::cout << (label == order.front() ? ": " : "; ") << label << " x" << a[0] << " " << a[1]
                  << " cycles, " << a[2] << " warp instructions, IPC " << std::setprecision(4)
                  << (a[1] ? double(a[2]) / double(a[1]) : 0.0);
      }
      std::cout << "\n";
    }
  }
  if (!c.out.empty()) {
    make_out_dir(c.out);
    std::ofstream(c.out + "/stats.json") << r.stats.dump(2) << "\n";
    std::ofstream(c.out + "/platform.yaml") << to_yaml(*root);
    nlohmann::ordered_json prov = provenance(c.argv, kSchema);
    prov["platform"] = file_facts(c.platform());
    prov["platform"]["overrides"] = c.overrides;
    prov["platform"]["resolved"] = "platform.yaml";
    prov["workload"] =
        ptx ? workload_provenance(ptx->launch(), c.vars) : nlohmann::ordered_json{{"name", kernel}};
    if (ptx)
      prov["workload"]["ptxas"] = {{"registers", ptx->ptxas_registers()},
                                   {"source", ptx->ptxas_source()}};
    std::ofstream(c.out + "/provenance.json") << prov.dump(2) << "\n";
    // Written last: a folder with result.json is a finished run (gpurf suite --resume).
    std::ofstream(c.out + "/result.json") << summary.dump(2) << "\n";
    if (!c.quiet) std::cout << "  statistics: " << c.out << "/stats.json\n";
  }
  if (!verified) {
    std::cerr << "error: " << kernel << ": " << error << "\n";
    return r.interrupted ? kExitInterrupted : kExitFailed;
  }
  return 0;
}

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
  auto list = [](const std::vector<std::string>& v) {
    std::string s;
    for (auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
  };
  if (!removed.empty())
    std::cerr << "note: removed " << removed.size()
              << " result folder(s) of an earlier suite that this one does not run: "
              << list(removed) << "\n";
  if (!left.empty())
    std::cerr << "note: left in place ("
              << (suite_dir ? "not gpurf's results" : "no suite's provenance.json there")
              << "; not this suite's): " << list(left) << "\n";
}

// Every suite kernel on every platform, each simulation in its own process (SystemC allows
// one elaboration per process), `jobs` at a time.
int suite(const Cli& c) {
  std::vector<std::string> platforms = c.platforms;
  if (platforms.empty())
    for (auto& b : kBaselines) platforms.push_back(kSource + "/configs/" + b + ".yaml");
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
    prov["resumed"].push_back(provenance(c.argv, kSchema));
  } else {
    prov = provenance(c.argv, kSchema);
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
        r = {{"schema", kSchema},
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

} // namespace

int sc_main(int argc, char** argv) {
  const std::string command = argc > 1 ? argv[1] : "run"; // what a failure report names
  try {
    if (argc > 1 && std::string(argv[1]) == "compare")
      return compare_main(std::vector<std::string>(argv + 2, argv + argc));
    if (argc > 1 && std::string(argv[1]) == "energy")
      return reprice_main(std::vector<std::string>(argv + 2, argv + argc));
    if (argc > 1 && std::string(argv[1]) == "exec")
      return exec_main(std::vector<std::string>(argv + 2, argv + argc),
                       std::vector<std::string>(argv, argv + argc), [](ConfigNode& root) {
                         auto fe = synthetic();
                         Simulation sim(root, *fe, fe->regs()); // validates every key
                       });
    if (argc > 1 && std::string(argv[1]) == "micro")
      return micro_main(std::vector<std::string>(argv + 2, argv + argc));
    Cli c = parse(argc, argv);
    if (c.command == "run" || c.command == "suite") {
      // The first SIGINT/SIGTERM stops the run at the end of a cycle with valid partial
      // results (exit 130); a second one ends the process at once.
      struct sigaction sa = {};
      sa.sa_handler = [](int) { request_interrupt(); };
      sa.sa_flags = SA_RESETHAND; // no SA_RESTART: wait() returns to look at the request
      sigaction(SIGINT, &sa, nullptr);
      sigaction(SIGTERM, &sa, nullptr);
    }
    if (c.command == "help") return std::cout << kUsage, 0;
    if (c.command == "version")
      return std::cout << "gpurf " << GPURF_VERSION << " (SystemC " << sc_core::sc_release()
                       << ")\n",
             0;
    if (c.command == "--list") return list();
    if (c.command == "--list-platforms") return list_platforms();
    if (c.command == "--describe") return describe(c.describe);
    if (c.command == "--dump-config") {
      ConfigPtr root = platform(c);
      Params::fill_defaults = true;
      auto fe = synthetic();
      Simulation sim(*root, *fe, fe->regs()); // validates every key
      std::cout << to_yaml(*root);
      return 0;
    }
    if (c.command == "suite") return suite(c);
    if (c.command == "profile") {
      ConfigPtr root = platform(c);
      return profile_kernel(*root, fs::path(c.platform()).stem(),
                            load_launch(workload_path(c.workload), c.scale),
                            c.format.empty() ? "text" : c.format);
    }
    return run(c);
  } catch (const ConfigError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const WorkloadError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitFailed;
  } catch (const std::bad_alloc&) {
    std::cerr << "error: gpurf " << command << ": out of memory\n";
    return kExitFailed;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitFailed;
  } catch (...) { // nothing escapes as a crash, whatever a library throws
    std::cerr << "error: gpurf " << command << ": an unexpected failure (an exception of no "
              << "known type)\n";
    return kExitFailed;
  }
}
