// gpurf's command line: one table of options (name, whether it takes a value, what it sets)
// for parsing, the did-you-mean hints and the check that the usage text names every option.
#include "sc_main/cli.h"

#include <cctype>
#include <filesystem>
#include <sstream>

#include "sc_main/names.h"

namespace fs = std::filesystem;

namespace gpurf {

const char* const kUsage = R"(usage:
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
                                         baselines, configs/baselines.txt);
                                         DIR/<platform>/summary.json
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
  gpurf -h, --help                  this text
  gpurf --list                      every slot and its implementations
  gpurf --list platforms            the platforms in configs/ (--platform NAME takes them)
  gpurf --describe IMPL             an implementation's parameters with defaults, statistics
                                    (unit, energy role) and sockets
  gpurf --dump-config [--platform FILE] [-p key.path=value]...
)";

const std::string kSource = data_root(); // $GPURF_DATA or the source tree

namespace {

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

Cycle trace_cycle(const std::string& v, const std::string& s, Cycle def) {
  if (s.empty()) return def;
  if (s.find_first_not_of("0123456789") != std::string::npos || s.size() > 18)
    throw ConfigError("option --trace-window: '" + v +
                      "' is not FROM:TO with cycle numbers (e.g. 100:600; FROM: or :TO "
                      "leave one end open)");
  return Cycle(std::stoull(s));
}

struct Option {
  const char* name;
  bool value; // takes the next argument
  void (*set)(Cli& c, const std::string& v);
};

// Every option and command word of run, suite, profile and the listings.
const Option kOptions[] = {
    {"run", false, [](Cli& c, const std::string&) { c.command = "run"; }},
    {"suite", false, [](Cli& c, const std::string&) { c.command = "suite"; }},
    {"profile", false, [](Cli& c, const std::string&) { c.command = "profile"; }},
    {"--list", false, [](Cli& c, const std::string&) { c.command = "--list"; }},
    {"--dump-config", false, [](Cli& c, const std::string&) { c.command = "--dump-config"; }},
    {"--describe", true,
     [](Cli& c, const std::string& v) {
       c.command = "--describe";
       c.describe = v;
     }},
    {"--platform", true,
     [](Cli& c, const std::string& v) { c.platforms.push_back(platform_path(kSource, v)); }},
    {"--scale", true, [](Cli& c, const std::string& v) { c.scale = to_count("--scale", v); }},
    {"-j", true, [](Cli& c, const std::string& v) { c.jobs = to_count("-j", v); }},
    // The same as -p sm.max_cycles=N, checked as the parameter.
    {"--max-cycles", true,
     [](Cli& c, const std::string& v) { c.overrides.push_back("sm.max_cycles=" + v); }},
    {"--kernels", true, [](Cli& c, const std::string& v) { c.kernels = v; }},
    {"--quiet", false, [](Cli& c, const std::string&) { c.quiet = true; }},
    {"-p", true, [](Cli& c, const std::string& v) { c.overrides.push_back(v); }},
    {"--var", true, [](Cli& c, const std::string& v) { c.vars.push_back(v); }},
    {"--workload", true,
     [](Cli& c, const std::string& v) {
       // One launch file or application per run: a second would have replaced the first.
       if (c.workload_given)
         throw ConfigError("option --workload given twice ('" + c.workload + "', then '" + v +
                           "'); a run runs one launch file or application: launch " +
                           "several kernels from one application file (steps with `launch: " +
                           "{kernel: NAME}`, several PTX files as `ptx: [a.ptx, b.ptx]`; " +
                           "workloads/README.md, \"Applications\")");
       c.workload = v;
       c.workload_given = true;
     }},
    {"--format", true,
     [](Cli& c, const std::string& v) {
       c.format = v;
       if (v != "text" && v != "markdown" && v != "json")
         throw ConfigError("option --format: '" + v +
                           "' is not a format; expected text, markdown or json");
     }},
    {"--out", true, [](Cli& c, const std::string& v) { c.out = v; }},
    {"--trace", true, [](Cli& c, const std::string& v) { c.trace = v; }},
    {"--vcd", true, [](Cli& c, const std::string& v) { c.vcd = v; }},
    {"--vcd-signals", true,
     [](Cli& c, const std::string& v) {
       std::stringstream ss(v);
       for (std::string s; std::getline(ss, s, ',');)
         if (!s.empty()) c.vcd_signals.push_back(s);
     }},
    {"--trace-window", true,
     [](Cli& c, const std::string& v) {
       const size_t colon = v.find(':');
       if (colon == std::string::npos) trace_cycle(v, "x", 0); // reports the expected form
       c.trace_from = trace_cycle(v, v.substr(0, colon), 0);
       c.trace_to = trace_cycle(v, v.substr(colon + 1), kNever);
       if (c.trace_from >= c.trace_to)
         throw ConfigError("option --trace-window: FROM (" + std::to_string(c.trace_from) +
                           ") must be below TO (" + std::to_string(c.trace_to) +
                           "): the window is the cycles FROM <= cycle < TO");
       c.trace_window = true;
     }},
    {"--help", false, [](Cli& c, const std::string&) { c.command = "help"; }},
    {"-h", false, [](Cli& c, const std::string&) { c.command = "help"; }},
    {"--version", false, [](Cli& c, const std::string&) { c.command = "version"; }},
    {"--force", false, [](Cli& c, const std::string&) { c.force = true; }},
    {"--resume", false, [](Cli& c, const std::string&) { c.resume = true; }},
    {"--dump-outputs", true, [](Cli& c, const std::string& v) { c.dump_outputs = v; }},
    {"--sample-interval", true,
     [](Cli& c, const std::string& v) {
       if (v.empty() || v.size() > 12 || v.find_first_not_of("0123456789") != std::string::npos ||
           std::stoull(v) == 0)
         throw ConfigError("option --sample-interval: '" + v +
                           "' is not a cycle count; expected an integer in [1, 10^12)");
       c.sample_interval = std::stoull(v);
     }},
    {"--samples", true, [](Cli& c, const std::string& v) { c.samples = v; }},
};

// Whether the usage text names `opt` as a word of its own ("-p" in "[-p key.path=value]",
// not in "--platform").
bool mentions(const std::string& text, const std::string& opt) {
  for (size_t at = text.find(opt); at != std::string::npos; at = text.find(opt, at + 1)) {
    const char before = at ? text[at - 1] : ' ', after = text[at + opt.size()];
    if ((before == ' ' || before == '[' || before == '|') &&
        !(std::isalnum(static_cast<unsigned char>(after)) || after == '-'))
      return true;
  }
  return false;
}

} // namespace

