#include "gpurf/platform/trace.h"
#include "gpurf/platform/text.h"

#include <fnmatch.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <stdexcept>

#include <systemc>

#include "gpurf/modules/bank/i_bank.h"
#include "gpurf/modules/common/unit.h"
#include "gpurf/platform/config.h"
#include "gpurf/platform/stats.h"

namespace gpurf {

// ---------------------------------------------------------------------------------------
// Chrome trace-event JSON
// ---------------------------------------------------------------------------------------

namespace {

std::string quote(const char* s) {
  std::string q = "\"";
  for (; *s; ++s) {
    const char c = *s;
    if (c == '"' || c == '\\')
      q += '\\', q += c;
    else if (static_cast<unsigned char>(c) < 0x20)
      q += ' ';
    else
      q += c;
  }
  return q + "\"";
}
std::string quote(const std::string& s) { return quote(s.c_str()); }

// tid of track `lane` of `warp`: the warp itself for its first track.
uint64_t tid_of(unsigned warp, unsigned lane) { return warp + (uint64_t(lane) << 16); }

std::string where(const char* what, int bank) {
  return bank < 0 ? std::string(what) : std::string(what) + " " + std::to_string(bank);
}

} // namespace

struct Tracer::Out {
  std::ofstream f;
  bool first = true;
};

Tracer::Tracer(const std::string& path, Cycle from, Cycle to, double clock_ghz)
    : out_(std::make_unique<Out>()), from_(from), to_(to) {
  out_->f.open(path, std::ios::out | std::ios::trunc);
  if (!out_->f)
    throw std::runtime_error("cannot write '" + path + "': " + std::strerror(errno) +
                             " (the folder must exist)");
  out_->f << "{\"displayTimeUnit\":\"ms\",\"otherData\":{\"generator\":\"gpurf\","
          << "\"time\":\"1 us in ts/dur = 1 SM cycle\",\"clock_ghz\":" << clock_ghz
          << ",\"window_from\":" << from_
          << ",\"window_to\":" << (to_ == kNever ? std::string("null") : std::to_string(to_))
          << "},\n\"traceEvents\":[\n";
}

Tracer::~Tracer() { finish(0); }

void Tracer::event(const std::string& json) {
  if (!out_->first) out_->f << ",\n";
  out_->first = false;
  out_->f << json;
  ++events_;
}

void Tracer::track(unsigned pid, unsigned warp, unsigned lane) {
  const uint64_t tid = tid_of(warp, lane);
  if (named_.insert(uint64_t(pid) << 1 | 1).second) {
    event("{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":" + std::to_string(pid) +
          ",\"args\":{\"name\":\"sub-core " + std::to_string(pid) + "\"}}");
    event("{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":" + std::to_string(pid) +
          ",\"args\":{\"sort_index\":" + std::to_string(pid) + "}}");
  }
  if (!named_.insert((uint64_t(pid) << 40 | tid) << 1).second) return;
  const std::string ids = ",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid);
  std::string name = "warp " + std::to_string(warp);
  if (lane) name += " (+" + std::to_string(lane) + ")";
  event("{\"name\":\"thread_name\",\"ph\":\"M\"" + ids + ",\"args\":{\"name\":\"" + name + "\"}}");
  event("{\"name\":\"thread_sort_index\",\"ph\":\"M\"" + ids +
        ",\"args\":{\"sort_index\":" + std::to_string(uint64_t(warp) * 256 + lane) + "}}");
}

void Tracer::slice(const char* name, unsigned pid, uint64_t tid, Cycle a, Cycle b,
                   const std::string& args) {
  a = std::max(a, from_);
  b = std::min(b, to_);
  if (a >= b) return;
  event("{\"name\":" + quote(name) + ",\"cat\":\"inst\",\"ph\":\"X\",\"ts\":" + std::to_string(a) +
        ",\"dur\":" + std::to_string(b - a) + ",\"pid\":" + std::to_string(pid) +
        ",\"tid\":" + std::to_string(tid) + ",\"args\":{" + args + "}}");
}

Tracer::Record& Tracer::open(const WarpInst& i, Cycle now) {
  auto [it, fresh] = live_.try_emplace(&i);
  if (fresh) {
    if (lanes_.size() <= i.warp) lanes_.resize(i.warp + 1);
    auto& lanes = lanes_[i.warp];
    unsigned k = 0;
    while (k < lanes.size() && lanes[k] > now) ++k;
    if (k == lanes.size()) lanes.push_back(0);
    lanes[k] = kNever; // until it retires
    it->second.lane = k;
  }
  return it->second;
}

Tracer::Record* Tracer::find(const WarpInst& i) {
  auto it = live_.find(&i);
  return it == live_.end() ? nullptr : &it->second;
}

void Tracer::on_issue(const WarpInst& i, Cycle now) { open(i, now); }

void Tracer::on_allocated(const WarpInst& i, unsigned collector, Cycle now) {
  open(i, now).collector = collector;
}

void Tracer::on_read(const WarpInst& i, unsigned reg, const char* source, int bank, unsigned row,
                     unsigned slice_mask, Cycle now) {
  if (Record* r = find(i))
    r->instants.push_back(
        {Instant::Read, uint8_t(slice_mask), uint16_t(reg), bank, row, source, now});
}

void Tracer::on_arrived(const WarpInst& i, unsigned reg, Cycle at) {
  if (Record* r = find(i))
    r->instants.push_back({Instant::Arrive, 0, uint16_t(reg), -1, 0, "", at});
}

void Tracer::on_dispatch(const WarpInst& i, Pipe pipe, unsigned latency) {
  if (Record* r = find(i)) {
    r->pipe = static_cast<int>(pipe);
    r->latency = latency;
  }
}

void Tracer::on_write(const WarpInst& i, unsigned reg, const char* dest, int bank, unsigned row,
                      Cycle now) {
  if (Record* r = find(i))
    r->instants.push_back({Instant::Write, 0, uint16_t(reg), bank, row, dest, now});
}

void Tracer::on_retire(const WarpInst& i, Cycle now) {
  auto it = live_.find(&i);
  if (it == live_.end()) return;
  emit(i, it->second, now, true);
  live_.erase(it);
}

void Tracer::emit(const WarpInst& i, const Record& r, Cycle retire, bool retired) {
  const Cycle issue = i.issue_cycle, end = retire + 1;
  lanes_[i.warp][r.lane] = end;
  if (end <= from_ || issue >= to_) return;
  const unsigned pid = i.subcore;
  const uint64_t tid = tid_of(i.warp, r.lane);
  track(pid, i.warp, r.lane);
  const InstInfo& info = *i.info;
  // Stage boundaries. The timing fields of an instruction cut short by the end of the run
  // may be stale (records are recycled): only those its hooks vouch for are used.
  const bool dispatched = retired || r.pipe >= 0;
  const Cycle dispatch = dispatched ? i.dispatch_cycle : end;
  const bool completed = retired || (dispatched && i.complete_cycle >= dispatch);
  const Cycle complete = completed ? i.complete_cycle : end;

  std::string regs_src, regs_dst;
  for (unsigned k = 0; k < info.n_src; ++k)
    regs_src += (k ? " r" : "r") + std::to_string(info.src_reg[k]);
  for (unsigned k = 0; k < info.n_dst; ++k)
    regs_dst += (k ? " r" : "r") + std::to_string(info.dst_reg[k]);
  const std::string pipe = r.pipe >= 0 ? pipe_name(static_cast<Pipe>(r.pipe)) : "";
  std::string a =
      "\"warp\":" + std::to_string(i.warp) + ",\"seq\":" + std::to_string(i.seq) +
      ",\"pc\":" + std::to_string(info.pc) + ",\"ptx_line\":" + std::to_string(info.ptx_line) +
      ",\"cta\":" + std::to_string(i.cta) + ",\"scheduler\":" + std::to_string(i.scheduler) +
      ",\"collector\":" + std::to_string(r.collector) + ",\"pipe\":" + quote(pipe) +
      ",\"src\":" + quote(regs_src) + ",\"dst\":" + quote(regs_dst) +
      ",\"active_mask\":" + quote(hex(i.active_mask)) + ",\"issue\":" + std::to_string(issue);
  if (dispatched) a += ",\"dispatch\":" + std::to_string(dispatch);
  if (completed) a += ",\"complete\":" + std::to_string(complete);
  if (retired) a += ",\"retire\":" + std::to_string(retire);
  if (issue < from_ || end > to_) a += ",\"clipped\":true";
  slice(info.opname, pid, tid, issue, end, a);

  slice("issue", pid, tid, issue, issue + 1, "\"scheduler\":" + std::to_string(i.scheduler));
  slice("collect", pid, tid, issue + 1, dispatch, "\"collector\":" + std::to_string(r.collector));
  if (dispatched) {
    const std::string name = "execute " + pipe;
    slice(name.c_str(), pid, tid, dispatch, complete,
          "\"pipe\":" + quote(pipe) + ",\"latency\":" + std::to_string(complete - dispatch) +
              ",\"pipe_latency\":" + std::to_string(r.latency));
  }
  if (completed) slice("writeback", pid, tid, complete, end, "\"registers\":" + quote(regs_dst));

  const std::string ids = ",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid);
  for (const Instant& x : r.instants) {
    std::string name, args;
    const std::string reg = "r" + std::to_string(x.reg);
    switch (x.kind) {
    case Instant::Read:
      name = "read " + reg;
      args = "\"reg\":" + quote(reg) + ",\"from\":" + quote(where(x.where, x.bank)) +
             ",\"row\":" + std::to_string(x.row) + ",\"slices\":" + quote(hex(x.slice_mask));
      break;
    case Instant::Arrive:
      name = "operand " + reg;
      args = "\"reg\":" + quote(reg);
      break;
    case Instant::Write:
      name = "write " + reg;
      args = "\"reg\":" + quote(reg) + ",\"to\":" + quote(where(x.where, x.bank)) +
             ",\"row\":" + std::to_string(x.row);
      break;
    }
    event("{\"name\":" + quote(name) + ",\"cat\":\"operand\",\"ph\":\"i\",\"s\":\"t\",\"ts\":" +
          std::to_string(x.ts) + ids + ",\"args\":{" + args + "}}");
  }
}

void Tracer::finish(Cycle now) {
  if (finished_) return;
  finished_ = true;
  // Instructions in flight when the run stopped: what they did so far.
  std::vector<std::pair<const WarpInst*, Record*>> left;
  for (auto& [inst, rec] : live_) left.push_back({inst, &rec});
  std::sort(left.begin(), left.end(), [](auto& x, auto& y) {
    return x.first->issue_cycle != y.first->issue_cycle
               ? x.first->issue_cycle < y.first->issue_cycle
               : x.first->warp < y.first->warp;
  });
  for (auto& [inst, rec] : left) emit(*inst, *rec, std::max(now, inst->issue_cycle), false);
  live_.clear();
  out_->f << "\n]}\n";
  out_->f.close();
}

// ---------------------------------------------------------------------------------------
// VCD
// ---------------------------------------------------------------------------------------

namespace {

// One signal the SM offers: how to compute its value after a cycle.
struct ProbeDef {
  std::string name;
  enum Kind { Delta, Level, Busy, Ratio } kind = Delta;
  const uint64_t* a = nullptr;     // Delta: the counter; Busy: reads; Ratio: numerator
  const uint64_t* b = nullptr;     // Busy: writes; Ratio: denominator
  std::function<uint64_t()> level; // Level
  ProbeDef() = default;
  ProbeDef(std::string n, Kind k, const uint64_t* x = nullptr, const uint64_t* y = nullptr)
      : name(std::move(n)), kind(k), a(x), b(y) {}
};

// Every Unit in the module hierarchy (clocked or not: banks have no tick).
void find_units(const std::vector<sc_core::sc_object*>& objs, std::vector<Unit*>& out) {
  for (sc_core::sc_object* o : objs) {
    if (Unit* u = dynamic_cast<Unit*>(o)) out.push_back(u);
    find_units(o->get_child_objects(), out);
  }
}

std::vector<ProbeDef> catalog() {
  std::vector<Unit*> units;
  find_units(sc_core::sc_get_top_level_objects(), units);
  std::vector<ProbeDef> defs;
  auto counter = [](const StatGroup& g, const char* name) -> const uint64_t* {
    for (const Stat& s : g.stats())
      if (s.name == name && s.values.size() == 1) return &s.values[0];
    return nullptr;
  };
  for (StatGroup* g : all_stat_groups()) {
    for (const Stat& s : g->stats()) {
      const std::string base = g->path() + "." + s.name;
      if (!s.is_vector && s.values.size() == 1) {
        defs.push_back({base, ProbeDef::Delta, &s.values[0]});
        continue;
      }
      for (size_t k = 0; k < s.values.size(); ++k)
        defs.push_back(
            {base + "." +
                 (k < s.labels.size() && !s.labels[k].empty() ? s.labels[k] : std::to_string(k)),
             ProbeDef::Delta, &s.values[k]});
    }
    const uint64_t *retired = counter(*g, "warp_instructions"), *cycles = counter(*g, "cycles");
    if (retired && cycles) defs.push_back({g->path() + ".ipc", ProbeDef::Ratio, retired, cycles});
  }
  for (Unit* u : units) {
    const StatGroup& g = u->stats();
    if (dynamic_cast<IBank*>(u)) {
      const uint64_t *r = counter(g, "reads"), *w = counter(g, "writes");
      if (r && w) defs.push_back({g.path() + ".busy", ProbeDef::Busy, r, w});
    }
    std::vector<Unit::Observable> obs;
    u->observables(obs);
    for (auto& [name, read] : obs) {
      ProbeDef d{g.path() + "." + name, ProbeDef::Level};
      d.level = read;
      defs.push_back(std::move(d));
    }
  }
  return defs;
}

} // namespace

struct VcdRecorder::Impl {
  struct Probe {
    ProbeDef def;
    uint64_t prev_a = 0, prev_b = 0;
    std::unique_ptr<sc_core::sc_signal<unsigned>> u;
    std::unique_ptr<sc_core::sc_signal<bool>> busy;
    std::unique_ptr<sc_core::sc_signal<double>> real;
  };
  sc_core::sc_trace_file* tf = nullptr;
  std::vector<Probe> probes;
};

std::vector<std::string> VcdRecorder::available() {
  std::vector<std::string> names;
  for (auto& d : catalog()) names.push_back(d.name);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

VcdRecorder::VcdRecorder(const std::string& path, const std::vector<std::string>& names,
                         const SimClock& clock, bool strict)
    : impl_(std::make_unique<Impl>()) {
  std::vector<ProbeDef> defs = catalog();
  std::vector<std::string> all;
  for (auto& d : defs) all.push_back(d.name);
  std::vector<bool> chosen(defs.size(), false);
  for (const std::string& n : names) {
    bool any = false;
    for (size_t k = 0; k < defs.size(); ++k)
      if (n.find('*') == std::string::npos ? defs[k].name == n
                                           : fnmatch(n.c_str(), defs[k].name.c_str(), 0) == 0)
        any = chosen[k] = true;
    if (!any && strict) {
      const std::string hint = closest(n, all);
      throw ConfigError("--vcd-signals: no signal '" + n + "'" +
                        (hint.empty() ? "" : "; did you mean '" + hint + "'?") +
                        " (--vcd-signals list prints every name)");
    }
  }
  std::string file = path;
  if (file.size() > 4 && file.compare(file.size() - 4, 4, ".vcd") == 0)
    file.resize(file.size() - 4);
  // SystemC opens the file unchecked (and later writes through a failed stream): try first.
  if (!std::ofstream(file + ".vcd"))
    throw ConfigError("--vcd: cannot write '" + file + ".vcd': " + std::strerror(errno) +
                      " (the folder must exist)");
  sc_core::sc_report_handler::set_actions("tracing timescale unit set", sc_core::SC_DO_NOTHING);
  impl_->tf = sc_core::sc_create_vcd_trace_file(file.c_str());
  if (!impl_->tf) throw ConfigError("--vcd: cannot write '" + path + "'");
  const uint64_t ps =
      clock.period.value() * 1000 / sc_core::sc_time(1, sc_core::SC_NS).value(); // period in ps
  if (ps % 1000 == 0)
    impl_->tf->set_time_unit(1, sc_core::SC_NS);
  else
    impl_->tf->set_time_unit(1, sc_core::SC_PS);
  for (size_t k = 0; k < defs.size(); ++k) {
    if (!chosen[k]) continue;
    Impl::Probe p;
    p.def = std::move(defs[k]);
    const std::string sig = "gpurf_vcd_" + std::to_string(impl_->probes.size());
    switch (p.def.kind) {
    case ProbeDef::Busy:
      p.busy = std::make_unique<sc_core::sc_signal<bool>>(sig.c_str());
      sc_core::sc_trace(impl_->tf, *p.busy, p.def.name);
      break;
    case ProbeDef::Ratio:
      p.real = std::make_unique<sc_core::sc_signal<double>>(sig.c_str());
      sc_core::sc_trace(impl_->tf, *p.real, p.def.name);
      break;
    default:
      p.u = std::make_unique<sc_core::sc_signal<unsigned>>(sig.c_str());
      sc_core::sc_trace(impl_->tf, *p.u, p.def.name);
      break;
    }
    names_.push_back(p.def.name);
    impl_->probes.push_back(std::move(p));
  }
}

VcdRecorder::~VcdRecorder() { close(); }

void VcdRecorder::sample() {
  for (Impl::Probe& p : impl_->probes) {
    const ProbeDef& d = p.def;
    switch (d.kind) {
    case ProbeDef::Delta: {
      const uint64_t v = *d.a;
      const unsigned delta = unsigned(v - p.prev_a);
      p.prev_a = v;
      if (p.u->read() != delta) p.u->write(delta);
      break;
    }
    case ProbeDef::Level: {
      const unsigned v = unsigned(d.level());
      if (p.u->read() != v) p.u->write(v);
      break;
    }
    case ProbeDef::Busy: {
      const bool busy = *d.a != p.prev_a || *d.b != p.prev_b;
      p.prev_a = *d.a;
      p.prev_b = *d.b;
      if (p.busy->read() != busy) p.busy->write(busy);
      break;
    }
    case ProbeDef::Ratio: {
      const double v = *d.b ? double(*d.a) / double(*d.b) : 0.0;
      if (p.real->read() != v) p.real->write(v);
      break;
    }
    }
  }
}

void VcdRecorder::close() {
  if (impl_->tf) sc_core::sc_close_vcd_trace_file(impl_->tf);
  impl_->tf = nullptr;
}

} // namespace gpurf
