// gpurf micro --platform FILE [-p key.path=value]... [--format text|markdown|json] [-j N]
//              [--out DIR]
//
// Runs the microbenchmarks of workloads/micro/ on one platform and compares what they
// measure with what the platform configures. Every kernel runs its measured part once or
// twice (launch var `extra` 0 and 1), each run a `gpurf run` process of its own, and a
// quantity comes from the difference of the two runs' cycles, warp instructions and
// counters, so launch, prologue and drain cancel: the way one times code on silicon.
//
// Expected values come from one place, `expectations()`, which reads the platform once: the
// SM's timing spec (the units' parameter accessors) and the resolved parameters of the units
// that have none (shared memory, L1, memory, writeback). The register-read overhead of a
// dependent chain comes from the registers the front-end allocated and the platform's
// register-to-bank mapping (read_cycles/write_cycles). docs/tools.md states every formula.
#include "sc_main/micro.h"
#include "sc_main/names.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <limits>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "gpurf/modules/frontend/launch.h"
#include "gpurf/modules/frontend/ptx_frontend.h"
#include "gpurf/platform/config.h"
#include "gpurf/platform/simulation.h"
#include "gpurf/platform/sm.h"
#include "gpurf/policies/reg_mapping.h"
#include "sc_main/spawn.h"

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

namespace gpurf {
namespace {

constexpr int kExitMismatch = 1, kExitBadInput = 2;
const std::string kSource = data_root(); // $GPURF_DATA or the source tree
const std::string kMicroDir = kSource + "/workloads/micro/";

const char* kMicroUsage =
    R"(usage: gpurf micro [--platform FILE] [-p key.path=value]... [--format text|markdown|json]
                   [-j JOBS] [--out DIR]
  --platform  the platform to measure (default configs/fermi.yaml)
  -p          override a platform parameter, as in gpurf run
  --format    text (default), markdown or json
  -j          simulations at a time (default: every core)
  --out       keep every run's result.json, stats.json and log.txt under DIR
Exit status: 0 every measured value equals its configuration, 1 one differs (MISMATCH) or a
simulation failed, 2 bad input.
)";

// The kernels whose chain instruction's latency is measured, one per instruction kind
// (workloads/micro/cuda/chain.cu).
const std::vector<std::string> kChains = {
    "dep_iadd", "dep_ixor", "dep_ishl", "dep_imin", "dep_imul", "dep_imad", "dep_idiv",
    "dep_mov",  "dep_fadd", "dep_fmin", "dep_fmul", "dep_ffma", "dep_fdiv", "dep_cvt",
    "dep_sin",  "dep_ex2",  "dep_rcp",  "dep_sqrt", "dep_dadd", "dep_dmin", "dep_dmul",
    "dep_dfma", "dep_ddiv", "dep_drcp", "dep_dcvt", "dep_shfl", "dep_hmma"};
const std::vector<unsigned> kStrides = {1, 2, 3, 4, 8, 16, 32};

struct BadInput : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Options {
  std::string platform = kSource + "/configs/fermi.yaml", format = "text", out;
  std::vector<std::string> overrides;
  unsigned jobs = 0;
};

Options parse(const std::vector<std::string>& args) {
  Options o;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= args.size()) throw BadInput("option " + a + " needs a value\n" + kMicroUsage);
      return args[++i];
    };
    if (a == "--platform") {
      o.platform = platform_path(kSource, value());
    } else if (a == "-p") {
      o.overrides.push_back(value());
    } else if (a == "--format") {
      o.format = value();
      if (o.format != "text" && o.format != "markdown" && o.format != "json")
        throw BadInput("option --format: '" + o.format + "' is not a format; expected text, " +
                       "markdown or json");
    } else if (a == "-j") {
      const std::string v = value();
      char* end = nullptr;
      const long n = std::strtol(v.c_str(), &end, 10);
      if (v.empty() || *end || n < 1 || n > 1024)
        throw BadInput("option -j: '" + v + "' is not a count; expected an integer >= 1");
      o.jobs = unsigned(n);
    } else if (a == "--out") {
      o.out = value();
    } else if (a == "-h" || a == "--help") {
      std::cout << kMicroUsage;
      std::exit(0);
    } else {
      throw BadInput("unknown argument '" + a + "'\n" + kMicroUsage);
    }
  }
  if (!fs::exists(o.platform))
    throw BadInput("--platform: cannot open platform file '" + o.platform + "'");
  return o;
}

// The chain instruction of a micro kernel (the instruction it repeats), as compiled.
struct Chain {
  InstInfo info;
  std::string opname; // info.opname points into the front-end, which is gone
  unsigned regs = 0;  // registers per thread of the kernel
  // The branch over the extra chain (micro.cuh TWICE: `@p bra` when `extra` is 0).
  InstInfo branch;
  bool has_branch = false;
};

Chain chain_of(const std::string& kernel, const FrontendOptions& frontend) {
  const LaunchSpec spec = load_launch(kMicroDir + kernel + ".yaml");
  PtxFrontend fe(spec, frontend);
  std::map<std::string, std::pair<unsigned, const InstInfo*>> kinds;
  for (const InstInfo& i : fe.static_info()) {
    std::string key = i.opname;
    for (unsigned k = 0; k < i.n_src; ++k) key += " s" + std::to_string(i.src_reg[k]);
    for (unsigned k = 0; k < i.n_dst; ++k) key += " d" + std::to_string(i.dst_reg[k]);
    auto& e = kinds[key];
    ++e.first;
    e.second = &i;
  }
  auto most = std::max_element(kinds.begin(), kinds.end(),
                               [](auto& a, auto& b) { return a.second.first < b.second.first; });
  Chain c{*most->second.second, most->second.second->opname, fe.regs_per_thread(), {}, false};
  for (const InstInfo& i : fe.static_info())
    if (std::string(i.opname).rfind("bra", 0) == 0) c.branch = i, c.has_branch = true;
  return c;
}

// The platform as configured: built once like --dump-config (an elaboration, never run).
struct Platform {
  std::string name;
  ConfigPtr root; // every parameter resolved, defaults included
  TimingSpec spec;
  SmShape shape; // pipe folding; its mapping pointer is not used
  unsigned warp_slots = 0;
  FrontendOptions frontend; // the platform's frontend: section

  const ConfigNode* find(const std::string& path) const {
    const ConfigNode* n = root->find_path(path);
    return n && n->kind == ConfigNode::Kind::Scalar ? n : nullptr;
  }
  const ConfigNode& node(const std::string& path) const {
    if (const ConfigNode* n = find(path)) return *n;
    throw std::runtime_error("gpurf micro: the platform has no parameter " + path);
  }
  unsigned uint(const std::string& path) const { return unsigned(std::stoul(node(path).scalar)); }
  // A parameter of a section the platform may leave out (collector.sets.<pipe>).
  unsigned uint_or(const std::string& path, unsigned def) const {
    const ConfigNode* n = find(path);
    return n ? unsigned(std::stoul(n->scalar)) : def;
  }
  const std::string& str(const std::string& path) const { return node(path).scalar; }

