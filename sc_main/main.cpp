// gpurf command line.
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>

#include <systemc>

#include "modules/frontend/scripted.h"
#include "platform/config.h"
#include "platform/registry.h"
#include "platform/simulation.h"

namespace fs = std::filesystem;
using namespace gpurf;

namespace {

// SystemC prints its banner before sc_main unless told not to by the environment.
const bool quiet_banner = setenv("SC_COPYRIGHT_MESSAGE", "DISABLE", 0) == 0;

constexpr int kExitBadInput = 2, kExitFailed = 1;

const char* kUsage = R"(usage:
  gpurf run [--platform FILE] [-p key.path=value]... [--workload synthetic] [--out DIR]
  gpurf --list                      every slot and its implementations
  gpurf --describe IMPL             an implementation's parameters with defaults
  gpurf --dump-config [--platform FILE] [-p key.path=value]...
)";

struct Cli {
  std::string command, platform = GPURF_SOURCE_DIR "/configs/fermi.yaml", workload = "synthetic",
                       out, describe;
  std::vector<std::string> overrides;
};

Cli parse(int argc, char** argv) {
  Cli c;
  auto value = [&](int& i) -> std::string {
    if (i + 1 >= argc) throw ConfigError(std::string("option ") + argv[i] + " needs a value\n" + kUsage);
    return argv[++i];
  };
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "run" || a == "--list" || a == "--dump-config") {
      c.command = a;
    } else if (a == "--describe") {
      c.command = a;
      c.describe = value(i);
    } else if (a == "--platform") {
      c.platform = value(i);
    } else if (a == "-p") {
      c.overrides.push_back(value(i));
    } else if (a == "--workload") {
      c.workload = value(i);
    } else if (a == "--out") {
      c.out = value(i);
    } else if (a == "-h" || a == "--help") {
      c.command = "help";
    } else {
      throw ConfigError("unknown argument '" + a + "'\n" + kUsage);
    }
  }
  if (c.command.empty()) throw ConfigError(std::string("no command given\n") + kUsage);
  return c;
}

ConfigPtr platform(const Cli& c) {
  ConfigPtr root = load_config(c.platform);
  for (const auto& o : c.overrides) apply_override(*root, o);
  return root;
}

int list() {
  auto slots = all_slots();
  std::sort(slots.begin(), slots.end(), [](auto& a, auto& b) { return a.slot < b.slot; });
  for (const SlotInfo& s : slots) {
    std::cout << s.slot << ": " << s.description << "\n";
    for (auto& [name, desc] : s.impls()) std::cout << "  " << std::left << std::setw(14) << name << desc << "\n";
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
      for (const ParamDecl& d : s.describe(impl)) {
        if (d.type == "map") continue;
        std::cout << "  " << std::left << std::setw(22) << d.name << std::setw(8) << d.type
                  << "default " << std::setw(10) << d.default_text << d.description;
        if (!d.range_text.empty()) std::cout << " " << d.range_text;
        std::cout << "\n";
      }
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
  auto op = [&](ScriptOp::Kind k, std::vector<uint16_t> d, std::vector<uint16_t> s, uint32_t imm = 0,
                Pipe pipe = Pipe::SP) {
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

int run(const Cli& c) {
  ConfigPtr root = platform(c);
  if (c.workload != "synthetic")
    throw ConfigError("--workload: unknown workload '" + c.workload + "'; available: synthetic");
  auto fe = synthetic();
  Simulation sim(*root, *fe, fe->regs());
  RunResult r = sim.run();
  std::cout << "platform " << c.platform << ", workload " << c.workload << ": "
            << (r.ok ? "finished" : "FAILED") << "\n"
            << "  cycles " << r.cycles << ", warp instructions " << r.warp_instructions
            << ", IPC " << std::setprecision(4) << (r.cycles ? double(r.warp_instructions) / r.cycles : 0)
            << "\n  host " << std::setprecision(3) << r.host_seconds << " s, "
            << uint64_t(r.stats["host"]["warp_instructions_per_second"].get<double>())
            << " warp-instructions/s, "
            << uint64_t(r.stats["host"]["cycles_per_second"].get<double>()) << " cycles/s\n";
  if (!c.out.empty()) {
    fs::create_directories(c.out);
    std::ofstream(c.out + "/stats.json") << r.stats.dump(2) << "\n";
    std::cout << "  statistics: " << c.out << "/stats.json\n";
  }
  if (!r.ok) {
    std::cerr << "error: " << r.error << "\n";
    return kExitFailed;
  }
  return 0;
}

} // namespace

int sc_main(int argc, char** argv) {
  try {
    Cli c = parse(argc, argv);
    if (c.command == "help") return std::cout << kUsage, 0;
    if (c.command == "--list") return list();
    if (c.command == "--describe") return describe(c.describe);
    if (c.command == "--dump-config") {
      ConfigPtr root = platform(c);
      auto fe = synthetic();
      Simulation sim(*root, *fe, fe->regs()); // validates every key
      std::cout << to_yaml(*root);
      return 0;
    }
    return run(c);
  } catch (const ConfigError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const WorkloadError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitFailed;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitFailed;
  }
}
