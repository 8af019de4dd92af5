#include "gpurf/platform/gpu.h"
#include "gpurf/platform/text.h"

#include <algorithm>
#include <array>
#include <bitset>
#include <exception>
#include <iostream>
#include <map>
#include <sstream>

#include <tlm_utils/simple_target_socket.h>

#include "gpurf/modules/common/txn.h"
#include "gpurf/modules/l1/i_l1.h"
#include "gpurf/modules/l2/i_l2.h"
#include "gpurf/platform/at_port.h"
#include "gpurf/platform/check/identities.h"
#include "gpurf/platform/host_interface.h"
#include "gpurf/platform/lt_port.h"
#include "gpurf/platform/sm.h"

namespace gpurf {

// The SMs' L1s to the L2 (or the memory port): a fixed latency each way, no contention (the
// L2's banks and MSHRs and the memory's channel are where requests queue). Debug transport is
// forwarded; DMI is refused so that every access is timed.
//
// One request at a time goes through to the shared units: with `memory_port: lt` a target may
// wait inside a request, and another SM's request then waits here for it instead of entering
// the L2 half-way through the first one's lookups. Never contended when the target answers at
// once (no request can start while another is in flight).
class Gpu::Interconnect final : public Unit {
public:
  // One socket per SM (tagged with its index; bound at once, unlike a multi-socket, so the
  // front-end can place buffers through it before the simulation starts).
  using In = tlm_utils::simple_target_socket_tagged<Interconnect>;
  std::vector<std::unique_ptr<In>> in;
  tlm_utils::simple_initiator_socket<Interconnect> out;

  Interconnect(sc_core::sc_module_name nm, const UnitContext& c, unsigned sms, unsigned latency,
               bool sync)
      : Unit(nm, c), out("out"), latency_(latency), sync_(sync),
        requests_(stats().vector(
            "requests", sms, "requests from each SM's L1", "requests",
            energy::scope("SM-to-L2 interconnect: a request's header crossing the chip (uncore)"))),
        bytes_(stats().vector("bytes", sms, "bytes of each SM's requests", "bytes",
                              energy::scope("SM-to-L2 interconnect: bytes crossing the chip"))) {
    for (unsigned s = 0; s < sms; ++s) {
      in.push_back(std::make_unique<In>(("in" + std::to_string(s)).c_str()));
      in.back()->register_b_transport(this, &Interconnect::b_transport, int(s));
      in.back()->register_transport_dbg(this, &Interconnect::transport_dbg, int(s));
      in.back()->register_get_direct_mem_ptr(this, &Interconnect::get_direct_mem_ptr, int(s));
    }
  }

private:
  void b_transport(int sm, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
    const Cycle me = clock_->now; // the issuing SM's cycle (others may run while we wait)
    // gpu.quantum_sync: the request enters the shared units when SystemC's time reaches it, so
    // that decoupled SMs reach the L2 and the memory in time order (docs/vp.md).
    if (sync_) {
      const sc_core::sc_time at = clock_->time(me);
      if (at > sc_core::sc_time_stamp()) sc_core::wait(at - sc_core::sc_time_stamp());
    }
    // First come, first served: an SM whose requests all wait in the target is always behind
    // SystemC's time and never yields otherwise, so with a plain flag it took the channel again
    // in the delta it freed it, and the other SMs waited for its whole kernel (docs/vp.md "The
    // quantum and several SMs").
    const uint64_t ticket = next_ticket_++;
    while (ticket != serving_) sc_core::wait(free_);
    clock_->now = me;
    ++requests_[size_t(sm)];
    bytes_[size_t(sm)] += gp.get_data_length();
    delay += clock_->time(latency_);
    out->b_transport(gp, delay);
    delay += clock_->time(latency_);
    ++serving_;
    free_.notify(sc_core::SC_ZERO_TIME);
  }
  unsigned transport_dbg(int, tlm::tlm_generic_payload& gp) { return out->transport_dbg(gp); }
  bool get_direct_mem_ptr(int, tlm::tlm_generic_payload&, tlm::tlm_dmi& dmi) {
    return refuse_dmi(dmi);
  }