  // The register-to-bank mapping for a kernel of `regs` registers per thread.
  std::unique_ptr<RegMapping> mapping(unsigned regs) const {
    Params p(root->find("register_mapping"), "register_mapping");
    return RegMapping::Registry::create(str("register_mapping.impl"), p, spec.banks, regs);
  }
};

// The microbenchmarks measure the hardware, so the compiler is fixed whatever the platform
// says: their PTX is written so that gpurf's own allocator places operands in chosen banks,
// and they time dependence chains as written (a list scheduler would interleave them, folded
// immediates would drop instructions the chains count).
const std::vector<std::string> kMicroCompiler = {
    "frontend.regalloc=linear_scan", "frontend.schedule=none", "frontend.constants=registers"};

Platform load_platform(const Options& o) {
  Platform pl;
  pl.name = fs::path(o.platform).stem();
  pl.root = load_platform_file(o.platform);
  for (const auto& ov : o.overrides) apply_override(*pl.root, ov);
  for (const auto& ov : kMicroCompiler) apply_override(*pl.root, ov);
  Params::fill_defaults = true;
  pl.frontend = frontend_options(*pl.root);
  PtxFrontend fe(load_launch(kMicroDir + "dep_fadd.yaml"), pl.frontend);
  Simulation sim(*pl.root, fe, fe.regs_per_thread());
  pl.spec = sim.sm().timing_spec();
  pl.shape = sim.sm().shape();
  pl.shape.mapping = nullptr;
  pl.warp_slots = sim.sm().limits().warp_slots();
  return pl;
}

// One simulation: a micro kernel with launch vars and platform overrides.
struct RunKey {
  std::string kernel;
  std::vector<std::string> vars;
  std::vector<std::string> overrides; // -p key=value for this run only
  std::string id() const {
    std::string s = kernel;
    for (auto& v : vars) s += "_" + v;
    for (auto& v : overrides) s += "_" + v;
    std::replace(s.begin(), s.end(), '=', '-');
    return s;
  }
};

// The two runs whose difference is measured: extra = 0 and extra = 1.
struct Diff {
  RunKey base, more;
};

struct Row {
  std::string quantity, formula;
  double configured = 0;
  std::function<double()> measure;
  // Set where the expectation depends on a value's form, which the data decides (a W-C
  // operand compressed or not, a source served by a CCU): computed from the runs' counts of
  // those forms and the configured latency of each, it replaces `configured`.
  std::function<double()> expect;
  // Why the row does not apply to this platform ("" where it does): `na` is known from the
  // configuration, `applies` from the runs (e.g. WIR reused the chain instead of executing it).
  std::string na;
  std::function<std::string()> applies;
  bool bound = false; // an upper bound: measured <= configured
  // The runs whose instructions WIR's reuse buffer may skip (Sec. V: a reused instruction
  // skips the backend the row times), and whether the row is one chain's cycles/instr less
  // an overhead, which a fully reused chain replaces by the reuse path.
  std::vector<Diff> reusable;
  bool one_chain = false;
  double measured = 0;
  bool ok = false;
};

std::string num(double v) {
  std::ostringstream s;
  if (std::fabs(v - std::round(v)) < 1e-9)
    s << (long long)std::llround(v);
  else
    s << std::fixed << std::setprecision(3) << v;
  return s.str();
}

// How a chain's sources were served (Micro::forms).
struct Forms {
  double decompressed = 0, cached = 0, rfc = 0;
};

class Micro {
public:
  explicit Micro(const Platform& p) : p_(p) {}

  std::vector<Row> rows; // the quantities, in table order
  std::vector<RunKey> runs;

  // What the platform configures and how each quantity is measured (the one place that
  // knows both; adding a latency class or a cache level adds rows here).
  void expectations();

  // Reads the runs' results from `dir` (DIR/<run id>/result.json) and measures every row.
  void measure(const std::string& dir) {
    for (const RunKey& r : runs) {
      std::ifstream f(dir + "/" + r.id() + "/result.json");
      results_[r.id()] = json::parse(f);
      std::ifstream st(dir + "/" + r.id() + "/stats.json");
      flatten(json::parse(st), "", stats_[r.id()]);
    }
    for (Row& r : rows) {
      if (r.na.empty() && r.applies) r.na = r.applies();
      if (r.na.empty() && reused(r)) continue;
      if (!r.na.empty()) continue;
      if (r.expect) r.configured = r.expect();
      r.measured = r.measure();
      r.ok =
          r.bound ? r.measured <= r.configured + 1e-9 : std::fabs(r.measured - r.configured) < 1e-9;
    }
  }

private:
  Diff diff(const std::string& kernel, std::vector<std::string> vars = {},
            std::vector<std::string> overrides = {}) {
    Diff d;
    d.base = {kernel, vars, overrides};
    d.base.vars.push_back("extra=0");
    d.more = {kernel, vars, overrides};
    d.more.vars.push_back("extra=1");
    for (const RunKey* k : {&d.base, &d.more})
      if (std::none_of(runs.begin(), runs.end(), [&](auto& r) { return r.id() == k->id(); }))
        runs.push_back(*k);
    return d;
  }
  // A summary field of run `k`, by dot path (bank_conflicts.read_read).
  double field(const RunKey& k, const std::string& path) const {
    const json* j = &results_.at(k.id());
    std::stringstream ss(path);
    for (std::string s; std::getline(ss, s, '.');) j = &j->at(s);
    return j->get<double>();
  }
  double delta(const Diff& d, const std::string& path) const {
    return field(d.more, path) - field(d.base, path);
  }
  static void flatten(const json& j, const std::string& at, std::map<std::string, double>& out) {
    if (j.is_object())
      for (auto& [k, v] : j.items()) flatten(v, at.empty() ? k : at + "." + k, out);
    else if (j.is_number())
      out[at] = j.get<double>();
  }
  // A statistic of run `k` summed over every unit whose path ends in `suffix`
  // (".ccu_hits.value": every collector of every sub-core and SM).
  double stat(const RunKey& k, const std::string& suffix) const {
    double sum = 0;
    for (auto& [path, v] : stats_.at(k.id()))
      if (path.size() >= suffix.size() &&
          path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0)
        sum += v;
    return sum;
  }
  double stat_delta(const Diff& d, const std::string& suffix) const {
    return stat(d.more, suffix) - stat(d.base, suffix);
  }
  // Per extra warp instruction.
  double per_instr(const Diff& d, const std::string& suffix) const {
    return stat_delta(d, suffix) / delta(d, "warp_instructions");
  }
  // Cycles per extra warp instruction.
  double cpi(const Diff& d) const { return delta(d, "cycles") / delta(d, "warp_instructions"); }