Cli parse(int argc, char** argv) {
  // An option added to the table and not to the usage text fails every command (and so every
  // CLI test), not a reader of --help.
  for (const Option& o : kOptions)
    if (!mentions(kUsage, o.name))
      throw std::logic_error(std::string("gpurf's usage text does not name option ") + o.name);
  Cli c;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--list" && i + 1 < argc && std::string(argv[i + 1]) == "platforms") {
      c.command = "--list-platforms";
      ++i;
      continue;
    }
    if (a.size() > 2 && a.compare(0, 2, "-j") == 0) { // -jN, as make and ninja take it
      c.jobs = to_count("-j", a.substr(2));
      continue;
    }
    const Option* o = nullptr;
    for (const Option& x : kOptions)
      if (a == x.name) o = &x;
    if (!o) {
      std::vector<std::string> names;
      for (const Option& x : kOptions)
        if (std::string(x.name) != "-h") names.push_back(x.name);
      const std::string hint = closest(a, names);
      throw ConfigError("unknown argument '" + a + "'" +
                        (hint.empty() ? "" : "; did you mean '" + hint + "'?") + "\n" + kUsage);
    }
    if (o->value && i + 1 >= argc)
      throw ConfigError(std::string("option ") + a + " needs a value\n" + kUsage);
    o->set(c, o->value ? argv[++i] : "");
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
void make_out_dir(const std::string& dir, const std::string& opt) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    throw ConfigError(opt + " '" + dir + "': cannot make a folder there (" + ec.message() + ")");
}

} // namespace gpurf
