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
#include "sc_main/cli.h"
#include "sc_main/compare.h"
#include "sc_main/exec.h"
#include "sc_main/micro.h"
#include "sc_main/names.h"
#include "sc_main/profile.h"
#include "sc_main/provenance.h"
#include "sc_main/reprice.h"
#include "sc_main/suite.h"

namespace fs = std::filesystem;
using namespace gpurf;

namespace {

// SystemC prints its banner before sc_main unless told not to by the environment.
const bool quiet_banner = setenv("SC_COPYRIGHT_MESSAGE", "DISABLE", 0) == 0;

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
    nlohmann::ordered_json prov = provenance(c.argv, kResultSchema);
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
    check_result_keys(summary);
    std::ofstream(c.out + "/result.json") << summary.dump(2) << "\n";
    if (!c.quiet) std::cout << "  statistics: " << c.out << "/stats.json\n";
  }
  if (!verified) {
    std::cerr << "error: " << kernel << ": " << error << "\n";
    return r.interrupted ? kExitInterrupted : kExitFailed;
  }
  return 0;
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