  // Cycles from issue until a lone instruction's operands are all in its collector, minus
  // one (the issue cycle): the reads, `collector_ports` per cycle and one per bank and cycle
  // (each bank has one read port per slice). collector_ports 0: no port limits at all (the
  // coalescing arbiter's unlimited_ports), every read granted at once.
  unsigned read_cycles(const Chain& c) const {
    const unsigned n = c.info.n_src, ports = p_.spec.collector_ports;
    if (!ports) return n ? 1 : 0;
    return std::max((n + ports - 1) / ports, bank_read_cycles(c));
  }
  // Cycles the busiest bank takes to read a lone instruction's sources: one per read port.
  unsigned bank_read_cycles(const Chain& c) const {
    const unsigned rp = p_.spec.bank_read_ports;
    return (per_bank(c, c.info.src_reg, c.info.n_src) + rp - 1) / rp;
  }
  // Cycles a lone instruction's results take to be written: `writeback.ports` per cycle,
  // one per bank and cycle (no bank limit without port limits).
  unsigned write_cycles(const Chain& c) const {
    const unsigned n = c.info.n_dst, ports = p_.uint("writeback.ports");
    const unsigned bank = p_.spec.collector_ports ? per_bank(c, c.info.dst_reg, n) : 1;
    return std::max((n + ports - 1) / ports, bank);
  }
  template <class Regs> unsigned per_bank(const Chain& c, const Regs& regs, unsigned n) const {
    const auto map = p_.mapping(c.regs);
    std::map<unsigned, unsigned> count;
    unsigned most = n ? 1 : 0;
    for (unsigned k = 0; k < n; ++k) most = std::max(most, ++count[map->map(0, regs[k]).bank]);
    return most;
  }
  // Cycles from issue to dispatch of a lone instruction: its reads, or at least the stages
  // of a fixed-stage register read.
  // Modern core (docs/modern-core.md): with compiler-set dependences a variable-latency
  // result (memory, SFU, DP, tensor) is guarded by a dependence counter that the write-back
  // decrements: no bypass, its dependent issues when it is written (Huerta et al. Sec. 5.3).
  bool counters(const Chain& c) const {
    const Pipe p = pipe_of(c);
    return p_.spec.software_dependences && p != Pipe::SP && p != Pipe::INT;
  }
  unsigned dispatch_cycles(const Chain& c) const {
    return std::max(p_.spec.forward_stages,
                    read_cycles(c) + p_.spec.bank_latency + p_.spec.xbar_latency);
  }
  // Why the banks of `c`'s registers that the row's expectation needs are not the
  // configured mapping's ("" where they are): WIR's renaming places every written value in
  // a physical register the register-allocation stage picks (Sec. V), so where the banks of
  // two or more sources or results could change the read or write cycles, the mapping does
  // not give them.
  std::string banks_na(const Chain& c) const {
    if (!p_.spec.renaming) return "";
    const unsigned rp = p_.spec.collector_ports, wp = p_.uint("writeback.ports");
    if ((c.info.n_src >= 2 && rp != 1) || (c.info.n_dst >= 2 && wp >= 2))
      return "n/a: WIR renames registers, so the banks of this instruction's " +
             std::string(c.info.n_dst >= 2 && wp >= 2 ? "results" : "sources") +
             " are the physical registers' the register-allocation stage picks (Sec. V), " +
             "not register_mapping's";
    return "";
  }
  // The coalescing arbiter (CMRC) lets requests with disjoint slice masks share a bank
  // cycle, so how many accesses a bank's requests need is decided by the values' widths.
  bool coalescing() const { return p_.str("arbiter.impl") == "coalescing"; }

  // Stages every instruction passes on the dependence path besides the register read: WIR's
  // rename and reuse stages before the collectors (allocator.front_stages) and the write
  // stage before the register write (W-C's compression, WIR's register allocation).
  unsigned extra_stages() const { return p_.spec.rename_stages + p_.spec.compress_latency; }
  // Cycles a lone instruction's results wait for the write stage's units after the first:
  // W-C's `writeback.compressors`, one register each per cycle, and the results are written
  // when the last is compressed.
  unsigned compress_waits(const Chain& c) const {
    const unsigned units = p_.uint_or("writeback.compressors", 0);
    return units && c.info.n_dst ? (c.info.n_dst + units - 1) / units - 1 : 0;
  }