  const unsigned latency_;
  const bool sync_;
  Stat &requests_, &bytes_;
  uint64_t next_ticket_ = 0, serving_ = 0; // requests in order of arrival
  sc_core::sc_event free_;
};

// One SM's share of the launch: its warp slots are [base, base + slots) of the front-end's.
class Gpu::SmView final : public IFrontend {
public:
  explicit SmView(IFrontend& f) : f_(&f) {}
  void place(unsigned base, unsigned slots) {
    base_ = base;
    slots_ = slots;
  }
  // Hosted: the SM runs `f`'s next launch in its slots [base, base + slots). The counts the
  // units watch go on from their values: a new offer (the new warps are peeked), and no slot
  // looks freed by the switch alone.
  void use(IFrontend& f, unsigned base, unsigned slots) {
    const uint64_t epoch = offer_epoch();
    std::vector<uint64_t> seen(std::max<size_t>(finished_base_.size(), std::max(slots, slots_)));
    for (unsigned w = 0; w < seen.size(); ++w) seen[w] = warps_finished(w);
    f_ = &f;
    place(base, slots);
    epoch_base_ = epoch + 1 - f_->offer_epoch();
    finished_base_ = seen;
    for (unsigned w = 0; w < slots_; ++w) finished_base_[w] -= f_->warps_finished(base_ + w);
  }
  Occupancy start(const SmLimits&, unsigned, IFunctionalMemory&) override { return {}; }
  // The SM may have more warp slots than the launch gives it (registers bound them).
  const InstInfo* peek(unsigned w) override { return w < slots_ ? f_->peek(base_ + w) : nullptr; }
  uint64_t offer_epoch() const override { return epoch_base_ + f_->offer_epoch(); }
  void execute(unsigned w, WarpInst& out) override {
    f_->execute(base_ + w, out);
    out.warp = w;
  }
  void retire(const WarpInst& inst) override { f_->retire(inst); } // by CTA slot, GPU-wide
  bool done() const override { return f_->done_in(base_, slots_); }
  std::string describe_warp(unsigned w) const override {
    return w < slots_ ? f_->describe_warp(base_ + w) : "no CTA (beyond the launch's warp slots)";
  }
  std::string progress() const override { return f_->progress(); }
  unsigned predicate_registers() const override { return f_->predicate_registers(); }
  unsigned occupancy_registers() const override { return f_->occupancy_registers(); }
  unsigned hardware_registers() const override { return f_->hardware_registers(); }
  unsigned bound_warps() const override { return f_->bound_warps(); }
  bool next_divergent(unsigned w) override { return w < slots_ && f_->next_divergent(base_ + w); }
  LaneValues register_value(unsigned w, unsigned r) const override {
    return w < slots_ ? f_->register_value(base_ + w, r) : LaneValues{};
  }
  uint64_t warps_finished(unsigned w) const override {
    const uint64_t base = w < finished_base_.size() ? finished_base_[w] : 0;
    return base + (w < slots_ ? f_->warps_finished(base_ + w) : 0);
  }

private:
  IFrontend* f_;
  unsigned base_ = 0, slots_ = 0;
  // Hosted: what the counts of the kernels run before add (modulo 2^64: only changes matter).
  uint64_t epoch_base_ = 0;
  std::vector<uint64_t> finished_base_;
};

// The sc_module a GPU's units are below (not the flat GPU's: it only calls back at the start of
// the simulation). `build` runs in its constructor, so that what it builds is its child.
class Gpu::Scope final : public sc_core::sc_module {
public:
  Scope(sc_core::sc_module_name nm, const std::function<void()>& build,
        std::function<void()> at_start)
      : sc_core::sc_module(nm), at_start_(std::move(at_start)) {
    if (build) build();
  }

private:
  void start_of_simulation() override { at_start_(); }
  std::function<void()> at_start_;
};

// Functional accesses before the simulation starts. A target may answer debug transport only
// once elaboration has ended (tlm_utils' multi-passthrough sockets register their callbacks
// then): the writes it refuses until then are kept here, read back from here, and written
// when the simulation starts (flush()).
class Gpu::EarlyMemory final : public IFunctionalMemory {
public:
  explicit EarlyMemory(IFunctionalMemory& m) : mem_(m) {}
  void read(uint64_t addr, void* dst, unsigned len) override {
    if (!early_) return mem_.read(addr, dst, len);
    try {
      mem_.read(addr, dst, len);
    } catch (const WorkloadError& e) {
      if (!covered(addr, len))
        throw WorkloadError(std::string(e.what()) +
                            " (before sc_start: a memory target that answers debug transport "
                            "only once elaboration has ended, as a tlm_utils multi-passthrough "
                            "socket, cannot be read yet; call gpu.start() once the simulation "
                            "runs, e.g. after sc_start(sc_core::SC_ZERO_TIME))");
    }
    if (pages_.empty()) return; // nothing kept (the memory took every write): no byte loop
    for (unsigned i = 0; i < len; ++i)
      if (const Page* p = page(addr + i); p && p->valid[(addr + i) % kPage])
        static_cast<unsigned char*>(dst)[i] = p->bytes[(addr + i) % kPage];
  }
  void write(uint64_t addr, const void* src, unsigned len) override {
    if (!early_) return mem_.write(addr, src, len);
    auto* b = static_cast<const unsigned char*>(src);
    bool kept = false;
    try {
      mem_.write(addr, src, len);
    } catch (const WorkloadError&) {
      kept = true;
    }
    if (!kept && pages_.empty()) return;
    for (unsigned i = 0; i < len; ++i) // the memory holds a byte, or this does: not both
      if (kept) {
        Page& p = pages_[(addr + i) / kPage];
        p.valid.set((addr + i) % kPage);
        p.bytes[(addr + i) % kPage] = b[i];
      } else if (auto it = pages_.find((addr + i) / kPage); it != pages_.end()) {
        it->second.valid.reset((addr + i) % kPage);
      }
  }
  // At the start of the simulation: writes what was kept; "" or why the target refused.
  std::string flush() {
    early_ = false;
    std::string failed;
    for (auto& [n, p] : pages_)
      for (size_t i = 0; i < kPage && failed.empty();) {
        if (!p.valid[i]) {
          ++i;
          continue;
        }
        size_t j = i;
        while (j < kPage && p.valid[j]) ++j;
        try {
          mem_.write(n * kPage + i, p.bytes.data() + i, unsigned(j - i));
        } catch (const WorkloadError& e) {
          failed = std::string(e.what()) +
                   " (written by gpu.start() before sc_start, refused by the memory target "
                   "even once the simulation started: check its address map)";
        }
        i = j;
      }
    pages_.clear();
    return failed;
  }

private:
  static constexpr size_t kPage = 4096;
  struct Page {
    std::array<unsigned char, kPage> bytes{};
    std::bitset<kPage> valid;
  };
  const Page* page(uint64_t a) const {
    auto it = pages_.find(a / kPage);
    return it == pages_.end() ? nullptr : &it->second;
  }
  bool covered(uint64_t addr, unsigned len) const {
    for (unsigned i = 0; i < len; ++i)
      if (const Page* p = page(addr + i); !p || !p->valid[(addr + i) % kPage]) return false;
    return true;
  }
  IFunctionalMemory& mem_;
  bool early_ = true;
  std::map<uint64_t, Page> pages_;
};

namespace {

// Every GPU of the process: for default names and bases and the overlap check.
std::vector<const Gpu*>& live_gpus() {
  static std::vector<const Gpu*> gpus;
  return gpus;
}

constexpr uint64_t kBaseStep = uint64_t(4) << 30; // default gpu.address_base: GPUs this far apart

// Where the GPU's units go: "" (the top level, today's names) for the first unnamed GPU built
// at the top level; else `name` (or `gpu`, `gpu_1`, ... whichever is free) below the module
// being built.
std::string scope_path(const char* name) {
  const sc_core::sc_object* parent = sc_core::sc_get_current_object();
  const bool flat_taken = std::any_of(live_gpus().begin(), live_gpus().end(),
                                      [](const Gpu* g) { return g->path().empty(); });
  if (!name && !parent && !flat_taken) return "";
  const std::string prefix = parent ? std::string(parent->name()) + "." : "";
  if (name && sc_core::sc_find_object((prefix + name).c_str()))
    throw ConfigError("Gpu '" + prefix + name + "': an sc_object of that name exists already");
  if (name) return prefix + name;
  std::string leaf = "gpu";
  for (unsigned k = 1; sc_core::sc_find_object((prefix + leaf).c_str()); ++k)
    leaf = "gpu_" + std::to_string(k);
  return prefix + leaf;
}

} // namespace

Gpu::Gpu(Params& top, IFrontend& frontend, unsigned regs_per_thread,
         const std::vector<Observer*>& observers)
    : Gpu(nullptr, top, frontend, regs_per_thread, observers) {}

Gpu::Gpu(const char* name, Params& top, IFrontend& frontend, unsigned regs_per_thread,
         const std::vector<Observer*>& observers)
    : frontend_(frontend), path_(scope_path(name)), running_(&frontend),
      stats_(path_.empty() ? "gpu" : path_ + ".gpu"),
      cycles_(
          stats_.scalar("cycles", "cycles until the last SM ended", "cycles",
                        energy::no_event("the last SM's end; leakage counts each SM's cycles"))),
      retired_(stats_.scalar("warp_instructions", "warp instructions retired by every SM",
                             "instructions", energy::no_event("the SMs' sum"))) {
  stats_.ratio("ipc", "warp instructions per cycle, all SMs", "instructions/cycle",
               {"warp_instructions"}, {"cycles"});
  roots_.push_back("gpu");
  auto at_start = [this] { at_start_of_simulation(); };
  if (path_.empty()) {
    build(top, regs_per_thread, observers);
    scope_ = std::make_unique<Scope>(sc_core::sc_gen_unique_name("gpurf_gpu"), nullptr, at_start);
  } else {
    // Built inside the scope's constructor; a bad platform is thrown once the scope stands
    // (its units, members of this, go before it).
    std::exception_ptr failed;
    scope_ = std::make_unique<Scope>(
        path_.substr(path_.rfind('.') + 1).c_str(),
        [&] {
          try {
            build(top, regs_per_thread, observers);
          } catch (...) {
            failed = std::current_exception();
          }
        },
        at_start);
    if (failed) std::rethrow_exception(failed);
  }
  live_gpus().push_back(this);
}

void Gpu::build(Params& top, unsigned regs_per_thread, const std::vector<Observer*>& observers) {
  done_ = std::make_unique<sc_core::sc_event>(path_.empty() ? "gpu_done" : "done");
  Params& g = top.sub("gpu", "the GPU around the SMs (docs/vp.md)");
  const unsigned n = g.get_uint("sm_count", 1,
                                "SMs running the launch (its CTAs spread over them), sharing "
                                "the interconnect, the L2 and the memory port",
                                1, 256);
  const unsigned noc_latency = g.get_uint(
      "interconnect_latency", 0, "cycles each way between an SM's L1 and the L2", 0, 1u << 20);
  const std::string port =
      g.get_choice("memory_port", "direct",
                   "direct: the SMs are SC_METHODs in step with SystemC's time and the memory "
                   "target must answer b_transport without waiting (annotated delay); lt: the "
                   "SMs are SC_THREADs decoupled by the global quantum and the target may wait; "
                   "at: the 4-phase approximately-timed protocol, several transactions "
                   "outstanding, the caches' MSHRs complete at BEGIN_RESP (docs/vp.md)",
                   {"direct", "lt", "at"});
  const bool lt = port == "lt", at = port == "at";
  const unsigned burst = g.get_uint("burst_bytes", 128,
                                    "at: largest transaction; a request is split into naturally "
                                    "aligned power-of-two bursts of at most this",
                                    4, 1u << 16);
  if (burst & (burst - 1)) g.fail("burst_bytes", std::to_string(burst) + " is not a power of two");
  const bool hosted = g.get_bool("hosted", false,
                                 "the SMs idle until a virtual platform's host launches a "
                                 "kernel through the host interface (docs/vp.md); kernels run "
                                 "one after another");
  const unsigned quantum =
      g.get_uint("quantum_cycles", 0,
                 "lt: sets the TLM global quantum to this many cycles; 0: leaves it as the "
                 "virtual platform set it (SystemC's default 0: the SMs stay in lock-step)",
                 0, 1u << 30);
  const unsigned memory_timeout = g.get_uint(
      "memory_timeout_cycles", 1000000,
      "lt, at: a memory transaction (at) or b_transport (lt) unanswered for this many cycles "
      "stops the SMs with an error listing what is outstanding; 0: wait for ever",
      0, 1u << 31);
  const bool quantum_sync = g.get_bool(
      "quantum_sync", false,
      "lt: an SM's request to the interconnect waits until SystemC's time reaches its cycle, so "
      "that decoupled SMs reach the shared L2 and memory in time order (the quantum then moves "
      "no cycles; a context switch per L1 miss)");
  place(g, hosted); // before any unit is built: a refused base builds nothing
  // Hosted: every kernel of the GPU's module compiled; the SMs' register space holds the
  // largest (and what gpu.hosted_registers / hosted_predicates ask for).
  unsigned capacity = regs_per_thread, predicates = 0;
  if (hosted) {
    auto* ptx = dynamic_cast<PtxFrontend*>(&frontend_);
    if (!ptx) g.fail("hosted", "a hosted GPU runs PTX kernels; this front-end is not one");
    hosted_regs_ = g.get_uint("hosted_registers", 0,
                              "hosted: data registers per thread the SMs hold for any kernel a "
                              "host loads later (0: the most a kernel of the GPU's module uses)",
                              0, 4096);
    hosted_preds_ = g.get_uint("hosted_predicates", 0,
                               "hosted: predicate registers per thread the SMs hold for any "
                               "kernel a host loads later (0: the most a kernel of the GPU's "
                               "module uses)",
                               0, 4096);
    hosted_regs_ = std::max(hosted_regs_, regs_per_thread);
    data_next_ = ptx->options().data_base; // relocated by place()
    data_end_ = data_next_ + PtxFrontend::kDataBytes;
    LaunchSpec spec = ptx->launch();
    try { // named as the host named it (a program's "module 0 (sm_75)"), else by its file
      add_module(spec, spec.file.empty() ? spec.ptx_path : spec.file, ptx);
    } catch (const WorkloadError& e) {
      g.fail("hosted", e.what());
    }
    for (size_t i = 0; i < modules_[0].kernels.size(); ++i)
      if (modules_[0].kernels[i] == ptx) gpu_kernel_ = uint32_t(i);
    capacity = hosted_regs_;
    predicates = hosted_preds_;
  } else if (auto* ptx = dynamic_cast<PtxFrontend*>(&frontend_);
             ptx && ptx->launch().several_kernels) {
    // An application of several kernels: every entry of every module it lists, compiled now.
    app_ = true;
    data_next_ = ptx->options().data_base; // relocated by place()
    data_end_ = data_next_ + PtxFrontend::kDataBytes;
    const LaunchSpec& app = ptx->launch();
    add_module(app, app.ptx_path, ptx);
    for (size_t i = 1; i < app.modules.size(); ++i) {
      LaunchSpec spec;
      spec.file = app.file;
      spec.module = app.modules[i];
      spec.modules = {app.modules[i]};
      spec.ptx_path = app.ptx_paths[i];
      spec.ptx_paths = {app.ptx_paths[i]};
      add_module(spec, spec.ptx_path, nullptr);
    }
    capacity = std::max(regs_per_thread, hosted_regs_);
    predicates = hosted_preds_;
  }
  // A trace or a waveform follows one SM's units and warp slots.
  if (n > 1 && !observers.empty())
    g.fail("sm_count", "an instruction trace (--trace) or a user observer follows one SM; " +
                           std::to_string(n) + " SMs given: run it with gpu.sm_count: 1");
  Sm::Mode mode{lt, hosted, predicates, {}};
  for (const Module& m : modules_)
    for (const PtxFrontend* k : m.kernels)
      if (k)
        mode.kernels.push_back({k->regs_per_thread(), k->preds_per_thread(),
                                k->occupancy_registers(), k->hardware_registers(),
                                k->bound_warps()});
  for (unsigned s = 0; s < n; ++s) {
    views_.push_back(std::make_unique<SmView>(frontend_));
    const std::string name = n == 1 ? "sm" : "sm" + std::to_string(s);
    sms_.push_back(
        std::make_unique<Sm>(name.c_str(), top, *views_.back(), capacity, observers, mode));
    Sm& sm = *sms_.back();
    roots_.push_back(sm.basename());
    sm.share_clock(&clock_);
    sm.on_fail([this](Sm& failed, const std::string& why) { // the others stop issuing too
      if (!error_.empty()) return;
      error_ = sm_count() > 1 ? std::string(failed.name()) + ": " + why : why;
      for (auto& other : sms_)
        if (other.get() != &failed)
          other->halt("halted: " + std::string(failed.name()) + " failed");
    });
    sm.on_stop([this](Sm& stopped) {
      if (!stopped.error().empty() && error_.empty()) {
        error_ =
            sm_count() > 1 ? std::string(stopped.name()) + ": " + stopped.error() : stopped.error();
        for (auto& other : sms_) other->halt("halted: " + std::string(stopped.name()) + " failed");
      }
      if (++stopped_ < sms_.size()) return;
      cycles_ = cycles();
      retired_ = retired();
      done_->notify(stopped.ahead());
      if (pause_ && at_) sc_core::sc_pause();
    });
  }
  clock_.period = sms_[0]->clock().period;
  if (auto* ptx = dynamic_cast<PtxFrontend*>(&frontend_)) give_clock(*ptx);
  if (quantum) {
    if (!lt) g.fail("quantum_cycles", "a quantum needs memory_port: lt (decoupled SMs)");
    tlm::tlm_global_quantum::instance().set(clock_.time(quantum));
  }
  if (quantum_sync && !lt)
    g.fail("quantum_sync", "waiting for SystemC's time needs memory_port: lt (SMs as threads)");
  UnitContext c = default_context("interconnect");
  c.shape = &sms_[0]->shape();
  c.clock = &clock_;
  noc_ = std::make_unique<Interconnect>("interconnect", c, n, noc_latency, quantum_sync);
  roots_.push_back(noc_->basename());
  for (unsigned s = 0; s < n; ++s) sms_[s]->memory_port().bind(*noc_->in[s]);
  Params& l2p = top.sub("l2", "L2 cache shared by the SMs, between the interconnect and the "
                              "memory port (docs/platforms.md)");
  const std::string impl =
      l2p.get_choice("impl", "none", "implementation of the l2", IL2::Registry::names());
  c.name = "l2";
  l2_ = IL2::Registry::create(impl, l2p, c);
  if (l2_) {
    check_request_size(sms_[0]->largest_request(), l2_->largest_served());
    roots_.push_back(l2_->basename());
    noc_->out.bind(l2_->in);
    for (auto& sm : sms_) sm->report_also(l2_.get());
  }
  if (hosted) host_ = std::make_unique<HostInterface>("host", *this);
  // An LT or AT port sits between the L2 (without one, the interconnect) and the socket.
  auto behind_caches = [&](auto& port_in) {
    if (l2_)
      l2_->mem.bind(port_in);
    else
      noc_->out.bind(port_in);
  };
  c.name = "memory_port";
  auto timed_out = [this](const std::string& why) { // the memory never answered
    if (error_.empty()) error_ = why;
    for (auto& sm : sms_) sm->abort(why); // its requests never complete: no drain
  };
  if (at) {
    at_ = std::make_unique<AtPort>("memory_port", c, burst, memory_timeout);
    at_->on_timeout(timed_out);
    behind_caches(at_->in);
    for (auto& sm : sms_)
      sm->wait_on_memory(at_->response_event(), [p = at_.get()] { return p->outstanding() > 0; });
  }
  if (lt) {
    lt_ = std::make_unique<LtPort>("memory_port", c, memory_timeout);
    lt_->on_timeout(timed_out);
    behind_caches(lt_->in);
  }
  if (at || lt) roots_.push_back("memory_port");
  early_ = std::make_unique<EarlyMemory>(sms_[0]->functional_memory());
}

void Gpu::place(Params& g, bool hosted) {
  auto* ptx = dynamic_cast<PtxFrontend*>(&frontend_);
  const std::vector<PtxFrontend::Region> own =
      ptx ? ptx->regions(!hosted) : std::vector<PtxFrontend::Region>{};
  // The first overlap of our regions, moved up by `base`, with another GPU's; "" if none.
  auto overlap = [&](uint64_t base) -> std::string {
    for (const Gpu* other : live_gpus())
      for (const Region& o : other->regions_)
        for (const PtxFrontend::Region& r : own)
          if (r.base + base < o.base + o.bytes && o.base < r.base + base + r.bytes)
            return std::string(r.what) + " at [" + hex(r.base + base) + ", " +
                   hex(r.base + base + r.bytes) + ") overlap " + o.what + " of the GPU " +
                   (other->path_.empty() ? "at the top level" : "'" + other->path_ + "'") +
                   " at [" + hex(o.base) + ", " + hex(o.base + o.bytes) + ")";
    return "";
  };
  uint64_t free = 0;
  while (!overlap(free).empty()) free += kBaseStep;
  const int64_t kTop = int64_t(1) << 48;
  address_base_ = uint64_t(g.get_int(
      "address_base", int64_t(free),
      "added to every address gpurf places in global memory (the launch file's buffers, "
      "frontend.data_base, frontend.window_base); default: 0 for the first GPU of a process, "
      "the next free multiple of 4 GiB for others, so that GPUs sharing a memory never "
      "overlap (docs/vp.md \"Several GPUs\")",
      0, kTop));
  if (const std::string bad = overlap(address_base_); !bad.empty())
    g.fail("address_base", hex(address_base_) + ": " + bad +
                               "; GPUs of one process are taken to share one memory: give each "
                               "its own gpu.address_base (docs/vp.md \"Several GPUs\")");
  if (!ptx) return;
  ptx->relocate(address_base_);
  for (const PtxFrontend::Region& r : own)
    regions_.push_back({r.base + address_base_, r.bytes, r.what});
}

Gpu::~Gpu() {
  auto& g = live_gpus();
  g.erase(std::remove(g.begin(), g.end(), this), g.end());
}

void Gpu::at_start_of_simulation() {
  if (const std::string failed = early_->flush(); !failed.empty()) {
    error_ = failed;
    for (auto& sm : sms_) sm->halt(failed);
  }
  // Not started yet: the SMs idle until start() (called once the simulation runs).
  if (!started_ && !host_) {
    held_ = true;
    for (auto& sm : sms_) sm->hold();
  }
}

nlohmann::ordered_json Gpu::stats_json(bool with_descriptions) const {
  const std::string prefix = path_.empty() ? "" : path_ + ".";
  return dump_stats_json_of(
      [&](const std::string& path, std::string& key) {
        if (path.compare(0, prefix.size(), prefix) != 0) return false;
        key = path.substr(prefix.size());
        return std::find(roots_.begin(), roots_.end(), key.substr(0, key.find('.'))) !=
               roots_.end();
      },
      with_descriptions);
}

tlm::tlm_initiator_socket<>& Gpu::memory_port() {
  if (lt_) return lt_->out;
  if (at_) return at_->out;
  if (l2_) return l2_->mem;
  return noc_->out;
}

IFunctionalMemory& Gpu::functional_memory() { return *early_; }

void Gpu::run_ahead(bool on) {
  for (auto& sm : sms_) sm->run_ahead(on);
}

HostInterface& Gpu::host() {
  if (!host_) throw ConfigError("gpu.hosted is false: the GPU has no host interface");
  return *host_;
}

bool Gpu::launch(const PtxFrontend::HostLaunch& h, uint32_t id) {
  error_.clear();
  stopped_ = 0;
  try {
    PtxFrontend* k = kernel(id);
    if (!k) {
      std::ostringstream o;
      o << "KERNEL 0x" << std::hex << id << ": no such kernel (module " << std::dec
        << (id >> kEntryBits) << ", entry " << (id & ((1u << kEntryBits) - 1))
        << "); the kernels: " << kernel_names();
      throw WorkloadError(o.str());
    }
    // A failed kernel is drained; one the SMs could not drain (the watchdog, an error inside
    // a unit) leaves its instructions in the pipelines, and no reset is modelled.
    for (auto& sm : sms_)
      if (!sm->drained())
        throw WorkloadError(std::string(sm->name()) + " still holds instructions of a kernel "
                                                      "that failed; the GPU takes no more kernels");
    switch_to(*k, [&](const SmLimits& limits) {
      return k->start_hosted(limits, sm_count(), functional_memory(), h);
    });
  } catch (const std::exception& e) {
    error_ = e.what();
    return false;
  }
  for (auto& sm : sms_) sm->restart();
  return true;
}

PtxFrontend::FastForward Gpu::fast_forward(const PtxFrontend::HostLaunch& h, uint32_t id) {
  PtxFrontend::FastForward r;
  PtxFrontend* k = kernel(id);
  if (!k) {
    r.refused = "no such kernel";
    return r;
  }
  try {
    // The kernel's limits (occupancy, shared memory) as its timed launch would have them; the
    // SMs then go back to the kernel they ran last.
    const SmLimits limits = use_kernel(*k);
    if (auto* last = dynamic_cast<PtxFrontend*>(running_); last && last != k) use_kernel(*last);
    return k->fast_forward(limits, sm_count(), functional_memory(), h);
  } catch (const std::exception& e) {
    r.refused = e.what();
  }
  return r;
}

void Gpu::give_clock(PtxFrontend& k) {
  k.set_clock([this] { return uint64_t(clock_.now); },
              [this] { return uint64_t(clock_.time(clock_.now).to_seconds() * 1e9 + 0.5); });
}

const SmLimits& Gpu::use_kernel(PtxFrontend& k) {
  // The kernel's own registers and occupancy.
  for (unsigned s = 0; s < sm_count(); ++s) {
    views_[s]->use(k, 0, 0);
    sms_[s]->set_kernel_registers(k.regs_per_thread());
  }
  const SmLimits& limits = sms_[0]->limits();
  for (unsigned s = 0; s < sm_count(); ++s)
    views_[s]->use(k, s * limits.warp_slots(), limits.warp_slots());
  return limits;
}

Occupancy Gpu::switch_to(PtxFrontend& k, const std::function<Occupancy(const SmLimits&)>& start) {
  const SmLimits& limits = use_kernel(k);
  running_ = &k;
  const Occupancy o = start(limits);
  for (auto& sm : sms_) sm->set_occupancy(o);
  return o;
}

bool Gpu::app_launch(Occupancy& o) {
  auto& app = static_cast<PtxFrontend&>(frontend_);
  PtxFrontend::AppLaunch a;
  if (!app.next_app(functional_memory(), a)) return false;
  PtxFrontend& k = *kernel(find_kernel(a.kernel));
  o = switch_to(k, [&](const SmLimits& limits) {
    return k.start_app_launch(limits, sm_count(), functional_memory(), a);
  });
  return true;
}

Occupancy Gpu::start() {
  if (host_) throw WorkloadError("Gpu::start: a hosted GPU runs what its host launches");
  if (started_) throw WorkloadError("Gpu::start: called twice (the next launch: next_launch())");
  if (sc_core::sc_get_status() & (sc_core::SC_STOPPED | sc_core::SC_END_OF_SIMULATION))
    throw WorkloadError("Gpu::start: the simulation has ended");
  Occupancy o;
  if (app_) {
    auto& app = static_cast<PtxFrontend&>(frontend_);
    app.begin(functional_memory());
    if (!app_launch(o)) throw WorkloadError(app.launch().file + ": the steps launch nothing");
  } else {
    const SmLimits& limits = sms_[0]->limits();
    for (unsigned s = 0; s < sm_count(); ++s)
      views_[s]->place(s * limits.warp_slots(), limits.warp_slots());
    o = frontend_.start(limits, sm_count(), functional_memory());
  }
  started_ = true;
  for (auto& sm : sms_) sm->set_occupancy(o);
  if (held_) { // the simulation started without a launch: the SMs idle since then
    held_ = false;
    stopped_ = 0;
    for (auto& sm : sms_) sm->restart();
  }
  return o;
}

bool Gpu::next_launch() {
  Occupancy o;
  if (!finished()) return false;
  if (app_ ? !app_launch(o)
           : !frontend_.next_launch(sms_[0]->limits(), sm_count(), functional_memory(), o))
    return false;
  stopped_ = 0;
  for (auto& sm : sms_) {
    sm->set_occupancy(o);
    sm->restart();
  }
  return true;
}

bool Gpu::stopped() const { return stopped_ == sms_.size(); }

bool Gpu::finished() const {
  return std::all_of(sms_.begin(), sms_.end(), [](const auto& s) { return s->finished(); });
}

Cycle Gpu::cycles() const {
  Cycle c = 0;
  for (const auto& s : sms_) c = std::max(c, s->cycles());
  return c;
}

uint64_t Gpu::retired() const {
  uint64_t n = 0;
  for (const auto& s : sms_) n += s->retired();
  return n;
}

std::string Gpu::broken_identities(const nlohmann::ordered_json& stats) const {
  if (!sms_[0]->checker()) return "";
  // Each scheduler's cycles hold against its own SM's; the rest against the sums.
  EventCounts counts;
  size_t in_flight = 0;
  for (const auto& sm : sms_) {
    counts += sm->checker()->counts();
    in_flight += sm->checker()->in_flight();
  }
  std::string broken;
  for (const std::string& b : check_identities(stats, counts, sms_[0]->shape().slices))
    broken += "\n  " + b;
  if (in_flight)
    broken += "\n  " + std::to_string(in_flight) + " instructions issued but never retired";
  return broken;
}

} // namespace gpurf