  // How the chain's sources were served, which the values decide: the share decompressed
  // (W-C: a compressed register) and the share a caching collector held (Malekeh), counted
  // per extra instruction and source in the runs. The latency of each path is configured.
  Forms forms(const Chain& c, const Diff& d) const {
    Forms f;
    const double n = std::max(1u, unsigned(c.info.n_src));
    if (p_.spec.decompress_latency)
      f.decompressed = std::min(1.0, per_instr(d, ".decompressor.decompressions.value") / n);
    if (p_.spec.ccu_hit_latency) f.cached = std::min(1.0, per_instr(d, ".ccu_hits.value") / n);
    if (p_.spec.rfc) f.rfc = std::min(1.0, per_instr(d, ".rfc.reads.value") / n);
    return f;
  }
  // Cycles from issue until the operands are in the collector (after the issue cycle): a
  // CCU hit arrives `ccu_hit_latency` after the allocation; with an RFC every read passes
  // its tag check (`rfc.tag_latency`), then a hit is read `rfc.read_ports` per cycle and
  // arrives `rfc.hit_latency` later, a miss goes to the banks; else the bank path R + bank
  // + crossbar; a compressed source adds its decompression. One source per instruction
  // (or every source alike) mixes the paths exactly by their shares.
  double read_path(const Chain& c, const Forms& f) const {
    const TimingSpec& t = p_.spec;
    const double bank = read_cycles(c) + t.bank_latency + t.xbar_latency;
    double r = f.cached * t.ccu_hit_latency + (1 - f.cached - f.rfc) * bank;
    if (t.rfc) {
      const unsigned n = c.info.n_src, ports = std::max(1u, t.rfc_read_ports);
      r += t.rfc_tag_latency + f.rfc * ((n + ports - 1) / ports + t.rfc_hit_latency);
    }
    return r + f.decompressed * t.decompress_latency;
  }
  // Register-read (and -write) overhead of a dependent chain of `c` on top of its latency.
  // With forwarding (fixed_stage, N stages) a dependent issues N cycles before a fixed-latency
  // result is ready, and writes are off the dependence path; a memory result is known only
  // when it is ready, so the dependent's whole stage is exposed. Without: the reads (a
  // source a CCU holds arrives `ccu_hit_latency` after the allocation instead; one source
  // per instruction, so the share mixes the two paths exactly), a compressed source's
  // decompression, the extra stages and the writes after the first.
  double overhead(const Chain& c, const Forms& f = {}) const {
    if (const unsigned n = p_.spec.forward_stages)
      return counters(c) ? dispatch_cycles(c) + p_.spec.compress_latency + compress_waits(c) +
                               write_cycles(c) - 1.0
                         : dispatch_cycles(c) - (pipe_of(c) == Pipe::MEM ? 0 : n);
    return read_path(c, f) + extra_stages() + compress_waits(c) + write_cycles(c) - 1;
  }
  // The extra chain starts right after the kernel's branch over it: its first instruction
  // issues the cycle after the branch and, on the branch's pipe, dispatches no earlier than
  // the branch's initiation interval after the branch's dispatch, which is one cycle after
  // its issue (no register sources). Cycles this adds to the extra run once, where the
  // chain's reads take less than that interval (a CCU hit on a pipe of ii 2).
  double boundary(const Chain& c, const Forms& f) const {
    if (!c.has_branch || p_.spec.forward_stages) return 0;
    const Pipe bp = p_.shape.pipe_for(c.branch);
    if (bp != pipe_of(c)) return 0;
    const unsigned cls = p_.spec.classes[unsigned(c.branch.op_class)].ii;
    const double ii = cls ? cls : p_.spec.pipes[unsigned(bp)].ii;
    return std::max(0.0, ii - read_path(c, f));
  }
  // Modern core (fixed_window with its operand-slot cache): the extra chain is a basic block
  // of its own, and the control-bit pass sets reuse bits within a block only (the `setp` on
  // `extra` before the branch reads slot 0 anyway), so the extra chain's first instruction
  // finds none of its sources cached and reads them all from the banks. Where its busiest
  // bank holds more of them than the window has port cycles, that window is longer by the
  // difference, once per run; the chain's later instructions hit the cache on the sources
  // that repeat (dep_hmma: 7 sources, 4 in one bank, 4 read cycles for 3, the +1 cycle of
  // docs/modern-core.md).
  unsigned cold_window(const Chain& c) const {
    if (!p_.spec.rfc || p_.str("collector.impl") != "fixed_window") return 0;
    const unsigned window = p_.uint("collector.window");
    return std::max(window, bank_read_cycles(c)) - window;
  }
  // Overhead per instruction of the chain `d` runs: its own and its share of the boundary.
  double run_overhead(const Chain& c, const Diff& d) const {
    const Forms f = forms(c, d);
    return overhead(c, f) + (boundary(c, f) + cold_window(c)) / delta(d, "warp_instructions");
  }
  // Overhead of a dependent chain of loads of `c` whose memory latency (after the LSU's
  // own) is `mem`: with forwarding a load's result time is announced when the LSU is done
  // with it, and the dependent issues up to N cycles before the result is ready.
  double mem_overhead(const Chain& c, unsigned mem, const Forms& f = {}) const {
    const unsigned lsu = p_.spec.pipes[unsigned(Pipe::MEM)].latency;
    if (const unsigned n = p_.spec.forward_stages)
      return counters(c) ? dispatch_cycles(c) + lsu + p_.spec.compress_latency + compress_waits(c) +
                               write_cycles(c) - 1.0
                         : dispatch_cycles(c) + lsu - std::min(mem, n);
    return overhead(c, f) + lsu;
  }
  std::string mem_overhead_text(const Chain& c, unsigned mem) const {
    const unsigned lsu = p_.spec.pipes[unsigned(Pipe::MEM)].latency;
    std::string s = "lsu.latency " + std::to_string(lsu) + " + " + overhead_text(c);
    if (const unsigned n = p_.spec.forward_stages; n && !counters(c))
      s = num(mem_overhead(c, mem)) + " (" + s + " - " + std::to_string(std::min(mem, n)) +
          " forwarded)";
    return s;
  }
  std::string overhead_text(const Chain& c) const {
    std::ostringstream s;
    const TimingSpec& t = p_.spec;
    if (const unsigned n = t.forward_stages) {
      s << overhead(c) << " (dispatch " << dispatch_cycles(c) << " after issue";
      if (counters(c)) {
        s << ", a dependence counter: no bypass";
        if (t.compress_latency) s << "; + write stage " << t.compress_latency;
        if (compress_waits(c)) s << " + compressor waits " << compress_waits(c);
      } else if (pipe_of(c) != Pipe::MEM)
        s << " - " << n << " stages forwarded";
      if (const unsigned cw = cold_window(c))
        s << "; + " << cw << " once per run / the extra instructions: the extra chain's first "
          << "instruction reads every source from the banks, " << bank_read_cycles(c)
          << " cycles in its busiest bank for a window of " << p_.uint("collector.window");
      return s.str() + ")";
    }
    const bool forms = t.decompress_latency || t.ccu_hit_latency || t.rfc;
    if (!forms) s << overhead(c) << " ";
    s << "(reads " << read_cycles(c) << " + bank " << t.bank_latency << " + crossbar "
      << t.xbar_latency;
    if (t.ccu_hit_latency)
      s << ", or ccu.hit_latency " << t.ccu_hit_latency << " for the share of sources a CCU held";
    if (t.rfc)
      s << ", or ceil(n / rfc.read_ports " << t.rfc_read_ports << ") + rfc.hit_latency "
        << t.rfc_hit_latency << " for the share of RFC hits; + rfc.tag_latency "
        << t.rfc_tag_latency;
    if (t.decompress_latency)
      s << " + decompress_latency " << t.decompress_latency << " x share of sources compressed";
    if (t.rename_stages) s << " + front_stages " << t.rename_stages;
    if (t.compress_latency) s << " + write stage " << t.compress_latency;
    if (compress_waits(c)) s << " + compressor waits " << compress_waits(c);
    if (write_cycles(c) > 1) s << " + writes " << write_cycles(c) << " - 1";
    s << ")";
    return s.str();
  }
  Pipe pipe_of(const Chain& c) const { return p_.shape.pipe_for(c.info); }
  // The tensor rows time the tensor pipe; a platform without one (exec.tensor.count 0, the
  // GTX480-class ones) runs an mma on the pipe it folds onto as a stand-in, which is not
  // what the rows measure.
  std::string no_tensor_pipe(const Chain& c) const {
    if (pipe_of(c) == Pipe::TENSOR) return "";
    return std::string("n/a: exec.tensor.count 0: no tensor pipe (mma runs on ") +
           pipe_name(pipe_of(c)) + " as a stand-in)";
  }
  // The latency class's own timing (exec.classes), else the executing pipe's.
  const TimingSpec::Class& class_of(const Chain& c) const {
    return p_.spec.classes[unsigned(c.info.op_class)];
  }
  unsigned latency_of(const Chain& c) const {
    const unsigned l = class_of(c).latency;
    return l ? l : p_.spec.pipes[unsigned(pipe_of(c))].latency;
  }
  unsigned ii_of(const Chain& c) const {
    const unsigned ii = class_of(c).ii;
    return ii ? ii : p_.spec.pipes[unsigned(pipe_of(c))].ii;
  }
  // Where latency_of comes from in the platform file.
  std::string latency_key(const Chain& c) const {
    if (pipe_of(c) == Pipe::MEM) return "lsu.latency";
    if (class_of(c).latency)
      return std::string("exec.classes.") + op_class_name(c.info.op_class) + ".latency";
    return std::string("exec.") + pipe_name(pipe_of(c)) + ".latency";
  }
  std::string regs_text(const Chain& c, bool src) const {
    const auto map = p_.mapping(c.regs);
    std::string s;
    const unsigned n = src ? c.info.n_src : c.info.n_dst;
    for (unsigned k = 0; k < n; ++k) {
      const unsigned r = src ? c.info.src_reg[k] : c.info.dst_reg[k];
      s += (k ? " " : "") + std::string("r") + std::to_string(r) + "/b" +
           std::to_string(map->map(0, r).bank);
    }
    return s;
  }

  // WIR's reuse buffer (Sec. V): an instruction whose sources hold values it has seen skips
  // the backend, so a chain whose values repeat times the reuse path, not the pipe. A row
  // of one chain that was reused throughout checks that path: the dependent issues after
  // the rename and reuse stages (allocator.front_stages) and the issue cycle, the reused
  // instruction reading, executing and writing nothing. Any other reuse leaves the row
  // without a meaning: omitted. Returns whether the row was settled here.
  bool reused(Row& r) const {
    double low = 0;
    for (const Diff& d : r.reusable) low += stat_delta(d, ".writeback.low_register_cycles.value");
    if (low != 0) { // any change: the extra run waited (or waited less) for registers
      r.na = "n/a: WIR ran out of physical registers (the capped tables or the pool): results " +
             std::string("waited ") + num(low) + " more cycles in low-register mode (Sec. V-E), " +
             "which this row does not time";
      return false;
    }
    double hits = 0, instr = 0;
    for (const Diff& d : r.reusable) {
      hits += stat_delta(d, ".allocator.reuse_hits.value");
      instr += delta(d, "warp_instructions");
    }
    if (hits == 0) return false; // fewer in the extra run: the runs differ, below
    if (r.one_chain && hits == instr) {
      const Diff& d = r.reusable[0];
      r.quantity += " (reused)";
      r.bound = false;
      r.configured = p_.spec.rename_stages + 1;
      r.formula = "cycles/instr of a reused chain = allocator.front_stages " +
                  std::to_string(p_.spec.rename_stages) + " + 1 (WIR reused every extra " +
                  "instruction: its values repeat)";
      r.measured = cpi(d);
      r.ok = std::fabs(r.measured - r.configured) < 1e-9;
      return true;
    }
    r.na = "n/a: WIR reused " + num(hits) + " of " + num(instr) +
           " extra instructions (the values repeat), which skip the backend this row times";
    return false;
  }

  const Platform& p_;
  std::map<std::string, json> results_;
  std::map<std::string, std::map<std::string, double>> stats_; // run id -> flattened stats.json
  std::map<std::string, Chain> chains_;
  const Chain& chain(const std::string& k) {
    auto it = chains_.find(k);
    return it != chains_.end() ? it->second : chains_[k] = chain_of(k, p_.frontend);
  }
};

void Micro::expectations() {
  const TimingSpec& t = p_.spec;
  // Latency of every instruction kind: a dependent chain in one warp.
  for (const std::string& k : kChains) {
    const Chain* c = &chain(k);
    const Diff d = diff(k);
    const Pipe pipe = pipe_of(*c);
    Row r;
    r.quantity = "latency " + c->opname + " (" + op_class_name(c->info.op_class) + ") [" +
                 pipe_name(pipe) + "]";
    r.configured = latency_of(*c);
    r.na = c->info.op_class == OpClass::Tensor ? no_tensor_pipe(*c) : "";
    // An mma chain behind a results cache: the cache serves the accumulator the previous mma
    // wrote, the banks the other fragment registers over several cycles, and which read ends
    // the stage depends on the hits (ampere-modern-gebhart-rfc measures 31 for 32).
    if (r.na.empty() && c->info.op_class == OpClass::Tensor && t.rfc &&
        p_.str("collector.impl") != "fixed_window") // (the modern core's slot cache: timed)
      r.na = "n/a: the results cache serves part of the mma's fragment registers (the "
             "accumulator the previous mma wrote), the banks the rest over several cycles: "
             "no closed formula for the read stage";
    if (r.na.empty()) r.na = banks_na(*c);
    r.formula = "cycles/instr - " + overhead_text(*c) + "; " + latency_key(*c);
    r.measure = [this, d, c] { return cpi(d) - run_overhead(*c, d); };
    r.reusable = {d};
    r.one_chain = true;
    rows.push_back(r);
  }

  // Latency hiding: independent chains in N warps reach the peak IPC once N covers the
  // latency; of the SP pipe (add.f32) and of the tensor pipe (mma, its initiation interval).
  for (const std::string kernel : {"dep_fadd", "dep_hmma"}) {
    const Chain& c = chain(kernel);
    const unsigned pipe = unsigned(pipe_of(c)), s = t.subcores;
    const double issue = double(s) * t.schedulers * t.issue_width;
    const double units = double(s) * t.pipes[pipe].count / ii_of(c);
    const unsigned cols = (p_.uint("collector.count") +
                           p_.uint_or(std::string("collector.sets.") + pipe_name(pipe_of(c)), 0)) /
                          s;
    const unsigned hold = dispatch_cycles(c);
    // fixed_window: one unit per sub-core holds the whole read pipeline.
    const double collectors = p_.str("collector.impl") == "fixed_window"
                                  ? std::numeric_limits<double>::infinity()
                                  : double(s) * cols / hold;
    const double writes = double(s) * p_.uint("writeback.ports") / write_cycles(c);
    // Bank ports: each instruction reads its sources and writes its results over all of a
    // bank's slices; t.banks banks per sub-core, one port each (1rw) or one read and one
    // write port (1r1w); none without port limits.
    const unsigned n = c.info.n_src, m = c.info.n_dst, B = t.banks, rp = t.bank_read_ports;
    double banks = std::numeric_limits<double>::infinity();
    std::string banks_text = "bank ports unlimited";
    if (t.collector_ports) {
      banks = t.bank_split_ports ? double(s) * B / std::max(double(n) / rp, double(m))
                                 : double(s) * B / (n + m);
      banks_text =
          "bank ports " + std::to_string(s * B) + " banks x " +
          (!t.bank_split_ports ? std::string("1rw / (") : std::to_string(rp) + "r1w / max(") +
          std::to_string(n) + (rp > 1 ? " / " + std::to_string(rp) : std::string()) +
          (t.bank_split_ports ? ", " : " + ") + std::to_string(m) + ") accesses";
    }
    const double peak = std::min({issue, units, collectors, writes, banks});
    const double ov = overhead(c); // chains of new values: no cached or compressed form assumed
    const unsigned per_op = unsigned(std::ceil(latency_of(c) + ov - 1e-9)),
                   group = s * t.schedulers;
    const unsigned need = unsigned(std::ceil(peak * per_op - 1e-9));
    // One warp per scheduler more than the latency needs, so that a warp that starts a cycle
    // late does not cost an issue slot.
    unsigned warps = (need + group - 1) / group * group + group;
    // Not on the tensor pipe: with its long initiation interval the spare warp loses the
    // round robin to the others, finishes alone, and the difference of the two runs then
    // counts that tail (ii 16: 0.303 measured against the 0.25 the pipe allows). The warps
    // the latency needs keep it busy and progress alike.
    if (c.info.op_class == OpClass::Tensor) warps -= group;
    warps = std::min({warps, 32u, p_.warp_slots});
    // A two-level scheduler issues from its active warps only.
    if (t.active_limit) warps = std::min(warps, t.active_limit * group);
    // Exact where no two requests can meet at a bank or collector port: no port limits, or
    // split read and write ports with at most one source read and one result written per
    // sub-core and cycle at the peak. Elsewhere the peak is an upper bound: requests of
    // different collectors meet at bank and collector ports as the warps' timing decides
    // (arbiter.conflicts counts them), and no closed formula gives the loss.
    const double per_sub = peak / s;
    // Without a spare warp per scheduler (a two-level scheduler's active warps, the warp
    // slots) a warp that a start-up conflict delayed by a cycle costs an issue slot in one
    // run and not in the other, so the peak is a bound there too.
    const bool slack = warps >= (need + group - 1) / group * group + group;
    // Compiler-set stall counts make a block's last instruction wait for all its results
    // (compiler/control_bits.h): warps lose issue slots at loop edges, which no closed formula
    // gives, so the peak is a bound there.
    // Collectors that bind exactly (as many as the issue needs) lose a slot to every
    // start-up bank conflict that holds one a cycle longer: a bound there too.
    const bool collectors_bind = !std::isinf(collectors) && collectors <= peak + 1e-9;
    const bool exact = slack && !collectors_bind && !t.software_dependences &&
                       (!t.collector_ports || (t.bank_split_ports && per_sub * n <= rp + 1e-9 &&
                                               per_sub * m <= 1 + 1e-9));
    std::ostringstream f;
    f << "instr/cycle; min(issue " << num(issue) << ", " << pipe_name(pipe_of(c)) << " units "
      << num(units) << ", collectors "
      << (std::isinf(collectors) ? std::string("unbounded (one read unit per sub-core)")
                                 : std::to_string(s * cols) + "/" + std::to_string(hold))
      << ", writeback " << num(writes) << ", " << banks_text
      << (std::isinf(banks) ? "" : " = " + num(banks)) << ")";
    if (!exact)
      f << "; an upper bound: "
        << (!slack            ? "no spare warp for a start-up conflict"
            : collectors_bind ? "the collectors bind, and a bank conflict holds one longer"
                              : "bank and collector-port conflicts lower it");
    // Loose round robin: every warp progresses alike, so the extra instructions add no
    // tail of starved warps (greedy policies finish the oldest warps first).
    const Diff d = diff(kernel, {"warps=" + std::to_string(warps)}, {"scheduler.policy=lrr"});
    f << "; scheduler.policy=lrr";
    Row r;
    r.quantity = std::string(exact ? "peak IPC, " : "peak IPC (bound), ") + std::to_string(warps) +
                 " warps of independent " + c.opname + " chains";
    r.configured = peak;
    r.bound = !exact;
    if (c.info.op_class == OpClass::Tensor) r.na = no_tensor_pipe(c);
    // The tensor chains run without a spare warp (above): the two runs' ends may then differ
    // by up to one initiation interval of the pipe, which the difference of the runs counts;
    // the bound allows that much (ampere-modern-wir: 768 instructions in 1,530 cycles).
    // A bound on the SP pipe allows one cycle: where the issue slots of the runs' last cycles
    // are filled differently (two slots a cycle, an odd number of instructions left), the
    // difference of the runs is one cycle short (wir-novsb: 704 instructions in 351 cycles).
    if (c.info.op_class == OpClass::Tensor || r.bound) {
      const double ii = c.info.op_class == OpClass::Tensor ? ii_of(c) : 1.0;
      r.expect = [this, d, peak, ii] {
        return peak * delta(d, "cycles") / (delta(d, "cycles") - ii);
      };
      f << "; within "
        << (ii == 1.0 ? std::string("one cycle")
                      : "one initiation interval (" + num(ii) + " cycles)")
        << " of the runs' ends";
    }
    r.formula = f.str();
    r.measure = [this, d] { return delta(d, "warp_instructions") / delta(d, "cycles"); };
    r.reusable = {d};
    rows.push_back(r);
  }

  // Bank conflicts: two sources in different banks or in the same bank.
  for (const std::string k : {"pair_near", "pair_far"}) {
    const Chain* c = &chain(k);
    const Diff d = diff(k);
    const unsigned same = per_bank(*c, c->info.src_reg, c->info.n_src);
    Row r;
    r.quantity = "bank conflicts/instr, add " + regs_text(*c, true);
    r.configured = t.collector_ports ? bank_read_cycles(*c) - 1 : 0;
    if (t.renaming)
      r.na = "n/a: WIR renames registers, so the two sources' banks are the physical " +
             std::string("registers' the register-allocation stage picked (Sec. V)");
    else if (coalescing() && t.collector_ports)
      r.na = "n/a: the coalescing arbiter serves a second read whose slices are free in the " +
             std::string("same bank cycle, so a same-bank pair's second read waits for the ") +
             "collector's port (counted collector_port), as a different-bank pair's does; " +
             "the cycles/instr row times the pair";
    r.formula = t.collector_ports ? "read_read conflicts/instr; ceil(sources in one bank " +
                                        std::to_string(same) + " / read ports " +
                                        std::to_string(t.bank_read_ports) + ") - 1"
                                  : "read_read conflicts/instr; no port limits";
    r.measure = [this, d] {
      return delta(d, "bank_conflicts.read_read") / delta(d, "warp_instructions");
    };
    // The row is about the banks' ports: it needs every source read from the banks.
    r.applies = [this, d, c] {
      const double reads = delta(d, "rf_bank_reads") / delta(d, "warp_instructions");
      if (reads + 1e-9 < c->info.n_src)
        return "n/a: " + num(reads) + " of " + std::to_string(c->info.n_src) +
               " sources per instruction read from the banks (the others from a register " +
               "cache, a caching collector or one physical register), so the row's reads " +
               "do not all meet at the bank ports";
      return std::string();
    };
    r.reusable = {d};
    rows.push_back(r);
    Row q;
    q.quantity = "cycles/instr, add " + regs_text(*c, true);
    q.configured = latency_of(*c);
    q.na = t.renaming ? "n/a: WIR renames registers, so the two sources' banks are the " +
                            std::string("physical registers' the register-allocation stage ") +
                            "picked (Sec. V)"
                      : "";
    q.formula = "latency " + std::to_string(latency_of(*c)) + " + " + overhead_text(*c);
    q.expect = [this, d, c] { return latency_of(*c) + run_overhead(*c, d); };
    q.measure = [this, d] { return cpi(d); };
    q.reusable = {d};
    q.one_chain = true;
    rows.push_back(q);
  }

  // Collector ports: three sources against one.
  {
    const Chain* one = &chain("dep_ffma");
    const Chain* three = &chain("three_srcs");
    const Diff d1 = diff("dep_ffma"), d3 = diff("three_srcs");
    const unsigned r1 = read_cycles(*one);
    Row r;
    r.quantity = "operand read cycles, fma " + regs_text(*three, true);
    // A fixed-stage read hides the extra reads while they fit in its stages.
    r.configured = dispatch_cycles(*three) - dispatch_cycles(*one) + r1;
    r.na = banks_na(*three);
    // Renamed results land in banks the allocation stage picks at run time (WIR; bank-aware:
    // the mapping's bank or the next with a free register), so the two chains' writes meet
    // their reads differently and the difference of the runs may come out under the ports'
    // cycles (ampere-modern-wir: 2.94 of 3): at most there.
    r.bound = p_.spec.renaming;
    if (!t.forward_stages)
      r.expect = [this, d1, d3, one, three, r1] {
        return run_overhead(*three, d3) - run_overhead(*one, d1) + r1;
      };
    r.formula =
        "cycles/instr(3 sources) - cycles/instr(1) + " + std::to_string(r1) + "; " +
        (t.collector_ports ? "max(ceil(3 / arbiter.collector_ports " +
                                 std::to_string(t.collector_ports) + "), sources in one bank)"
                           : std::string("no port limits: 1")) +
        (t.forward_stages ? " = " + std::to_string(read_cycles(*three)) + ", hidden by " +
                                std::to_string(t.forward_stages) + " read stages"
                          : "") +
        (t.ccu_hit_latency || t.decompress_latency || t.rfc ? ", by the share of each form" : "");
    r.measure = [this, d1, d3, r1] { return cpi(d3) - cpi(d1) + r1; };
    r.reusable = {d1, d3};
    rows.push_back(r);
  }

  // Writeback ports: four results against one.
  {
    const Chain* v1 = &chain("sh_v1");
    const Chain* v4 = &chain("sh_v4");
    const Diff d1 = diff("sh_v1"), d4 = diff("sh_v4");
    const unsigned w1 = write_cycles(*v1);
    Row r;
    r.quantity = "write cycles, ld.shared.v4 " + regs_text(*v4, false);
    // With forwarding the writes are off the dependence path; a dependence counter waits
    // for every result's write.
    const bool fwd = t.forward_stages && !counters(*v4);
    r.configured = fwd ? w1 : write_cycles(*v4);
    r.na = banks_na(*v4);
    if (r.na.empty() && coalescing() && t.collector_ports && per_bank(*v4, v4->info.dst_reg, 4) > 1)
      r.na = "n/a: the coalescing arbiter writes two results of one bank in one cycle when " +
             std::string("their slice masks are disjoint, which the values' widths decide");
    if (!fwd)
      r.expect = [this, d1, d4, v1, v4, w1] {
        return mem_overhead(*v4, 0, forms(*v4, d4)) - mem_overhead(*v1, 0, forms(*v1, d1)) + w1;
      };
    r.formula = "cycles/instr(4 results) - cycles/instr(1) + " + std::to_string(w1) +
                "; max(ceil(4 / writeback.ports " + std::to_string(p_.uint("writeback.ports")) +
                "), results in one bank)" +
                (fwd ? " = " + std::to_string(write_cycles(*v4)) +
                           ", off the dependence path with forwarding"
                     : "");
    r.measure = [this, d1, d4, w1] { return cpi(d4) - cpi(d1) + w1; };
    r.reusable = {d1, d4};
    rows.push_back(r);

    // Shared-memory latency: a broadcast pointer chase.
    const unsigned shared = p_.uint("lsu.shared_latency");
    Row s;
    s.quantity = "shared-memory latency";
    s.configured = shared;
    s.na = banks_na(*v1);
    s.formula = "cycles/instr - " + mem_overhead_text(*v1, shared);
    s.measure = [this, d1, v1, shared] {
      return cpi(d1) - mem_overhead(*v1, shared, forms(*v1, d1));
    };
    s.reusable = {d1};
    s.one_chain = true;
    rows.push_back(s);

    // Shared-memory bank conflicts: lane l at word l * stride.
    const unsigned banks = p_.uint("lsu.shared_banks"), width = p_.uint("lsu.shared_bank_bytes");
    const Chain* sc = &chain("sh_stride");
    for (unsigned stride : kStrides) {
      std::map<unsigned, std::vector<uint64_t>> words; // bank -> distinct bank words
      unsigned degree = 1;
      for (unsigned lane = 0; lane < kWarpSize; ++lane) {
        const uint64_t w = uint64_t(lane) * stride * 4 / width;
        auto& b = words[w % banks];
        if (std::find(b.begin(), b.end(), w) == b.end()) b.push_back(w);
        degree = std::max<unsigned>(degree, b.size());
      }
      const Diff ds = diff("sh_stride", {"stride=" + std::to_string(stride)});
      Row q;
      q.quantity = "shared stride " + std::to_string(stride) + ": cycles/access";
      q.configured = degree;
      q.formula = "cycles/instr - cycles/instr(broadcast) + 1; conflict degree over " +
                  std::to_string(banks) + " banks x " + std::to_string(width) + " B";
      // A form the lanes' addresses give the loaded value (W-C: the broadcast value
      // compresses, the strided one may not) changes the register path, not the access.
      q.measure = [this, d1, ds, v1, sc, shared] {
        return cpi(ds) - cpi(d1) + 1 - mem_overhead(*sc, shared, forms(*sc, ds)) +
               mem_overhead(*v1, shared, forms(*v1, d1));
      };
      q.reusable = {d1, ds};
      rows.push_back(q);
    }
  }

  // L1 hit and miss latency: global pointer chases on one line and over new lines.
  {
    const Chain* c = &chain("gl_chase");
    const unsigned line = p_.uint("l1.line_bytes"), bw = p_.uint("memory.bytes_per_cycle");
    const unsigned hit = p_.uint("l1.hit_latency"), mem = p_.uint("memory.latency");
    // Behind an L2 the chase's lines were written by the kernel just before: a write-back
    // (write-allocate) L2 holds them, so an L1 miss hits there; a write-through L2 misses too.
    const bool l2 = p_.find("l2.impl") && p_.str("l2.impl") != "none";
    const bool l2_holds = l2 && p_.str("l2.write_policy") == "write_back";
    const unsigned l2_hit = l2 ? p_.uint("l2.hit_latency") : 0;
    const unsigned noc = p_.uint_or("gpu.interconnect_latency", 0); // each way, SM to L2
    const unsigned miss = hit + 2 * noc + l2_hit + (l2_holds ? 0 : mem + (line + bw - 1) / bw);
    const Diff dh = diff("gl_chase", {"step=0"});
    Row h;
    h.quantity = "L1 hit latency";
    h.configured = hit;
    h.na = banks_na(*c);
    h.formula = "cycles/instr - " + mem_overhead_text(*c, hit);
    h.measure = [this, dh, c, hit] { return cpi(dh) - mem_overhead(*c, hit, forms(*c, dh)); };
    h.reusable = {dh};
    h.one_chain = true;
    rows.push_back(h);
    const unsigned step = std::max(line, p_.uint("lsu.segment_bytes"));
    const Diff dm = diff("gl_chase", {"step=" + std::to_string(step)});
    Row m;
    m.quantity = l2_holds ? "L1 miss latency (L2 hit)" : "L1 miss latency";
    m.configured = miss;
    m.na = banks_na(*c);
    m.formula =
        "cycles/instr - " + mem_overhead_text(*c, miss) + "; l1.hit_latency " +
        std::to_string(hit) +
        (noc ? " + 2 x gpu.interconnect_latency " + std::to_string(noc) : "") +
        (l2 ? " + l2.hit_latency " + std::to_string(l2_hit) : "") +
        (l2_holds ? ""
                  : " + memory.latency " + std::to_string(mem) + " + line " + std::to_string(line) +
                        " B / " + std::to_string(bw) + " B per cycle");
    m.measure = [this, dm, c, miss] { return cpi(dm) - mem_overhead(*c, miss, forms(*c, dm)); };
    m.reusable = {dm};
    m.one_chain = true;
    rows.push_back(m);
  }
}

// Runs every simulation, `jobs` at a time; returns the runs that failed, with their logs.
std::vector<std::string> run_all(const Options& o, const std::vector<RunKey>& runs,
                                 const std::string& dir) {
  std::vector<GpurfRun> children;
  for (const RunKey& r : runs) {
    const std::string out = dir + "/" + r.id();
    fs::create_directories(out);
    std::vector<std::string> args = {"gpurf",
                                     "run",
                                     "--quiet",
                                     "--platform",
                                     o.platform,
                                     "--workload",
                                     kMicroDir + r.kernel + ".yaml"};
    for (auto& v : o.overrides) args.insert(args.end(), {"-p", v});
    for (auto& v : kMicroCompiler) args.insert(args.end(), {"-p", v});
    for (auto& v : r.overrides) args.insert(args.end(), {"-p", v});
    for (auto& v : r.vars) args.insert(args.end(), {"--var", v});
    args.insert(args.end(), {"--out", out});
    children.push_back({args, out + "/log.txt"});
  }
  const std::vector<bool> ok = run_gpurf_all(children, o.jobs);
  std::vector<std::string> failed;
  for (size_t i = 0; i < runs.size(); ++i)
    if (!ok[i]) {
      std::ifstream log(children[i].log);
      failed.push_back(runs[i].id() + ": " + std::string(std::istreambuf_iterator<char>(log), {}));
    }
  return failed;
}

// A row's status: OK, MISMATCH, or n/a (omitted: the row does not apply, `na` says why).
std::string status(const Row& r) {
  if (!r.na.empty()) return "n/a";
  return r.ok ? "OK" : "MISMATCH";
}

void print(const Options& o, const Platform& p, const std::vector<Row>& rows) {
  if (o.format == "json") {
    json j;
    j["platform"] = p.name;
    j["rows"] = json::array();
    j["omitted"] = json::array();
    for (const Row& r : rows)
      if (!r.na.empty())
        j["omitted"].push_back({{"quantity", r.quantity}, {"reason", r.na}});
      else
        j["rows"].push_back({{"quantity", r.quantity},
                             {"configured", r.configured},
                             {"measured", r.measured},
                             {"formula", r.formula},
                             {"bound", r.bound},
                             {"ok", r.ok}});
    std::cout << j.dump(2) << "\n";
    return;
  }
  auto value = [](const Row& r, double v) { return r.na.empty() ? num(v) : std::string("-"); };
  auto what = [](const Row& r) {
    return r.na.empty() ? (r.bound ? "at most; " : "") + r.formula : r.na;
  };
  if (o.format == "markdown") {
    std::cout << "| quantity | configured | measured | formula | |\n|---|---:|---:|---|---|\n";
    for (const Row& r : rows)
      std::cout << "| " << r.quantity << " | " << value(r, r.configured) << " | "
                << value(r, r.measured) << " | " << what(r) << " | " << status(r) << " |\n";
    return;
  }
  size_t w = 8;
  for (const Row& r : rows) w = std::max(w, r.quantity.size());
  std::cout << p.name << "\n"
            << std::left << std::setw(w + 2) << "quantity" << std::right << std::setw(11)
            << "configured" << std::setw(10) << "measured"
            << "  status    formula\n";
  for (const Row& r : rows)
    std::cout << std::left << std::setw(w + 2) << r.quantity << std::right << std::setw(11)
              << value(r, r.configured) << std::setw(10) << value(r, r.measured) << "  "
              << std::left << std::setw(10) << status(r) << what(r) << "\n";
}

} // namespace

int micro_main(const std::vector<std::string>& args) {
  try {
    const Options o = parse(args);
    const Platform p = load_platform(o);
    Micro m(p);
    m.expectations();
    std::string dir = o.out;
    if (dir.empty()) {
      std::string tmpl = (fs::temp_directory_path() / "gpurf-micro.XXXXXX").string();
      if (!mkdtemp(tmpl.data())) throw std::runtime_error("cannot create a temporary folder");
      dir = tmpl;
    }
    fs::create_directories(dir);
    const std::vector<std::string> failed = run_all(o, m.runs, dir);
    if (failed.empty()) m.measure(dir);
    if (o.out.empty()) fs::remove_all(dir);
    if (!failed.empty()) {
      for (auto& f : failed) std::cerr << "error: micro run " << f << "\n";
      return kExitMismatch;
    }
    print(o, p, m.rows);
    const bool all =
        std::all_of(m.rows.begin(), m.rows.end(), [](auto& r) { return r.ok || !r.na.empty(); });
    if (!all) std::cerr << "gpurf micro: a measured value differs from the configuration\n";
    return all ? 0 : kExitMismatch;
  } catch (const BadInput& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const ConfigError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return kExitBadInput;
  }
}

} // namespace gpurf
